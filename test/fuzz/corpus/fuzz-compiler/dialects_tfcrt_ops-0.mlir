tfcrt.arena size 1310720 alignment 256
tfcrt.kernel @k0 pointwise (tensor<16x64x128xf32>, tensor<128xf32>) -> tensor<16x64x128xf32> {
^bb0(%a: tensor<16x64x128xf32>, %b: tensor<128xf32>):
  %0 = tfc.add %a, %b : tensor<16x64x128xf32>, tensor<128xf32>
  tfcrt.yield %0 : tensor<16x64x128xf32>
}
tfcrt.entry @forward {
  %w = tfcrt.external param "wte.weight" : memref<256x128xf32>
  %t = tfcrt.external input "tokens" : memref<16x64xi64>
  %b = tfcrt.external param "b" : memref<128xf32>
  %out = tfcrt.external output "out0" : memref<16x64x256xf32>
  %e = tfcrt.arena_view offset 0 : memref<16x64x128xf32>
  %x = tfcrt.arena_view offset 524288 : memref<16x64x128xf32>
  %f = tfcrt.alias %e : memref<16x64x128xf32> -> memref<1024x128xf32>
  tfcrt.launch @k0 (%e, %b) -> (%x) : (memref<16x64x128xf32>, memref<128xf32>) -> memref<16x64x128xf32>
  tfcrt.gemm %x, %w -> %out transpose_b m 1024 n 256 k 128 batch 1 lda 128 ldb 128 ldc 256
      stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none
      alpha 1.0 beta 0.0 : memref<16x64x128xf32>, memref<256x128xf32> -> memref<16x64x256xf32>
  tfcrt.copy %e -> %x : memref<16x64x128xf32>
  tfcrt.copy %x -> %f : memref<16x64x128xf32> -> memref<1024x128xf32>
  tfcrt.return
}
