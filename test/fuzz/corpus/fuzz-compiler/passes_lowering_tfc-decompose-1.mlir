func.func @causal_rectangular(%q: tensor<3x4x16xf32>, %k: tensor<3x6x16xf32>, %v: tensor<3x6x8xf32>) -> tensor<3x4x8xf32> {
  %0 = tfc.attention %q, %k, %v causal : tensor<3x4x16xf32>, tensor<3x6x16xf32>, tensor<3x6x8xf32> -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}
