tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x4xf32>
  tfcrt.gemm %a, %a -> %a m 4 n 4 k 4 batch 1 lda 4 ldb 4 ldc 4 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x4xf32>, memref<4x4xf32> -> memref<4x4xf32>
  tfcrt.return
}
