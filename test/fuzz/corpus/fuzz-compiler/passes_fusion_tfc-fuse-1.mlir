func.func @qkv_split(%mm: tensor<2x8x48xf32>, %b: tensor<48xf32>) -> (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) {
  %qkv = tfc.add %mm, %b : tensor<2x8x48xf32>, tensor<48xf32>
  %q0 = tfc.slice %qkv [0, 0, 0] to [2, 8, 16] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>
  %q1 = tfc.reshape %q0 : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %q = tfc.transpose %q1, [0, 2, 1, 3] : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  %k0 = tfc.slice %qkv [0, 0, 16] to [2, 8, 32] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>
  %k1 = tfc.reshape %k0 : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %k = tfc.transpose %k1, [0, 2, 1, 3] : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  %v0 = tfc.slice %qkv [0, 0, 32] to [2, 8, 48] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>
  %v1 = tfc.reshape %v0 : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %v = tfc.transpose %v1, [0, 2, 1, 3] : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  return %q, %k, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>
}
