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
// each reader reads the GEMM output where it read the sum). The erf form keeps the
// GELU and its gradient out of cuBLASLt's epilogues (tanh form only).
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
  %g = tfc.gelu %h : tensor<8x64xf32>
  %dy = tfc.matmul %g, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %dh = tfc.gelu_grad %dy, %h : tensor<8x64xf32>
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

// -----

// Several row reductions over the same rows share one kernel: an explicit softmax
// (max, subtract, exp, sum, divide) and a layer_norm of its result.
// CHECK-LABEL: func.func @rows_chained
// CHECK: tfc.fusion row_reduction (%{{.*}} = %{{.*}} : tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT: tfc.reduce_max
// CHECK-NEXT: tfc.sub
// CHECK-NEXT: tfc.exp
// CHECK-NEXT: tfc.reduce_sum
// CHECK-NEXT: tfc.div
// CHECK-NEXT: tfc.layer_norm
// CHECK-NEXT: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @rows_chained(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %m = tfc.reduce_max %x dims [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %0 = tfc.sub %x, %m : tensor<4x16xf32>, tensor<4x1xf32>
  %1 = tfc.exp %0 : tensor<4x16xf32>
  %s = tfc.reduce_sum %1 dims [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %2 = tfc.div %1, %s : tensor<4x16xf32>, tensor<4x1xf32>
  %y, %mean, %rstd = tfc.layer_norm %2 : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y : tensor<4x16xf32>
}

// -----

// Row reductions of the same rows that read the same input are siblings: one kernel,
// one read of x.
// CHECK-LABEL: func.func @rows_siblings
// CHECK: %[[K:.*]]:2 = tfc.fusion row_reduction (%{{.*}} = %{{.*}} : tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4x16xf32>)
// CHECK-NEXT: tfc.reduce_sum
// CHECK-NEXT: tfc.softmax
// CHECK-NOT: tfc.fusion
func.func @rows_siblings(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4x16xf32>) {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x16xf32> -> tensor<4xf32>
  %1 = tfc.softmax %x dim -1 : tensor<4x16xf32>
  return %0, %1 : tensor<4xf32>, tensor<4x16xf32>
}

// -----

// Rows of different lengths are different kernels (one warp or block per row).
// CHECK-LABEL: func.func @rows_differ
// CHECK: tfc.fusion row_reduction
// CHECK-NEXT: tfc.reduce_sum
// CHECK: tfc.fusion row_reduction
// CHECK-NEXT: tfc.softmax
func.func @rows_differ(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<64xf32>) {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x16xf32> -> tensor<4xf32>
  %r = tfc.reshape %x : tensor<4x16xf32> -> tensor<64xf32>
  %1 = tfc.softmax %r dim -1 : tensor<64xf32>
  return %0, %1 : tensor<4xf32>, tensor<64xf32>
}

// -----

// Layer-norm backward's column reductions (gamma and beta gradients, with the xhat
// prologue) read the same dy: one column kernel with two outputs; the bf16 cast of
// one of them is its per-column epilogue.
// CHECK-LABEL: func.func @column_siblings
// CHECK: %[[K:.*]]:2 = tfc.fusion column_reduction
// CHECK-DAG: tfc.reduce_sum
// CHECK-DAG: tfc.sub
// CHECK-DAG: tfc.mul
// CHECK-DAG: tfc.convert
// CHECK: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @column_siblings(%dy: tensor<4x8x16xf32>, %x: tensor<4x8x16xf32>, %mean: tensor<4x8x1xf32>, %rstd: tensor<4x8x1xf32>) -> (tensor<16xbf16>, tensor<16xf32>) {
  %0 = tfc.sub %x, %mean : tensor<4x8x16xf32>, tensor<4x8x1xf32>
  %xhat = tfc.mul %0, %rstd : tensor<4x8x16xf32>, tensor<4x8x1xf32>
  %1 = tfc.mul %dy, %xhat : tensor<4x8x16xf32>, tensor<4x8x16xf32>
  %dgamma = tfc.reduce_sum %1 dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
  %dg16 = tfc.convert %dgamma : tensor<16xf32> -> tensor<16xbf16>
  %dbeta = tfc.reduce_sum %dy dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
  return %dg16, %dbeta : tensor<16xbf16>, tensor<16xf32>
}

