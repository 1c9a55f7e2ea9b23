tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32> {
^bb0(%x: tensor<1024xf32>):
  %0 = tfc.relu %x : tensor<1024xf32>
  tfcrt.yield %0 : tensor<1024xf32>
}
