// RUN: tfc-opt %s --split-input-file | FileCheck %s
// Round trip through the generic form too: printing and parsing it must agree.
// RUN: tfc-opt %s --split-input-file --mlir-print-op-generic | tfc-opt --split-input-file | FileCheck %s

// Every tfc op round-trips in custom and generic form (test/dialects/tfc/op-coverage.test
// checks that none is missing). Cases are grouped like the Tfc*Ops.td files.

// Unary math ops keep their operand's type; neg and abs also take integers.
// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi32>, %h: tensor<2xbf16>) -> tensor<4x8xf32> {
  // CHECK: tfc.neg %{{.*}} : tensor<4x8xf32>
  %0 = tfc.neg %x : tensor<4x8xf32>
  // CHECK: tfc.abs %{{.*}} : tensor<4xi32>
  %1 = tfc.abs %i : tensor<4xi32>
  // CHECK: tfc.exp %{{.*}} : tensor<4x8xf32>
  %2 = tfc.exp %0 : tensor<4x8xf32>
  // CHECK: tfc.log %{{.*}} : tensor<4x8xf32>
  %3 = tfc.log %2 : tensor<4x8xf32>
  // CHECK: tfc.sqrt %{{.*}} : tensor<4x8xf32>
  %4 = tfc.sqrt %3 : tensor<4x8xf32>
  // CHECK: tfc.rsqrt %{{.*}} : tensor<4x8xf32>
  %5 = tfc.rsqrt %4 : tensor<4x8xf32>
  // CHECK: tfc.tanh %{{.*}} : tensor<4x8xf32>
  %6 = tfc.tanh %5 : tensor<4x8xf32>
  // CHECK: tfc.cos %{{.*}} : tensor<4x8xf32>
  %cos = tfc.cos %6 : tensor<4x8xf32>
  // CHECK: tfc.sin %{{.*}} : tensor<4x8xf32>
  %sin = tfc.sin %cos : tensor<4x8xf32>
  // CHECK: tfc.erf %{{.*}} : tensor<4x8xf32>
  %erf = tfc.erf %sin : tensor<4x8xf32>
  // CHECK: tfc.sigmoid %{{.*}} : tensor<4x8xf32>
  %7 = tfc.sigmoid %6 : tensor<4x8xf32>
  // CHECK: tfc.relu %{{.*}} : tensor<4x8xf32>
  %8 = tfc.relu %7 : tensor<4x8xf32>
  // CHECK: tfc.silu %{{.*}} : tensor<2xbf16>
  %9 = tfc.silu %h : tensor<2xbf16>
  // CHECK: tfc.abs %{{.*}} : tensor<4x8xf32>
  %10 = tfc.abs %8 : tensor<4x8xf32>
  return %10 : tensor<4x8xf32>
}

// -----

// gelu defaults to the exact erf form; `approximate tanh` selects GPT-2's form.
// CHECK-LABEL: func.func @gelu
func.func @gelu(%x: tensor<16x512xf16>) -> tensor<16x512xf16> {
  // CHECK: %[[EXACT:.*]] = tfc.gelu %{{.*}} : tensor<16x512xf16>
  %0 = tfc.gelu %x : tensor<16x512xf16>
  // CHECK: tfc.gelu %[[EXACT]] approximate tanh : tensor<16x512xf16>
  %1 = tfc.gelu %0 approximate tanh : tensor<16x512xf16>
  return %1 : tensor<16x512xf16>
}

// -----

// pow takes a compile-time scalar exponent.
// CHECK-LABEL: func.func @pow
func.func @pow(%x: tensor<8xf64>) -> tensor<8xf64> {
  // CHECK: tfc.pow %{{.*}}, 3.000000e+00 : tensor<8xf64>
  %0 = tfc.pow %x, 3.0 : tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

// Binary ops broadcast numpy-style; the result type is inferred.
// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<16x64x128xf32>, %b: tensor<128xf32>, %c: tensor<16x1x1xf32>, %s: tensor<f32>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.add %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<128xf32>
  %0 = tfc.add %x, %b : tensor<16x64x128xf32>, tensor<128xf32>
  // CHECK: tfc.sub %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<16x1x1xf32>
  %1 = tfc.sub %0, %c : tensor<16x64x128xf32>, tensor<16x1x1xf32>
  // CHECK: tfc.mul %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<f32>
  %2 = tfc.mul %1, %s : tensor<16x64x128xf32>, tensor<f32>
  // CHECK: tfc.div %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<128xf32>
  %3 = tfc.div %2, %b : tensor<16x64x128xf32>, tensor<128xf32>
  // CHECK: tfc.maximum %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<f32>
  %4 = tfc.maximum %3, %s : tensor<16x64x128xf32>, tensor<f32>
  // CHECK: tfc.minimum %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<16x1x1xf32>
  %5 = tfc.minimum %4, %c : tensor<16x64x128xf32>, tensor<16x1x1xf32>
  // CHECK: tfc.atan2 %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<128xf32>
  %6 = tfc.atan2 %5, %b : tensor<16x64x128xf32>, tensor<128xf32>
  // CHECK: tfc.fmod %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<f32>
  %7 = tfc.fmod %6, %s : tensor<16x64x128xf32>, tensor<f32>
  return %7 : tensor<16x64x128xf32>
}

// -----

// Both operands may broadcast: [4, 1] op [3] gives [4, 3]; integers work too.
// CHECK-LABEL: func.func @outer
func.func @outer(%a: tensor<4x1xi64>, %b: tensor<3xi64>) -> tensor<4x3xi64> {
  // CHECK: tfc.mul %{{.*}}, %{{.*}} : tensor<4x1xi64>, tensor<3xi64>
  %0 = tfc.mul %a, %b : tensor<4x1xi64>, tensor<3xi64>
  return %0 : tensor<4x3xi64>
}

// -----

// Bitwise ops on integers (i1, i32, i64) broadcast as the other binary ops;
// bitwise_not is unary.
// CHECK-LABEL: func.func @bitwise
func.func @bitwise(%h: tensor<4x8xi64>, %p: tensor<8xi64>, %m: tensor<i64>, %k: tensor<4x1xi32>, %b: tensor<4x8xi1>) -> (tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi1>) {
  // CHECK: tfc.bitwise_xor %{{.*}}, %{{.*}} : tensor<4x8xi64>, tensor<8xi64>
  %0 = tfc.bitwise_xor %h, %p : tensor<4x8xi64>, tensor<8xi64>
  // CHECK: tfc.bitwise_and %{{.*}}, %{{.*}} : tensor<4x8xi64>, tensor<i64>
  %1 = tfc.bitwise_and %0, %m : tensor<4x8xi64>, tensor<i64>
  // CHECK: tfc.bitwise_or %{{.*}}, %{{.*}} : tensor<4x1xi32>, tensor<4x8xi32>
  %c = tfc.convert %1 : tensor<4x8xi64> -> tensor<4x8xi32>
  %2 = tfc.bitwise_or %k, %c : tensor<4x1xi32>, tensor<4x8xi32>
  // CHECK: tfc.bitwise_not %{{.*}} : tensor<4x8xi32>
  %3 = tfc.bitwise_not %2 : tensor<4x8xi32>
  // CHECK: tfc.bitwise_xor %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xi1>
  %4 = tfc.bitwise_xor %b, %b : tensor<4x8xi1>, tensor<4x8xi1>
  // CHECK: tfc.bitwise_not %{{.*}} : tensor<4x8xi1>
  %5 = tfc.bitwise_not %4 : tensor<4x8xi1>
  return %1, %3, %5 : tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi1>
}

// -----

// Shifts of i32 / i64 broadcast as the other binary ops.
// CHECK-LABEL: func.func @shifts
func.func @shifts(%h: tensor<4x8xi64>, %s: tensor<i64>, %k: tensor<4x1xi32>, %n: tensor<8xi32>) -> (tensor<4x8xi64>, tensor<4x8xi32>) {
  // CHECK: tfc.shift_left %{{.*}}, %{{.*}} : tensor<4x8xi64>, tensor<i64>
  %0 = tfc.shift_left %h, %s : tensor<4x8xi64>, tensor<i64>
  // CHECK: tfc.shift_right %{{.*}}, %{{.*}} : tensor<4x1xi32>, tensor<8xi32>
  %1 = tfc.shift_right %k, %n : tensor<4x1xi32>, tensor<8xi32>
  return %0, %1 : tensor<4x8xi64>, tensor<4x8xi32>
}

// -----

