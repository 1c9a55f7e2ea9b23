func.func @broadcast_rank(%x: tensor<2x4xf32>) -> tensor<4xf32> {
  %0 = tfc.broadcast_to %x : tensor<2x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
