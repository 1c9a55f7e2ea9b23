// RUN: tfc-opt %s --split-input-file --tfc-form-kernels | FileCheck %s

// Unfused region formation: one tfc.fusion per kernel-role op, of the kind its role
// maps to; reshapes stay outside; constants are cloned into the kernels using them.

// A pointwise op becomes a pointwise fusion; an operand used twice is one input.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[F:.*]] = tfc.fusion pointwise (%[[IN:.*]] = %[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %[[M:.*]] = tfc.mul %[[IN]], %[[IN]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: tfc.yield %[[M]] : tensor<4x8xf32>
// CHECK: return %[[F]]
func.func @pointwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.mul %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A constant is cloned into every kernel that uses it and is gone from the function.
// CHECK-LABEL: func.func @constants_cloned
// CHECK-NOT: tfc.constant
// CHECK: tfc.fusion pointwise (%[[A:.*]] = %{{.*}} : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: tfc.mul %[[A]], %[[C]]
// CHECK: tfc.fusion pointwise (%[[B:.*]] = %{{.*}} : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: %[[C2:.*]] = tfc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: tfc.add %[[B]], %[[C2]]
func.func @constants_cloned(%x: tensor<8xf32>) -> tensor<8xf32> {
  %two = tfc.constant dense<2.0> : tensor<f32>
  %0 = tfc.mul %x, %two : tensor<8xf32>, tensor<f32>
  %1 = tfc.add %0, %two : tensor<8xf32>, tensor<f32>
  return %1 : tensor<8xf32>
}

// -----

// A reshape stays outside regions (bufferization aliases it); the ops around it become
// kernels.
// CHECK-LABEL: func.func @reshape_outside
// CHECK: %[[N:.*]] = tfc.fusion pointwise
// CHECK: tfc.neg
// CHECK: %[[R:.*]] = tfc.reshape %[[N]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: tfc.fusion pointwise (%{{.*}} = %[[R]] : tensor<32xf32>)
// CHECK: tfc.exp
func.func @reshape_outside(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = tfc.neg %x : tensor<4x8xf32>
  %1 = tfc.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  %2 = tfc.exp %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}

// -----

// A constant used outside kernels (returned, or reshaped) needs a buffer: it becomes a
// pointwise kernel with no inputs.
// CHECK-LABEL: func.func @constant_returned
// CHECK: %[[K:.*]] = tfc.fusion pointwise () -> tensor<4xi64> {
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
// CHECK-NEXT: tfc.yield %[[C]]
// CHECK: %[[R:.*]] = tfc.reshape %[[K]] : tensor<4xi64> -> tensor<2x2xi64>
// CHECK: return %[[K]], %[[R]]
func.func @constant_returned() -> (tensor<4xi64>, tensor<2x2xi64>) {
  %c = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %r = tfc.reshape %c : tensor<4xi64> -> tensor<2x2xi64>
  return %c, %r : tensor<4xi64>, tensor<2x2xi64>
}

// -----

// Each role gets its kind: row reduction (with all of layer_norm's results), column
// reduction, gather and gemm; ops without operands (iota) form kernels too.
// CHECK-LABEL: func.func @kinds
// CHECK: tfc.fusion gather
// CHECK-NEXT: tfc.embedding
// CHECK: tfc.fusion row_reduction ({{.*}}) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
// CHECK-NEXT: tfc.layer_norm
// CHECK: tfc.fusion column_reduction
// CHECK-NEXT: tfc.reduce_sum
// CHECK: tfc.fusion gemm
// CHECK-NEXT: tfc.matmul
// CHECK: tfc.fusion pointwise () -> tensor<8xi64>
// CHECK-NEXT: tfc.iota
func.func @kinds(%table: tensor<32x16xf32>, %ids: tensor<8xi64>, %w: tensor<4x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<16xf32>, tensor<8x4xf32>, tensor<8xi64>) {
  %e = tfc.embedding %table, %ids : tensor<32x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %y, %mean, %rstd = tfc.layer_norm %e : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %s = tfc.reduce_sum %y dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %m = tfc.matmul %y, %w transpose_b : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
  %i = tfc.iota dim 0 : tensor<8xi64>
  return %y, %mean, %s, %m, %i : tensor<8x16xf32>, tensor<8x1xf32>, tensor<16xf32>, tensor<8x4xf32>, tensor<8xi64>
}

