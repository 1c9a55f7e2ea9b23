// RUN: tfc-opt %s --split-input-file | FileCheck %s
// Round trip through the generic form too: printing and parsing it must agree.
// RUN: tfc-opt %s --split-input-file --mlir-print-op-generic | tfc-opt --split-input-file | FileCheck %s

// Every tfcrt op round-trips in custom and generic form, in the order a lowered
// module uses them (docs/execution.md section 2).

// A complete lowered module: arena, a pointwise kernel, an entry binding every kind
// of buffer and running a launch, a linear-layer GEMM and copies.
// CHECK-LABEL: tfcrt.arena size 1310720 alignment 256
// CHECK: tfcrt.kernel @k0 pointwise (tensor<16x64x128xf32>, tensor<128xf32>) -> tensor<16x64x128xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<16x64x128xf32>, %[[B:.*]]: tensor<128xf32>):
// CHECK-NEXT: %[[SUM:.*]] = tfc.add %[[A]], %[[B]] : tensor<16x64x128xf32>, tensor<128xf32>
// CHECK-NEXT: tfcrt.yield %[[SUM]] : tensor<16x64x128xf32>
// CHECK: tfcrt.entry @forward {
// CHECK-NEXT: %[[W:.*]] = tfcrt.external param "wte.weight" : memref<256x128xf32>
// CHECK-NEXT: %[[T:.*]] = tfcrt.external input "tokens" : memref<16x64xi64>
// CHECK-NEXT: %[[BIAS:.*]] = tfcrt.external param "b" : memref<128xf32>
// CHECK-NEXT: %[[OUT:.*]] = tfcrt.external output "out0" : memref<16x64x256xf32>
// CHECK-NEXT: %[[E:.*]] = tfcrt.arena_view offset 0 : memref<16x64x128xf32>
// CHECK-NEXT: %[[X:.*]] = tfcrt.arena_view offset 524288 : memref<16x64x128xf32>
// CHECK-NEXT: %[[F:.*]] = tfcrt.alias %[[E]] : memref<16x64x128xf32> -> memref<1024x128xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[E]], %[[BIAS]]) -> (%[[X]]) : (memref<16x64x128xf32>, memref<128xf32>) -> memref<16x64x128xf32>
// CHECK-NEXT: tfcrt.gemm %[[X]], %[[W]] -> %[[OUT]] transpose_b m 1024 n 256 k 128 batch 1 lda 128 ldb 128 ldc 256 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.000000e+00 beta 0.000000e+00 : memref<16x64x128xf32>, memref<256x128xf32> -> memref<16x64x256xf32>
// CHECK-NEXT: tfcrt.copy %[[E]] -> %[[X]] : memref<16x64x128xf32>
// CHECK-NEXT: tfcrt.copy %[[X]] -> %[[F]] : memref<16x64x128xf32> -> memref<1024x128xf32>
// CHECK-NEXT: tfcrt.return
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

// -----

// A kernel with several outputs and no inputs, and kernels of the reduction and gather
// kinds; a launch with several outputs; i1 buffers are allowed.
// CHECK-LABEL: tfcrt.arena size 4096 alignment 64
// CHECK: tfcrt.kernel @iota pointwise () -> (tensor<8xi64>, tensor<8xi1>) {
// CHECK: tfcrt.yield %{{.*}}, %{{.*}} : tensor<8xi64>, tensor<8xi1>
// CHECK: tfcrt.kernel @norm row_reduction (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>) {
// CHECK: tfcrt.kernel @colsum column_reduction (tensor<8x16xf32>) -> tensor<16xf32> {
// CHECK: tfcrt.kernel @gather gather (tensor<32x16xf32>, tensor<8xi64>) -> tensor<8x16xf32> {
// CHECK: tfcrt.entry @train_step {
// CHECK: tfcrt.launch @iota () -> (%{{.*}}, %{{.*}}) : () -> (memref<8xi64>, memref<8xi1>)
// CHECK: tfcrt.launch @norm (%{{.*}}) -> (%{{.*}}, %{{.*}}, %{{.*}}) : (memref<8x16xf32>) -> (memref<8x16xf32>, memref<8x1xf32>, memref<8x1xf32>)
tfcrt.arena size 4096 alignment 64
tfcrt.kernel @iota pointwise () -> (tensor<8xi64>, tensor<8xi1>) {
  %0 = tfc.iota dim 0 : tensor<8xi64>
  %c = tfc.constant dense<3> : tensor<i64>
  %1 = tfc.compare lt, %0, %c : tensor<8xi64>, tensor<i64>
  tfcrt.yield %0, %1 : tensor<8xi64>, tensor<8xi1>
}
tfcrt.kernel @norm row_reduction (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>) {
^bb0(%x: tensor<8x16xf32>):
  %y, %mean, %rstd = tfc.layer_norm %x : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  tfcrt.yield %y, %mean, %rstd : tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>
}
tfcrt.kernel @colsum column_reduction (tensor<8x16xf32>) -> tensor<16xf32> {
^bb0(%x: tensor<8x16xf32>):
  %0 = tfc.reduce_sum %x dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  tfcrt.yield %0 : tensor<16xf32>
}
tfcrt.kernel @gather gather (tensor<32x16xf32>, tensor<8xi64>) -> tensor<8x16xf32> {
^bb0(%table: tensor<32x16xf32>, %ids: tensor<8xi64>):
  %0 = tfc.embedding %table, %ids : tensor<32x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  tfcrt.yield %0 : tensor<8x16xf32>
}
tfcrt.entry @train_step {
  %x = tfcrt.external input "x" : memref<8x16xf32>
  %ids = tfcrt.arena_view offset 0 : memref<8xi64>
  %mask = tfcrt.arena_view offset 64 : memref<8xi1>
  %y = tfcrt.arena_view offset 512 : memref<8x16xf32>
  %mean = tfcrt.arena_view offset 1024 : memref<8x1xf32>
  %rstd = tfcrt.arena_view offset 1088 : memref<8x1xf32>
  tfcrt.launch @iota () -> (%ids, %mask) : () -> (memref<8xi64>, memref<8xi1>)
  tfcrt.launch @norm (%x) -> (%y, %mean, %rstd) : (memref<8x16xf32>) -> (memref<8x16xf32>, memref<8x1xf32>, memref<8x1xf32>)
  tfcrt.return
}

