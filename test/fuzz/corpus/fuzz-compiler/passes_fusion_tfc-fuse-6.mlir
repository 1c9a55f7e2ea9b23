func.func @layer_norm_backward_in_one_kernel(%dy: tensor<8x16xf32>, %x: tensor<8x16xf32>, %mean: tensor<8x1xf32>, %rstd: tensor<8x1xf32>, %w: tensor<16xf32>, %res: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %dx = tfc.layer_norm_grad_input %dy, %x, %mean, %rstd weight %w : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %sum = tfc.add %res, %dx : tensor<8x16xf32>, tensor<8x16xf32>
  %db = tfc.reduce_sum %sum dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %xc = tfc.sub %x, %mean : tensor<8x16xf32>, tensor<8x1xf32>
  %xhat = tfc.mul %xc, %rstd : tensor<8x16xf32>, tensor<8x1xf32>
  %g = tfc.mul %dy, %xhat : tensor<8x16xf32>, tensor<8x16xf32>
  %dw = tfc.reduce_sum %g dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %dbeta = tfc.reduce_sum %dy dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %sum, %db, %dw, %dbeta : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