// compare yields i1 of the broadcast shape; select broadcasts all three operands.
// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%x: tensor<4x8xf32>, %t: tensor<8xf32>, %z: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: %[[M:.*]] = tfc.compare gt, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %m = tfc.compare gt, %x, %t : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tfc.compare eq, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xi1>
  %e = tfc.compare eq, %m, %m : tensor<4x8xi1>, tensor<4x8xi1>
  // CHECK: tfc.compare ne
  %n = tfc.compare ne, %x, %z : tensor<4x8xf32>, tensor<f32>
  // CHECK: tfc.compare lt
  %l = tfc.compare lt, %x, %z : tensor<4x8xf32>, tensor<f32>
  // CHECK: tfc.compare le
  %le = tfc.compare le, %x, %z : tensor<4x8xf32>, tensor<f32>
  // CHECK: tfc.compare ge
  %ge = tfc.compare ge, %x, %z : tensor<4x8xf32>, tensor<f32>
  // CHECK: tfc.select %[[M]], %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  %0 = tfc.select %m, %x, %z : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  return %0 : tensor<4x8xf32>
}

// -----

// convert changes only the element type; float, integer and bool all convert.
// CHECK-LABEL: func.func @convert
func.func @convert(%x: tensor<16x128xf32>, %i: tensor<4xi32>) -> (tensor<16x128xbf16>, tensor<4xf16>, tensor<4xi1>) {
  // CHECK: tfc.convert %{{.*}} : tensor<16x128xf32> -> tensor<16x128xbf16>
  %0 = tfc.convert %x : tensor<16x128xf32> -> tensor<16x128xbf16>
  // CHECK: tfc.convert %{{.*}} : tensor<4xi32> -> tensor<4xf16>
  %1 = tfc.convert %i : tensor<4xi32> -> tensor<4xf16>
  // CHECK: tfc.convert %{{.*}} : tensor<4xi32> -> tensor<4xi1>
  %2 = tfc.convert %i : tensor<4xi32> -> tensor<4xi1>
  return %0, %1, %2 : tensor<16x128xbf16>, tensor<4xf16>, tensor<4xi1>
}

// -----

// stop_gradient returns its operand (its meaning is for autodiff).
// CHECK-LABEL: func.func @stop_gradient
func.func @stop_gradient(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // CHECK: tfc.stop_gradient %{{.*}} : tensor<4x8xbf16>
  %0 = tfc.stop_gradient %x : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// straight_through returns its value (its gradient goes to the source).
// CHECK-LABEL: func.func @straight_through
func.func @straight_through(%x: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: tfc.straight_through %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = tfc.straight_through %x, %s : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Constants are splat or dense; the result type is the attribute's.
// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<f32>, tensor<3xi64>, tensor<2x2xbf16>, tensor<2xi1>) {
  // CHECK: tfc.constant dense<0.000000e+00> : tensor<f32>
  %0 = tfc.constant dense<0.0> : tensor<f32>
  // CHECK: tfc.constant dense<[1, 2, 3]> : tensor<3xi64>
  %1 = tfc.constant dense<[1, 2, 3]> : tensor<3xi64>
  // CHECK: tfc.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
  %2 = tfc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  // CHECK: tfc.constant dense<[true, false]> : tensor<2xi1>
  %3 = tfc.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2, %3 : tensor<f32>, tensor<3xi64>, tensor<2x2xbf16>, tensor<2xi1>
}

// -----

// Reshape keeps the element type and count; the result type is spelled out.
// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<16x64x128xf32>) -> tensor<1024x128xf32> {
  // CHECK: tfc.reshape %{{.*}} : tensor<16x64x128xf32> -> tensor<1024x128xf32>
  %0 = tfc.reshape %x : tensor<16x64x128xf32> -> tensor<1024x128xf32>
  return %0 : tensor<1024x128xf32>
}

// -----

// Reshape to and from rank 0 (one element).
// CHECK-LABEL: func.func @reshape_scalar
func.func @reshape_scalar(%x: tensor<1x1xbf16>) -> tensor<bf16> {
  // CHECK: tfc.reshape %{{.*}} : tensor<1x1xbf16> -> tensor<bf16>
  %0 = tfc.reshape %x : tensor<1x1xbf16> -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// Transpose permutes dimensions (attention head split).
// CHECK-LABEL: func.func @transpose
func.func @transpose(%x: tensor<16x64x4x32xf32>) -> tensor<16x4x64x32xf32> {
  // CHECK: tfc.transpose %{{.*}}, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %0 = tfc.transpose %x, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  return %0 : tensor<16x4x64x32xf32>
}

// -----

// Broadcast adds leading dimensions and expands size-1 ones.
// CHECK-LABEL: func.func @broadcast_to
func.func @broadcast_to(%x: tensor<128xf32>, %m: tensor<64x1xi1>) -> (tensor<16x64x128xf32>, tensor<2x64x8xi1>) {
  // CHECK: tfc.broadcast_to %{{.*}} : tensor<128xf32> -> tensor<16x64x128xf32>
  %0 = tfc.broadcast_to %x : tensor<128xf32> -> tensor<16x64x128xf32>
  // CHECK: tfc.broadcast_to %{{.*}} : tensor<64x1xi1> -> tensor<2x64x8xi1>
  %1 = tfc.broadcast_to %m : tensor<64x1xi1> -> tensor<2x64x8xi1>
  return %0, %1 : tensor<16x64x128xf32>, tensor<2x64x8xi1>
}

// -----

// Slice without a step (unit steps): the q/k/v split of a fused projection.
// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<16x64x384xf32>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.slice %{{.*}} [0, 0, 128] to [16, 64, 256] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %0 = tfc.slice %x [0, 0, 128] to [16, 64, 256] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  return %0 : tensor<16x64x128xf32>
}

// -----

// Strided slice: the size is ceil((limit - start) / step).
// CHECK-LABEL: func.func @slice_step
func.func @slice_step(%x: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<3x0xf32>) {
  // CHECK: tfc.slice %{{.*}} [0, 0] to [8, 8] step [2, 1] : tensor<8x8xf32> -> tensor<4x8xf32>
  %0 = tfc.slice %x [0, 0] to [8, 8] step [2, 1] : tensor<8x8xf32> -> tensor<4x8xf32>
  // An empty range gives a size-0 dimension.
  // CHECK: tfc.slice %{{.*}} [1, 5] to [8, 5] step [3, 2] : tensor<8x8xf32> -> tensor<3x0xf32>
  %1 = tfc.slice %x [1, 5] to [8, 5] step [3, 2] : tensor<8x8xf32> -> tensor<3x0xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<3x0xf32>
}

// -----

// Concat joins along a dimension; a negative dim counts from the back.
// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>, %c: tensor<4x1xf32>) -> (tensor<4x10xf32>, tensor<4x11xf32>) {
  // CHECK: tfc.concat %{{.*}}, %{{.*}} dim 1 : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x10xf32>
  %0 = tfc.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x10xf32>
  // CHECK: tfc.concat %{{.*}}, %{{.*}}, %{{.*}} dim -1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x1xf32> -> tensor<4x11xf32>
  %1 = tfc.concat %a, %b, %c dim -1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x1xf32> -> tensor<4x11xf32>
  return %0, %1 : tensor<4x10xf32>, tensor<4x11xf32>
}

// -----

// Concat of one input is valid (and folds away).
// CHECK-LABEL: func.func @concat_single
func.func @concat_single(%a: tensor<4xi64>) -> tensor<4xi64> {
  // CHECK: tfc.concat %{{.*}} dim 0 : tensor<4xi64> -> tensor<4xi64>
  %0 = tfc.concat %a dim 0 : tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Pad with a float value, and an integer tensor with an integral value.
// CHECK-LABEL: func.func @pad
func.func @pad(%x: tensor<4x5xf32>, %i: tensor<3xi32>) -> (tensor<4x8xf32>, tensor<6xi32>) {
  // CHECK: tfc.pad %{{.*}} low [0, 0] high [0, 3] value 0.000000e+00 : tensor<4x5xf32> -> tensor<4x8xf32>
  %0 = tfc.pad %x low [0, 0] high [0, 3] value 0.000000e+00 : tensor<4x5xf32> -> tensor<4x8xf32>
  // CHECK: tfc.pad %{{.*}} low [1] high [2] value -1.000000e+00 : tensor<3xi32> -> tensor<6xi32>
  %1 = tfc.pad %i low [1] high [2] value -1.0 : tensor<3xi32> -> tensor<6xi32>
  return %0, %1 : tensor<4x8xf32>, tensor<6xi32>
}

// -----

// Iota counts along one dimension; a negative dim counts from the back.
// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<64xi64>, tensor<64x64xi32>, tensor<8x4xf32>) {
  // CHECK: tfc.iota dim 0 : tensor<64xi64>
  %0 = tfc.iota dim 0 : tensor<64xi64>
  // CHECK: tfc.iota dim 1 : tensor<64x64xi32>
  %1 = tfc.iota dim 1 : tensor<64x64xi32>
  // CHECK: tfc.iota dim -2 : tensor<8x4xf32>
  %2 = tfc.iota dim -2 : tensor<8x4xf32>
  return %0, %1, %2 : tensor<64xi64>, tensor<64x64xi32>, tensor<8x4xf32>
}

