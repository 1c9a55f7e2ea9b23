// RUN: tfc-opt %s --split-input-file --tfc-form-kernels --tfc-fuse | FileCheck %s
// The pass is idempotent: what it formed has nothing left to merge.
// RUN: tfc-opt %s --split-input-file --tfc-form-kernels --tfc-fuse | tfc-opt --split-input-file --tfc-fuse | FileCheck %s

// Each case starts from one kernel per op (--tfc-form-kernels) and shows one fusion
// rule of --tfc-fuse (passes/fusion/Passes.td).

// A vertical pointwise chain with a broadcast, a convert, a compare and a select, a
// constant and an iota becomes one kernel; only its final value is stored.
// CHECK-LABEL: func.func @pointwise_chain
// CHECK: %[[K:.*]] = tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<4x8xbf16>, %{{.*}} = %{{.*}} : tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: tfc.convert
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.iota dim 1 : tensor<4x8xi32>
// CHECK-NEXT: tfc.constant dense<4>
// CHECK-NEXT: tfc.compare lt
// CHECK-NEXT: tfc.constant dense<0.000000e+00>
// CHECK-NEXT: tfc.select
// CHECK-NEXT: tfc.yield
// CHECK-NOT: tfc.fusion
// CHECK: return %[[K]]
func.func @pointwise_chain(%x: tensor<4x8xbf16>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.convert %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  %1 = tfc.add %0, %b : tensor<4x8xf32>, tensor<8xf32>
  %i = tfc.iota dim 1 : tensor<4x8xi32>
  %four = tfc.constant dense<4> : tensor<i32>
  %keep = tfc.compare lt, %i, %four : tensor<4x8xi32>, tensor<i32>
  %zero = tfc.constant dense<0.0> : tensor<f32>
  %2 = tfc.select %keep, %1, %zero : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  return %2 : tensor<4x8xf32>
}

// -----

// Views fold into the reader's indexing: the QKV bias, the slices and the head
// transposes (through reshapes outside kernels, cloned into the body) are one kernel with
// three outputs, so the split costs no kernel of its own.
// CHECK-LABEL: func.func @qkv_split
// CHECK: %[[K:.*]]:3 = tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<2x8x48xf32>, %{{.*}} = %{{.*}} : tensor<48xf32>) -> (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>)
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.slice
// CHECK-NEXT: tfc.reshape
// CHECK-NEXT: tfc.transpose
// CHECK: tfc.yield
// CHECK-NOT: tfc.fusion
// CHECK-NOT: tfc.reshape
// CHECK: return %[[K]]#0, %[[K]]#1, %[[K]]#2
func.func @qkv_split(%mm: tensor<2x8x48xf32>, %b: tensor<48xf32>) -> (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) {
  %qkv = tfc.add %mm, %b : tensor<2x8x48xf32>, tensor<48xf32>
  %q0 = tfc.slice %qkv [0, 0, 0] to [2, 8, 16] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>
  %q1 = tfc.reshape %q0 : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %q = tfc.transpose %q1, [0, 2, 1, 3] : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  %k0 = tfc.slice %qkv [0, 0, 16] to [2, 8, 32] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>
  %k1 = tfc.reshape %k0 : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %k = tfc.transpose %k1, [0, 2, 1, 3] : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  %v0 = tfc.slice %qkv [0, 0, 32] to [2, 8, 48] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>
  %v1 = tfc.reshape %v0 : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %v = tfc.transpose %v1, [0, 2, 1, 3] : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  return %q, %k, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>
}

// -----

