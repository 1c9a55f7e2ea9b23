tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  tfcrt.gemm %a, %b -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue gelu_bias alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32> -> memref<4x8xf32>
  tfcrt.return
}
