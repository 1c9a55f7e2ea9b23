func.func @reshape_kept(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}
