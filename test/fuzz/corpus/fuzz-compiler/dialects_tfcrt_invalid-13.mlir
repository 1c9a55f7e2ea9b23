tfcrt.kernel @k pointwise (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) in_place [0, 0] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  %1 = tfc.abs %x : tensor<4xf32>
  tfcrt.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
}
