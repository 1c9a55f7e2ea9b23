func.func @attention_mask_type(%q: tensor<8x32xf32>, %m: tensor<8x8xi32>) {
  %0 = tfc.attention %q, %q, %q mask %m : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x8xi32> -> tensor<8x32xf32>
  return
}
