func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