// Bias + residual add + layer_norm: the pointwise producers are the row reduction's
// prologue, and the residual stream, which a GEMM still reads, stays an output of the
// fused kernel next to the normalized rows.
// CHECK-LABEL: func.func @bias_residual_layer_norm
// CHECK: %[[K:.*]]:2 = tfc.fusion row_reduction
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.add
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = tfc.layer_norm
// CHECK-NEXT: tfc.yield %{{.*}}, %[[Y]]
// CHECK: tfc.fusion gemm (%{{.*}} = %[[K]]#0 : tensor<8x16xf32>
func.func @bias_residual_layer_norm(%mm: tensor<8x16xf32>, %b: tensor<16xf32>, %res: tensor<8x16xf32>, %w: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) {
  %0 = tfc.add %mm, %b : tensor<8x16xf32>, tensor<16xf32>
  %x = tfc.add %res, %0 : tensor<8x16xf32>, tensor<8x16xf32>
  %y, %m, %r = tfc.layer_norm %x weight %w : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %1 = tfc.matmul %x, %res transpose_b : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x8xf32>
  return %y, %1 : tensor<8x16xf32>, tensor<8x8xf32>
}

// Scale + causal mask + softmax + cast: the mask (iota, compare) and the scale are the
// softmax's prologue, the cast to bf16 its epilogue: one row kernel.
// CHECK-LABEL: func.func @scale_mask_softmax
// CHECK: tfc.fusion row_reduction (%{{.*}} = %{{.*}} : tensor<2x8x8xf32>) -> tensor<2x8x8xbf16> {
// CHECK: tfc.mul
// CHECK: tfc.compare le
// CHECK: tfc.select
// CHECK-NEXT: tfc.softmax
// CHECK-NEXT: tfc.convert
// CHECK-NEXT: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @scale_mask_softmax(%s: tensor<2x8x8xf32>) -> tensor<2x8x8xbf16> {
  %c = tfc.constant dense<0.5> : tensor<f32>
  %0 = tfc.mul %s, %c : tensor<2x8x8xf32>, tensor<f32>
  %i = tfc.iota dim 0 : tensor<8x8xi32>
  %j = tfc.iota dim 1 : tensor<8x8xi32>
  %m = tfc.compare le, %j, %i : tensor<8x8xi32>, tensor<8x8xi32>
  %ninf = tfc.constant dense<0xFF800000> : tensor<f32>
  %1 = tfc.select %m, %0, %ninf : tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>
  %2 = tfc.softmax %1 dim -1 : tensor<2x8x8xf32>
  %3 = tfc.convert %2 : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
  return %3 : tensor<2x8x8xbf16>
}

// -----

// An input-free producer (the causal mask) read by two kernels is duplicated into both:
// recomputing it reads nothing, storing it would cost a buffer and a load per reader.
// CHECK-LABEL: func.func @mask_duplicated
// CHECK: tfc.fusion row_reduction
// CHECK: tfc.compare le
// CHECK: tfc.softmax
// CHECK: tfc.fusion row_reduction
// CHECK: tfc.compare le
// CHECK: tfc.softmax
// CHECK-NOT: tfc.fusion
func.func @mask_duplicated(%a: tensor<4x8x8xf32>, %b: tensor<4x8x8xf32>) -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %i = tfc.iota dim 0 : tensor<8x8xi64>
  %j = tfc.iota dim 1 : tensor<8x8xi64>
  %m = tfc.compare le, %j, %i : tensor<8x8xi64>, tensor<8x8xi64>
  %ninf = tfc.constant dense<0xFF800000> : tensor<f32>
  %s1 = tfc.select %m, %a, %ninf : tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
  %r1 = tfc.softmax %s1 dim -1 : tensor<4x8x8xf32>
  %s2 = tfc.select %m, %b, %ninf : tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
  %r2 = tfc.softmax %s2 dim -1 : tensor<4x8x8xf32>
  return %r1, %r2 : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}

// -----

// A producer whose inputs are larger than its result is not duplicated (each copy would
// read more than the stored result): it joins its first reader and stays an output for
// the second, a column reduction of another geometry (2 rows of 16), which the row
// kernel (4 rows of 8) cannot hold as a sum over its rows.
// CHECK-LABEL: func.func @large_producer_kept
// CHECK: %[[K:.*]]:2 = tfc.fusion row_reduction (%{{.*}} = %{{.*}} : tensor<4x8xf32>, %{{.*}} = %{{.*}} : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.softmax
// CHECK: %[[V:.*]] = tfc.reshape %[[K]]#0
// CHECK: tfc.fusion column_reduction (%{{.*}} = %[[V]] : tensor<2x16xf32>)
// CHECK-NEXT: tfc.reduce_sum
func.func @large_producer_kept(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<16xf32>) {
  %x = tfc.add %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  %v = tfc.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = tfc.reduce_sum %v dims [0] : tensor<2x16xf32> -> tensor<16xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<16xf32>
}

