func.func @step(%w: tensor<4xf32> {tfc.param = "w"}, %g: tensor<4xf32>,
                %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>,
                %s: tensor<i64>) -> tensor<4xf32> {
  %w2, %m2, %v2 = tfc.adamw %w, %g, %m, %v, %lr, %s : tensor<4xf32>, tensor<4xf32>, tensor<f32>
  return %w2 : tensor<4xf32>
}
