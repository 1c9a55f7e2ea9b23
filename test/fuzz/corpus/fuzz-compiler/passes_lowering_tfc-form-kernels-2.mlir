func.func @reshape_outside(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = tfc.neg %x : tensor<4x8xf32>
  %1 = tfc.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  %2 = tfc.exp %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}
