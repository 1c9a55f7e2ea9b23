tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xbf16>
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> bf16 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x2xf32> -> memref<4x2xbf16>
  tfcrt.return
}
