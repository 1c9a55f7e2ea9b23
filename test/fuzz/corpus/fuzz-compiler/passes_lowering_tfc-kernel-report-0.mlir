tfcrt.arena size 3145728 alignment 256
tfcrt.kernel @k0 pointwise (tensor<512x512xf32>, tensor<512xf32>) -> tensor<512x512xf32> {
^bb0(%a: tensor<512x512xf32>, %b: tensor<512xf32>):
  %0 = tfc.add %a, %b : tensor<512x512xf32>, tensor<512xf32>
  tfcrt.yield %0 : tensor<512x512xf32>
}
tfcrt.kernel @k1 pointwise (tensor<512x512xf32>) -> tensor<512x512xf32> {
^bb0(%a: tensor<512x512xf32>):
  %0 = tfc.relu %a : tensor<512x512xf32>
  tfcrt.yield %0 : tensor<512x512xf32>
}
tfcrt.kernel @k2 pointwise (tensor<512x512xf32>) -> tensor<512x512xf32> {
^bb0(%x: tensor<512x512xf32>):
  %r = tfc.relu %x : tensor<512x512xf32>
  tfcrt.yield %r : tensor<512x512xf32>
}
tfcrt.kernel @k3 pointwise (tensor<512x512xf32>) -> tensor<512x512xf32> {
^bb0(%x: tensor<512x512xf32>):
  %c = tfc.constant dense<2.0> : tensor<f32>
  %r = tfc.mul %x, %c : tensor<512x512xf32>, tensor<f32>
  tfcrt.yield %r : tensor<512x512xf32>
}
tfcrt.entry @forward {
  %x = tfcrt.external input "x" : memref<512x512xf32>
  %b = tfcrt.external param "b" : memref<512xf32>
  %w = tfcrt.external param "w" : memref<512x512xf32>
  %o = tfcrt.external output "out0" : memref<512x512xf32>
  %o2 = tfcrt.external output "out1" : memref<512x512xf32>
  %t = tfcrt.arena_view offset 0 : memref<512x512xf32>
  %u = tfcrt.arena_view offset 1048576 : memref<512x512xf32>
  %v = tfcrt.arena_view offset 2097152 : memref<512x512xf32>
  tfcrt.launch @k0 (%x, %b) -> (%t) : (memref<512x512xf32>, memref<512xf32>) -> memref<512x512xf32>
  tfcrt.launch @k1 (%t) -> (%u) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.gemm %u, %w -> %v transpose_b m 512 n 512 k 512 batch 1 lda 512 ldb 512 ldc 512
      stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none
      alpha 1.0 beta 0.0 : memref<512x512xf32>, memref<512x512xf32> -> memref<512x512xf32>
  tfcrt.launch @k2 (%v) -> (%t) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.launch @k1 (%t) -> (%o) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.copy %o -> %o2 : memref<512x512xf32>
  %o3 = tfcrt.external output "out2" : memref<512x512xf32>
  tfcrt.gemm %u, %w bias %b -> %o3 transpose_b m 512 n 512 k 512 batch 1 lda 512 ldb 512
      ldc 512 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32
      epilogue relu_bias alpha 1.0 beta 0.0
      : memref<512x512xf32>, memref<512x512xf32>, memref<512xf32> -> memref<512x512xf32>
  tfcrt.return
}
tfcrt.entry @eval {
  %x = tfcrt.external input "x" : memref<512x512xf32>
  %o = tfcrt.external output "out0" : memref<512x512xf32>
  tfcrt.launch @k3 (%x) -> (%o) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.return
}
