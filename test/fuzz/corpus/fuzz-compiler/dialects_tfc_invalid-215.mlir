func.func @silu_grad_int(%dy: tensor<4xi32>, %x: tensor<4xi32>) {
  %dx = "tfc.silu_grad"(%dy, %x) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}
