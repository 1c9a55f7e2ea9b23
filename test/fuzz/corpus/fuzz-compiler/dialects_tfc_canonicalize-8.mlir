func.func @fold_unary_splat() -> tensor<1024x1024xf32> {
  %a = tfc.constant dense<4.0> : tensor<1024x1024xf32>
  %0 = tfc.sqrt %a : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
