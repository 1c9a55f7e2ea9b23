tfcrt.kernel @k pointwise (tensor<4x4xf32>) -> tensor<4x4xf32> in_place [0] {
^bb0(%x: tensor<4x4xf32>):
  %0 = tfc.transpose %x, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  tfcrt.yield %0 : tensor<4x4xf32>
}