// -----

// A row sum drops the reduced trailing dimension.
// CHECK-LABEL: func.func @reduce_sum_row
func.func @reduce_sum_row(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // CHECK: tfc.reduce_sum %{{.*}} dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keepdim keeps each reduced dimension with size 1.
// CHECK-LABEL: func.func @reduce_mean_keepdim
func.func @reduce_mean_keepdim(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // CHECK: tfc.reduce_mean %{{.*}} dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %0 = tfc.reduce_mean %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Several non-adjacent dims reduce at once; the kept dims stay in order.
// CHECK-LABEL: func.func @reduce_max_dims
func.func @reduce_max_dims(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  // CHECK: tfc.reduce_max %{{.*}} dims [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  %0 = tfc.reduce_max %x dims [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Negative dims count from the back and are printed as written.
// CHECK-LABEL: func.func @negative_dims
func.func @negative_dims(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  // CHECK: tfc.reduce_sum %{{.*}} dims [-1, -2] keepdim : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  %0 = tfc.reduce_sum %x dims [-1, -2] keepdim : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Reducing every dimension yields a 0-d tensor (a loss, a global norm).
// CHECK-LABEL: func.func @reduce_all
func.func @reduce_all(%x: tensor<16x64xf32>) -> tensor<f32> {
  // CHECK: tfc.reduce_mean %{{.*}} dims [0, 1] : tensor<16x64xf32> -> tensor<f32>
  %0 = tfc.reduce_mean %x dims [0, 1] : tensor<16x64xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The result keeps a 16-bit element type; accumulation in f32 is internal.
// CHECK-LABEL: func.func @bf16
func.func @bf16(%x: tensor<16x64x128xbf16>) -> tensor<128xbf16> {
  // CHECK: tfc.reduce_sum %{{.*}} dims [0, 1] : tensor<16x64x128xbf16> -> tensor<128xbf16>
  %0 = tfc.reduce_sum %x dims [0, 1] : tensor<16x64x128xbf16> -> tensor<128xbf16>
  return %0 : tensor<128xbf16>
}

// -----

// Sum and max accept integer tensors (e.g. counting tokens).
// CHECK-LABEL: func.func @integers
func.func @integers(%x: tensor<8x32xi64>, %y: tensor<8xi32>) -> (tensor<8xi64>, tensor<i32>) {
  // CHECK: tfc.reduce_sum %{{.*}} dims [1] : tensor<8x32xi64> -> tensor<8xi64>
  %0 = tfc.reduce_sum %x dims [1] : tensor<8x32xi64> -> tensor<8xi64>
  // CHECK: tfc.reduce_max %{{.*}} dims [0] : tensor<8xi32> -> tensor<i32>
  %1 = tfc.reduce_max %y dims [0] : tensor<8xi32> -> tensor<i32>
  return %0, %1 : tensor<8xi64>, tensor<i32>
}

// -----

// tfc.checkpoint marks a block for recompute=blocks; inputs are bound as in
// tfc.fusion, and any ops of the function may form its body.
// CHECK-LABEL: func.func @checkpoint
func.func @checkpoint(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // CHECK: tfc.checkpoint (%{{.*}} = %{{.*}} : tensor<8x16xf32>, %{{.*}} = %{{.*}} : tensor<16x16xf32>) -> tensor<8x16xf32> {
  %y = tfc.checkpoint (%a = %x : tensor<8x16xf32>, %b = %w : tensor<16x16xf32>) -> tensor<8x16xf32> {
    // CHECK: tfc.matmul
    %h = tfc.matmul %a, %b transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %g = tfc.gelu %h approximate tanh : tensor<8x16xf32>
    // CHECK: tfc.yield %{{.*}} : tensor<8x16xf32>
    tfc.yield %g : tensor<8x16xf32>
  }
  return %y : tensor<8x16xf32>
}

// -----

// Kernel roles, seen through tfc.fusion's verifier: a trailing suffix of
// dims is a row reduction, and reductions of equal row geometry (here 4 rows
// of 8, and 4 rows of 2x4) share one row_reduction kernel.
// CHECK-LABEL: func.func @row_reduction_role
func.func @row_reduction_role(%x: tensor<4x8xf32>, %y: tensor<4x2x4xf32>) -> (tensor<4xf32>, tensor<4x1x1xf32>) {
  // CHECK: tfc.fusion row_reduction
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>, %b = %y : tensor<4x2x4xf32>) -> (tensor<4xf32>, tensor<4x1x1xf32>) {
    // CHECK: tfc.reduce_sum %{{.*}} dims [-1] : tensor<4x8xf32> -> tensor<4xf32>
    %0 = tfc.reduce_sum %a dims [-1] : tensor<4x8xf32> -> tensor<4xf32>
    // CHECK: tfc.reduce_max %{{.*}} dims [2, 1] keepdim : tensor<4x2x4xf32> -> tensor<4x1x1xf32>
    %1 = tfc.reduce_max %b dims [2, 1] keepdim : tensor<4x2x4xf32> -> tensor<4x1x1xf32>
    tfc.yield %0, %1 : tensor<4xf32>, tensor<4x1x1xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x1x1xf32>
}

// -----

// Dims that leave the last dimension alone form a column reduction (the bias
// gradient of a linear layer).
// CHECK-LABEL: func.func @column_reduction_role
func.func @column_reduction_role(%dy: tensor<16x64x128xf32>) -> tensor<128xf32> {
  // CHECK: tfc.fusion column_reduction
  %r = tfc.fusion column_reduction (%a = %dy : tensor<16x64x128xf32>) -> tensor<128xf32> {
    // CHECK: tfc.reduce_sum %{{.*}} dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    %0 = tfc.reduce_sum %a dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    tfc.yield %0 : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}

// -----

// A plain 2-d matrix product: [M, K] @ [K, N] -> [M, N].
// CHECK-LABEL: func.func @matmul_2d
func.func @matmul_2d(%a: tensor<32x16xf32>, %b: tensor<16x8xf32>) -> tensor<32x8xf32> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
  %0 = tfc.matmul %a, %b : tensor<32x16xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
  return %0 : tensor<32x8xf32>
}

// -----

// Linear layer: rank-3 activations against a PyTorch-layout [out, in] weight.
// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<16x64x128xf32>, %w: tensor<384x128xf32>) -> tensor<16x64x384xf32> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  %0 = tfc.matmul %x, %w transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  return %0 : tensor<16x64x384xf32>
}

// -----

// Attention scores: bf16 operands with batch dims and an fp32 result.
// CHECK-LABEL: func.func @scores_bf16_to_f32
func.func @scores_bf16_to_f32(%q: tensor<16x4x64x32xbf16>, %k: tensor<16x4x64x32xbf16>) -> tensor<16x4x64x64xf32> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} transpose_b : tensor<16x4x64x32xbf16>, tensor<16x4x64x32xbf16> -> tensor<16x4x64x64xf32>
  %0 = tfc.matmul %q, %k transpose_b : tensor<16x4x64x32xbf16>, tensor<16x4x64x32xbf16> -> tensor<16x4x64x64xf32>
  return %0 : tensor<16x4x64x64xf32>
}

// -----

// 16-bit operands may also keep their own type as the result type.
// CHECK-LABEL: func.func @f16_result
func.func @f16_result(%p: tensor<16x4x64x64xf16>, %v: tensor<16x4x64x32xf16>) -> tensor<16x4x64x32xf16> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} : tensor<16x4x64x64xf16>, tensor<16x4x64x32xf16> -> tensor<16x4x64x32xf16>
  %0 = tfc.matmul %p, %v : tensor<16x4x64x64xf16>, tensor<16x4x64x32xf16> -> tensor<16x4x64x32xf16>
  return %0 : tensor<16x4x64x32xf16>
}

// -----

// transpose_a contracts over the rows of a (a weight gradient x^T dy).
// CHECK-LABEL: func.func @transpose_a
func.func @transpose_a(%a: tensor<32x16xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} transpose_a : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  %0 = tfc.matmul %a, %b transpose_a : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Both transposes at once, printed in a fixed order.
// CHECK-LABEL: func.func @transpose_both
func.func @transpose_both(%a: tensor<16x32xf64>, %b: tensor<8x16xf64>) -> tensor<32x8xf64> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} transpose_a transpose_b : tensor<16x32xf64>, tensor<8x16xf64> -> tensor<32x8xf64>
  %0 = tfc.matmul %a, %b transpose_a transpose_b : tensor<16x32xf64>, tensor<8x16xf64> -> tensor<32x8xf64>
  return %0 : tensor<32x8xf64>
}

// -----