// -----

// A batched GEMM with transposes, a broadcast (stride 0) operand, bf16 operands with an
// f32 result, and non-default alpha and beta.
// CHECK-LABEL: tfcrt.entry @batched
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_a transpose_b m 32 n 16 k 8 batch 4 lda 32 ldb 8 ldc 16 stride_a 256 stride_b 0 stride_c 512 types(bf16, bf16) -> f32 compute f32 epilogue none alpha 5.000000e-01 beta 1.000000e+00 : memref<4x8x32xbf16>, memref<16x8xbf16> -> memref<4x32x16xf32>
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} m 2 n 2 k 2 {{.*}} types(f64, f64) -> f64 compute f64
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

// -----

// GEMM epilogues: a bias row over the product, bias + GELU storing the GELU input
// (aux) for the backward, a bare ReLU, a bare GELU storing its input, and the backward
// GELU gradient reading that input (aux) and writing the bias gradient (bias), then
// the other four (relu_bias, gelu, gelu_bias, dgelu), so every gemm_epilogue case
// verifies against its row of common/GemmEpilogues.h; the optional operands print only
// when present.
// CHECK-LABEL: tfcrt.entry @epilogues
// CHECK: tfcrt.gemm %[[X:.*]], %[[W:.*]] bias %[[B:.*]] -> %[[Y:.*]] transpose_b m 64 n 16 k 32 {{.*}} epilogue bias alpha 1.000000e+00 beta 0.000000e+00 : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16> -> memref<64x16xbf16>
// CHECK: tfcrt.gemm %[[X]], %[[W]] bias %[[B]] -> %{{.*}} aux %{{.*}} transpose_b m 64 n 16 k 32 {{.*}} epilogue gelu_aux_bias alpha 1.000000e+00 beta 0.000000e+00 : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16> -> memref<64x16xbf16>, memref<64x16xbf16>
// CHECK: tfcrt.gemm %[[X]], %[[W]] -> %[[Y]] transpose_b {{.*}} epilogue relu alpha 1.000000e+00 beta 0.000000e+00 : memref<64x32xbf16>, memref<16x32xbf16> -> memref<64x16xbf16>
// CHECK: tfcrt.gemm %[[X]], %[[W]] -> %{{.*}} aux %{{.*}} transpose_b {{.*}} epilogue gelu_aux alpha 1.000000e+00 beta 0.000000e+00 : memref<64x32xbf16>, memref<16x32xbf16> -> memref<64x16xbf16>, memref<64x16xbf16>
// CHECK: tfcrt.gemm %[[X]], %[[W]] bias %{{.*}} -> %[[Y]] aux %{{.*}} transpose_b {{.*}} epilogue dgelu_bgrad
// CHECK: tfcrt.gemm %[[X]], %[[W]] bias %[[B]] -> %[[Y]] transpose_b {{.*}} epilogue relu_bias
// CHECK: tfcrt.gemm %[[X]], %[[W]] -> %[[Y]] transpose_b {{.*}} epilogue gelu alpha
// CHECK: tfcrt.gemm %[[X]], %[[W]] bias %[[B]] -> %[[Y]] transpose_b {{.*}} epilogue gelu_bias
// CHECK: tfcrt.gemm %[[X]], %[[W]] -> %[[Y]] aux %{{.*}} transpose_b {{.*}} epilogue dgelu alpha
tfcrt.arena size 4096 alignment 256
tfcrt.entry @epilogues {
  %x = tfcrt.external input "x" : memref<64x32xbf16>
  %w = tfcrt.external param "w" : memref<16x32xbf16>
  %b = tfcrt.external param "b" : memref<16xbf16>
  %y = tfcrt.external output "y" : memref<64x16xbf16>
  %h = tfcrt.external output "h" : memref<64x16xbf16>
  %pre = tfcrt.arena_view offset 0 : memref<64x16xbf16>
  tfcrt.gemm %x, %w bias %b -> %y transpose_b m 64 n 16 k 32 batch 1 lda 32 ldb 32 ldc 16
      stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute f32
      epilogue bias alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16> -> memref<64x16xbf16>
  tfcrt.gemm %x, %w bias %b -> %h aux %pre transpose_b m 64 n 16 k 32 batch 1 lda 32
      ldb 32 ldc 16 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16
      compute f32 epilogue gelu_aux_bias alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16>
      -> memref<64x16xbf16>, memref<64x16xbf16>
  tfcrt.gemm %x, %w -> %y transpose_b m 64 n 16 k 32 batch 1 lda 32 ldb 32 ldc 16
      stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute f32
      epilogue relu alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16> -> memref<64x16xbf16>
  tfcrt.gemm %x, %w -> %h aux %pre transpose_b m 64 n 16 k 32 batch 1 lda 32 ldb 32
      ldc 16 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute f32
      epilogue gelu_aux alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16> -> memref<64x16xbf16>, memref<64x16xbf16>
  %db = tfcrt.arena_view offset 2048 : memref<16xbf16>
  tfcrt.gemm %x, %w bias %db -> %y aux %pre transpose_b m 64 n 16 k 32 batch 1 lda 32
      ldb 32 ldc 16 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16
      compute f32 epilogue dgelu_bgrad alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16>
      -> memref<64x16xbf16>, memref<64x16xbf16>
  tfcrt.gemm %x, %w bias %b -> %y transpose_b m 64 n 16 k 32 batch 1 lda 32 ldb 32 ldc 16
      stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute f32
      epilogue relu_bias alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16> -> memref<64x16xbf16>
  tfcrt.gemm %x, %w -> %y transpose_b m 64 n 16 k 32 batch 1 lda 32 ldb 32 ldc 16
      stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute f32
      epilogue gelu alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16> -> memref<64x16xbf16>
  tfcrt.gemm %x, %w bias %b -> %y transpose_b m 64 n 16 k 32 batch 1 lda 32 ldb 32 ldc 16
      stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute f32
      epilogue gelu_bias alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16> -> memref<64x16xbf16>
  tfcrt.gemm %x, %w -> %y aux %pre transpose_b m 64 n 16 k 32 batch 1 lda 32
      ldb 32 ldc 16 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16
      compute f32 epilogue dgelu alpha 1.0 beta 0.0
      : memref<64x32xbf16>, memref<16x32xbf16> -> memref<64x16xbf16>, memref<64x16xbf16>
  tfcrt.return
}

