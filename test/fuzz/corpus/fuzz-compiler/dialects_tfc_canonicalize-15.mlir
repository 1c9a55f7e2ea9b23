func.func @reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tfc.reshape %0 : tensor<32xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
