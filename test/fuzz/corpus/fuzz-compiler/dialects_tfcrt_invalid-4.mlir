tfcrt.kernel @k pointwise (memref<4xf32>) -> tensor<4xf32> {
^bb0(%x: memref<4xf32>):
  %0 = tfc.iota dim 0 : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
