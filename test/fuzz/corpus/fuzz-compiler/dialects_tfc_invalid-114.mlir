func.func @softmax_result(%x: tensor<4x8xf32>) {
  %0 = "tfc.softmax"(%x) <{dim = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}
