tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf16> in_place [0] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xf16>
  tfcrt.yield %0 : tensor<4xf16>
}