// Batch dims broadcast numpy-style: size-1 and missing dims stretch.
// CHECK-LABEL: func.func @batch_broadcast
func.func @batch_broadcast(%a: tensor<2x1x8x16xf32>, %b: tensor<3x16x4xf32>) -> tensor<2x3x8x4xf32> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} : tensor<2x1x8x16xf32>, tensor<3x16x4xf32> -> tensor<2x3x8x4xf32>
  %0 = tfc.matmul %a, %b : tensor<2x1x8x16xf32>, tensor<3x16x4xf32> -> tensor<2x3x8x4xf32>
  return %0 : tensor<2x3x8x4xf32>
}

// -----

// A rank-2 left operand against batched right operands (weight gradient of
// a shared projection is the mirror case).
// CHECK-LABEL: func.func @rank2_lhs
func.func @rank2_lhs(%a: tensor<8x16xbf16>, %b: tensor<4x16x32xbf16>) -> tensor<4x8x32xbf16> {
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<4x16x32xbf16> -> tensor<4x8x32xbf16>
  %0 = tfc.matmul %a, %b : tensor<8x16xbf16>, tensor<4x16x32xbf16> -> tensor<4x8x32xbf16>
  return %0 : tensor<4x8x32xbf16>
}

// -----

// Kernel role: matmul is a gemm, the anchor of a gemm kernel.
// CHECK-LABEL: func.func @gemm_role
func.func @gemm_role(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // CHECK: tfc.fusion gemm
  %r = tfc.fusion gemm (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x4xf32>) -> tensor<4x4xf32> {
    // CHECK: tfc.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    %0 = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// embedding appends the table's width to the ids' shape.
// CHECK-LABEL: func.func @embedding
func.func @embedding(%table: tensor<256x128xf32>, %ids: tensor<16x64xi64>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.embedding %{{[^ ]+}}, %{{[^ ]+}} : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
  %e = tfc.embedding %table, %ids : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
  return %e : tensor<16x64x128xf32>
}

// -----

// 0-d i32 ids gather a single row; a bf16 table gives a bf16 result.
// CHECK-LABEL: func.func @embedding_scalar_id
func.func @embedding_scalar_id(%table: tensor<64x32xbf16>, %id: tensor<i32>) -> tensor<32xbf16> {
  // CHECK: tfc.embedding %{{[^ ]+}}, %{{[^ ]+}} : tensor<64x32xbf16>, tensor<i32> -> tensor<32xbf16>
  %e = tfc.embedding %table, %id : tensor<64x32xbf16>, tensor<i32> -> tensor<32xbf16>
  return %e : tensor<32xbf16>
}

// -----

// layer_norm with weight and bias; the default eps is elided when printing.
// CHECK-LABEL: func.func @layer_norm_affine
func.func @layer_norm_affine(%x: tensor<16x64x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.layer_norm %{{[^ ]+}} weight %{{[^ ]+}} bias %{{[^ ]+}} : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  %y, %mean, %rstd = tfc.layer_norm %x weight %w bias %b eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  return %y : tensor<16x64x128xf32>
}

// -----

// layer_norm without affine parameters on bf16: the statistics are f32.
// CHECK-LABEL: func.func @layer_norm_bf16
func.func @layer_norm_bf16(%x: tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x1xf32>) {
  // CHECK: tfc.layer_norm %{{[^ ]+}} : (tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  %y, %mean, %rstd = tfc.layer_norm %x eps 1.000000e-05 : (tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  return %y, %rstd : tensor<8x32xbf16>, tensor<8x1xf32>
}

// -----

// fp32 weight and bias may scale bf16 activations; a non-default eps prints.
// CHECK-LABEL: func.func @layer_norm_mixed_dtype
func.func @layer_norm_mixed_dtype(%x: tensor<4x16xbf16>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xbf16> {
  // CHECK: tfc.layer_norm %{{[^ ]+}} weight %{{[^ ]+}} bias %{{[^ ]+}} eps 1.000000e-03 : (tensor<4x16xbf16>, tensor<16xf32>, tensor<16xf32>) -> (tensor<4x16xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  %y, %mean, %rstd = tfc.layer_norm %x weight %w bias %b eps 1.000000e-03 : (tensor<4x16xbf16>, tensor<16xf32>, tensor<16xf32>) -> (tensor<4x16xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y : tensor<4x16xbf16>
}

// -----

// normalized_rank 2 normalizes the last two dims; bias alone is allowed.
// CHECK-LABEL: func.func @layer_norm_rank2
func.func @layer_norm_rank2(%x: tensor<8x4x32xf64>, %b: tensor<4x32xf64>) -> tensor<8x1x1xf64> {
  // CHECK: tfc.layer_norm %{{[^ ]+}} bias %{{[^ ]+}} normalized_rank 2 : (tensor<8x4x32xf64>, tensor<4x32xf64>) -> (tensor<8x4x32xf64>, tensor<8x1x1xf64>, tensor<8x1x1xf64>)
  %y, %mean, %rstd = tfc.layer_norm %x bias %b normalized_rank 2 : (tensor<8x4x32xf64>, tensor<4x32xf64>) -> (tensor<8x4x32xf64>, tensor<8x1x1xf64>, tensor<8x1x1xf64>)
  return %mean : tensor<8x1x1xf64>
}

// -----

// rms_norm with a weight and a non-default eps returns y and rstd (1e-6
// prints in MLIR's shortest round-trip form).
// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<16x64x128xf32>, %w: tensor<128xf32>) -> tensor<16x64x1xf32> {
  // CHECK: tfc.rms_norm %{{[^ ]+}} weight %{{[^ ]+}} eps 9.9999999999999995E-7 : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
  %y, %rstd = tfc.rms_norm %x weight %w eps 1.000000e-06 : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
  return %rstd : tensor<16x64x1xf32>
}

// -----

// rms_norm without a weight over the last two dims of f16: f32 rstd.
// CHECK-LABEL: func.func @rms_norm_plain
func.func @rms_norm_plain(%x: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  // CHECK: tfc.rms_norm %{{[^ ]+}} normalized_rank 2 : (tensor<2x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<2x1x1xf32>)
  %y, %rstd = tfc.rms_norm %x normalized_rank 2 eps 1.000000e-05 : (tensor<2x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<2x1x1xf32>)
  return %y : tensor<2x8x16xf16>
}

// -----

// softmax over the last dim (negative dims count from the back) and over a
// middle dim keep the operand's type and the dim as written.
// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<16x4x64x64xf32>, %h: tensor<4x8xbf16>) -> (tensor<16x4x64x64xf32>, tensor<4x8xbf16>) {
  // CHECK: tfc.softmax %{{[^ ]+}} dim -1 : tensor<16x4x64x64xf32>
  %p = tfc.softmax %x dim -1 : tensor<16x4x64x64xf32>
  // CHECK: tfc.softmax %{{[^ ]+}} dim 0 : tensor<4x8xbf16>
  %q = tfc.softmax %h dim 0 : tensor<4x8xbf16>
  return %p, %q : tensor<16x4x64x64xf32>, tensor<4x8xbf16>
}

// -----

// log_softmax takes the same dim forms as softmax.
// CHECK-LABEL: func.func @log_softmax
func.func @log_softmax(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  // CHECK: tfc.log_softmax %{{[^ ]+}} dim 1 : tensor<1024x256xf32>
  %l = tfc.log_softmax %x dim 1 : tensor<1024x256xf32>
  // CHECK: tfc.log_softmax %{{[^ ]+}} dim -2 : tensor<1024x256xf32>
  %m = tfc.log_softmax %l dim -2 : tensor<1024x256xf32>
  return %m : tensor<1024x256xf32>
}

// -----

// dropout takes 0-d i64 seed and offset operands whose type is implied.
// CHECK-LABEL: func.func @dropout
func.func @dropout(%x: tensor<16x64x128xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.dropout %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} p 1.000000e-01 : tensor<16x64x128xf32>
  %d = tfc.dropout %x, %seed, %offset p 1.000000e-01 : tensor<16x64x128xf32>
  // CHECK: tfc.dropout %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} p 0.000000e+00 : tensor<16x64x128xf32>
  %e = tfc.dropout %d, %seed, %offset p 0.0 : tensor<16x64x128xf32>
  return %e : tensor<16x64x128xf32>
}

// -----

// random draws uniform or normal numbers of any float type from the same
// 0-d i64 seed and offset operands as dropout.
// CHECK-LABEL: func.func @random
func.func @random(%seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<8x3xf32>, tensor<5xbf16>, tensor<f64>) {
  // CHECK: tfc.random %{{[^ ]+}}, %{{[^ ]+}} uniform : tensor<8x3xf32>
  %u = tfc.random %seed, %offset uniform : tensor<8x3xf32>
  // CHECK: tfc.random %{{[^ ]+}}, %{{[^ ]+}} normal : tensor<5xbf16>
  %z = tfc.random %seed, %offset normal : tensor<5xbf16>
  // CHECK: tfc.random %{{[^ ]+}}, %{{[^ ]+}} normal : tensor<f64>
  %s = tfc.random %seed, %offset normal : tensor<f64>
  return %u, %z, %s : tensor<8x3xf32>, tensor<5xbf16>, tensor<f64>
}

