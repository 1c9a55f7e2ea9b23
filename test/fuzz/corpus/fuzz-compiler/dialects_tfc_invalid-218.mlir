func.func @cross_entropy_grad_dloss(%d: tensor<bf16>, %l: tensor<4x8xbf16>, %y: tensor<4xi64>) {
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<bf16>, tensor<4x8xbf16>, tensor<4xi64> -> tensor<4x8xbf16>
  return
}
