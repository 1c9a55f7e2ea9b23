tfcrt.kernel @k pointwise (tensor<4x8xf32>) -> tensor<4x8xf32> {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  tfcrt.yield %0 : tensor<4x8xf32>
}