// -----

// Causal self-attention over [batch, heads, T, D].
// CHECK-LABEL: func.func @attention_causal
func.func @attention_causal(%q: tensor<16x4x64x32xf32>, %k: tensor<16x4x64x32xf32>, %v: tensor<16x4x64x32xf32>) -> tensor<16x4x64x32xf32> {
  // CHECK: tfc.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} causal : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
  %o = tfc.attention %q, %k, %v causal : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
  return %o : tensor<16x4x64x32xf32>
}

// -----

// Every option: explicit scale and dropout with its seed and offset (bf16).
// CHECK-LABEL: func.func @attention_all_options
func.func @attention_all_options(%q: tensor<2x8x16xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<2x8x16xbf16> {
  // CHECK: tfc.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} causal scale 2.500000e-01 dropout 1.000000e-01 seed %{{[^ ]+}} offset %{{[^ ]+}} : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>
  %o = tfc.attention %q, %q, %q causal scale 2.500000e-01 dropout 1.000000e-01 seed %seed offset %offset : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>
  return %o : tensor<2x8x16xbf16>
}

// -----

// attn_mask: an i1 padding mask [B, 1, 1, S] and an additive bf16 bias [T, S]
// with causal; the mask's type follows the operand types.
// CHECK-LABEL: func.func @attention_masks
func.func @attention_masks(%q: tensor<2x4x8x16xbf16>, %pad: tensor<2x1x1x8xi1>, %bias: tensor<8x8xbf16>) -> (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>) {
  // CHECK: tfc.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} mask %{{[^ ]+}} : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x1x1x8xi1> -> tensor<2x4x8x16xbf16>
  %o = tfc.attention %q, %q, %q mask %pad : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x1x1x8xi1> -> tensor<2x4x8x16xbf16>
  // CHECK: tfc.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} causal mask %{{[^ ]+}} scale 2.500000e-01 : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<8x8xbf16> -> tensor<2x4x8x16xbf16>
  %o2 = tfc.attention %q, %q, %q causal mask %bias scale 2.500000e-01 : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<8x8xbf16> -> tensor<2x4x8x16xbf16>
  return %o, %o2 : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>
}

// -----

// Cross-attention without batch dims: T != S and the value width Dv != D.
// CHECK-LABEL: func.func @attention_cross
func.func @attention_cross(%q: tensor<8x32xf32>, %k: tensor<24x32xf32>, %v: tensor<24x48xf32>) -> tensor<8x48xf32> {
  // CHECK: tfc.attention %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : tensor<8x32xf32>, tensor<24x32xf32>, tensor<24x48xf32> -> tensor<8x48xf32>
  %o = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<24x32xf32>, tensor<24x48xf32> -> tensor<8x48xf32>
  return %o : tensor<8x48xf32>
}

// -----

// cross_entropy with every default (ignore_index -100, no smoothing, mean).
// CHECK-LABEL: func.func @cross_entropy
func.func @cross_entropy(%logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>) -> tensor<f32> {
  // CHECK: tfc.cross_entropy %{{[^ ]+}}, %{{[^ ]+}} : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
  %loss = tfc.cross_entropy %logits, %labels : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Every option set on bf16 logits: the loss is an f32 scalar.
// CHECK-LABEL: func.func @cross_entropy_options
func.func @cross_entropy_options(%logits: tensor<8x10xbf16>, %labels: tensor<8xi32>) -> tensor<f32> {
  // CHECK: tfc.cross_entropy %{{[^ ]+}}, %{{[^ ]+}} ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<8x10xbf16>, tensor<8xi32> -> tensor<f32>
  %loss = tfc.cross_entropy %logits, %labels ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<8x10xbf16>, tensor<8xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Defaults written out explicitly are elided; f64 logits give an f64 loss.
// CHECK-LABEL: func.func @cross_entropy_f64
func.func @cross_entropy_f64(%logits: tensor<4x3xf64>, %labels: tensor<4xi64>) -> tensor<f64> {
  // CHECK: tfc.cross_entropy %{{[^ ]+}}, %{{[^ ]+}} : tensor<4x3xf64>, tensor<4xi64> -> tensor<f64>
  %loss = tfc.cross_entropy %logits, %labels ignore_index -100 label_smoothing 0.0 reduction mean : tensor<4x3xf64>, tensor<4xi64> -> tensor<f64>
  return %loss : tensor<f64>
}

// -----

// Kernel roles: dropout is pointwise and layer_norm, last-dim softmax and
// rms_norm are row reductions over the same 16*64 rows of 128, so the
// bias-dropout-residual-norm chain forms one row_reduction kernel.
// CHECK-LABEL: func.func @row_reduction_kernel
func.func @row_reduction_kernel(%x: tensor<16x64x128xf32>, %r: tensor<16x64x128xf32>, %w: tensor<128xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.fusion row_reduction
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x64x128xf32>, %b = %r : tensor<16x64x128xf32>, %c = %w : tensor<128xf32>, %s = %seed : tensor<i64>, %t = %offset : tensor<i64>) -> tensor<16x64x128xf32> {
    // CHECK: tfc.dropout
    %d = tfc.dropout %a, %s, %t p 1.000000e-01 : tensor<16x64x128xf32>
    %h = tfc.add %d, %b : tensor<16x64x128xf32>, tensor<16x64x128xf32>
    // CHECK: tfc.layer_norm
    %y, %mean, %rstd = tfc.layer_norm %h weight %c : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
    // CHECK: tfc.softmax
    %p = tfc.softmax %y dim -1 : tensor<16x64x128xf32>
    // CHECK: tfc.rms_norm
    %z, %zr = tfc.rms_norm %p : (tensor<16x64x128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
    tfc.yield %z : tensor<16x64x128xf32>
  }
  return %o : tensor<16x64x128xf32>
}

// -----

// Kernel roles: embedding is a gather, cross_entropy a row reduction (rows N,
// row length C).
// CHECK-LABEL: func.func @gather_and_loss_kernels
func.func @gather_and_loss_kernels(%table: tensor<256x128xf32>, %ids: tensor<16x64xi64>, %logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>) -> (tensor<16x64x128xf32>, tensor<f32>) {
  // CHECK: tfc.fusion gather
  %e = tfc.fusion gather (%a = %table : tensor<256x128xf32>, %b = %ids : tensor<16x64xi64>) -> tensor<16x64x128xf32> {
    // CHECK: tfc.embedding
    %0 = tfc.embedding %a, %b : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
    tfc.yield %0 : tensor<16x64x128xf32>
  }
  // CHECK: tfc.fusion row_reduction
  %l = tfc.fusion row_reduction (%a = %logits : tensor<1024x256xf32>, %b = %labels : tensor<1024xi64>) -> tensor<f32> {
    // CHECK: tfc.cross_entropy
    %0 = tfc.cross_entropy %a, %b : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
    tfc.yield %0 : tensor<f32>
  }
  return %e, %l : tensor<16x64x128xf32>, tensor<f32>
}

// -----

// A pointwise kernel (bias add + GELU): block arguments are bound to the
// operands in the custom form and get the names %in, %in_0, ...
// CHECK-LABEL: func.func @pointwise
func.func @pointwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[R:.*]] = tfc.fusion pointwise (%[[A:in]] = %{{.*}} : tensor<4x8xf32>, %[[C:in_0]] = %{{.*}} : tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: %[[ADD:.*]] = tfc.add %[[A]], %[[C]] : tensor<4x8xf32>, tensor<8xf32>
  // CHECK-NEXT: %[[GELU:.*]] = tfc.gelu %[[ADD]] approximate tanh : tensor<4x8xf32>
  // CHECK-NEXT: tfc.yield %[[GELU]] : tensor<4x8xf32>
  // CHECK-NEXT: }
  %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>, %c = %b : tensor<8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.add %a, %c : tensor<4x8xf32>, tensor<8xf32>
    %1 = tfc.gelu %0 approximate tanh : tensor<4x8xf32>
    tfc.yield %1 : tensor<4x8xf32>
  }
  // CHECK: return %[[R]]
  return %r : tensor<4x8xf32>
}

// -----

// A kernel may have several outputs, mixed dtypes (casts are pointwise) and
// constants in its body; extra attributes print after the region.
// CHECK-LABEL: func.func @multi_result
func.func @multi_result(%x: tensor<16x128xf32>) -> (tensor<16x128xbf16>, tensor<16x128xf32>) {
  // CHECK: %{{.*}}:2 = tfc.fusion pointwise (%[[A:.*]] = %{{.*}} : tensor<16x128xf32>) -> (tensor<16x128xbf16>, tensor<16x128xf32>) {
  // CHECK: tfc.constant dense<2.000000e+00> : tensor<f32>
  // CHECK: tfc.mul
  // CHECK: tfc.convert %{{.*}} : tensor<16x128xf32> -> tensor<16x128xbf16>
  // CHECK: tfc.yield %{{.*}}, %{{.*}} : tensor<16x128xbf16>, tensor<16x128xf32>
  // CHECK-NEXT: } {kernel_name = "scale_cast"}
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<16x128xf32>) -> (tensor<16x128xbf16>, tensor<16x128xf32>) {
    %two = tfc.constant dense<2.0> : tensor<f32>
    %0 = tfc.mul %a, %two : tensor<16x128xf32>, tensor<f32>
    %1 = tfc.convert %0 : tensor<16x128xf32> -> tensor<16x128xbf16>
    tfc.yield %1, %0 : tensor<16x128xbf16>, tensor<16x128xf32>
  } {kernel_name = "scale_cast"}
  return %r#0, %r#1 : tensor<16x128xbf16>, tensor<16x128xf32>
}

