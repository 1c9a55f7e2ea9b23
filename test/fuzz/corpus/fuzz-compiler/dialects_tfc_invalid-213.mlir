func.func @softmax_grad_types(%dy: tensor<4x8xf32>, %y: tensor<4x8xbf16>) {
  %dx = "tfc.softmax_grad"(%dy, %y) <{dim = -1 : i64}> : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}
