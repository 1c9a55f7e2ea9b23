func.func @concat_kept(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %0 = tfc.concat %x, %x dim 0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
