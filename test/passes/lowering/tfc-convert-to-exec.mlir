// RUN: tfc-opt %s --split-input-file --tfc-convert-to-exec | FileCheck %s

// Bufferization and conversion to tfcrt: externals for arguments and results, arena
// views planned by liveness, aliases for reshapes, kernels + launches for fusions,
// tfcrt.gemm for gemm fusions, copies for results that are not kernel outputs.

// A scalar @loss: parameters and inputs keep their names, an unnamed argument is
// input "arg<N>", the result is output "loss". A kernel never writes over its own
// input, so a chain needs two arena slots; the last kernel writes straight into the
// output buffer.
// CHECK-LABEL: tfcrt.arena size 512 alignment 256
// CHECK: tfcrt.kernel @k0 pointwise (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[S:.*]] = tfc.add %[[A]], %[[B]]
// CHECK-NEXT: tfcrt.yield %[[S]] : tensor<4x8xf32>
// CHECK: tfcrt.kernel @k1 pointwise (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: tfcrt.kernel @k2 row_reduction (tensor<4x8xf32>, tensor<4xi64>) -> tensor<f32>
// CHECK: tfcrt.entry @forward {
// CHECK-NEXT: %[[W:.*]] = tfcrt.external param "fc.bias" : memref<8xf32>
// CHECK-NEXT: %[[X:.*]] = tfcrt.external input "x" : memref<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = tfcrt.external input "arg2" : memref<4xi64>
// CHECK-NEXT: %[[L:.*]] = tfcrt.external output "loss" : memref<f32>
// CHECK-NEXT: %[[V0:.*]] = tfcrt.arena_view offset 0 : memref<4x8xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[X]], %[[W]]) -> (%[[V0]]) : (memref<4x8xf32>, memref<8xf32>) -> memref<4x8xf32>
// CHECK-NEXT: %[[V1:.*]] = tfcrt.arena_view offset 256 : memref<4x8xf32>
// CHECK-NEXT: tfcrt.launch @k1 (%[[V0]]) -> (%[[V1]])
// CHECK-NEXT: tfcrt.launch @k2 (%[[V1]], %[[Y]]) -> (%[[L]]) : (memref<4x8xf32>, memref<4xi64>) -> memref<f32>
// CHECK-NEXT: tfcrt.return
// CHECK-NOT: func.func
func.func @loss(%b: tensor<8xf32> {tfc.param = "fc.bias"}, %x: tensor<4x8xf32> {tfc.input = "x"}, %y: tensor<4xi64>) -> tensor<f32> {
  %0 = tfc.fusion pointwise (%in = %x : tensor<4x8xf32>, %in_0 = %b : tensor<8xf32>) -> tensor<4x8xf32> {
    %r = tfc.add %in, %in_0 : tensor<4x8xf32>, tensor<8xf32>
    tfc.yield %r : tensor<4x8xf32>
  }
  %1 = tfc.fusion pointwise (%in = %0 : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %r = tfc.relu %in : tensor<4x8xf32>
    tfc.yield %r : tensor<4x8xf32>
  }
  %2 = tfc.fusion row_reduction (%in = %1 : tensor<4x8xf32>, %in_0 = %y : tensor<4xi64>) -> tensor<f32> {
    %r = tfc.cross_entropy %in, %in_0 : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
    tfc.yield %r : tensor<f32>
  }
  return %2 : tensor<f32>
}

// -----

