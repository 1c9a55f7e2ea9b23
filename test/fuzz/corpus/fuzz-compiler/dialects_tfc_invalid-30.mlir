func.func @reshape_dynamic(%x: tensor<4x8xf32>) -> tensor<?xf32> {
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
