func.func @f64_stays(%a: tensor<4x4xf64> {tfc.input = "a"},
                     %b: tensor<4x4xf64> {tfc.param = "b"}) -> tensor<4x4xf64> {
  %c = tfc.matmul %a, %b : tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  return %c : tensor<4x4xf64>
}