// -----

// A kernel without inputs: it only generates values (an empty binding list).
// CHECK-LABEL: func.func @no_inputs
func.func @no_inputs() -> tensor<4xi64> {
  // CHECK: tfc.fusion pointwise () -> tensor<4xi64> {
  %r = tfc.fusion pointwise () -> tensor<4xi64> {
    %0 = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    tfc.yield %0 : tensor<4xi64>
  }
  return %r : tensor<4xi64>
}

// -----

// A multi-tensor kernel holds pointwise updates of several tensors.
// CHECK-LABEL: func.func @multi_tensor
func.func @multi_tensor(%w0: tensor<128xf32>, %g0: tensor<128xf32>, %w1: tensor<64x32xf32>, %g1: tensor<64x32xf32>, %lr: tensor<f32>) -> (tensor<128xf32>, tensor<64x32xf32>) {
  // CHECK: tfc.fusion multi_tensor (
  %r:2 = tfc.fusion multi_tensor (%a = %w0 : tensor<128xf32>, %b = %g0 : tensor<128xf32>, %c = %w1 : tensor<64x32xf32>, %d = %g1 : tensor<64x32xf32>, %s = %lr : tensor<f32>) -> (tensor<128xf32>, tensor<64x32xf32>) {
    %0 = tfc.mul %b, %s : tensor<128xf32>, tensor<f32>
    %1 = tfc.sub %a, %0 : tensor<128xf32>, tensor<128xf32>
    %2 = tfc.mul %d, %s : tensor<64x32xf32>, tensor<f32>
    %3 = tfc.sub %c, %2 : tensor<64x32xf32>, tensor<64x32xf32>
    tfc.yield %1, %3 : tensor<128xf32>, tensor<64x32xf32>
  }
  return %r#0, %r#1 : tensor<128xf32>, tensor<64x32xf32>
}

// -----

// A row-reduction kernel: softmax and a last-dimension sum over the same
// 16 rows of 64, with pointwise ops around them.
// CHECK-LABEL: func.func @row_reduction
func.func @row_reduction(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>) {
  // CHECK: tfc.fusion row_reduction (
  // CHECK: tfc.softmax %{{.*}} dim -1 : tensor<16x64xf32>
  // CHECK: tfc.reduce_sum %{{.*}} dims [1] : tensor<16x64xf32> -> tensor<16xf32>
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>) {
    %0 = tfc.exp %a : tensor<16x64xf32>
    %1 = tfc.softmax %a dim -1 : tensor<16x64xf32>
    %2 = tfc.reduce_sum %0 dims [1] : tensor<16x64xf32> -> tensor<16xf32>
    tfc.yield %1, %2 : tensor<16x64xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<16xf32>
}

// -----

// Bias + residual add + layer_norm: the classic fused row kernel with three
// outputs of the norm and a pointwise prologue.
// CHECK-LABEL: func.func @add_layer_norm
func.func @add_layer_norm(%x: tensor<16x128xf32>, %res: tensor<16x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>) {
  // CHECK: tfc.fusion row_reduction (
  // CHECK: tfc.layer_norm
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x128xf32>, %r0 = %res : tensor<16x128xf32>, %g = %w : tensor<128xf32>, %c = %b : tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>) {
    %h = tfc.add %a, %r0 : tensor<16x128xf32>, tensor<16x128xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %g bias %c eps 1.000000e-05 : (tensor<16x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
    tfc.yield %y, %h : tensor<16x128xf32>, tensor<16x128xf32>
  }
  return %r#0, %r#1 : tensor<16x128xf32>, tensor<16x128xf32>
}

// -----

// A column-reduction kernel: the bias gradient sums over dim 0.
// CHECK-LABEL: func.func @column_reduction
func.func @column_reduction(%dy: tensor<16x128xbf16>) -> tensor<128xf32> {
  // CHECK: tfc.fusion column_reduction (
  // CHECK: tfc.reduce_sum %{{.*}} dims [0] : tensor<16x128xf32> -> tensor<128xf32>
  %r = tfc.fusion column_reduction (%a = %dy : tensor<16x128xbf16>) -> tensor<128xf32> {
    %0 = tfc.convert %a : tensor<16x128xbf16> -> tensor<16x128xf32>
    %1 = tfc.reduce_sum %0 dims [0] : tensor<16x128xf32> -> tensor<128xf32>
    tfc.yield %1 : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}

// -----

// A gather kernel: token embedding lookup plus the position embedding add.
// CHECK-LABEL: func.func @gather
func.func @gather(%table: tensor<256x128xf32>, %ids: tensor<16xi64>, %pos: tensor<16x128xf32>) -> tensor<16x128xf32> {
  // CHECK: tfc.fusion gather (
  // CHECK: tfc.embedding %{{.*}}, %{{.*}} : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
  %r = tfc.fusion gather (%t = %table : tensor<256x128xf32>, %i = %ids : tensor<16xi64>, %p = %pos : tensor<16x128xf32>) -> tensor<16x128xf32> {
    %e = tfc.embedding %t, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    %0 = tfc.add %e, %p : tensor<16x128xf32>, tensor<16x128xf32>
    tfc.yield %0 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// -----

// A GEMM kernel may hold its GEMM alone.
// CHECK-LABEL: func.func @gemm
func.func @gemm(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>) -> tensor<16x384xf32> {
  // CHECK: tfc.fusion gemm (
  // CHECK: tfc.matmul %{{.*}}, %{{.*}} transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>) -> tensor<16x384xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    tfc.yield %y : tensor<16x384xf32>
  }
  return %r : tensor<16x384xf32>
}

// -----

// A GEMM kernel with the epilogue cuBLASLt fuses: the bias row (a 1x512 view is a row
// too), then GELU's tanh form, storing its input as well for the backward.
// CHECK-LABEL: func.func @gemm_bias_gelu
func.func @gemm_bias_gelu(%x: tensor<16x128xf32>, %w: tensor<512x128xf32>, %b: tensor<1x512xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
  // CHECK: tfc.fusion gemm (
  // CHECK: tfc.matmul
  // CHECK-NEXT: tfc.add
  // CHECK-NEXT: tfc.gelu %{{.*}} approximate tanh
  // CHECK-NEXT: tfc.yield
  %r:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<512x128xf32>, %d = %b : tensor<1x512xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<512x128xf32> -> tensor<16x512xf32>
    %0 = tfc.add %d, %y : tensor<1x512xf32>, tensor<16x512xf32>
    %1 = tfc.gelu %0 approximate tanh : tensor<16x512xf32>
    tfc.yield %1, %0 : tensor<16x512xf32>, tensor<16x512xf32>
  }
  return %r#0, %r#1 : tensor<16x512xf32>, tensor<16x512xf32>
}

// -----

// Each part of a GEMM epilogue is optional: a ReLU of the bare product (no bias), and
// a GELU (tanh) of it storing its input.
// CHECK-LABEL: func.func @gemm_activations
func.func @gemm_activations(%x: tensor<16x128xf32>, %w: tensor<512x128xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>) {
  // CHECK: tfc.fusion gemm (
  // CHECK: tfc.matmul
  // CHECK-NEXT: tfc.relu
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<512x128xf32>) -> tensor<16x512xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<512x128xf32> -> tensor<16x512xf32>
    %0 = tfc.relu %y : tensor<16x512xf32>
    tfc.yield %0 : tensor<16x512xf32>
  }
  // CHECK: tfc.fusion gemm (
  // CHECK: tfc.matmul
  // CHECK-NEXT: tfc.gelu %{{.*}} approximate tanh
  %g:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<512x128xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<512x128xf32> -> tensor<16x512xf32>
    %0 = tfc.gelu %y approximate tanh : tensor<16x512xf32>
    tfc.yield %0, %y : tensor<16x512xf32>, tensor<16x512xf32>
  }
  return %r, %g#0, %g#1 : tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>
}