// -----

// A bias added to a GEMM output, read by the forward's GELU and by the backward's
// gelu_grad: its inputs are barely larger than its result (the bias is small), so the
// add is recomputed in both readers and its result is never stored (one store saved;
// each reader reads the GEMM output where it read the sum).
// CHECK-LABEL: func.func @bias_add_recomputed
// CHECK: tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<8x64xf32>, %{{.*}} = %{{.*}} : tensor<64xf32>) -> tensor<8x64xf32>
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.gelu
// CHECK: tfc.fusion gemm
// CHECK: tfc.fusion column_reduction
// CHECK: tfc.add
// CHECK: tfc.gelu_grad
// CHECK: tfc.reduce_sum
// CHECK-NOT: tfc.fusion
func.func @bias_add_recomputed(%mm: tensor<8x64xf32>, %b: tensor<64xf32>, %w: tensor<64x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>) {
  %h = tfc.add %mm, %b : tensor<8x64xf32>, tensor<64xf32>
  %g = tfc.gelu %h approximate tanh : tensor<8x64xf32>
  %dy = tfc.matmul %g, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %dh = tfc.gelu_grad %dy, %h approximate tanh : tensor<8x64xf32>
  %db = tfc.reduce_sum %dh dims [0] : tensor<8x64xf32> -> tensor<64xf32>
  return %dh, %db : tensor<8x64xf32>, tensor<64xf32>
}

// -----

// A layer_norm backward with everything else that reads its rows: the residual gradient
// add joins as its epilogue (the kernel stores the sum instead of its dx, which nothing
// else reads), and three column sums over the rows join as well: the bias gradient of
// that sum (an epilogue) and the layer_norm's weight and bias gradients (siblings reading
// the same dy and x). One kernel reads dy, x and the residual gradient once. Epilogues
// are tried before a kept producer joins a reader, since they save a store and a load
// instead of a load.
// CHECK-LABEL: func.func @layer_norm_backward_in_one_kernel
// CHECK: tfc.fusion row_reduction
// CHECK-DAG: tfc.layer_norm_grad_input
// CHECK-DAG: tfc.add
// CHECK-DAG: tfc.reduce_sum %{{.*}} dims [0] : tensor<8x16xf32> -> tensor<16xf32>
// CHECK-DAG: tfc.reduce_sum %{{.*}} dims [0] : tensor<8x16xf32> -> tensor<16xf32>
// CHECK-DAG: tfc.reduce_sum %{{.*}} dims [0] : tensor<8x16xf32> -> tensor<16xf32>
// CHECK: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @layer_norm_backward_in_one_kernel(%dy: tensor<8x16xf32>, %x: tensor<8x16xf32>, %mean: tensor<8x1xf32>, %rstd: tensor<8x1xf32>, %w: tensor<16xf32>, %res: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %dx = tfc.layer_norm_grad_input %dy, %x, %mean, %rstd weight %w : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %sum = tfc.add %res, %dx : tensor<8x16xf32>, tensor<8x16xf32>
  %db = tfc.reduce_sum %sum dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %xc = tfc.sub %x, %mean : tensor<8x16xf32>, tensor<8x1xf32>
  %xhat = tfc.mul %xc, %rstd : tensor<8x16xf32>, tensor<8x1xf32>
  %g = tfc.mul %dy, %xhat : tensor<8x16xf32>, tensor<8x16xf32>
  %dw = tfc.reduce_sum %g dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %dbeta = tfc.reduce_sum %dy dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %sum, %db, %dw, %dbeta : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
