func.func @gelu_grad_types(%dy: tensor<4x8xf32>, %x: tensor<8xf32>) {
  %dx = "tfc.gelu_grad"(%dy, %x) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}