// -----

// The backward epilogue: the product is the incoming gradient of a GELU (tanh) whose
// stored input comes from outside (cuBLASLt's aux matrix), and the bias gradient is its
// sum over the rows (cuBLASLt's DGELU_BGRAD).
// CHECK-LABEL: func.func @gemm_dgelu_bgrad
// CHECK: tfc.fusion gemm (
// CHECK: tfc.matmul
// CHECK-NEXT: tfc.gelu_grad
// CHECK-NEXT: tfc.reduce_sum
func.func @gemm_dgelu_bgrad(%dy: tensor<4x16x128xf32>, %w: tensor<128x512xf32>, %h: tensor<4x16x512xf32>) -> (tensor<4x16x512xf32>, tensor<512xf32>) {
  %r:2 = tfc.fusion gemm (%a = %dy : tensor<4x16x128xf32>, %c = %w : tensor<128x512xf32>, %x = %h : tensor<4x16x512xf32>) -> (tensor<4x16x512xf32>, tensor<512xf32>) {
    %p = tfc.matmul %a, %c : tensor<4x16x128xf32>, tensor<128x512xf32> -> tensor<4x16x512xf32>
    %d = tfc.gelu_grad %p, %x approximate tanh : tensor<4x16x512xf32>
    %b = tfc.reduce_sum %d dims [0, 1] : tensor<4x16x512xf32> -> tensor<512xf32>
    tfc.yield %d, %b : tensor<4x16x512xf32>, tensor<512xf32>
  }
  return %r#0, %r#1 : tensor<4x16x512xf32>, tensor<512xf32>
}

// -----

// Unfused compilation: one fusion per op, chained through the results.
// CHECK-LABEL: func.func @unfused_chain
func.func @unfused_chain(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  // CHECK: %[[E:.*]] = tfc.fusion pointwise (%{{.*}} = %{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
  // CHECK: tfc.fusion row_reduction (%{{.*}} = %[[E]] : tensor<8x32xf32>) -> tensor<8xf32>
  %e = tfc.fusion pointwise (%a = %x : tensor<8x32xf32>) -> tensor<8x32xf32> {
    %0 = tfc.exp %a : tensor<8x32xf32>
    tfc.yield %0 : tensor<8x32xf32>
  }
  %s = tfc.fusion row_reduction (%a = %e : tensor<8x32xf32>) -> tensor<8xf32> {
    %0 = tfc.reduce_max %a dims [-1] : tensor<8x32xf32> -> tensor<8xf32>
    tfc.yield %0 : tensor<8xf32>
  }
  return %s : tensor<8xf32>
}

// -----

// Backward ops (TfcGradOps.td). layer_norm_grad with a weight returns dx, dweight, dbias.
// CHECK-LABEL: func.func @layer_norm_grad
func.func @layer_norm_grad(%dy: tensor<16x64x128xf32>, %x: tensor<16x64x128xf32>, %mean: tensor<16x64x1xf32>, %rstd: tensor<16x64x1xf32>, %w: tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) {
  // CHECK: tfc.layer_norm_grad %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} weight %{{[^ ]+}} : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>)
  %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %mean, %rstd weight %w : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>)
  return %dx, %dw, %db : tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>
}

// -----

// Without a weight only dx; bf16 activations keep f32 statistics; normalized_rank 2.
// CHECK-LABEL: func.func @layer_norm_grad_no_weight
func.func @layer_norm_grad_no_weight(%dy: tensor<8x4x32xbf16>, %x: tensor<8x4x32xbf16>, %mean: tensor<8x1x1xf32>, %rstd: tensor<8x1x1xf32>) -> tensor<8x4x32xbf16> {
  // CHECK: tfc.layer_norm_grad %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} normalized_rank 2 : (tensor<8x4x32xbf16>, tensor<8x4x32xbf16>, tensor<8x1x1xf32>, tensor<8x1x1xf32>) -> tensor<8x4x32xbf16>
  %dx = tfc.layer_norm_grad %dy, %x, %mean, %rstd normalized_rank 2 : (tensor<8x4x32xbf16>, tensor<8x4x32xbf16>, tensor<8x1x1xf32>, tensor<8x1x1xf32>) -> tensor<8x4x32xbf16>
  return %dx : tensor<8x4x32xbf16>
}

// -----

// rms_norm_grad with and without a weight; the dx-only row kernels of both norms.
// CHECK-LABEL: func.func @norm_grads
func.func @norm_grads(%dy: tensor<16x128xf32>, %x: tensor<16x128xf32>, %mean: tensor<16x1xf32>, %rstd: tensor<16x1xf32>, %w: tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xbf16>) {
  // CHECK: tfc.rms_norm_grad %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} weight %{{[^ ]+}} : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>, tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xbf16>)
  %dx, %dw = tfc.rms_norm_grad %dy, %x, %rstd weight %w : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>, tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xbf16>)
  // CHECK: tfc.rms_norm_grad %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>) -> tensor<16x128xf32>
  %dx2 = tfc.rms_norm_grad %dx, %x, %rstd : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>) -> tensor<16x128xf32>
  // CHECK: tfc.layer_norm_grad_input %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} weight %{{[^ ]+}} : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<128xbf16>) -> tensor<16x128xf32>
  %dx3 = tfc.layer_norm_grad_input %dx2, %x, %mean, %rstd weight %w : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<128xbf16>) -> tensor<16x128xf32>
  // CHECK: tfc.rms_norm_grad_input %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>) -> tensor<16x128xf32>
  %dx4 = tfc.rms_norm_grad_input %dx3, %x, %rstd : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>) -> tensor<16x128xf32>
  return %dx4, %dw : tensor<16x128xf32>, tensor<128xbf16>
}

// -----

// softmax_grad / log_softmax_grad take the forward's output; any dim.
// CHECK-LABEL: func.func @softmax_grads
func.func @softmax_grads(%dy: tensor<16x4x64x64xf32>, %y: tensor<16x4x64x64xf32>, %dl: tensor<1024x256xf32>, %l: tensor<1024x256xf32>) -> (tensor<16x4x64x64xf32>, tensor<1024x256xf32>) {
  // CHECK: tfc.softmax_grad %{{[^ ]+}}, %{{[^ ]+}} dim -1 : tensor<16x4x64x64xf32>
  %0 = tfc.softmax_grad %dy, %y dim -1 : tensor<16x4x64x64xf32>
  // CHECK: tfc.softmax_grad %{{[^ ]+}}, %{{[^ ]+}} dim 1 : tensor<16x4x64x64xf32>
  %1 = tfc.softmax_grad %0, %y dim 1 : tensor<16x4x64x64xf32>
  // CHECK: tfc.log_softmax_grad %{{[^ ]+}}, %{{[^ ]+}} dim -1 : tensor<1024x256xf32>
  %2 = tfc.log_softmax_grad %dl, %l dim -1 : tensor<1024x256xf32>
  return %1, %2 : tensor<16x4x64x64xf32>, tensor<1024x256xf32>
}

// -----

// gelu_grad elides the default approximation; silu_grad has no attribute.
// CHECK-LABEL: func.func @activation_grads
func.func @activation_grads(%dy: tensor<16x64x512xf32>, %x: tensor<16x64x512xf32>) -> tensor<16x64x512xf32> {
  // CHECK: tfc.gelu_grad %{{[^ ]+}}, %{{[^ ]+}} approximate tanh : tensor<16x64x512xf32>
  %0 = tfc.gelu_grad %dy, %x approximate tanh : tensor<16x64x512xf32>
  // CHECK: tfc.gelu_grad %{{[^ ]+}}, %{{[^ ]+}} : tensor<16x64x512xf32>
  %1 = tfc.gelu_grad %0, %x approximate none : tensor<16x64x512xf32>
  // CHECK: tfc.silu_grad %{{[^ ]+}}, %{{[^ ]+}} : tensor<16x64x512xf32>
  %2 = tfc.silu_grad %1, %x : tensor<16x64x512xf32>
  return %2 : tensor<16x64x512xf32>
}

// -----

// cross_entropy_grad with defaults elided, and with every option on bf16 logits.
// CHECK-LABEL: func.func @cross_entropy_grad
func.func @cross_entropy_grad(%dloss: tensor<f32>, %logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>, %l16: tensor<8x10xbf16>, %lab16: tensor<8xi64>) -> (tensor<1024x256xf32>, tensor<8x10xbf16>) {
  // CHECK: tfc.cross_entropy_grad %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : tensor<f32>, tensor<1024x256xf32>, tensor<1024xi64> -> tensor<1024x256xf32>
  %0 = tfc.cross_entropy_grad %dloss, %logits, %labels : tensor<f32>, tensor<1024x256xf32>, tensor<1024xi64> -> tensor<1024x256xf32>
  // CHECK: tfc.cross_entropy_grad %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<f32>, tensor<8x10xbf16>, tensor<8xi64> -> tensor<8x10xbf16>
  %1 = tfc.cross_entropy_grad %dloss, %l16, %lab16 ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<f32>, tensor<8x10xbf16>, tensor<8xi64> -> tensor<8x10xbf16>
  return %0, %1 : tensor<1024x256xf32>, tensor<8x10xbf16>
}