// -----

// An update in place: the kernel declares which input each output may be
// written over, and the launch passes that input's buffer as the output.
// CHECK-LABEL: tfcrt.kernel @adamw multi_tensor (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<i64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) in_place [0, 2, 3] {
// CHECK: tfcrt.entry @train_step {
// CHECK: tfcrt.launch @adamw (%[[P:.*]], %[[G:.*]], %[[M:.*]], %[[V:.*]], %[[LR:.*]], %[[S:.*]]) -> (%[[P]], %[[M]], %[[V]])
tfcrt.kernel @adamw multi_tensor (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<i64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) in_place [0, 2, 3] {
^bb0(%p: tensor<64xf32>, %g: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %p2, %m2, %v2 = tfc.adamw %p, %g, %m, %v, %lr, %t : tensor<64xf32>, tensor<64xf32>, tensor<f32>
  tfcrt.yield %p2, %m2, %v2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
tfcrt.entry @train_step {
  %p = tfcrt.external param "p" : memref<64xf32>
  %g = tfcrt.external input "g" : memref<64xf32>
  %m = tfcrt.external state "p.exp_avg" : memref<64xf32>
  %v = tfcrt.external state "p.exp_avg_sq" : memref<64xf32>
  %lr = tfcrt.external input "lr" : memref<f32>
  %s = tfcrt.external state "step" : memref<i64>
  tfcrt.launch @adamw (%p, %g, %m, %v, %lr, %s) -> (%p, %m, %v) : (memref<64xf32>, memref<64xf32>, memref<64xf32>, memref<64xf32>, memref<f32>, memref<i64>) -> (memref<64xf32>, memref<64xf32>, memref<64xf32>)
  tfcrt.return
}
