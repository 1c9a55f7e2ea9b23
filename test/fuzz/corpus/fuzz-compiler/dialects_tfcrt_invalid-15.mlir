tfcrt.kernel @k pointwise (tensor<1x4xf32>, tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<4x4xf32>) in_place [0, -1] {
^bb0(%x: tensor<1x4xf32>, %y: tensor<4x4xf32>):
  %0 = tfc.neg %x : tensor<1x4xf32>
  %1 = tfc.add %x, %y : tensor<1x4xf32>, tensor<4x4xf32>
  tfcrt.yield %0, %1 : tensor<1x4xf32>, tensor<4x4xf32>
}
