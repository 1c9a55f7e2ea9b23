func.func @softmax(%x: tensor<16x4x64x64xf32>, %h: tensor<4x8xbf16>) -> (tensor<16x4x64x64xf32>, tensor<4x8xbf16>) {
  %p = tfc.softmax %x dim -1 : tensor<16x4x64x64xf32>
  %q = tfc.softmax %h dim 0 : tensor<4x8xbf16>
  return %p, %q : tensor<16x4x64x64xf32>, tensor<4x8xbf16>
}