// -----

// embedding_grad takes V from its result type.
// CHECK-LABEL: func.func @embedding_grad
func.func @embedding_grad(%dy: tensor<16x64x128xf32>, %ids: tensor<16x64xi64>) -> tensor<256x128xf32> {
  // CHECK: tfc.embedding_grad %{{[^ ]+}}, %{{[^ ]+}} : tensor<16x64x128xf32>, tensor<16x64xi64> -> tensor<256x128xf32>
  %0 = tfc.embedding_grad %dy, %ids : tensor<16x64x128xf32>, tensor<16x64xi64> -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// sort: ascending by default, descending as a keyword; indices are i64 of x's shape.
// CHECK-LABEL: func.func @sort
func.func @sort(%x: tensor<2x2304xf32>, %y: tensor<5xi32>) -> (tensor<2x2304xf32>, tensor<2x2304xi64>, tensor<5xi32>, tensor<5xi64>) {
  // CHECK: tfc.sort %{{[^ ]+}} : tensor<2x2304xf32> -> tensor<2x2304xf32>, tensor<2x2304xi64>
  %v, %i = tfc.sort %x : tensor<2x2304xf32> -> tensor<2x2304xf32>, tensor<2x2304xi64>
  // CHECK: tfc.sort %{{[^ ]+}} descending : tensor<5xi32> -> tensor<5xi32>, tensor<5xi64>
  %w, %j = tfc.sort %y descending : tensor<5xi32> -> tensor<5xi32>, tensor<5xi64>
  return %v, %i, %w, %j : tensor<2x2304xf32>, tensor<2x2304xi64>, tensor<5xi32>, tensor<5xi64>
}

// -----

// adamw with defaults elided and with every attribute; bf16 gradients of f32 weights.
// CHECK-LABEL: func.func @adamw
func.func @adamw(%p: tensor<128x64xf32>, %g: tensor<128x64xbf16>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) {
  // CHECK: tfc.adamw %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
  %p1, %m1, %v1 = tfc.adamw %p, %g, %m, %v, %lr, %step : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
  // CHECK: tfc.adamw {{.*}} beta1 8.000000e-01 beta2 {{.*}} eps {{.*}} weight_decay 1.000000e-01 maximize : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
  %p2, %m2, %v2 = tfc.adamw %p1, %g, %m1, %v1, %lr, %step beta1 8.000000e-01 beta2 9.500000e-01 eps 1.000000e-06 weight_decay 1.000000e-01 maximize : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
  return %p2, %m2, %v2 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
}

// -----

// adam with L2 weight decay, on f64 parameters (gradient checks) with an f64 lr.
// CHECK-LABEL: func.func @adam
func.func @adam(%p: tensor<16xf64>, %g: tensor<16xf64>, %m: tensor<16xf64>, %v: tensor<16xf64>, %lr: tensor<f64>, %step: tensor<i64>) -> tensor<16xf64> {
  // CHECK: tfc.adam %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} weight_decay 1.000000e-02 : tensor<16xf64>, tensor<16xf64>, tensor<f64>
  %p1, %m1, %v1 = tfc.adam %p, %g, %m, %v, %lr, %step weight_decay 1.000000e-02 : tensor<16xf64>, tensor<16xf64>, tensor<f64>
  return %p1 : tensor<16xf64>
}

// -----

// sgd with a momentum buffer (nesterov, weight decay), and plain sgd without one.
// CHECK-LABEL: func.func @sgd
func.func @sgd(%p: tensor<64x32xf32>, %g: tensor<64x32xf32>, %b: tensor<64x32xf32>, %q: tensor<64xbf16>, %h: tensor<64xbf16>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xbf16>) {
  // CHECK: tfc.sgd %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} momentum_buffer(%{{[^ ]+}} : tensor<64x32xf32>) momentum 9.000000e-01 nesterov weight_decay 1.000000e-04 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
  %p1, %b1 = tfc.sgd %p, %g, %lr, %step momentum_buffer(%b : tensor<64x32xf32>) momentum 9.000000e-01 nesterov weight_decay 1.000000e-04 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
  // CHECK: tfc.sgd %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} maximize : tensor<64xbf16>, tensor<64xbf16>, tensor<f32>
  %q1 = tfc.sgd %q, %h, %lr, %step maximize : tensor<64xbf16>, tensor<64xbf16>, tensor<f32>
  // CHECK: tfc.sgd {{.*}} momentum_buffer(%{{[^ ]+}} : tensor<64x32xf32>) momentum 5.000000e-01 dampening 1.000000e-01 : tensor<64x32xf32>
  %p2, %b2 = tfc.sgd %p1, %g, %lr, %step momentum_buffer(%b1 : tensor<64x32xf32>) momentum 5.000000e-01 dampening 1.000000e-01 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
  return %p2, %b2, %q1 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xbf16>
}

// -----

// A multi-tensor kernel holds optimizer updates of several parameters plus pointwise ops.
// CHECK-LABEL: func.func @multi_tensor_optimizer
func.func @multi_tensor_optimizer(%w: tensor<128xf32>, %g: tensor<128xf32>, %m: tensor<128xf32>, %v: tensor<128xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>) {
  // CHECK: tfc.fusion multi_tensor
  %r:4 = tfc.fusion multi_tensor (%a = %w : tensor<128xf32>, %b = %g : tensor<128xf32>, %c = %m : tensor<128xf32>, %d = %v : tensor<128xf32>, %e = %lr : tensor<f32>, %f = %step : tensor<i64>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>) {
    // CHECK: tfc.adamw
    %p1, %m1, %v1 = tfc.adamw %a, %b, %c, %d, %e, %f : tensor<128xf32>, tensor<128xf32>, tensor<f32>
    %h = tfc.convert %p1 : tensor<128xf32> -> tensor<128xbf16>
    tfc.yield %p1, %m1, %v1, %h : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>
}

// -----

// adamw8bit with defaults elided and with every attribute: ui8 codes of the
// parameter's shape, one f32 absmax per block (8192 / 256 = 32, 8192 / 64 = 128).
// CHECK-LABEL: func.func @adamw8bit
func.func @adamw8bit(%p: tensor<64x128xf32>, %g: tensor<64x128xbf16>, %m: tensor<64x128xui8>, %ma: tensor<32xf32>, %v: tensor<64x128xui8>, %va: tensor<32xf32>, %mb: tensor<128xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<64x128xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xf32>) {
  // CHECK: tfc.adamw8bit %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<32xf32>, tensor<f32>
  %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %step : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<32xf32>, tensor<f32>
  // CHECK: tfc.adamw8bit {{.*}} beta1 8.000000e-01 beta2 {{.*}} eps {{.*}} weight_decay 1.000000e-01 block_size 64 : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<128xf32>, tensor<f32>
  %p2, %m2, %mb2, %v2, %vb2 = tfc.adamw8bit %p, %g, %m, %mb, %v, %mb, %lr, %step beta1 8.000000e-01 beta2 9.500000e-01 eps 1.000000e-06 weight_decay 1.000000e-01 block_size 64 : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<128xf32>, tensor<f32>
  return %p1, %m1, %ma1, %v1, %va1, %p2 : tensor<64x128xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xf32>
}

// -----

// A block_quantized kernel holds one adamw8bit op (block_size 256, the
// default, is elided); a skipped step selects the old codes (tfc.select on ui8).
// CHECK-LABEL: func.func @block_quantized_kernel
func.func @block_quantized_kernel(%p: tensor<300xf32>, %g: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %v: tensor<300xui8>, %va: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>, %skip: tensor<i1>) -> (tensor<300xf32>, tensor<300xui8>) {
  // CHECK: tfc.fusion block_quantized
  %r:5 = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %b = %g : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %e = %v : tensor<300xui8>, %f = %va : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> (tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<300xui8>, tensor<2xf32>) {
    // CHECK: tfc.adamw8bit {{.*}} : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %b, %c, %d, %e, %f, %h, %i block_size 256 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    tfc.yield %p1, %m1, %ma1, %v1, %va1 : tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<300xui8>, tensor<2xf32>
  }
  // CHECK: tfc.select %{{.*}} : tensor<i1>, tensor<300xui8>, tensor<300xui8>
  %kept = tfc.select %skip, %m, %r#1 : tensor<i1>, tensor<300xui8>, tensor<300xui8>
  return %r#0, %kept : tensor<300xf32>, tensor<300xui8>
}
