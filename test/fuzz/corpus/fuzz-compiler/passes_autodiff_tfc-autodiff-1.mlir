func.func @loss(%t: tensor<6x4xf32> {tfc.param = "wte"}, %u: tensor<4xf32> {tfc.param = "unused"}, %ids: tensor<3xi64> {tfc.input = "ids"}, %l: tensor<3xi64> {tfc.input = "labels"}) -> tensor<f32> {
  %e = tfc.embedding %t, %ids : tensor<6x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  %logits = tfc.matmul %e, %t transpose_b : tensor<3x4xf32>, tensor<6x4xf32> -> tensor<3x6xf32>
  %loss = tfc.cross_entropy %logits, %l : tensor<3x6xf32>, tensor<3xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
