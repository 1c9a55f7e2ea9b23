func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi32>, %h: tensor<2xbf16>) -> tensor<4x8xf32> {
  %0 = tfc.neg %x : tensor<4x8xf32>
  %1 = tfc.abs %i : tensor<4xi32>
  %2 = tfc.exp %0 : tensor<4x8xf32>
  %3 = tfc.log %2 : tensor<4x8xf32>
  %4 = tfc.sqrt %3 : tensor<4x8xf32>
  %5 = tfc.rsqrt %4 : tensor<4x8xf32>
  %6 = tfc.tanh %5 : tensor<4x8xf32>
  %cos = tfc.cos %6 : tensor<4x8xf32>
  %sin = tfc.sin %cos : tensor<4x8xf32>
  %7 = tfc.sigmoid %6 : tensor<4x8xf32>
  %8 = tfc.relu %7 : tensor<4x8xf32>
  %9 = tfc.silu %h : tensor<2xbf16>
  %10 = tfc.abs %8 : tensor<4x8xf32>
  return %10 : tensor<4x8xf32>
}
