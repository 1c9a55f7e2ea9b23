func.func @max_of_splat() -> tensor<4xf32> {
  %c = tfc.constant dense<-1.5> : tensor<4x8xf32>
  %0 = tfc.reduce_max %c dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
