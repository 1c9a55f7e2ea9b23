tfcrt.kernel @k0 column_reduction (tensor<1024x64xf32>) -> tensor<64xf32> {
^bb0(%x: tensor<1024x64xf32>):
  %0 = tfc.reduce_sum %x dims [0] : tensor<1024x64xf32> -> tensor<64xf32>
  tfcrt.yield %0 : tensor<64xf32>
}