// -----

// A pointwise kernel reading the same dy as a column reduction joins it: the column
// kernel writes the per-element values in its first stage (one read of dy).
// CHECK-LABEL: func.func @column_with_pointwise_sibling
// CHECK: %[[K:.*]]:2 = tfc.fusion column_reduction (%{{.*}} = %{{.*}} : tensor<32x16xf32>, %{{.*}} = %{{.*}} : tensor<32x16xf32>) -> (tensor<16xf32>, tensor<32x16xf32>)
// CHECK-NOT: tfc.fusion
func.func @column_with_pointwise_sibling(%dy: tensor<32x16xf32>, %x: tensor<32x16xf32>) -> (tensor<16xf32>, tensor<32x16xf32>) {
  %0 = tfc.reduce_sum %dy dims [0] : tensor<32x16xf32> -> tensor<16xf32>
  %1 = tfc.gelu_grad %dy, %x : tensor<32x16xf32>
  return %0, %1 : tensor<16xf32>, tensor<32x16xf32>
}

// -----

// A reduction is never duplicated: its two pointwise readers join it as epilogues (the
// first the row kernel's output per element, the second per row).
// CHECK-LABEL: func.func @reduction_not_duplicated
// CHECK: %[[K:.*]]:2 = tfc.fusion row_reduction
// CHECK-COUNT-1: tfc.reduce_max
// CHECK-NOT: tfc.fusion
func.func @reduction_not_duplicated(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %m = tfc.reduce_max %x dims [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %0 = tfc.sub %x, %m : tensor<4x16xf32>, tensor<4x1xf32>
  %1 = tfc.exp %m : tensor<4x1xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x1xf32>
}

// -----

// A GEMM whose product feeds more than a bias add keeps no epilogue, and a producer
// read both by a GEMM and by a kernel after it cannot join that kernel: the GEMM would have to run inside it (a
// cycle). The add after the GEMM and the add reading both stay apart from the exp.
// CHECK-LABEL: func.func @no_cycle_through_gemm
// CHECK: %[[E:.*]] = tfc.fusion pointwise
// CHECK-NEXT: tfc.exp
// CHECK-NEXT: tfc.yield
// CHECK: %[[G:.*]] = tfc.fusion gemm (%{{.*}} = %[[E]]
// CHECK-NEXT: tfc.matmul
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion pointwise (%{{.*}} = %[[E]] : tensor<4x4xf32>, %{{.*}} = %[[G]] : tensor<4x4xf32>)
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.relu
func.func @no_cycle_through_gemm(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tfc.exp %x : tensor<4x4xf32>
  %m = tfc.matmul %e, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %0 = tfc.add %e, %m : tensor<4x4xf32>, tensor<4x4xf32>
  %1 = tfc.relu %0 : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// An op between two merged kernels that depends on the first moves after the merged
// kernel: here the GEMM reading the softmax, which sat between the softmax and the
// sibling reduction of the same x.
// CHECK-LABEL: func.func @dependent_moves
// CHECK: %[[K:.*]]:2 = tfc.fusion row_reduction
// CHECK-NEXT: tfc.softmax
// CHECK-NEXT: tfc.reduce_sum
// CHECK: tfc.fusion gemm (%{{.*}} = %[[K]]#0
func.func @dependent_moves(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %0 = tfc.softmax %x dim -1 : tensor<4x4xf32>
  %1 = tfc.matmul %0, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = tfc.reduce_sum %x dims [1] : tensor<4x4xf32> -> tensor<4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4xf32>
}

// -----

// A producer that something else still reads stays an output of the kernel it joins,
// even of another size: one pointwise kernel writes the converted [8, 16] and the
// every-other-row [4, 16] slice of it.
// CHECK-LABEL: func.func @outputs_of_two_sizes
// CHECK: %[[K:.*]]:2 = tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<8x16xbf16>) -> (tensor<8x16xf32>, tensor<4x16xf32>)
// CHECK-NEXT: tfc.convert
// CHECK-NEXT: tfc.slice
// CHECK-NEXT: tfc.exp
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @outputs_of_two_sizes(%x: tensor<8x16xbf16>) -> (tensor<8x16xf32>, tensor<4x16xf32>) {
  %0 = tfc.convert %x : tensor<8x16xbf16> -> tensor<8x16xf32>
  %1 = tfc.slice %0 [0, 0] to [8, 16] step [2, 1] : tensor<8x16xf32> -> tensor<4x16xf32>
  %2 = tfc.exp %1 : tensor<4x16xf32>
  return %0, %2 : tensor<8x16xf32>, tensor<4x16xf32>
}

// -----

// A small value (a converted bias) that must be stored anyway does not pull its large
// reader into its kernel: the edge carries too little to save, and such merges would
// chain every reader of a scalar into one kernel.
// CHECK-LABEL: func.func @small_producer_kept_apart
// CHECK: %[[B:.*]] = tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<16xbf16>) -> tensor<16xf32>
// CHECK: tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<8x16xf32>, %{{.*}} = %[[B]] : tensor<16xf32>) -> tensor<8x16xf32>
func.func @small_producer_kept_apart(%b: tensor<16xbf16>, %x: tensor<8x16xf32>) -> (tensor<16xf32>, tensor<8x16xf32>) {
  %0 = tfc.convert %b : tensor<16xbf16> -> tensor<16xf32>
  %1 = tfc.add %x, %0 : tensor<8x16xf32>, tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<8x16xf32>
}

// -----

// A gather's pointwise readers are its epilogue (token + position embeddings).
// CHECK-LABEL: func.func @gather_epilogue
// CHECK: tfc.fusion gather
// CHECK-NEXT: tfc.embedding
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @gather_epilogue(%wte: tensor<32x8xf32>, %ids: tensor<2x4xi64>, %wpe: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tfc.embedding %wte, %ids : tensor<32x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
  %1 = tfc.add %0, %wpe : tensor<2x4x8xf32>, tensor<4x8xf32>
  return %1 : tensor<2x4x8xf32>
}

// -----

// A value read across rows after a row reduction (a transposed softmax) cannot be the
// row kernel's epilogue: the kernel rules reject it, and the transpose stays a kernel.
// CHECK-LABEL: func.func @epilogue_across_rows
// CHECK: tfc.fusion row_reduction
// CHECK-NEXT: tfc.softmax
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion pointwise
// CHECK-NEXT: tfc.transpose
func.func @epilogue_across_rows(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = tfc.softmax %x dim -1 : tensor<8x8xf32>
  %1 = tfc.transpose %0, [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// A cross-entropy loss and its gradient over the same logits share one row pass; the
// loss scaling of the gradient is its epilogue.
// CHECK-LABEL: func.func @loss_and_grad
// CHECK: %[[K:.*]]:2 = tfc.fusion row_reduction
// CHECK-DAG: tfc.cross_entropy
// CHECK-DAG: tfc.cross_entropy_grad
// CHECK-NOT: tfc.fusion
func.func @loss_and_grad(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>) -> (tensor<f32>, tensor<8x10xf32>) {
  %l = tfc.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  %one = tfc.constant dense<1.0> : tensor<f32>
  %g = tfc.cross_entropy_grad %one, %logits, %labels : tensor<f32>, tensor<8x10xf32>, tensor<8xi64> -> tensor<8x10xf32>
  %two = tfc.constant dense<2.0> : tensor<f32>
  %0 = tfc.mul %g, %two : tensor<8x10xf32>, tensor<f32>
  return %l, %0 : tensor<f32>, tensor<8x10xf32>
}

// -----

// The optimizer's per-parameter updates become one multi-tensor launch, with the
// pointwise producer of a gradient (two contributions of a tied weight) as its prologue.
// CHECK-LABEL: func.func @one_optimizer_launch
// CHECK: %[[K:.*]]:6 = tfc.fusion multi_tensor
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.adamw
// CHECK-NEXT: tfc.adamw
// CHECK-NEXT: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @one_optimizer_launch(%p: tensor<128x64xf32>, %g1: tensor<128x64xf32>, %g2: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %q: tensor<7xf32>, %h: tensor<7xf32>, %n: tensor<7xf32>, %w: tensor<7xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
  %g = tfc.add %g1, %g2 : tensor<128x64xf32>, tensor<128x64xf32>
  %p1, %m1, %v1 = tfc.adamw %p, %g, %m, %v, %lr, %step : tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>
  %q1, %n1, %w1 = tfc.adamw %q, %h, %n, %w, %lr, %step : tensor<7xf32>, tensor<7xf32>, tensor<f32>
  return %p1, %m1, %v1, %q1, %n1, %w1 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
}

// -----

// A gradient accumulator is written in place by the kernel that adds to it. The
// column reduction's epilogue would be a natural home for that add, but a reduction
// never writes over its inputs (dialects/tfcrt/TfcrtInPlace.h), so the merge would
// cost a copy of the accumulator after the step: the add stays a pointwise kernel.
// Likewise the step counter's increment stays out of the kernel that reads the old
// step broadcast over the parameter (that read would race with the in-place write).
// CHECK-LABEL: func.func @keeps_in_place_updates
// CHECK: %[[R:.*]] = tfc.fusion column_reduction
// CHECK-NEXT: tfc.reduce_sum
// CHECK-NEXT: tfc.yield
// CHECK: %[[A:.*]] = tfc.fusion pointwise (%{{.*}} = %arg1 : tensor<8xf32>, %{{.*}} = %[[R]] : tensor<8xf32>)
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.yield
// CHECK: %[[P:.*]] = tfc.fusion pointwise (%{{.*}} = %arg3 : tensor<i64>, %{{.*}} = %arg2 : tensor<8xf32>)
// CHECK: %[[S:.*]] = tfc.fusion pointwise (%{{.*}} = %arg3 : tensor<i64>)
// CHECK: return %[[A]], %[[S]], %[[P]]
func.func @keeps_in_place_updates(%g: tensor<4x8xf32>, %acc: tensor<8xf32> {tfc.state = "acc"}, %p: tensor<8xf32> {tfc.param = "p"}, %step: tensor<i64> {tfc.state = "step"}) -> (tensor<8xf32> {tfc.update = "acc"}, tensor<i64> {tfc.update = "step"}, tensor<8xf32> {tfc.update = "p"}) {
  %s = tfc.reduce_sum %g dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  %a = tfc.add %acc, %s : tensor<8xf32>, tensor<8xf32>
  %f = tfc.convert %step : tensor<i64> -> tensor<f32>
  %q = tfc.mul %p, %f : tensor<8xf32>, tensor<f32>
  %one = tfc.constant dense<1> : tensor<i64>
  %next = tfc.add %step, %one : tensor<i64>, tensor<i64>
  return %a, %next, %q : tensor<8xf32>, tensor<i64>, tensor<8xf32>
}

// -----

// A whole-tensor sum on its own (a mean-squared-error loss) becomes a multi-tensor
// kernel: as a row reduction of one row it would run in a single block, as a
// multi-tensor sum every block sums a share and the last one combines them.
// CHECK-LABEL: func.func @lone_tensor_sum
// CHECK: tfc.fusion multi_tensor
// CHECK: tfc.sub
// CHECK: tfc.mul
// CHECK: tfc.reduce_mean %{{.*}} dims [0, 1] : tensor<512x300xf32> -> tensor<f32>
// CHECK-NOT: tfc.fusion
func.func @lone_tensor_sum(%y: tensor<512x300xf32>, %t: tensor<512x300xf32>) -> tensor<f32> {
  %d = tfc.sub %y, %t : tensor<512x300xf32>, tensor<512x300xf32>
  %sq = tfc.mul %d, %d : tensor<512x300xf32>, tensor<512x300xf32>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<512x300xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// GEMM epilogues (rule 0): the bias add that is the only reader of a GEMM's product,
// then the GELU (tanh) of it, join the GEMM as the epilogue cuBLASLt fuses. The
// backward's gelu_grad reads the GELU input, so the sum stays an output of the GEMM
// kernel (cuBLASLt's aux matrix) instead of being recomputed there; the backward GEMM
// whose product is that gelu_grad's dy takes it, and the bias gradient (its sum over
// the rows), as its epilogue (cuBLASLt's DGELU_BGRAD), reading the stored sum.
// CHECK-LABEL: func.func @gemm_bias_gelu_aux
// CHECK: %[[G:.*]]:2 = tfc.fusion gemm (%{{.*}} = %{{.*}} : tensor<8x32xf32>, %{{.*}} = %{{.*}} : tensor<64x32xf32>, %{{.*}} = %{{.*}} : tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK-NEXT: tfc.matmul
// CHECK-NEXT: %[[S:.*]] = tfc.add
// CHECK-NEXT: %[[H:.*]] = tfc.gelu %[[S]] approximate tanh
// CHECK-NEXT: tfc.yield %[[S]], %[[H]]
// CHECK: tfc.fusion gemm (%{{.*}} = %[[G]]#1 : tensor<8x64xf32>, %{{.*}} = %{{.*}} : tensor<64x64xf32>, %{{.*}} = %[[G]]#0 : tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>)
// CHECK-NEXT: %[[P:.*]] = tfc.matmul
// CHECK-NEXT: %[[D:.*]] = tfc.gelu_grad %[[P]], %{{.*}} approximate tanh
// CHECK-NEXT: %[[B:.*]] = tfc.reduce_sum %[[D]] dims [0]
// CHECK-NEXT: tfc.yield %[[D]], %[[B]]
// CHECK-NOT: tfc.fusion
func.func @gemm_bias_gelu_aux(%x: tensor<8x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>, %w2: tensor<64x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>) {
  %mm = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<64x32xf32> -> tensor<8x64xf32>
  %h = tfc.add %mm, %b : tensor<8x64xf32>, tensor<64xf32>
  %g = tfc.gelu %h approximate tanh : tensor<8x64xf32>
  %dy = tfc.matmul %g, %w2 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %dh = tfc.gelu_grad %dy, %h approximate tanh : tensor<8x64xf32>
  %db = tfc.reduce_sum %dh dims [0] : tensor<8x64xf32> -> tensor<64xf32>
  return %dh, %db : tensor<8x64xf32>, tensor<64xf32>
}

// -----

// Forward only: the GELU is the sum's one reader, so the GEMM stores only the GELU
// (cuBLASLt's GELU_BIAS); n needs no alignment without the aux matrix. An erf GELU is
// not cuBLASLt's: the GEMM takes the bias add alone and the GELU stays a kernel.
// CHECK-LABEL: func.func @gemm_bias_gelu_forward
// CHECK: tfc.fusion gemm ({{.*}}) -> tensor<8x12xf32> {
// CHECK-NEXT: tfc.matmul
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.gelu %{{.*}} approximate tanh
// CHECK-NEXT: tfc.yield
// CHECK: %[[E:.*]] = tfc.fusion gemm ({{.*}}) -> tensor<8x12xf32> {
// CHECK-NEXT: tfc.matmul
// CHECK-NEXT: tfc.add
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion pointwise (%{{.*}} = %[[E]] : tensor<8x12xf32>)
// CHECK-NEXT: tfc.gelu
func.func @gemm_bias_gelu_forward(%x: tensor<8x32xf32>, %w: tensor<12x32xf32>, %b: tensor<12xf32>) -> (tensor<8x12xf32>, tensor<8x12xf32>) {
  %mm = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
  %h = tfc.add %mm, %b : tensor<8x12xf32>, tensor<12xf32>
  %g = tfc.gelu %h approximate tanh : tensor<8x12xf32>
  %mm2 = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
  %h2 = tfc.add %mm2, %b : tensor<8x12xf32>, tensor<12xf32>
  %e = tfc.gelu %h2 : tensor<8x12xf32>
  return %g, %e : tensor<8x12xf32>, tensor<8x12xf32>
}

// -----

// A batched GEMM (attention scores) has no epilogue: cuBLASLt's bias is per GEMM of
// batch 1, so the add stays a pointwise kernel.
// CHECK-LABEL: func.func @batched_gemm_no_epilogue
// CHECK: tfc.fusion gemm
// CHECK-NEXT: tfc.matmul
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion pointwise
// CHECK-NEXT: tfc.add
func.func @batched_gemm_no_epilogue(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %b: tensor<8xf32>) -> tensor<2x8x8xf32> {
  %s = tfc.matmul %q, %k transpose_b : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %0 = tfc.add %s, %b : tensor<2x8x8xf32>, tensor<8xf32>
  return %0 : tensor<2x8x8xf32>
}

// -----

// Bias-free layers: a ReLU of the product joins the GEMM (the backward reads the
// ReLU's output, which C holds), and so does a GELU whose input the backward reads:
// the product itself becomes the aux matrix.
// CHECK-LABEL: func.func @gemm_activation_no_bias
// CHECK: %[[R:.*]] = tfc.fusion gemm ({{.*}}) -> tensor<8x16xf32> {
// CHECK-NEXT: tfc.matmul
// CHECK-NEXT: tfc.relu
// CHECK-NEXT: tfc.yield
// CHECK: %[[G:.*]]:2 = tfc.fusion gemm (%{{.*}} = %[[R]] : tensor<8x16xf32>, {{.*}}) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
// CHECK-NEXT: %[[P:.*]] = tfc.matmul
// CHECK-NEXT: %[[H:.*]] = tfc.gelu %[[P]] approximate tanh
// CHECK-NEXT: tfc.yield %[[P]], %[[H]]
// CHECK: tfc.gelu_grad %{{.*}}, %{{.*}} approximate tanh
func.func @gemm_activation_no_bias(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>, %w2: tensor<16x16xf32>, %dy: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %mm = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<16x32xf32> -> tensor<8x16xf32>
  %r = tfc.relu %mm : tensor<8x16xf32>
  %mm2 = tfc.matmul %r, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %g = tfc.gelu %mm2 approximate tanh : tensor<8x16xf32>
  %dh = tfc.gelu_grad %dy, %mm2 approximate tanh : tensor<8x16xf32>
  return %g, %dh : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Recomputed ops (--tfc-recompute's clones, tfc.recomputed) and the forward. The
// forward is what the "loss" output depends on. A recomputed op does not join a
// forward kernel before it whose results the forward reads (that would compute it in
// the forward again; a loss kernel, read by nothing, may move instead: the last case
// below). Here the forward's whole-tensor exp sum (a multi_tensor kernel) and the
// recomputed layer_norm's row kernel, siblings reading x, have kinds that do not
// fuse and stay apart. A
// backward kernel before it joins when the merged kernel, which takes the place of the
// recomputed one, keeps nothing alive longer: the bias-gradient column sum of dy,
// which the recomputed kernel reads too.
// CHECK-LABEL: func.func @recomputed_joins_the_backward
// CHECK: tfc.fusion {{.*}}(%{{.*}} = %{{.*}} : tensor<8x16xf32>) -> tensor<f32>
// CHECK-NEXT: tfc.exp
// CHECK-NEXT: tfc.reduce_sum
// CHECK: tfc.fusion row_reduction
// CHECK-DAG: tfc.reduce_sum %{{.*}} dims [0] : tensor<8x16xf32> -> tensor<16xf32>
// CHECK-DAG: tfc.layer_norm %{{.*}} {tfc.recomputed}
// CHECK-DAG: tfc.mul
// CHECK: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @recomputed_joins_the_backward(%x: tensor<8x16xf32>, %w: tensor<16xf32>, %dy: tensor<8x16xf32>) -> (tensor<f32> {tfc.output = "loss"}, tensor<16xf32>, tensor<16xf32>) {
  %e = tfc.exp %x : tensor<8x16xf32>
  %loss = tfc.reduce_sum %e dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %db = tfc.reduce_sum %dy dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %y, %mean, %rstd = tfc.layer_norm %x weight %w {tfc.recomputed} : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %p = tfc.mul %dy, %y : tensor<8x16xf32>, tensor<8x16xf32>
  %dw = tfc.reduce_sum %p dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %loss, %db, %dw : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// A backward kernel whose inputs nothing later reads stays before the recomputed one:
// moving the residual-gradient add to it would keep dz and dr alive until then, and
// grow the arena that recompute exists to shrink.
// CHECK-LABEL: func.func @recomputed_keeps_lifetimes
// CHECK: tfc.fusion pointwise
// CHECK-NEXT: tfc.add
// CHECK: tfc.fusion row_reduction
// CHECK-NEXT: tfc.layer_norm %{{.*}} {tfc.recomputed}
// CHECK-NOT: tfc.fusion
func.func @recomputed_keeps_lifetimes(%x: tensor<8x16xf32>, %w: tensor<16xf32>, %dz: tensor<8x16xf32>, %dr: tensor<8x16xf32>) -> (tensor<f32> {tfc.output = "loss"}, tensor<8x16xf32>, tensor<16xf32>) {
  %loss = tfc.reduce_sum %x dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %res = tfc.add %dz, %dr : tensor<8x16xf32>, tensor<8x16xf32>
  %y, %mean, %rstd = tfc.layer_norm %x weight %w {tfc.recomputed} : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %p = tfc.mul %res, %y : tensor<8x16xf32>, tensor<8x16xf32>
  %dw = tfc.reduce_sum %p dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %loss, %res, %dw : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>
}

// -----

// A recomputed constant reads nothing, so computing it anywhere keeps nothing alive: it
// does not hold the softmax gradient before it apart from the scale that multiplies it.
// CHECK-LABEL: func.func @recomputed_constant
// CHECK: tfc.fusion row_reduction
// CHECK-NEXT: tfc.softmax_grad
// CHECK-NEXT: tfc.constant dense<5.000000e-01> : tensor<f32> {tfc.recomputed}
// CHECK-NEXT: tfc.mul
// CHECK-NOT: tfc.fusion
func.func @recomputed_constant(%dy: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %g = tfc.softmax_grad %dy, %y dim -1 : tensor<8x16xf32>
  %c = tfc.constant dense<0.5> : tensor<f32> {tfc.recomputed}
  %s = tfc.mul %g, %c : tensor<8x16xf32>, tensor<f32>
  return %s : tensor<8x16xf32>
}

// -----

// The loss kernel at the end of the forward reads the logits that the backward's
// recomputed convert reads too (precision=bf16 recompute=cheap). Nothing reads the
// loss before the backward, so the forward kernel can take the recomputed kernel's
// place: both become one kernel, and the clone is deduplicated with the convert it
// copies (the logits' row statistics are then reduced once).
// CHECK-LABEL: func.func @recomputed_loss_kernel
// CHECK: tfc.fusion row_reduction
// CHECK-NEXT: tfc.convert
// CHECK-NEXT: tfc.cross_entropy
// CHECK-NOT: tfc.recomputed
// CHECK: tfc.cross_entropy_grad
// CHECK: tfc.yield
// CHECK-NOT: tfc.fusion
func.func @recomputed_loss_kernel(%logits: tensor<8x16xbf16>, %labels: tensor<8xi64>) -> (tensor<f32> {tfc.output = "loss"}, tensor<8x16xbf16>) {
  %x = tfc.convert %logits : tensor<8x16xbf16> -> tensor<8x16xf32>
  %loss = tfc.cross_entropy %x, %labels : tensor<8x16xf32>, tensor<8xi64> -> tensor<f32>
  %one = tfc.constant dense<1.0> : tensor<f32>
  %xr = tfc.convert %logits {tfc.recomputed} : tensor<8x16xbf16> -> tensor<8x16xf32>
  %g = tfc.cross_entropy_grad %one, %xr, %labels : tensor<f32>, tensor<8x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %gb = tfc.convert %g : tensor<8x16xf32> -> tensor<8x16xbf16>
  return %loss, %gb : tensor<f32>, tensor<8x16xbf16>
}

// -----

// A sort kernel holds its sort alone: the pointwise producer of its rows and
// the pointwise reader of its values stay kernels of their own.
// CHECK-LABEL: func.func @sort_alone
// CHECK: tfc.fusion pointwise
// CHECK-NEXT: tfc.neg
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion sort
// CHECK-NEXT: tfc.sort
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion pointwise
// CHECK-NEXT: tfc.exp
// CHECK-NEXT: tfc.yield
func.func @sort_alone(%x: tensor<2x5000xf32>) -> tensor<2x5000xf32> {
  %n = tfc.neg %x : tensor<2x5000xf32>
  %v, %i = tfc.sort %n : tensor<2x5000xf32> -> tensor<2x5000xf32>, tensor<2x5000xi64>
  %e = tfc.exp %v : tensor<2x5000xf32>
  return %e : tensor<2x5000xf32>
}
