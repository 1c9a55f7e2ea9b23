func.func @layer_norm_grad_no_weight(%dy: tensor<3x4x24xf32>, %x: tensor<3x4x24xf32>, %m: tensor<3x1x1xf32>, %r: tensor<3x1x1xf32>) -> tensor<3x4x24xf32> {
  %dx = tfc.layer_norm_grad %dy, %x, %m, %r normalized_rank 2 : (tensor<3x4x24xf32>, tensor<3x4x24xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>) -> tensor<3x4x24xf32>
  return %dx : tensor<3x4x24xf32>
}