// Liveness: %0 is read again by the last kernel, so it keeps its slot throughout; %1
// is live while %2's kernel runs, so %2 needs a third slot. The 64-byte buffers sit
// at 256-byte aligned offsets.
// CHECK-LABEL: tfcrt.arena size 768 alignment 256
// CHECK: tfcrt.entry @forward
// CHECK: %[[O:.*]] = tfcrt.external output "out0" : memref<16xf32>
// CHECK: %[[V0:.*]] = tfcrt.arena_view offset 0 : memref<16xf32>
// CHECK: tfcrt.launch @k0 (%{{.*}}) -> (%[[V0]])
// CHECK: %[[V1:.*]] = tfcrt.arena_view offset 256 : memref<16xf32>
// CHECK: tfcrt.launch @k1 (%[[V0]]) -> (%[[V1]])
// CHECK: %[[V2:.*]] = tfcrt.arena_view offset 512 : memref<16xf32>
// CHECK: tfcrt.launch @k2 (%[[V1]]) -> (%[[V2]])
// CHECK: tfcrt.launch @k3 (%[[V0]], %[[V2]]) -> (%[[O]])
func.func @loss(%x: tensor<16xf32> {tfc.input = "x"}) -> tensor<16xf32> {
  %0 = tfc.fusion pointwise (%in = %x : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.neg %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %1 = tfc.fusion pointwise (%in = %0 : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.exp %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %2 = tfc.fusion pointwise (%in = %1 : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.tanh %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %3 = tfc.fusion pointwise (%in = %0 : tensor<16xf32>, %in_0 = %2 : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.add %in, %in_0 : tensor<16xf32>, tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  return %3 : tensor<16xf32>
}

// -----

// Reshapes become aliases of their source's buffer; results that are not kernel
// outputs (an argument, a reshape, a value returned twice) are copied into their output
// buffers after the last launch. Unused kernel outputs still get a buffer.
// CHECK-LABEL: tfcrt.arena size 256 alignment 256
// CHECK: tfcrt.entry @forward
// CHECK-NEXT: %[[X:.*]] = tfcrt.external input "x" : memref<2x4xf32>
// CHECK-NEXT: %[[O0:.*]] = tfcrt.external output "out0" : memref<2x4xf32>
// CHECK-NEXT: %[[O1:.*]] = tfcrt.external output "out1" : memref<8xf32>
// CHECK-NEXT: %[[O2:.*]] = tfcrt.external output "out2" : memref<2x4xf32>
// CHECK-NEXT: %[[O3:.*]] = tfcrt.external output "out3" : memref<2x4xf32>
// CHECK-NEXT: %[[O4:.*]] = tfcrt.external output "out4" : memref<2x1xf32>
// CHECK-NEXT: %[[XR:.*]] = tfcrt.alias %[[X]] : memref<2x4xf32> -> memref<8xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[XR]]) -> (%[[O1]])
// CHECK-NEXT: %[[R:.*]] = tfcrt.alias %[[O1]] : memref<8xf32> -> memref<2x4xf32>
// CHECK-NEXT: %[[MEAN:.*]] = tfcrt.arena_view offset 0 : memref<2x1xf32>
// CHECK-NEXT: tfcrt.launch @k1 (%[[R]]) -> (%[[O2]], %[[MEAN]], %[[O4]])
// CHECK-NEXT: tfcrt.copy %[[X]] -> %[[O0]] : memref<2x4xf32>
// CHECK-NEXT: tfcrt.copy %[[O2]] -> %[[O3]] : memref<2x4xf32>
// CHECK-NEXT: tfcrt.return
func.func @loss(%x: tensor<2x4xf32> {tfc.input = "x"}) -> (tensor<2x4xf32>, tensor<8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>) {
  %flat = tfc.reshape %x : tensor<2x4xf32> -> tensor<8xf32>
  %0 = tfc.fusion pointwise (%in = %flat : tensor<8xf32>) -> tensor<8xf32> {
    %r = tfc.neg %in : tensor<8xf32>
    tfc.yield %r : tensor<8xf32>
  }
  %back = tfc.reshape %0 : tensor<8xf32> -> tensor<2x4xf32>
  %y:3 = tfc.fusion row_reduction (%in = %back : tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
    %r, %mean, %rstd = tfc.layer_norm %in : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    tfc.yield %r, %mean, %rstd : tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  }
  return %x, %0, %y#0, %y#0, %y#2 : tensor<2x4xf32>, tensor<8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>
}

// -----

// GEMM fusions become tfcrt.gemm (no kernel symbol) with row-major cuBLASLt fields:
// - a linear layer (rank-3 activations, rank-2 PyTorch-layout weight) flattens the
//   leading dims into m: one 128x384x32 GEMM;
// - batched q k^T with equal batch dims: batch 8, one matrix stride per operand;
// - a rank-2 a against batched b: a is broadcast with stride 0;
// - transpose_a with a rank-2 b cannot flatten (a's rows are not contiguous), so b is
//   broadcast with stride 0 instead;
// - bf16 operands with an f32 result keep f32 compute.
// CHECK-LABEL: tfcrt.arena size 0 alignment 256
// CHECK-NOT: tfcrt.kernel
// CHECK: tfcrt.entry @forward
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_b m 128 n 384 k 32 batch 1 lda 32 ldb 32 ldc 384 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.000000e+00 beta 0.000000e+00 : memref<4x32x32xf32>, memref<384x32xf32> -> memref<4x32x384xf32>
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_b m 16 n 16 k 8 batch 8 lda 8 ldb 8 ldc 16 stride_a 128 stride_b 128 stride_c 256 types(f32, f32) -> f32
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} m 16 n 4 k 8 batch 8 lda 8 ldb 4 ldc 4 stride_a 0 stride_b 32 stride_c 64 types(f32, f32) -> f32
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_a m 8 n 4 k 16 batch 2 lda 8 ldb 4 ldc 4 stride_a 128 stride_b 0 stride_c 32 types(f32, f32) -> f32
// CHECK: tfcrt.gemm %{{.*}}, %{{.*}} -> %{{.*}} m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> f32 compute f32
func.func @loss(%x: tensor<4x32x32xf32>, %w: tensor<384x32xf32>, %q: tensor<2x4x16x8xf32>, %a: tensor<16x8xf32>, %b: tensor<8x8x4xf32>, %t: tensor<2x16x8xf32>, %u: tensor<16x4xf32>, %h: tensor<4x8xbf16>, %g: tensor<8x2xbf16>) -> (tensor<4x32x384xf32>, tensor<2x4x16x16xf32>, tensor<8x16x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf32>) {
  %0 = tfc.fusion gemm (%in = %x : tensor<4x32x32xf32>, %in_0 = %w : tensor<384x32xf32>) -> tensor<4x32x384xf32> {
    %r = tfc.matmul %in, %in_0 transpose_b : tensor<4x32x32xf32>, tensor<384x32xf32> -> tensor<4x32x384xf32>
    tfc.yield %r : tensor<4x32x384xf32>
  }
  %1 = tfc.fusion gemm (%in = %q : tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32> {
    %r = tfc.matmul %in, %in transpose_b : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
    tfc.yield %r : tensor<2x4x16x16xf32>
  }
  %2 = tfc.fusion gemm (%in = %a : tensor<16x8xf32>, %in_0 = %b : tensor<8x8x4xf32>) -> tensor<8x16x4xf32> {
    %r = tfc.matmul %in, %in_0 : tensor<16x8xf32>, tensor<8x8x4xf32> -> tensor<8x16x4xf32>
    tfc.yield %r : tensor<8x16x4xf32>
  }
  %3 = tfc.fusion gemm (%in = %t : tensor<2x16x8xf32>, %in_0 = %u : tensor<16x4xf32>) -> tensor<2x8x4xf32> {
    %r = tfc.matmul %in, %in_0 transpose_a : tensor<2x16x8xf32>, tensor<16x4xf32> -> tensor<2x8x4xf32>
    tfc.yield %r : tensor<2x8x4xf32>
  }
  %4 = tfc.fusion gemm (%in = %h : tensor<4x8xbf16>, %in_0 = %g : tensor<8x2xbf16>) -> tensor<4x2xf32> {
    %r = tfc.matmul %in, %in_0 : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xf32>
    tfc.yield %r : tensor<4x2xf32>
  }
  return %0, %1, %2, %3, %4 : tensor<4x32x384xf32>, tensor<2x4x16x16xf32>, tensor<8x16x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf32>
}

// -----

// A gemm fusion with an epilogue lowers to one tfcrt.gemm: the bias row is its bias
// operand, C takes the GELU's result and aux the GELU input the second output returns
// (written straight into that output's buffer); its result order in the fusion does
// not matter.
// CHECK-LABEL: tfcrt.external input "x" : memref<4x16x32xf32>
// CHECK: %[[W:.*]] = tfcrt.external param "w" : memref<64x32xf32>
// CHECK: %[[B:.*]] = tfcrt.external param "b" : memref<64xf32>
// CHECK: %[[PRE:.*]] = tfcrt.external output "out0" : memref<4x16x64xf32>
// CHECK: %[[H:.*]] = tfcrt.external output "out1" : memref<4x16x64xf32>
// CHECK: tfcrt.gemm %{{.*}}, %[[W]] bias %[[B]] -> %[[H]] aux %[[PRE]] transpose_b m 64 n 64 k 32 batch 1 lda 32 ldb 32 ldc 64 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue gelu_aux_bias alpha 1.000000e+00 beta 0.000000e+00
// CHECK-NEXT: tfcrt.return
func.func @loss(%x: tensor<4x16x32xf32> {tfc.input = "x"}, %w: tensor<64x32xf32> {tfc.param = "w"}, %b: tensor<64xf32> {tfc.param = "b"}) -> (tensor<4x16x64xf32>, tensor<4x16x64xf32>) {
  %r:2 = tfc.fusion gemm (%in = %x : tensor<4x16x32xf32>, %in_0 = %w : tensor<64x32xf32>, %in_1 = %b : tensor<64xf32>) -> (tensor<4x16x64xf32>, tensor<4x16x64xf32>) {
    %y = tfc.matmul %in, %in_0 transpose_b : tensor<4x16x32xf32>, tensor<64x32xf32> -> tensor<4x16x64xf32>
    %s = tfc.add %y, %in_1 : tensor<4x16x64xf32>, tensor<64xf32>
    %g = tfc.gelu %s approximate tanh : tensor<4x16x64xf32>
    tfc.yield %s, %g : tensor<4x16x64xf32>, tensor<4x16x64xf32>
  }
  return %r#0, %r#1 : tensor<4x16x64xf32>, tensor<4x16x64xf32>
}
