tfcrt.arena size 1024 alignment 64
tfcrt.entry @forward {
  %a = tfcrt.arena_view offset 0 : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %x = tfcrt.external input "x" : memref<4x8xf32>
  %db = tfcrt.arena_view offset 64 : memref<8xf32>
  tfcrt.gemm %a, %b bias %db -> %c aux %x m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue dgelu_bgrad alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>, memref<4x8xf32>
  tfcrt.return
}