// -----

// cuBLASLt reads GEMM operands from memory, so a constant operand of a matmul stays an
// input and becomes a kernel of its own.
// CHECK-LABEL: func.func @gemm_constant_operand
// CHECK: %[[K:.*]] = tfc.fusion pointwise () -> tensor<4x4xf32> {
// CHECK-NEXT: tfc.constant
// CHECK: tfc.fusion gemm (%{{.*}} = %{{.*}} : tensor<2x4xf32>, %{{.*}} = %[[K]] : tensor<4x4xf32>)
// CHECK-NOT: tfc.constant
// CHECK: tfc.matmul
func.func @gemm_constant_operand(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = tfc.constant dense<1.0> : tensor<4x4xf32>
  %0 = tfc.matmul %x, %c : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Existing fusions (from a fusion pass) are kept as they are; only the ops outside them
// are wrapped.
// CHECK-LABEL: func.func @existing_fusion
// CHECK: tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: tfc.neg
// CHECK-NEXT: tfc.exp
// CHECK-NEXT: tfc.yield
// CHECK: tfc.fusion pointwise
// CHECK-NEXT: tfc.abs
func.func @existing_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %n = tfc.neg %a : tensor<4xf32>
    %e = tfc.exp %n : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  %1 = tfc.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Optimizer updates have role multi_tensor: each becomes a multi_tensor
// region; lr and step are inputs like any tensor.
// CHECK-LABEL: func.func @optimizer
// CHECK: tfc.fusion multi_tensor
// CHECK: tfc.adamw
// CHECK: tfc.fusion multi_tensor
// CHECK: tfc.sgd
func.func @optimizer(%p: tensor<16xf32>, %g: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %p1, %m1, %v1 = tfc.adamw %p, %g, %m, %v, %lr, %step : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  %q = tfc.sgd %p1, %g, %lr, %step : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return %p1, %m1, %v1, %q : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// A sort becomes a sort kernel of its own, both results yielded; a constant
// operand stays an input (a sort kernel holds its sort alone), as for a GEMM,
// computed by a kernel of its own.
// CHECK-LABEL: func.func @sort
// CHECK-SAME: (%[[X:.*]]: tensor<2x5000xf32>)
// CHECK: %[[F:.*]]:2 = tfc.fusion sort (%[[IN:.*]] = %[[X]] : tensor<2x5000xf32>) -> (tensor<2x5000xf32>, tensor<2x5000xi64>) {
// CHECK-NEXT: %[[V:.*]], %[[I:.*]] = tfc.sort %[[IN]] descending : tensor<2x5000xf32> -> tensor<2x5000xf32>, tensor<2x5000xi64>
// CHECK-NEXT: tfc.yield %[[V]], %[[I]] : tensor<2x5000xf32>, tensor<2x5000xi64>
// CHECK: %[[C:.*]] = tfc.fusion pointwise () -> tensor<3xi32> {
// CHECK-NEXT: tfc.constant dense<{{\[}}3, 1, 2]> : tensor<3xi32>
// CHECK: tfc.fusion sort (%[[IN2:.*]] = %[[C]] : tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi64>) {
// CHECK-NEXT: tfc.sort %[[IN2]] : tensor<3xi32> -> tensor<3xi32>, tensor<3xi64>
// CHECK: return %[[F]]#0, %{{.*}}#1
func.func @sort(%x: tensor<2x5000xf32>) -> (tensor<2x5000xf32>, tensor<3xi64>) {
  %v, %i = tfc.sort %x descending : tensor<2x5000xf32> -> tensor<2x5000xf32>, tensor<2x5000xi64>
  %c = tfc.constant dense<[3, 1, 2]> : tensor<3xi32>
  %w, %j = tfc.sort %c : tensor<3xi32> -> tensor<3xi32>, tensor<3xi64>
  return %v, %j : tensor<2x5000xf32>, tensor<3xi64>
}
