func.func @rms_norm_rank(%x: tensor<8xf32>) {
  %y, %r = tfc.rms_norm %x normalized_rank 2 : (tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>)
  return
}
