func.func @layer_norm_grad_weight(%dy: tensor<2x4x8xf32>, %x: tensor<2x4x8xf32>, %s: tensor<2x1x1xf32>, %w: tensor<8xf32>) {
  %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %s, %s weight %w normalized_rank 2 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}
