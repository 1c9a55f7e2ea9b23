func.func @small_producer_kept_apart(%b: tensor<16xbf16>, %x: tensor<8x16xf32>) -> (tensor<16xf32>, tensor<8x16xf32>) {
  %0 = tfc.convert %b : tensor<16xbf16> -> tensor<16xf32>
  %1 = tfc.add %x, %0 : tensor<8x16xf32>, tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<8x16xf32>
}
