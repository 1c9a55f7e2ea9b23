func.func @concat_empty() -> tensor<4xf32> {
  %0 = "tfc.concat"() {dim = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
