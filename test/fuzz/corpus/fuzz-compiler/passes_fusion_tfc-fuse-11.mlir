func.func @column_with_pointwise_sibling(%dy: tensor<32x16xf32>, %x: tensor<32x16xf32>) -> (tensor<16xf32>, tensor<32x16xf32>) {
  %0 = tfc.reduce_sum %dy dims [0] : tensor<32x16xf32> -> tensor<16xf32>
  %1 = tfc.gelu_grad %dy, %x : tensor<32x16xf32>
  return %0, %1 : tensor<16xf32>, tensor<32x16xf32>
}
