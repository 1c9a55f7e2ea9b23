func.func @constant_resource() {
  %0 = tfc.constant dense_resource<blob> : tensor<4xf32>
  return
}
