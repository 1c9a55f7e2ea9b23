tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> in_place [1] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
