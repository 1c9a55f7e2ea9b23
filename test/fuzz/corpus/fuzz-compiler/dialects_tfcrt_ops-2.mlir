tfcrt.arena size 0 alignment 256
tfcrt.entry @batched {
  %a = tfcrt.external input "a" : memref<4x8x32xbf16>
  %b = tfcrt.external param "b" : memref<16x8xbf16>
  %c = tfcrt.external output "c" : memref<4x32x16xf32>
  tfcrt.gemm %a, %b -> %c transpose_a transpose_b m 32 n 16 k 8 batch 4 lda 32 ldb 8 ldc 16
      stride_a 256 stride_b 0 stride_c 512 types(bf16, bf16) -> f32 compute f32
      epilogue none alpha 0.5 beta 1.0 : memref<4x8x32xbf16>, memref<16x8xbf16> -> memref<4x32x16xf32>
  %d = tfcrt.external input "d" : memref<2x2xf64>
  %e = tfcrt.external output "e" : memref<2x2xf64>
  tfcrt.gemm %d, %d -> %e m 2 n 2 k 2 batch 1 lda 2 ldb 2 ldc 2 stride_a 0 stride_b 0
      stride_c 0 types(f64, f64) -> f64 compute f64 epilogue none alpha 1.0 beta 0.0
      : memref<2x2xf64>, memref<2x2xf64> -> memref<2x2xf64>
  tfcrt.return
}
