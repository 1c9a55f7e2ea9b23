func.func @batched_gemm_no_epilogue(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %b: tensor<8xf32>) -> tensor<2x8x8xf32> {
  %s = tfc.matmul %q, %k transpose_b : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %0 = tfc.add %s, %b : tensor<2x8x8xf32>, tensor<8xf32>
  return %0 : tensor<2x8x8xf32>
}
