func.func @loss(%w1: tensor<16x8xf32> {tfc.param = "fc1.weight"},
                %w2: tensor<4x16xf32> {tfc.param = "fc2.weight"},
                %x: tensor<2x8xf32> {tfc.input = "x"},
                %y: tensor<2xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w1 transpose_b : tensor<2x8xf32>, tensor<16x8xf32> -> tensor<2x16xf32>
  %a = tfc.relu %h : tensor<2x16xf32>
  %l = tfc.matmul %a, %w2 transpose_b : tensor<2x16xf32>, tensor<4x16xf32> -> tensor<2x4xf32>
  %loss = tfc.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
