func.func @outputs_of_two_sizes(%x: tensor<8x16xbf16>) -> (tensor<8x16xf32>, tensor<4x16xf32>) {
  %0 = tfc.convert %x : tensor<8x16xbf16> -> tensor<8x16xf32>
  %1 = tfc.slice %0 [0, 0] to [8, 16] step [2, 1] : tensor<8x16xf32> -> tensor<4x16xf32>
  %2 = tfc.exp %1 : tensor<4x16xf32>
  return %0, %2 : tensor<8x16xf32>, tensor<4x16xf32>
}
