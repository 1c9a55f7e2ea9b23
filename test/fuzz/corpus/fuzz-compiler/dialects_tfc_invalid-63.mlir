func.func @scalar_operand(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfc.reduce_max %x dims [0] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}
