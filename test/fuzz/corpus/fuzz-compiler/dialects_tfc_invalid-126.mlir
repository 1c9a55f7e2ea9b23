func.func @attention_mask_shape(%q: tensor<2x8x32xf32>, %m: tensor<8x4xi1>) {
  %0 = tfc.attention %q, %q, %q mask %m : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<8x4xi1> -> tensor<2x8x32xf32>
  return
}
