// RUN: tfc-translate --emit-cuda --split-input-file --verify-diagnostics %s
// Without --split-input-file every kernel is tried and every failure is
// reported before exiting with 1.
// RUN: %expect-exit 1 tfc-translate --emit-cuda %s 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: invalid.mlir:[[@LINE+11]]:8: error: codegen: gemm kernels run on cuBLASLt
// ALL: error: codegen: column_reduction output of 8 elements
// Malformed input and a missing translation are one clear line and exit 1.
// RUN: %expect-exit 1 tfc-translate --emit-cuda %S/Inputs/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: truncated.mlir:2:67: error: expected non-function type
// RUN: %expect-exit 1 tfc-translate %s 2>&1 | FileCheck %s --check-prefix=NO-ACTION
// NO-ACTION: tfc-translate: no translation given (use --emit-cuda

// A gemm kernel has no CUDA source: it runs on cuBLASLt.
func.func @gemm(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{codegen: gemm kernels run on cuBLASLt (tfcrt.gemm); there is no CUDA source to emit}}
  %r = tfc.fusion gemm (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x4xf32>) -> tensor<4x4xf32> {
    %0 = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// The kernel name becomes a C function name.
func.func @bad_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{codegen: kernel name 'my-kernel' is not a C identifier}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.neg %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  } {kernel_name = "my-kernel"}
  return %r : tensor<4xf32>
}

// -----

// One pointwise loop computes every output, so they must have one size.
func.func @pointwise_sizes(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>, %c = %b : tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
    %0 = tfc.add %a, %c : tensor<4x8xf32>, tensor<8xf32>
    %1 = tfc.neg %c : tensor<8xf32>
    // expected-error @+1 {{codegen: the outputs of a pointwise kernel must have the same number of elements (32 vs 8)}}
    tfc.yield %0, %1 : tensor<4x8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A row statistic is a register of the row being reduced: reading it at
// another row's index (here through a transpose) cannot be emitted.
func.func @stat_of_other_row(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x4xf32>) -> tensor<4x4xf32> {
    // expected-error @+1 {{codegen: a result of 'tfc.reduce_max' is read at an index outside the row being reduced}}
    %m = tfc.reduce_max %a dims [-1] keepdim : tensor<4x4xf32> -> tensor<4x1xf32>
    %t = tfc.transpose %m, [1, 0] : tensor<4x1xf32> -> tensor<1x4xf32>
    %0 = tfc.sub %a, %t : tensor<4x4xf32>, tensor<1x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// The loss exists only once every row is reduced: it cannot feed per-element
// work of the same kernel.
func.func @loss_per_element(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>) -> tensor<8x10xf32> {
  %r = tfc.fusion row_reduction (%a = %logits : tensor<8x10xf32>, %b = %labels : tensor<8xi64>) -> tensor<8x10xf32> {
    %l = tfc.cross_entropy %a, %b : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    %0 = tfc.mul %a, %l : tensor<8x10xf32>, tensor<f32>
    // expected-error @+1 {{codegen: an output computed from a cross_entropy loss must be a scalar}}
    tfc.yield %0 : tensor<8x10xf32>
  }
  return %r : tensor<8x10xf32>
}

// -----

// Row-reduction outputs are one per row or one per element of the rows.
func.func @row_output_size(%x: tensor<16x128xf32>, %w: tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x128xf32>, %c = %w : tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xf32>) {
    %w32 = tfc.convert %c : tensor<128xbf16> -> tensor<128xf32>
    %y, %m, %s = tfc.layer_norm %a weight %w32 : (tensor<16x128xf32>, tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
    // expected-error @+1 {{codegen: row_reduction output of 128 elements is neither one per row (16) nor one per element (2048)}}
    tfc.yield %y, %w32 : tensor<16x128xf32>, tensor<128xf32>
  }
  return %r#0, %r#1 : tensor<16x128xf32>, tensor<128xf32>
}

// -----

// The column reductions of one kernel share their (column, row) space.
func.func @column_mismatch(%x: tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<4x8x16xf32> -> tensor<8x16xf32>
    // expected-error @+1 {{codegen: the column reductions of one kernel must reduce the same dims of same-shaped operands}}
    %1 = tfc.reduce_sum %a dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
    tfc.yield %0, %1 : tensor<8x16xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<16xf32>
}

// -----

// An output that is neither per column nor per input element.
func.func @column_output_size(%x: tensor<64x16xf32>, %y: tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<64x16xf32>, %b = %y : tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<64x16xf32> -> tensor<16xf32>
    %1 = tfc.neg %b : tensor<8xf32>
    // expected-error @+1 {{codegen: column_reduction output of 8 elements is neither one per column (16) nor one per input element (1024)}}
    tfc.yield %0, %1 : tensor<16xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<16xf32>, tensor<8xf32>
}

// -----

// A block_quantized kernel's outputs are results of its adamw8bit op: the
// block loop has no epilogue for ops that consume them.
func.func @block_quantized_epilogue(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<300xbf16> {
  %r = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> tensor<300xbf16> {
    // expected-error @+1 {{codegen: every output of a block_quantized kernel must be a result of its adamw8bit op}}
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %a, %c, %d, %c, %d, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    %w = tfc.convert %p1 : tensor<300xf32> -> tensor<300xbf16>
    tfc.yield %w : tensor<300xbf16>
  }
  return %r : tensor<300xbf16>
}
