func.func @f64_to_f32(%a: tensor<4x16xf64>, %b: tensor<16x8xf64>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xf64>, tensor<16x8xf64> -> tensor<4x8xf32>
  return
}
