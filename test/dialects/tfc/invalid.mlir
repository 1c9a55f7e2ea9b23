// RUN: tfc-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the tfc dialect: argument attributes first, then each
// op group in the order of the Tfc*Ops.td files.

// Only tfc.param, tfc.input and tfc.state are tfc argument attributes.
// expected-error @+1 {{unknown tfc argument attribute 'tfc.weight' (expected 'tfc.param', 'tfc.input', 'tfc.state', 'tfc.lr_scale' or 'tfc.weight_decay')}}
func.func @unknown(%w: tensor<4xf32> {tfc.weight = "w"}) {
  return
}

// -----

// Parameter names are strings.
// expected-error @+1 {{'tfc.param' on argument #0 must be a non-empty string}}
func.func @not_a_string(%w: tensor<4xf32> {tfc.param = 3 : i64}) {
  return
}

// -----

// Parameter names are non-empty.
// expected-error @+1 {{'tfc.input' on argument #1 must be a non-empty string}}
func.func @empty_name(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<4xf32> {tfc.input = ""}) {
  return
}

// -----

// Names are printable: a NUL would cut them short in every file and message
// that carries them.
// expected-error @+1 {{'tfc.input' on argument #0 has the control character 0x00 at byte 3; names must be printable}}
func.func @nul_name(%x: tensor<4xf32> {tfc.input = "tok\00ens"}) {
  return
}

// -----

// expected-error @+1 {{'tfc.param' on argument #0 has the control character 0x0a at byte 2; names must be printable}}
func.func @newline_name(%w: tensor<4xf32> {tfc.param = "fc\nweight"}) {
  return
}

// -----

// Trainable parameters are floating-point tensors.
// expected-error @+1 {{parameter 'step' (argument #0) must be a floating-point tensor, got 'tensor<i64>'}}
func.func @int_param(%s: tensor<i64> {tfc.param = "step"}) {
  return
}

// -----

// Names are unique across parameters and inputs: the runtime binds by name.
// expected-error @+1 {{argument #2 reuses the name 'fc.weight' of argument #0}}
func.func @duplicate(%a: tensor<4xf32> {tfc.param = "fc.weight"}, %b: tensor<4xf32> {tfc.param = "fc.bias"}, %c: tensor<4xf32> {tfc.input = "fc.weight"}) {
  return
}

// -----

// Transcendental ops are float-only.
func.func @exp_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point (f16, bf16, f32, f64) values}}
  %0 = tfc.exp %x : tensor<4xi32>
  return
}

// -----

// neg/abs take numbers but not i1.
func.func @neg_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of numeric element type}}
  %0 = tfc.neg %x : tensor<4xi1>
  return
}

// -----

// Shapes must be static.
func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = tfc.tanh %x : tensor<?xf32>
  return
}

// -----

// Element types outside f16/bf16/f32/f64/i1/i32/i64 are rejected.
func.func @unsupported_dtype(%x: tensor<4xi8>, %y: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of numeric element type}}
  %0 = tfc.add %x, %y : tensor<4xi8>, tensor<4xi8>
  return
}

// -----

// A unary op's result has its operand's type (generic form can state another).
func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfc.sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// pow is float-only.
func.func @pow_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %0 = tfc.pow %x, 2.0 : tensor<4xi64>
  return
}

// -----

// gelu's approximation is `none` or `tanh`.
func.func @gelu_bad_approximation(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::tfc::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Tfc_GeluApproximationAttr parameter 'value'}}
  %0 = tfc.gelu %x approximate erf : tensor<4xf32>
  return
}

// -----

// Binary operands share one element type: no implicit promotion.
func.func @binary_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xbf16>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = tfc.mul %x, %y : tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

// Trailing sizes must be equal or 1 to broadcast.
func.func @binary_not_broadcastable(%x: tensor<4x8xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible (4x8, 4)}}
  %0 = tfc.add %x, %y : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

// The generic form's result type must equal the broadcast type.
func.func @binary_wrong_result(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tfc.sub"(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// Arithmetic is not defined on i1.
func.func @binary_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of numeric element type}}
  %0 = tfc.maximum %x, %x : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

// atan2 is defined on floats only.
func.func @atan2_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %0 = tfc.atan2 %x, %x : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

// fmod is defined on floats only (integer remainders are the frontend's).
func.func @fmod_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %0 = tfc.fmod %x, %x : tensor<4xi64>, tensor<4xi64>
  return
}

// -----

// fmod's operands share one element type.
func.func @fmod_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = tfc.fmod %x, %y : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

// Bitwise ops are defined on integers (i1, i32, i64) only.
func.func @bitwise_and_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of integer (i1, i32, i64)}}
  %0 = tfc.bitwise_and %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @bitwise_not_float(%x: tensor<4xbf16>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of integer (i1, i32, i64)}}
  %0 = tfc.bitwise_not %x : tensor<4xbf16>
  return
}

// -----

// ui8 (quantized optimizer codes) is no integer for arithmetic.
func.func @bitwise_or_ui8(%x: tensor<4xui8>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of integer (i1, i32, i64)}}
  %0 = tfc.bitwise_or %x, %x : tensor<4xui8>, tensor<4xui8>
  return
}

// -----

// Bitwise operands share one element type (the frontend converts first).
func.func @bitwise_xor_dtype_mismatch(%x: tensor<4xi32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = tfc.bitwise_xor %x, %y : tensor<4xi32>, tensor<4xi64>
  return
}

// -----

// Shifts take i32 / i64 (torch has no bool or float shift), one type.
func.func @shift_left_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of integer index (i32, i64)}}
  %0 = tfc.shift_left %x, %x : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

func.func @shift_right_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of integer index (i32, i64)}}
  %0 = tfc.shift_right %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @shift_dtype_mismatch(%x: tensor<4xi64>, %k: tensor<4xi32>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = tfc.shift_left %x, %k : tensor<4xi64>, tensor<4xi32>
  return
}

// -----

// compare's operands share one element type.
func.func @compare_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = tfc.compare lt, %x, %y : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

// compare's predicate must be one of eq, ne, lt, le, gt, ge.
func.func @compare_bad_direction(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::tfc::CompareDirection to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error @+1 {{failed to parse Tfc_CompareDirectionAttr parameter 'value'}}
  %0 = tfc.compare lessthan, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// compare yields i1 (generic form can state another type).
func.func @compare_result_dtype(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = "tfc.compare"(%x, %x) {direction = #tfc<compare_direction eq>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// compare broadcasts like the arithmetic ops.
func.func @compare_not_broadcastable(%x: tensor<3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible (3, 4)}}
  %0 = tfc.compare eq, %x, %y : tensor<3xf32>, tensor<4xf32>
  return
}

// -----

// select's condition is i1.
func.func @select_condition_dtype(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = tfc.select %c, %x, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// select's two value operands share one element type.
func.func @select_value_dtypes(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that all of {on_true, on_false} have same element type}}
  %0 = tfc.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// select's three operands must broadcast together.
func.func @select_not_broadcastable(%c: tensor<5xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible (5, 4, 4)}}
  %0 = tfc.select %c, %x, %x : tensor<5xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// convert keeps the shape.
func.func @convert_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same shape}}
  %0 = tfc.convert %x : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}

// -----

// Constants must hold their values densely (no resource blobs).
func.func @constant_resource() {
  // expected-error @+1 {{value must be a dense elements attribute}}
  %0 = tfc.constant dense_resource<blob> : tensor<4xf32>
  return
}

// -----

// Constants have a supported element type.
func.func @constant_dtype() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of tfc element type}}
  %0 = tfc.constant dense<1> : tensor<4xi8>
  return
}

// -----

// Reshape must keep the element count.
func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{cannot reshape 4x8 (32 elements) to 4x4 (16 elements)}}
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Reshape cannot change the element type.
func.func @reshape_dtype(%x: tensor<4x8xf32>) -> tensor<32xf16> {
  // expected-error @+1 {{all of {x, result} have same element type}}
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return %0 : tensor<32xf16>
}

// -----

// Shapes are static: a dynamic result is rejected.
func.func @reshape_dynamic(%x: tensor<4x8xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The permutation needs one entry per dimension.
func.func @transpose_length(%x: tensor<4x8x2xf32>) -> tensor<8x4x2xf32> {
  // expected-error @+2 {{permutation [1, 0] has 2 entries but the operand has rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.transpose %x, [1, 0] : tensor<4x8x2xf32> -> tensor<8x4x2xf32>
  return %0 : tensor<8x4x2xf32>
}

// -----

// A repeated entry is not a permutation.
func.func @transpose_repeat(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{permutation [0, 0] is not a permutation of [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.transpose %x, [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// An entry outside [0, rank) is not a permutation.
func.func @transpose_range(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+2 {{permutation [2, 0] is not a permutation of [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.transpose %x, [2, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// The printed result type must match the inferred one.
func.func @transpose_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.transpose %x, [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast sizes must be equal or 1.
func.func @broadcast_size(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{cannot broadcast 3 to 2x4 (sizes must align at the back, each equal or 1)}}
  %0 = tfc.broadcast_to %x : tensor<3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Broadcast cannot drop dimensions.
func.func @broadcast_rank(%x: tensor<2x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot broadcast 2x4 to 4}}
  %0 = tfc.broadcast_to %x : tensor<2x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Broadcast cannot change the element type.
func.func @broadcast_dtype(%x: tensor<4xf32>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{all of {x, result} have same element type}}
  %0 = tfc.broadcast_to %x : tensor<4xf32> -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

// Slice bounds need one entry per dimension.
func.func @slice_length(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{start has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [0] to [4, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The step, when given, needs one entry per dimension too.
func.func @slice_step_length(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{step has 3 entries but the operand has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [0, 0] to [4, 8] step [1, 1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A negative start is out of bounds.
func.func @slice_negative_start(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{dimension 1: expected 0 <= start (-1) <= limit (7) <= size (8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [0, -1] to [4, 7] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The start may not exceed the limit.
func.func @slice_reversed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{dimension 0: expected 0 <= start (3) <= limit (1) <= size (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [3, 0] to [1, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The limit may not exceed the dimension size.
func.func @slice_limit(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  // expected-error @+2 {{dimension 1: expected 0 <= start (0) <= limit (9) <= size (8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [0, 0] to [4, 9] : tensor<4x8xf32> -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// Steps are positive.
func.func @slice_step_zero(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{dimension 1: step must be at least 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [0, 0] to [4, 8] step [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The printed result type must match ceil((limit - start) / step).
func.func @slice_result(%x: tensor<8x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<3x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.slice %x [0, 0] to [7, 8] step [2, 1] : tensor<8x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// Concat needs at least one input (only writable in the generic form).
func.func @concat_empty() -> tensor<4xf32> {
  // expected-error @+2 {{requires at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tfc.concat"() {dim = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The concat dimension must exist.
func.func @concat_dim(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.concat %a, %a dim 2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Concat inputs share one element type.
func.func @concat_dtype(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<8xf32> {
  // expected-error @+2 {{input #1 has element type 'f16' but input #0 has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.concat %a, %b dim 0 : tensor<4xf32>, tensor<4xf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Concat inputs share one rank.
func.func @concat_rank(%a: tensor<4x2xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{input #1 has rank 1 but input #0 has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.concat %a, %b dim 1 : tensor<4x2xf32>, tensor<4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Concat inputs agree on every size except the concat dimension.
func.func @concat_shape(%a: tensor<4x2xf32>, %b: tensor<3x2xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{input #1 has shape 3x2 but input #0 has shape 4x2 (only dim 1 may differ)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.concat %a, %b dim 1 : tensor<4x2xf32>, tensor<3x2xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// The printed concat result type must match the inferred one.
func.func @concat_result(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<8x2xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.concat %a, %a dim 0 : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Padding needs one low and one high entry per dimension.
func.func @pad_length(%x: tensor<4x5xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{low [0, 0] and high [3] need one entry per dimension of the operand (rank 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.pad %x low [0, 0] high [3] value 0.0 : tensor<4x5xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Padding is non-negative (cropping is tfc.slice's job).
func.func @pad_negative(%x: tensor<4x5xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{dimension 1: padding must be non-negative, got low -1 and high 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.pad %x low [0, -1] high [0, 0] value 0.0 : tensor<4x5xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// An integer tensor cannot be padded with a fraction.
func.func @pad_fraction(%x: tensor<4xi32>) -> tensor<5xi32> {
  // expected-error @+1 {{padding value 5.000000e-01 is not representable in 'i32'}}
  %0 = tfc.pad %x low [1] high [0] value 0.5 : tensor<4xi32> -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// An integer padding value must fit the element type.
func.func @pad_range(%x: tensor<4xi1>) -> tensor<5xi1> {
  // expected-error @+1 {{padding value 2.000000e+00 is not representable in 'i1'}}
  %0 = tfc.pad %x low [1] high [0] value 2.0 : tensor<4xi1> -> tensor<5xi1>
  return %0 : tensor<5xi1>
}

// -----

// The printed pad result type must match the inferred one.
func.func @pad_result(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.pad %x low [0, 0] high [0, 3] value 0.0 : tensor<4x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// The iota dimension must exist.
func.func @iota_dim() -> tensor<4x8xi64> {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = tfc.iota dim 2 : tensor<4x8xi64>
  return %0 : tensor<4x8xi64>
}

// -----

// A rank-0 iota has no dimension to count along.
func.func @iota_scalar() -> tensor<i64> {
  // expected-error @+1 {{dim 0 is out of range for rank 0}}
  %0 = tfc.iota dim 0 : tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Iota produces numbers, not booleans.
func.func @iota_bool() -> tensor<4xi1> {
  // expected-error @+1 {{must be statically shaped tensor of numeric element type}}
  %0 = tfc.iota dim 0 : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Float indices must be exact: bf16 holds consecutive integers only to 256.
func.func @iota_inexact() -> tensor<512xbf16> {
  // expected-error @+1 {{index 511 along dim 0 is not exact in 'bf16'}}
  %0 = tfc.iota dim 0 : tensor<512xbf16>
  return %0 : tensor<512xbf16>
}

// -----

// The dims list must name at least one dimension.
func.func @empty_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{dims must not be empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_sum %x dims [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A dim at or past the rank is out of range.
func.func @dim_too_large(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{dim 2 is out of range [-2, 2) for an operand of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_sum %x dims [2] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A negative dim below -rank is out of range.
func.func @dim_too_small(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{dim -3 is out of range [-2, 2) for an operand of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_mean %x dims [-3] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A 0-d operand has no dimension to reduce.
func.func @scalar_operand(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{dim 0 is out of range [0, 0) for an operand of rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_max %x dims [0] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The same dimension may not be listed twice.
func.func @duplicate_dim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{dim 1 reduces dimension 1 more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_sum %x dims [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Duplicates are found after normalization: -1 and 1 name one dimension.
func.func @duplicate_negative_dim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{dim -1 reduces dimension 1 more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_max %x dims [1, -1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The written result shape must be the inferred one.
func.func @wrong_result_shape(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{'tfc.reduce_sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Without keepdim the reduced dimension disappears instead of becoming 1.
func.func @missing_keepdim(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+2 {{'tfc.reduce_mean' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_mean %x dims [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// The result keeps the operand's element type (no implicit widening).
func.func @wrong_result_dtype(%x: tensor<4x8xbf16>) -> tensor<4xf32> {
  // expected-error @+2 {{'tfc.reduce_sum' op inferred type(s) 'tensor<4xbf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x8xbf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// reduce_mean is defined for floating-point tensors only.
func.func @mean_of_integers(%x: tensor<4x8xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tfc.reduce_mean' op operand #0 must be statically shaped tensor of floating-point (f16, bf16, f32, f64) values}}
  %0 = tfc.reduce_mean %x dims [1] : tensor<4x8xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// reduce_sum and reduce_max reject i1 (convert to an integer type first).
func.func @sum_of_bools(%x: tensor<4x8xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'tfc.reduce_sum' op operand #0 must be statically shaped tensor of numeric element type}}
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x8xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Reductions need static shapes, like every tfc op.
func.func @dynamic_shape(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tfc.reduce_max' op operand #0 must be statically shaped tensor}}
  %0 = tfc.reduce_max %x dims [1] : tensor<?x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The dims property must be an i64 array (only the generic form can get it wrong).
func.func @dims_wrong_attr(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Invalid attribute `dims` in property conversion: [1]}}
  %0 = "tfc.reduce_sum"(%x) <{dims = [1]}> : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Kernel role: reducing the last dim and a non-adjacent leading one is
// composite (lowering splits it), so no kernel may hold it.
func.func @composite_in_kernel(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tfc.reduce_max' is a composite op; lowering decomposes it before kernels are formed}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8x16xf32>) -> tensor<8xf32> {
    // expected-note @+1 {{'tfc.reduce_max' here}}
    %0 = tfc.reduce_max %a dims [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
    tfc.yield %0 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Kernel role: reducing a trailing suffix is a row reduction, not a column one.
func.func @row_in_column_kernel(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a column_reduction kernel cannot hold 'tfc.reduce_sum' (role row_reduction)}}
  %r = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4xf32> {
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Kernel role: keeping the last dim makes a column reduction, even when the
// reduced dim is not the first. A row kernel holds it only as a sum over its
// rows: here it has no row reduction at all.
func.func @column_in_row_kernel(%x: tensor<4x8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{a row_reduction kernel needs at least one row_reduction op}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8x2xf32>) -> tensor<4x2xf32> {
    %0 = tfc.reduce_mean %a dims [1] : tensor<4x8x2xf32> -> tensor<4x2xf32>
    tfc.yield %0 : tensor<4x2xf32>
  }
  return %r : tensor<4x2xf32>
}

// -----

// A column reduction in a row kernel must sum over the kernel's rows (the leading
// dims that number them): reducing dim 1 of rows numbered by dims 0 and 1 is not.
func.func @column_sum_not_over_rows(%x: tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'tfc.reduce_mean' in a row_reduction kernel must sum a value of the kernel's rows over the leading dims that number them (the kernel reduces 32 rows of 2)}}
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>) {
    %0 = tfc.reduce_sum %a dims [2] : tensor<4x8x2xf32> -> tensor<4x8xf32>
    // expected-note @+1 {{'tfc.reduce_mean' here}}
    %1 = tfc.reduce_mean %a dims [1] : tensor<4x8x2xf32> -> tensor<4x2xf32>
    tfc.yield %0, %1 : tensor<4x8xf32>, tensor<4x2xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x2xf32>
}

// -----

// Column sums over the rows are held in registers across the rows a thread walks:
// rows of 1024 need 32 per f32 sum, more than a row kernel allows.
func.func @column_sums_too_wide(%x: tensor<4x1024xf32>) -> (tensor<4xf32>, tensor<1024xf32>) {
  // expected-error @+1 {{a row_reduction kernel holds column sums only over rows of at most 1024 elements and in at most 16 registers per thread; these need 32 (the kernel reduces 4 rows of 1024)}}
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x1024xf32>) -> (tensor<4xf32>, tensor<1024xf32>) {
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x1024xf32> -> tensor<4xf32>
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %1 = tfc.reduce_sum %a dims [0] : tensor<4x1024xf32> -> tensor<1024xf32>
    tfc.yield %0, %1 : tensor<4xf32>, tensor<1024xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<1024xf32>
}

// -----

// A column sum exists only after all rows are reduced: a per-element op cannot read it.
func.func @column_sum_read_per_row(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{'tfc.add' reads a column sum of this kernel other than per column}}
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    %1 = tfc.reduce_sum %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    // expected-note @+1 {{'tfc.add' here}}
    %2 = tfc.add %a, %1 : tensor<4x8xf32>, tensor<8xf32>
    tfc.yield %0, %2 : tensor<4xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Row geometry: rows = product of kept dims, row length = product of reduced
// dims; two reductions in one kernel must agree on both.
func.func @geometry_mismatch(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  // expected-error @+1 {{row reductions of one kernel must share their rows: 'tfc.reduce_sum' reduces 4 rows of 8 but 'tfc.reduce_max' reduces 8 rows of 4}}
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>, %b = %y : tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    // expected-note @+1 {{'tfc.reduce_max' here}}
    %1 = tfc.reduce_max %b dims [1] : tensor<8x4xf32> -> tensor<8xf32>
    tfc.yield %0, %1 : tensor<4xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<8xf32>
}

// -----

// A vector is not a matrix: operand a needs rank >= 2.
func.func @a_rank1(%a: tensor<16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'tfc.matmul' op operand 'a' must have rank >= 2 (a matrix or a batch of matrices), got rank 1}}
  %0 = tfc.matmul %a, %b : tensor<16xf32>, tensor<16x8xf32> -> tensor<8xf32>
  return
}

// -----

// Operand b needs rank >= 2 as well.
func.func @b_rank1(%a: tensor<4x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tfc.matmul' op operand 'b' must have rank >= 2 (a matrix or a batch of matrices), got rank 1}}
  %0 = tfc.matmul %a, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4xf32>
  return
}

// -----

// Operands share one element type: mixed precision needs an explicit convert.
func.func @dtype_mismatch(%a: tensor<4x16xbf16>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'tfc.matmul' op operands must have the same element type, got 'bf16' and 'f32'}}
  %0 = tfc.matmul %a, %b : tensor<4x16xbf16>, tensor<16x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Integer matrices are not supported (cuBLASLt GEMMs here are float).
func.func @integer_operands(%a: tensor<4x16xi32>, %b: tensor<16x8xi32>) {
  // expected-error @+1 {{'tfc.matmul' op operand #0 must be statically shaped tensor of floating-point (f16, bf16, f32, f64) values}}
  %0 = tfc.matmul %a, %b : tensor<4x16xi32>, tensor<16x8xi32> -> tensor<4x8xi32>
  return
}

// -----

// K of a must equal K of b.
func.func @contraction_mismatch(%a: tensor<4x16xf32>, %b: tensor<12x8xf32>) {
  // expected-error @+1 {{'tfc.matmul' op contraction sizes differ: op(a) is 4x16 but op(b) is 12x8}}
  %0 = tfc.matmul %a, %b : tensor<4x16xf32>, tensor<12x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// The contraction check sees the transposes: a PyTorch [out, in] weight
// used without transpose_b does not line up.
func.func @missing_transpose_b(%x: tensor<16x64x128xf32>, %w: tensor<384x128xf32>) {
  // expected-error @+1 {{'tfc.matmul' op contraction sizes differ: op(a) is 64x128 but op(b) is 384x128}}
  %0 = tfc.matmul %x, %w : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  return
}

// -----

// Batch sizes must be equal or 1 to broadcast.
func.func @batch_mismatch(%a: tensor<2x8x16xf32>, %b: tensor<3x16x4xf32>) {
  // expected-error @+1 {{'tfc.matmul' op batch dimensions are not broadcast-compatible (2 and 3)}}
  %0 = tfc.matmul %a, %b : tensor<2x8x16xf32>, tensor<3x16x4xf32> -> tensor<3x8x4xf32>
  return
}

// -----

// The result shape is the broadcast batch dims followed by M x N.
func.func @wrong_result_shape(%a: tensor<2x8x16xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{'tfc.matmul' op result shape 8x4 does not match 2x8x4 (batch dims, then M x N)}}
  %0 = tfc.matmul %a, %b : tensor<2x8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return
}

// -----

// transpose_a swaps M and K, so the result has the columns of a as rows.
func.func @wrong_result_transposed(%a: tensor<32x16xf32>, %b: tensor<32x8xf32>) {
  // expected-error @+1 {{'tfc.matmul' op result shape 32x8 does not match 16x8 (batch dims, then M x N)}}
  %0 = tfc.matmul %a, %b transpose_a : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<32x8xf32>
  return
}

// -----

// f32 operands produce an f32 result; there is no implicit down-cast.
func.func @f32_to_bf16(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'tfc.matmul' op result element type must be 'f32' for 'f32' operands, got 'bf16'}}
  %0 = tfc.matmul %a, %b : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xbf16>
  return
}

// -----

// 16-bit operands produce their own type or f32, nothing else.
func.func @bf16_to_f16(%a: tensor<4x16xbf16>, %b: tensor<16x8xbf16>) {
  // expected-error @+1 {{'tfc.matmul' op result element type must be 'bf16' or 'f32' for 'bf16' operands, got 'f16'}}
  %0 = tfc.matmul %a, %b : tensor<4x16xbf16>, tensor<16x8xbf16> -> tensor<4x8xf16>
  return
}

// -----

// f64 (gradient checking) does not narrow to f32 either.
func.func @f64_to_f32(%a: tensor<4x16xf64>, %b: tensor<16x8xf64>) {
  // expected-error @+1 {{'tfc.matmul' op result element type must be 'f64' for 'f64' operands, got 'f32'}}
  %0 = tfc.matmul %a, %b : tensor<4x16xf64>, tensor<16x8xf64> -> tensor<4x8xf32>
  return
}

// -----

// Matmul needs static shapes, like every tfc op.
func.func @dynamic_shape(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'tfc.matmul' op operand #0 must be statically shaped tensor}}
  %0 = tfc.matmul %a, %b : tensor<?x16xf32>, tensor<16x8xf32> -> tensor<?x8xf32>
  return
}

// -----

// Kernel role: a gemm cannot be part of a pointwise kernel.
func.func @matmul_in_pointwise_kernel(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{a pointwise kernel cannot hold 'tfc.matmul' (role gemm)}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x4xf32>) -> tensor<4x4xf32> {
    // expected-note @+1 {{'tfc.matmul' here}}
    %0 = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

// The embedding table must be rank 2.
func.func @embedding_table_rank(%t: tensor<256xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be 2-d statically shaped tensor of floating-point}}
  %0 = "tfc.embedding"(%t, %ids) : (tensor<256xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// The embedding table must hold floats.
func.func @embedding_table_int(%t: tensor<256x8xi32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be 2-d statically shaped tensor of floating-point}}
  %0 = tfc.embedding %t, %ids : tensor<256x8xi32>, tensor<4xi64> -> tensor<4x8xi32>
  return
}

// -----

// Ids must be i32 or i64.
func.func @embedding_ids_float(%t: tensor<256x8xf32>, %ids: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of integer index (i32, i64) values}}
  %0 = tfc.embedding %t, %ids : tensor<256x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

// The result must be ids.shape + [D] with the table's dtype.
func.func @embedding_result(%t: tensor<256x8xf32>, %ids: tensor<4xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.embedding %t, %ids : tensor<256x8xf32>, tensor<4xi64> -> tensor<4x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

// -----

// layer_norm normalizes floats only.
func.func @layer_norm_int(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %y:3 = "tfc.layer_norm"(%x) <{eps = 1.0e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x8xi32>) -> (tensor<4x8xi32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

// Affine parameters are floats (their float type may differ from x's).
func.func @layer_norm_weight_int(%x: tensor<4x8xf32>, %w: tensor<8xi32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of floating-point (f16, bf16, f32, f64) values, but got 'tensor<8xi32>'}}
  %y, %m, %r = tfc.layer_norm %x weight %w : (tensor<4x8xf32>, tensor<8xi32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

// normalized_rank must be at least 1.
func.func @layer_norm_rank_zero(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{normalized_rank 0 must be in [1, 2] (the rank of x)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %m, %r = tfc.layer_norm %x normalized_rank 0 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// normalized_rank cannot exceed the rank of x.
func.func @layer_norm_rank_too_big(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{normalized_rank 3 must be in [1, 2] (the rank of x)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %m, %r = tfc.layer_norm %x normalized_rank 3 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return
}

// -----

// The weight has exactly the shape of the normalized dims.
func.func @layer_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{weight shape 4 must equal the normalized dims of x (8)}}
  %y, %m, %r = tfc.layer_norm %x weight %w : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

// The bias has exactly the shape of the normalized dims (no broadcasting).
func.func @layer_norm_bias_shape(%x: tensor<2x4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias shape 8 must equal the normalized dims of x (4x8)}}
  %y, %m, %r = tfc.layer_norm %x bias %b normalized_rank 2 : (tensor<2x4x8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return
}

// -----

// eps must be positive.
func.func @layer_norm_eps_zero(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{eps must be positive and finite, got 0.000000e+00}}
  %y, %m, %r = tfc.layer_norm %x eps 0.0 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

// eps must be finite.
func.func @layer_norm_eps_inf(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{eps must be positive and finite, got INF}}
  %y, %m, %r = tfc.layer_norm %x eps 0x7FF0000000000000 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

// Statistics of 16-bit inputs are f32, not the input's dtype.
func.func @layer_norm_stats_dtype(%x: tensor<4x8xbf16>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xbf16>', 'tensor<4x1xf32>', 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4x8xbf16>', 'tensor<4x1xbf16>', 'tensor<4x1xbf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %m, %r = tfc.layer_norm %x : (tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xbf16>, tensor<4x1xbf16>)
  return
}

// -----

// The generic form must keep operandSegmentSizes consistent with the operands.
func.func @layer_norm_segments(%x: tensor<4x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
  %y:3 = "tfc.layer_norm"(%x, %w) <{eps = 1.0e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

//===----------------------------------------------------------------------===//
// rms_norm
//===----------------------------------------------------------------------===//

// -----

// rms_norm's normalized_rank must be in [1, rank].
func.func @rms_norm_rank(%x: tensor<8xf32>) {
  // expected-error @+2 {{normalized_rank 2 must be in [1, 1] (the rank of x)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %r = tfc.rms_norm %x normalized_rank 2 : (tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>)
  return
}

// -----

// rms_norm's weight has the shape of the normalized dims.
func.func @rms_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+1 {{weight shape 4x8 must equal the normalized dims of x (8)}}
  %y, %r = tfc.rms_norm %x weight %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  return
}

// -----

// rms_norm's eps must be positive.
func.func @rms_norm_eps(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{eps must be positive and finite, got -1.000000e-05}}
  %y, %r = tfc.rms_norm %x eps -1.0e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  return
}

// -----

// rms_norm's rstd has x's shape with the normalized dims set to 1.
func.func @rms_norm_rstd_shape(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>', 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>', 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %r = tfc.rms_norm %x : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

// -----

// softmax's dim must be in [-rank, rank).
func.func @softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range [-2, 2) for a rank-2 operand}}
  %0 = tfc.softmax %x dim 2 : tensor<4x8xf32>
  return
}

// -----

// softmax is float-only.
func.func @softmax_int(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %0 = tfc.softmax %x dim 1 : tensor<4x8xi32>
  return
}

// -----

// softmax keeps its operand's type (checked in the generic form).
func.func @softmax_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfc.softmax"(%x) <{dim = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

// log_softmax's dim must be in [-rank, rank) too.
func.func @log_softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim -3 is out of range [-2, 2) for a rank-2 operand}}
  %0 = tfc.log_softmax %x dim -3 : tensor<4x8xf32>
  return
}

// -----

// A 0-d operand has no dimension to normalize over.
func.func @log_softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{dim 0 is out of range [0, 0) for a rank-0 operand}}
  %0 = tfc.log_softmax %x dim 0 : tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

// -----

// p = 1 would drop everything and scale by infinity.
func.func @dropout_p_one(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{p must be in [0, 1), got 1.000000e+00}}
  %0 = tfc.dropout %x, %s, %o p 1.0 : tensor<8xf32>
  return
}

// -----

// p cannot be negative.
func.func @dropout_p_negative(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{p must be in [0, 1), got -5.000000e-01}}
  %0 = tfc.dropout %x, %s, %o p -0.5 : tensor<8xf32>
  return
}

// -----

// The seed is a 0-d i64 tensor (the custom syntax implies it; generic form).
func.func @dropout_seed_type(%x: tensor<8xf32>, %s: tensor<1xi64>, %o: tensor<i64>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 64-bit signless integer values}}
  %0 = "tfc.dropout"(%x, %s, %o) <{p = 1.0e-01 : f64}> : (tensor<8xf32>, tensor<1xi64>, tensor<i64>) -> tensor<8xf32>
  return
}

// -----

// The offset is a 0-d i64 tensor too.
func.func @dropout_offset_type(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i32>) {
  // expected-error @+1 {{operand #2 must be 0D tensor of 64-bit signless integer values}}
  %0 = "tfc.dropout"(%x, %s, %o) <{p = 1.0e-01 : f64}> : (tensor<8xf32>, tensor<i64>, tensor<i32>) -> tensor<8xf32>
  return
}

// -----

// A parameter group's learning-rate factor is a finite f64 >= 0.
// expected-error @+1 {{'tfc.lr_scale' on argument #0 must be a finite f64 >= 0, got -1.000000e+00 : f64}}
func.func @lr_scale_negative(%w: tensor<4xf32> {tfc.param = "w", tfc.lr_scale = -1.0 : f64}) {
  return
}

// -----

// Group settings belong to parameters only.
// expected-error @+1 {{'tfc.weight_decay' on argument #0 needs a 'tfc.param' beside it}}
func.func @weight_decay_on_input(%x: tensor<4xf32> {tfc.input = "x", tfc.weight_decay = 1.0e-02 : f64}) {
  return
}

//===----------------------------------------------------------------------===//
// random
//===----------------------------------------------------------------------===//

// -----

// Random numbers are floats: an integer draw (randint) is built from them.
func.func @random_integer_result(%s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %0 = tfc.random %s, %o uniform : tensor<8xi64>
  return
}

// -----

// The distribution is uniform or normal.
func.func @random_unknown_distribution(%s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+2 {{expected ::mlir::tfc::RandomDistribution to be one of: uniform, normal}}
  // expected-error @+1 {{failed to parse Tfc_RandomDistributionAttr parameter 'value'}}
  %0 = tfc.random %s, %o poisson : tensor<8xf32>
  return
}

// -----

// dropout applies to floats only.
func.func @dropout_int(%x: tensor<8xi32>, %s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %0 = tfc.dropout %x, %s, %o p 0.5 : tensor<8xi32>
  return
}

// -----

// dropout's result has x's type (checked in the generic form).
func.func @dropout_result(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{all of {x, result} have same type}}
  %0 = "tfc.dropout"(%x, %s, %o) <{p = 1.0e-01 : f64}> : (tensor<8xf32>, tensor<i64>, tensor<i64>) -> tensor<8xf16>
  return
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

// -----

// q, k and v need at least the [T, D] matrix dims.
func.func @attention_rank1(%q: tensor<32xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of rank >= 2 of floating-point}}
  %0 = tfc.attention %q, %q, %q : tensor<32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
  return
}

// -----

// q, k and v have one rank.
func.func @attention_rank_mismatch(%q: tensor<2x8x32xf32>, %k: tensor<8x32xf32>) {
  // expected-error @+1 {{q, k and v must have the same rank, got 3, 2 and 2}}
  %0 = tfc.attention %q, %k, %k : tensor<2x8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<2x8x32xf32>
  return
}

// -----

// Batch dims are equal in q, k and v (no broadcasting).
func.func @attention_batch(%q: tensor<2x4x8x32xf32>, %k: tensor<2x1x8x32xf32>) {
  // expected-error @+1 {{batch dims of q (2x4), k (2x1) and v (2x1) must be equal}}
  %0 = tfc.attention %q, %k, %k : tensor<2x4x8x32xf32>, tensor<2x1x8x32xf32>, tensor<2x1x8x32xf32> -> tensor<2x4x8x32xf32>
  return
}

// -----

// The mask broadcasts onto the scores [..., T, S] = [2, 8, 8] (no bigger rank).
func.func @attention_mask_shape(%q: tensor<2x8x32xf32>, %m: tensor<8x4xi1>) {
  // expected-error @+1 {{mask of shape 8x4 does not broadcast to the scores' shape 2x8x8}}
  %0 = tfc.attention %q, %q, %q mask %m : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<8x4xi1> -> tensor<2x8x32xf32>
  return
}

// -----

// An additive mask has q's element type (an i32 mask is neither boolean nor a score).
func.func @attention_mask_type(%q: tensor<8x32xf32>, %m: tensor<8x8xi32>) {
  // expected-error @+1 {{mask must be i1 or q's element type 'f32', got 'i32'}}
  %0 = tfc.attention %q, %q, %q mask %m : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x8xi32> -> tensor<8x32xf32>
  return
}

// -----

// q and k share the head dim D.
func.func @attention_head_dim(%q: tensor<8x32xf32>, %k: tensor<8x16xf32>, %v: tensor<8x32xf32>) {
  // expected-error @+1 {{head dim of k (16) must equal that of q (32)}}
  %0 = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}

// -----

// k and v share the sequence length S.
func.func @attention_seq_len(%q: tensor<8x32xf32>, %k: tensor<8x32xf32>, %v: tensor<6x32xf32>) {
  // expected-error @+1 {{sequence length of v (6) must equal that of k (8)}}
  %0 = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<8x32xf32>, tensor<6x32xf32> -> tensor<8x32xf32>
  return
}

// -----

// q, k and v share one element type.
func.func @attention_dtype(%q: tensor<8x32xf32>, %k: tensor<8x32xbf16>) {
  // expected-error @+1 {{all of {q, k, v} have same element type}}
  %0 = tfc.attention %q, %k, %k : tensor<8x32xf32>, tensor<8x32xbf16>, tensor<8x32xbf16> -> tensor<8x32xf32>
  return
}

// -----

// The result is [..., T, Dv] in q's dtype.
func.func @attention_result(%q: tensor<8x32xf32>, %k: tensor<6x32xf32>, %v: tensor<6x16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<8x16xf32>' are incompatible with return type(s) of operation 'tensor<8x32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<6x32xf32>, tensor<6x16xf32> -> tensor<8x32xf32>
  return
}

// -----

// scale must be positive.
func.func @attention_scale(%q: tensor<8x32xf32>) {
  // expected-error @+1 {{scale must be positive and finite, got 0.000000e+00}}
  %0 = tfc.attention %q, %q, %q scale 0.0 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}

// -----

// The attention dropout probability is in [0, 1).
func.func @attention_dropout_p(%q: tensor<8x32xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{dropout must be in [0, 1), got 1.500000e+00}}
  %0 = tfc.attention %q, %q, %q dropout 1.5 seed %s offset %o : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}

// -----

// A dropout needs its seed and offset (generic form, which can omit them).
func.func @attention_dropout_no_seed(%q: tensor<8x32xf32>) {
  // expected-error @+1 {{seed and offset must be present exactly when dropout is}}
  %0 = "tfc.attention"(%q, %q, %q) <{dropout = 1.0e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return
}

// -----

// A seed and offset without dropout are rejected (generic form).
func.func @attention_seed_no_dropout(%q: tensor<8x32xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{seed and offset must be present exactly when dropout is}}
  %0 = "tfc.attention"(%q, %q, %q, %s, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>}> : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<i64>, tensor<i64>) -> tensor<8x32xf32>
  return
}

// -----

// The dropout group of the custom syntax must name both seed and offset.
func.func @attention_dropout_syntax(%q: tensor<8x32xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{expected 'offset'}}
  %0 = tfc.attention %q, %q, %q dropout 1.0e-01 seed %s : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// cross_entropy
//===----------------------------------------------------------------------===//

// -----

// Logits are [N, C].
func.func @cross_entropy_logits_rank(%l: tensor<2x8x10xf32>, %y: tensor<8xi64>) {
  // expected-error @+1 {{operand #0 must be 2-d statically shaped tensor of floating-point}}
  %0 = tfc.cross_entropy %l, %y : tensor<2x8x10xf32>, tensor<8xi64> -> tensor<f32>
  return
}

// -----

// Labels are a 1-d [N] tensor.
func.func @cross_entropy_labels_rank(%l: tensor<8x10xf32>, %y: tensor<8x1xi64>) {
  // expected-error @+1 {{operand #1 must be 1-d statically shaped tensor of integer index (i32, i64) values}}
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xf32>, tensor<8x1xi64> -> tensor<f32>
  return
}

// -----

// Labels are class indices, not probabilities.
func.func @cross_entropy_labels_float(%l: tensor<8x10xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{operand #1 must be 1-d statically shaped tensor of integer index (i32, i64) values}}
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xf32>, tensor<8xf32> -> tensor<f32>
  return
}

// -----

// There is one label per row of logits.
func.func @cross_entropy_batch(%l: tensor<8x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{labels length 4 must equal the number of logits rows 8}}
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

// label_smoothing lies in [0, 1].
func.func @cross_entropy_smoothing(%l: tensor<8x10xf32>, %y: tensor<8xi64>) {
  // expected-error @+1 {{label_smoothing must be in [0, 1], got 1.500000e+00}}
  %0 = tfc.cross_entropy %l, %y label_smoothing 1.5 : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  return
}

// -----

// ignore_index must be representable in the labels' integer type.
func.func @cross_entropy_ignore_index(%l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{ignore_index 4294967296 does not fit the labels' element type 'i32'}}
  %0 = tfc.cross_entropy %l, %y ignore_index 4294967296 : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32>
  return
}

// -----

// The loss of bf16 logits is an f32 scalar, not bf16.
func.func @cross_entropy_result(%l: tensor<8x10xbf16>, %y: tensor<8xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<bf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xbf16>, tensor<8xi64> -> tensor<bf16>
  return
}

// -----

// reduction is mean or sum.
func.func @cross_entropy_reduction(%l: tensor<8x10xf32>, %y: tensor<8xi64>) {
  // expected-error @+2 {{expected ::mlir::tfc::LossReduction to be one of: mean, sum}}
  // expected-error @+1 {{failed to parse Tfc_LossReductionAttr parameter 'value'}}
  %0 = tfc.cross_entropy %l, %y reduction none : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Kernel roles (checked by tfc.fusion)
//===----------------------------------------------------------------------===//

// -----

// softmax over a dim other than the last is a composite, not a row reduction.
func.func @softmax_not_last_dim_kernel(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'tfc.softmax' is a composite op; lowering decomposes it before kernels are formed}}
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x64xf32>) -> tensor<16x64xf32> {
    // expected-note @+1 {{'tfc.softmax' here}}
    %p = tfc.softmax %a dim 0 : tensor<16x64xf32>
    tfc.yield %p : tensor<16x64xf32>
  }
  return %o : tensor<16x64xf32>
}

// -----

// layer_norm's rows span all normalized dims: with normalized_rank 2 it
// reduces 16 rows of 4*32, which a last-dim softmax cannot share.
func.func @layer_norm_row_geometry(%x: tensor<16x4x32xf32>) -> tensor<16x4x32xf32> {
  // expected-error @+1 {{'tfc.layer_norm' reduces 16 rows of 128 but 'tfc.softmax' reduces 64 rows of 32}}
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x4x32xf32>) -> tensor<16x4x32xf32> {
    // expected-note @+1 {{'tfc.layer_norm' here}}
    %y, %m, %r = tfc.layer_norm %a normalized_rank 2 : (tensor<16x4x32xf32>) -> (tensor<16x4x32xf32>, tensor<16x1x1xf32>, tensor<16x1x1xf32>)
    // expected-note @+1 {{'tfc.softmax' here}}
    %p = tfc.softmax %y dim -1 : tensor<16x4x32xf32>
    tfc.yield %p : tensor<16x4x32xf32>
  }
  return %o : tensor<16x4x32xf32>
}

// -----

// A fusion is a kernel, and a kernel has at least one output.
func.func @no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tfc.fusion' op must produce at least one result}}
  tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> () {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield
  }
  return
}

// -----

// The body needs one block argument per input (generic form: the custom form
// always binds them one to one).
func.func @arg_count(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op body has 1 arguments but the op has 2 inputs}}
  %r = "tfc.fusion"(%x, %y) <{kind = #tfc<kernel_kind pointwise>}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Each block argument has its input's type.
func.func @arg_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'tfc.fusion' op body argument #0 has type 'tensor<4xf16>' but input #0 has type 'tensor<4xf32>'}}
  %r = "tfc.fusion"(%x) <{kind = #tfc<kernel_kind pointwise>}> ({
  ^bb0(%a: tensor<4xf16>):
    %0 = tfc.exp %a : tensor<4xf16>
    tfc.yield %0 : tensor<4xf16>
  }) : (tensor<4xf32>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// Inputs are static tensors like every tfc value.
func.func @dynamic_input(%x: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op operand #0 must be variadic of statically shaped tensor}}
  %r = tfc.fusion pointwise (%a = %x : tensor<?xf32>) -> tensor<4xf32> {
    %0 = tfc.constant dense<1.0> : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The custom form binds every block argument to its input with `=`.
func.func @unbound_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected '='}}
  %r = tfc.fusion pointwise (%a : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The kind must be one of the kernel kinds codegen knows.
func.func @unknown_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::mlir::tfc::KernelKind to be one of: pointwise, row_reduction, column_reduction, gather, multi_tensor, gemm}}
  // expected-error @+1 {{failed to parse Tfc_KernelKindAttr parameter 'value'}}
  %r = tfc.fusion elementwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The region is isolated from above: values enter only as inputs.
func.func @captured_value(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %0 = tfc.add %a, %y : tensor<4xf32>, tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The body is a single block (generic form with two blocks).
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op expects region #0 to have 0 or 1 blocks}}
  %r = "tfc.fusion"(%x) <{kind = #tfc<kernel_kind pointwise>}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  ^bb1:
    %1 = tfc.exp %a : tensor<4xf32>
    tfc.yield %1 : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The body region has its block (generic form with an empty region).
func.func @no_block(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %r = "tfc.fusion"(%x) <{kind = #tfc<kernel_kind pointwise>}> ({
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The body ends with tfc.yield.
func.func @no_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{block with no terminator}}
    %0 = tfc.exp %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// tfc.yield only terminates a tfc.fusion or a tfc.checkpoint.
func.func @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.yield' op expects parent op to be one of 'tfc.fusion, tfc.checkpoint'}}
  tfc.yield %x : tensor<4xf32>
}

// -----

// tfc.yield returns exactly one value per fusion result.
func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.exp %a : tensor<4xf32>
    // expected-error @+1 {{'tfc.yield' op yields 2 values but the enclosing tfc.fusion has 1 results}}
    tfc.yield %0, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Each yielded value has the type of its fusion result.
func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xbf16> {
    %0 = tfc.exp %a : tensor<4xf32>
    // expected-error @+1 {{'tfc.yield' op value #0 has type 'tensor<4xf32>' but the enclosing tfc.fusion's result #0 has type 'tensor<4xbf16>'}}
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xbf16>
}

// -----

// A tfc.checkpoint's yield returns one value of each result's type.
func.func @checkpoint_yield_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %r = tfc.checkpoint (%a = %x : tensor<4xf32>) -> tensor<4xbf16> {
    %0 = tfc.exp %a : tensor<4xf32>
    // expected-error @+1 {{'tfc.yield' op value #0 has type 'tensor<4xf32>' but the enclosing tfc.checkpoint's result #0 has type 'tensor<4xbf16>'}}
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xbf16>
}

// -----

// A checkpoint is one block of a model: blocks do not nest.
func.func @checkpoint_nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.checkpoint (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tfc.checkpoint' op cannot be nested in another tfc.checkpoint}}
    %0 = tfc.checkpoint (%b = %a : tensor<4xf32>) -> tensor<4xf32> {
      %1 = tfc.exp %b : tensor<4xf32>
      tfc.yield %1 : tensor<4xf32>
    }
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A checkpoint's body is isolated from above: what it reads comes in as an
// input.
func.func @checkpoint_isolated(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = tfc.checkpoint (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tfc.add' op using value defined outside the region}}
    %0 = tfc.add %a, %y : tensor<4xf32>, tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A checkpoint produces something.
func.func @checkpoint_no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tfc.checkpoint' op must produce at least one result}}
  tfc.checkpoint (%a = %x : tensor<4xf32>) -> () {
    tfc.yield
  }
  return
}

// -----

// The blocks --tfc-inline-checkpoints records map parameter names to block
// indices.
// expected-error @+1 {{'tfc.checkpoint_blocks' must be a dictionary from parameter names to block indices (>= -1) on the module}}
module attributes {tfc.checkpoint_blocks = {"w" = "zero"}} {
}

// -----

// A kernel computes something: a body holding only the terminator is empty.
func.func @empty_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op body must contain at least one op besides the terminator}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    tfc.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Ops of other dialects cannot be emitted by tfc's codegen.
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'func.call' is not a tfc op; a kernel body holds only tfc ops}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-note @+1 {{'func.call' here}}
    %0 = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Fusions do not nest: a tfc op without a kernel role cannot be in a kernel.
func.func @nested_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.fusion' has no kernel role and cannot be part of a kernel (fusions do not nest)}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-note @+1 {{'tfc.fusion' here}}
    %0 = tfc.fusion pointwise (%b = %a : tensor<4xf32>) -> tensor<4xf32> {
      %1 = tfc.exp %b : tensor<4xf32>
      tfc.yield %1 : tensor<4xf32>
    }
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Composite ops (attention) are decomposed by lowering, never put in a kernel.
func.func @composite(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.attention' is a composite op; lowering decomposes it before kernels are formed}}
  %r = tfc.fusion row_reduction (%a = %q : tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
    // expected-note @+1 {{'tfc.attention' here}}
    %o = tfc.attention %a, %a, %a causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
    tfc.yield %o : tensor<2x4x8x16xf32>
  }
  return %r : tensor<2x4x8x16xf32>
}

// -----

// A pointwise kernel holds only pointwise ops.
func.func @pointwise_with_reduction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op a pointwise kernel cannot hold 'tfc.reduce_sum' (role row_reduction)}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>) -> tensor<4xf32> {
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %s = tfc.reduce_sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tfc.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A multi-tensor kernel holds optimizer updates and pointwise ops, never a GEMM.
func.func @multi_tensor_with_gemm(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>) -> tensor<16x384xf32> {
  // expected-error @+1 {{'tfc.fusion' op a multi_tensor kernel cannot hold 'tfc.matmul' (role gemm)}}
  %r = tfc.fusion multi_tensor (%a = %x : tensor<16x128xf32>, %b = %w : tensor<384x128xf32>) -> tensor<16x384xf32> {
    // expected-note @+1 {{'tfc.matmul' here}}
    %y = tfc.matmul %a, %b transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    tfc.yield %y : tensor<16x384xf32>
  }
  return %r : tensor<16x384xf32>
}

// -----

// A row-reduction kernel needs a row reduction.
func.func @row_reduction_without_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfc.fusion' op a row_reduction kernel needs at least one row_reduction op}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.exp %a : tensor<4x8xf32>
    tfc.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// All row reductions of one kernel walk the same rows.
func.func @row_geometry_mismatch(%x: tensor<16x64xf32>, %y: tensor<4x8xf32>) -> (tensor<16x64xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'tfc.fusion' op row reductions of one kernel must share their rows: 'tfc.softmax' reduces 16 rows of 64 but 'tfc.reduce_sum' reduces 4 rows of 8}}
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x64xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<16x64xf32>, tensor<4xf32>) {
    // expected-note @+1 {{'tfc.softmax' here}}
    %p = tfc.softmax %a dim -1 : tensor<16x64xf32>
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %s = tfc.reduce_sum %b dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tfc.yield %p, %s : tensor<16x64xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<4xf32>
}

// -----

// A column-reduction kernel needs a column reduction.
func.func @column_reduction_without_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfc.fusion' op a column_reduction kernel needs at least one column_reduction op}}
  %r = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.neg %a : tensor<4x8xf32>
    tfc.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// A column-reduction kernel holds no row reductions (softmax over the last dim).
func.func @column_reduction_with_row(%x: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{'tfc.fusion' op a column_reduction kernel cannot hold 'tfc.softmax' (role row_reduction)}}
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    // expected-note @+1 {{'tfc.softmax' here}}
    %1 = tfc.softmax %a dim -1 : tensor<4x8xf32>
    tfc.yield %0, %1 : tensor<8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<4x8xf32>
}

// -----

// A gather kernel is built around one gather op.
func.func @gather_without_gather(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gather kernel needs at least one gather op}}
  %r = tfc.fusion gather (%a = %x : tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = tfc.relu %a : tensor<16x128xf32>
    tfc.yield %0 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// -----

// A gather kernel holds exactly one gather op.
func.func @two_gathers(%t: tensor<256x128xf32>, %ids: tensor<16xi64>) -> tensor<16x128xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gather kernel holds exactly one gather op, found 2}}
  %r = tfc.fusion gather (%a = %t : tensor<256x128xf32>, %i = %ids : tensor<16xi64>) -> tensor<16x128xf32> {
    // expected-note @+1 {{'tfc.embedding' here}}
    %0 = tfc.embedding %a, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    // expected-note @+1 {{'tfc.embedding' here}}
    %1 = tfc.embedding %a, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    %2 = tfc.add %0, %1 : tensor<16x128xf32>, tensor<16x128xf32>
    tfc.yield %2 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// -----

// A gather kernel holds no reductions besides its gather.
func.func @gather_with_reduction(%t: tensor<256x128xf32>, %ids: tensor<16xi64>) -> tensor<16xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gather kernel cannot hold 'tfc.reduce_sum' (role row_reduction)}}
  %r = tfc.fusion gather (%a = %t : tensor<256x128xf32>, %i = %ids : tensor<16xi64>) -> tensor<16xf32> {
    %0 = tfc.embedding %a, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %1 = tfc.reduce_sum %0 dims [1] : tensor<16x128xf32> -> tensor<16xf32>
    tfc.yield %1 : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// A GEMM kernel is built around one GEMM.
func.func @gemm_without_gemm(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gemm kernel needs at least one gemm op}}
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = tfc.gelu %a : tensor<16x128xf32>
    tfc.yield %0 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// -----

// A GEMM kernel holds exactly one GEMM: two matmuls are two cuBLASLt calls.
func.func @two_gemms(%x: tensor<16x128xf32>, %w: tensor<128x128xf32>) -> tensor<16x128xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gemm kernel holds exactly one gemm op, found 2}}
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %b = %w : tensor<128x128xf32>) -> tensor<16x128xf32> {
    // expected-note @+1 {{'tfc.matmul' here}}
    %0 = tfc.matmul %a, %b : tensor<16x128xf32>, tensor<128x128xf32> -> tensor<16x128xf32>
    // expected-note @+1 {{'tfc.matmul' here}}
    %1 = tfc.matmul %0, %b : tensor<16x128xf32>, tensor<128x128xf32> -> tensor<16x128xf32>
    tfc.yield %1 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// -----

// A GEMM epilogue is pointwise: softmax (a row reduction) is a kernel of its own.
func.func @gemm_with_softmax(%x: tensor<16x128xf32>, %w: tensor<64x128xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gemm kernel cannot hold 'tfc.softmax' (role row_reduction)}}
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %b = %w : tensor<64x128xf32>) -> tensor<16x64xf32> {
    %0 = tfc.matmul %a, %b transpose_b : tensor<16x128xf32>, tensor<64x128xf32> -> tensor<16x64xf32>
    // expected-note @+1 {{'tfc.softmax' here}}
    %1 = tfc.softmax %0 dim -1 : tensor<16x64xf32>
    tfc.yield %1 : tensor<16x64xf32>
  }
  return %r : tensor<16x64xf32>
}

// -----

// A GEMM kernel's epilogue is what cuBLASLt fuses: its GELU is the tanh form, so a
// bias + exact (erf) GELU is rejected here, not when lowering to tfcrt.
func.func @gemm_with_erf_gelu(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>, %b: tensor<384xf32>) -> tensor<16x384xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gemm kernel holds one tfc.matmul and optionally the epilogue cuBLASLt fuses (a row bias add, then ReLU or GELU's tanh form): 'tfc.gelu' is not an epilogue op (a row bias add, then tfc.relu or tfc.gelu approximate tanh: cuBLASLt's GELU is the tanh form)}}
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>, %d = %b : tensor<384xf32>) -> tensor<16x384xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    %0 = tfc.add %y, %d : tensor<16x384xf32>, tensor<384xf32>
    // expected-note @+1 {{'tfc.gelu' here}}
    %1 = tfc.gelu %0 : tensor<16x384xf32>
    tfc.yield %1 : tensor<16x384xf32>
  }
  return %r : tensor<16x384xf32>
}

// -----

// A residual add is not a bias: cuBLASLt's epilogue broadcasts one row of n elements.
func.func @gemm_with_residual(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>, %r: tensor<16x384xf32>) -> tensor<16x384xf32> {
  // expected-error @+1 {{the tfc.add must add a row of n = 384 elements from outside the kernel to the product}}
  %0 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>, %d = %r : tensor<16x384xf32>) -> tensor<16x384xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    // expected-note @+1 {{'tfc.add' here}}
    %1 = tfc.add %y, %d : tensor<16x384xf32>, tensor<16x384xf32>
    tfc.yield %1 : tensor<16x384xf32>
  }
  return %0 : tensor<16x384xf32>
}

// -----

// Storing the GELU input next to the result is cuBLASLt's aux matrix, whose leading
// dimension (n) must be a multiple of 8.
func.func @gemm_aux_unaligned(%x: tensor<16x128xf32>, %w: tensor<12x128xf32>, %b: tensor<12xf32>) -> (tensor<16x12xf32>, tensor<16x12xf32>) {
  // expected-error @+1 {{storing the GELU input (cuBLASLt's aux matrix) needs n to be a multiple of 8}}
  %r:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<12x128xf32>, %d = %b : tensor<12xf32>) -> (tensor<16x12xf32>, tensor<16x12xf32>) {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<12x128xf32> -> tensor<16x12xf32>
    %0 = tfc.add %y, %d : tensor<16x12xf32>, tensor<12xf32>
    // expected-note @+1 {{'tfc.gelu' here}}
    %1 = tfc.gelu %0 approximate tanh : tensor<16x12xf32>
    tfc.yield %1, %0 : tensor<16x12xf32>, tensor<16x12xf32>
  }
  return %r#0, %r#1 : tensor<16x12xf32>, tensor<16x12xf32>
}

// -----

// cuBLASLt's ReLU epilogue stores no input (its aux matrix is a bit mask, not the
// values): the ReLU's input cannot be an output next to it.
func.func @gemm_relu_input_escapes(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>) -> (tensor<16x384xf32>, tensor<16x384xf32>) {
  // expected-error @+1 {{'tfc.matmul' is read by more than the next epilogue op}}
  %r:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>) -> (tensor<16x384xf32>, tensor<16x384xf32>) {
    // expected-note @+1 {{'tfc.matmul' here}}
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    %0 = tfc.relu %y : tensor<16x384xf32>
    tfc.yield %0, %y : tensor<16x384xf32>, tensor<16x384xf32>
  }
  return %r#0, %r#1 : tensor<16x384xf32>, tensor<16x384xf32>
}

// -----

// The bias gradient of a backward epilogue is the sum over every row: a sum over part
// of the leading dims is not cuBLASLt's.
func.func @gemm_partial_bias_grad(%dy: tensor<4x16x128xf32>, %w: tensor<128x512xf32>, %h: tensor<4x16x512xf32>) -> (tensor<4x16x512xf32>, tensor<16x512xf32>) {
  // expected-error @+1 {{only a tfc.reduce_sum of the GELU gradient over every dim but the last (the bias gradient) may follow it}}
  %r:2 = tfc.fusion gemm (%a = %dy : tensor<4x16x128xf32>, %c = %w : tensor<128x512xf32>, %x = %h : tensor<4x16x512xf32>) -> (tensor<4x16x512xf32>, tensor<16x512xf32>) {
    %p = tfc.matmul %a, %c : tensor<4x16x128xf32>, tensor<128x512xf32> -> tensor<4x16x512xf32>
    %d = tfc.gelu_grad %p, %x approximate tanh : tensor<4x16x512xf32>
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %b = tfc.reduce_sum %d dims [0] : tensor<4x16x512xf32> -> tensor<16x512xf32>
    tfc.yield %d, %b : tensor<4x16x512xf32>, tensor<16x512xf32>
  }
  return %r#0, %r#1 : tensor<4x16x512xf32>, tensor<16x512xf32>
}

// -----

// A backward epilogue needs the tanh form and the GELU input from outside the kernel.
func.func @gemm_dgelu_erf(%dy: tensor<64x128xf32>, %w: tensor<128x512xf32>, %h: tensor<64x512xf32>) -> tensor<64x512xf32> {
  // expected-error @+1 {{a tfc.gelu_grad epilogue takes the product as dy and the stored GELU input (tanh form) from outside}}
  %r = tfc.fusion gemm (%a = %dy : tensor<64x128xf32>, %c = %w : tensor<128x512xf32>, %x = %h : tensor<64x512xf32>) -> tensor<64x512xf32> {
    %p = tfc.matmul %a, %c : tensor<64x128xf32>, tensor<128x512xf32> -> tensor<64x512xf32>
    // expected-note @+1 {{'tfc.gelu_grad' here}}
    %d = tfc.gelu_grad %p, %x : tensor<64x512xf32>
    tfc.yield %d : tensor<64x512xf32>
  }
  return %r : tensor<64x512xf32>
}

// -----

// The product itself is not stored once an epilogue follows it: C holds the last value.
func.func @gemm_product_escapes(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>, %b: tensor<384xf32>) -> (tensor<16x384xf32>, tensor<16x384xf32>) {
  // expected-error @+1 {{'tfc.matmul' is read by more than the next epilogue op}}
  %r:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>, %d = %b : tensor<384xf32>) -> (tensor<16x384xf32>, tensor<16x384xf32>) {
    // expected-note @+1 {{'tfc.matmul' here}}
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    %0 = tfc.add %y, %d : tensor<16x384xf32>, tensor<384xf32>
    tfc.yield %0, %y : tensor<16x384xf32>, tensor<16x384xf32>
  }
  return %r#0, %r#1 : tensor<16x384xf32>, tensor<16x384xf32>
}

// -----

// A row statistic is a register of the row being reduced: reading it at another
// row's index (here through a transpose) cannot be emitted.
func.func @stat_of_other_row(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.transpose' reads a value computed from a row reduction of this kernel at positions outside the row it belongs to (the kernel reduces 4 rows of 4)}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x4xf32>) -> tensor<4x4xf32> {
    %m = tfc.reduce_max %a dims [-1] keepdim : tensor<4x4xf32> -> tensor<4x1xf32>
    // expected-note @+1 {{'tfc.transpose' here}}
    %t = tfc.transpose %m, [1, 0] : tensor<4x1xf32> -> tensor<1x4xf32>
    %0 = tfc.sub %a, %t : tensor<4x4xf32>, tensor<1x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A row statistic without keepdim broadcasts along the last dim, i.e. across rows.
func.func @stat_broadcast_across_rows(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.sub' reads a value computed from a row reduction of this kernel at positions outside the row it belongs to (the kernel reduces 4 rows of 4)}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x4xf32>) -> tensor<4x4xf32> {
    %m = tfc.reduce_max %a dims [-1] : tensor<4x4xf32> -> tensor<4xf32>
    // expected-note @+1 {{'tfc.sub' here}}
    %0 = tfc.sub %a, %m : tensor<4x4xf32>, tensor<4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A normalized row feeds a reduction of the same kernel only as the row it reduces, not
// as a weight (read along the row, at other rows' values).
func.func @row_value_as_weight(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.layer_norm' reads operand #1, which is computed from a reduction of this kernel, at positions outside the row it belongs to}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<8x8xf32>) -> tensor<8x8xf32> {
    %s = tfc.reduce_sum %a dims [1] : tensor<8x8xf32> -> tensor<8xf32>
    // expected-note @+1 {{'tfc.layer_norm' here}}
    %y, %m, %v = tfc.layer_norm %a weight %s : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
    tfc.yield %y : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

// The loss exists only once every row is reduced: it cannot feed per-element work of
// the same kernel.
func.func @loss_per_element(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.mul' combines a cross_entropy loss with per-row values; the loss exists only after all rows are reduced, so only scalar ops of losses can follow it in the same kernel}}
  %r = tfc.fusion row_reduction (%a = %logits : tensor<8x10xf32>, %b = %labels : tensor<8xi64>) -> tensor<8x10xf32> {
    %l = tfc.cross_entropy %a, %b : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    %s = tfc.softmax %a dim -1 : tensor<8x10xf32>
    // expected-note @+1 {{'tfc.mul' here}}
    %0 = tfc.mul %s, %l : tensor<8x10xf32>, tensor<f32>
    tfc.yield %0 : tensor<8x10xf32>
  }
  return %r : tensor<8x10xf32>
}

// -----

// An output computed from a loss is a scalar: it is written once, after the last row.
func.func @loss_broadcast_output(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.broadcast_to' combines a cross_entropy loss with per-row values}}
  %r = tfc.fusion row_reduction (%a = %logits : tensor<8x10xf32>, %b = %labels : tensor<8xi64>) -> tensor<8x10xf32> {
    %l = tfc.cross_entropy %a, %b : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    // expected-note @+1 {{'tfc.broadcast_to' here}}
    %0 = tfc.broadcast_to %l : tensor<f32> -> tensor<8x10xf32>
    tfc.yield %0 : tensor<8x10xf32>
  }
  return %r : tensor<8x10xf32>
}

// -----

// Row-reduction outputs are one per row or one per element of the rows.
func.func @row_output_size(%x: tensor<16x128xf32>, %w: tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xf32>) {
  // expected-error @+1 {{'tfc.fusion' op a row_reduction output of 128 elements (128) is neither one per row (16) nor one per element (2048)}}
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x128xf32>, %c = %w : tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xf32>) {
    %w32 = tfc.convert %c : tensor<128xbf16> -> tensor<128xf32>
    %y, %m, %s = tfc.layer_norm %a weight %w32 : (tensor<16x128xf32>, tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
    tfc.yield %y, %w32 : tensor<16x128xf32>, tensor<128xf32>
  }
  return %r#0, %r#1 : tensor<16x128xf32>, tensor<128xf32>
}

// -----

// The column reductions of one kernel share their (column, row) space.
func.func @column_mismatch(%x: tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  // expected-error @+1 {{'tfc.fusion' op the column reductions of one kernel must reduce the same dims of same-shaped operands}}
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %0 = tfc.reduce_sum %a dims [0] : tensor<4x8x16xf32> -> tensor<8x16xf32>
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %1 = tfc.reduce_sum %a dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
    tfc.yield %0, %1 : tensor<8x16xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<16xf32>
}

// -----

// A column sum exists once per column after the combine; another column reduction of
// the same kernel cannot reduce it.
func.func @column_of_column(%x: tensor<1x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.reduce_sum' reduces a value computed from another column reduction of the same kernel}}
  %r = tfc.fusion column_reduction (%a = %x : tensor<1x8xf32>) -> tensor<8xf32> {
    %0 = tfc.reduce_sum %a dims [0] keepdim : tensor<1x8xf32> -> tensor<1x8xf32>
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %1 = tfc.reduce_sum %0 dims [0] : tensor<1x8xf32> -> tensor<8xf32>
    tfc.yield %1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// What follows a column sum is computed once per column: it cannot broadcast the sum
// back over the rows.
func.func @column_sum_broadcast(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfc.fusion' op 'tfc.sub' reads a column reduction result of this kernel at positions other than its column}}
  %r = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.reduce_mean %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    // expected-note @+1 {{'tfc.sub' here}}
    %1 = tfc.sub %a, %0 : tensor<4x8xf32>, tensor<8xf32>
    tfc.yield %1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// An output that is neither per column nor per input element.
func.func @column_output_size(%x: tensor<64x16xf32>, %y: tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
  // expected-error @+1 {{'tfc.fusion' op a column_reduction output of 8 elements (8) is neither one per column (16) nor one per input element (1024)}}
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<64x16xf32>, %b = %y : tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<64x16xf32> -> tensor<16xf32>
    %1 = tfc.neg %b : tensor<8xf32>
    tfc.yield %0, %1 : tensor<16xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<16xf32>, tensor<8xf32>
}

// -----

// Reduction kernels map threads to rows or columns: a tensor without elements has none.
func.func @reduce_empty(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op reductions over empty tensors are not supported}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x0xf32>) -> tensor<4xf32> {
    // expected-note @+1 {{'tfc.reduce_sum' here}}
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x0xf32> -> tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A block_quantized kernel's outputs are results of its adamw8bit op: the block loop
// has no epilogue for ops that consume them.
func.func @block_quantized_epilogue(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<300xbf16> {
  // expected-error @+1 {{'tfc.fusion' op every output of a block_quantized kernel must be a result of its tfc.adamw8bit op}}
  %r = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> tensor<300xbf16> {
    // expected-note @+1 {{'tfc.adamw8bit' here}}
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %a, %c, %d, %c, %d, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    %w = tfc.convert %p1 : tensor<300xf32> -> tensor<300xbf16>
    tfc.yield %w : tensor<300xbf16>
  }
  return %r : tensor<300xbf16>
}

// -----

// A scatter kernel holds exactly one embedding_grad: each table row's warp scans the
// ids of one op.
func.func @scatter_two(%dy: tensor<6x8xf32>, %ids: tensor<6xi64>) -> tensor<10x8xf32> {
  // expected-error @+1 {{a scatter kernel holds exactly one scatter op, found 2}}
  %r = tfc.fusion scatter (%a = %dy : tensor<6x8xf32>, %b = %ids : tensor<6xi64>) -> tensor<10x8xf32> {
    // expected-note @+1 {{'tfc.embedding_grad' here}}
    %0 = tfc.embedding_grad %a, %b : tensor<6x8xf32>, tensor<6xi64> -> tensor<10x8xf32>
    // expected-note @+1 {{'tfc.embedding_grad' here}}
    %1 = tfc.embedding_grad %a, %b : tensor<6x8xf32>, tensor<6xi64> -> tensor<10x8xf32>
    %2 = tfc.add %0, %1 : tensor<10x8xf32>, tensor<10x8xf32>
    tfc.yield %2 : tensor<10x8xf32>
  }
  return %r : tensor<10x8xf32>
}

// -----

// Every table row's warp reads all the ids, so they come from memory: ids computed
// in the kernel would be recomputed once per row.
func.func @scatter_computed_ids(%dy: tensor<6x8xf32>, %ids: tensor<6xi64>) -> tensor<10x8xf32> {
  // expected-error @+1 {{a scatter kernel reads its ids from memory; they cannot be computed in the kernel}}
  %r = tfc.fusion scatter (%a = %dy : tensor<6x8xf32>, %b = %ids : tensor<6xi64>) -> tensor<10x8xf32> {
    // expected-note @+1 {{'tfc.add' here}}
    %i = tfc.add %b, %b : tensor<6xi64>, tensor<6xi64>
    %0 = tfc.embedding_grad %a, %i : tensor<6x8xf32>, tensor<6xi64> -> tensor<10x8xf32>
    tfc.yield %0 : tensor<10x8xf32>
  }
  return %r : tensor<10x8xf32>
}

// -----

// A scatter kernel's outputs are its op's result: no epilogue reads it.
func.func @scatter_epilogue(%dy: tensor<6x8xf32>, %ids: tensor<6xi64>) -> tensor<10x8xf32> {
  // expected-error @+1 {{every output of a scatter kernel must be a result of its tfc.embedding_grad op}}
  %r = tfc.fusion scatter (%a = %dy : tensor<6x8xf32>, %b = %ids : tensor<6xi64>) -> tensor<10x8xf32> {
    // expected-note @+1 {{'tfc.embedding_grad' here}}
    %0 = tfc.embedding_grad %a, %b : tensor<6x8xf32>, tensor<6xi64> -> tensor<10x8xf32>
    %1 = tfc.neg %0 : tensor<10x8xf32>
    tfc.yield %1 : tensor<10x8xf32>
  }
  return %r : tensor<10x8xf32>
}

// -----

// A sort kernel is its one sort: nothing is fused into it (here a prologue).
func.func @sort_prologue(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi64>) {
  // expected-error @+1 {{a sort kernel holds only its tfc.sort op; 'tfc.neg' cannot be fused into it}}
  %r:2 = tfc.fusion sort (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi64>) {
    // expected-note @+1 {{'tfc.neg' here}}
    %n = tfc.neg %a : tensor<4x8xf32>
    %v, %i = tfc.sort %n : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi64>
    tfc.yield %v, %i : tensor<4x8xf32>, tensor<4x8xi64>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xi64>
}

// -----

// A sort kernel holds exactly one sort.
func.func @sort_two(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi64>) {
  // expected-error @+1 {{a sort kernel holds exactly one sort op, found 2}}
  %r:2 = tfc.fusion sort (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi64>) {
    // expected-note @+1 {{'tfc.sort' here}}
    %v, %i = tfc.sort %a : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi64>
    // expected-note @+1 {{'tfc.sort' here}}
    %w, %j = tfc.sort %v descending : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi64>
    tfc.yield %w, %i : tensor<4x8xf32>, tensor<4x8xi64>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xi64>
}

// -----

// A sort may not join another kind's kernel: a pointwise kernel cannot hold it.
func.func @sort_in_pointwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{a pointwise kernel cannot hold 'tfc.sort' (role sort)}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-note @+1 {{'tfc.sort' here}}
    %v, %i = tfc.sort %a : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi64>
    tfc.yield %v : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// sort orders the last dimension: a 0-d operand has none.
func.func @sort_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{sort needs an operand of rank >= 1 (it sorts the last dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = tfc.sort %x : tensor<f32> -> tensor<f32>, tensor<i64>
  return
}

// -----

// The indices are i64.
func.func @sort_index_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfc.sort' op result #1 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<4x8xi32>'}}
  %v, %i = tfc.sort %x : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi32>
  return
}

// -----

// Both results have x's shape, the values its type.
func.func @sort_shape(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'tfc.sort' op inferred type(s) 'tensor<4x8xf32>', 'tensor<4x8xi64>' are incompatible with return type(s) of operation 'tensor<4x8xf32>', 'tensor<4x7xi64>'}}
  // expected-error @+1 {{'tfc.sort' op failed to infer returned types}}
  %v, %i = tfc.sort %x : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x7xi64>
  return
}

// -----

// sort takes numeric operands: i1 is converted first.
func.func @sort_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of numeric element type}}
  %v, %i = tfc.sort %x : tensor<4xi1> -> tensor<4xi1>, tensor<4xi64>
  return
}

// -----

// Backward ops (TfcGradOps.td). layer_norm_grad: normalized_rank lies in [1, rank(x)].
func.func @layer_norm_grad_rank(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{normalized_rank 3 must be in [1, 2] (the rank of x)}}
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s normalized_rank 3 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

// dy has exactly x's type.
func.func @layer_norm_grad_dy_type(%dy: tensor<4x8xbf16>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, x} have same type}}
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s : (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

// The statistics are f32 for 16-bit x, with the forward's shape.
func.func @layer_norm_grad_stats(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>, %s: tensor<4x1xbf16>) {
  // expected-error @+1 {{mean must be 'tensor<4x1xf32>' (x's shape with the normalized dims set to 1, in the accumulation type), got 'tensor<4x1xbf16>'}}
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x1xbf16>, tensor<4x1xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

// The weight has the shape of the normalized dims.
func.func @layer_norm_grad_weight(%dy: tensor<2x4x8xf32>, %x: tensor<2x4x8xf32>, %s: tensor<2x1x1xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{weight shape 8 must equal the normalized dims of x (4x8)}}
  %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %s, %s weight %w normalized_rank 2 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// With a weight there are three results (dx, dweight, dbias).
func.func @layer_norm_grad_results(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>, %w: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'tfc.layer_norm_grad' op inferred type(s) 'tensor<4x8xf32>', 'tensor<8xf32>', 'tensor<8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s weight %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// rms_norm_grad: rstd has the forward's statistics type.
func.func @rms_norm_grad_rstd(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x8xf32>) {
  // expected-error @+1 {{rstd must be 'tensor<4x1xf32>'}}
  %dx = tfc.rms_norm_grad %dy, %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// rms_norm_grad: normalized_rank lies in [1, rank(x)].
func.func @rms_norm_grad_rank(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{normalized_rank 0 must be in [1, 2] (the rank of x)}}
  %dx = tfc.rms_norm_grad %dy, %x, %s normalized_rank 0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

// rms_norm_grad: the weight has the shape of the normalized dims.
func.func @rms_norm_grad_weight(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{weight shape 4 must equal the normalized dims of x (8)}}
  %dx, %dw = tfc.rms_norm_grad %dy, %x, %s weight %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm_grad_input: dx has x's type.
func.func @layer_norm_grad_input_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, x, dx} have same type}}
  %dx = tfc.layer_norm_grad_input %dy, %x, %s, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf64>
  return
}

// -----

// layer_norm_grad_input: normalized_rank lies in [1, rank(x)].
func.func @layer_norm_grad_input_rank(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{normalized_rank 5 must be in [1, 2] (the rank of x)}}
  %dx = tfc.layer_norm_grad_input %dy, %x, %s, %s normalized_rank 5 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

// rms_norm_grad_input: the statistics and weight rules of rms_norm_grad.
func.func @rms_norm_grad_input_weight(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{weight shape 4 must equal the normalized dims of x (8)}}
  %dx = tfc.rms_norm_grad_input %dy, %x, %s weight %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax_grad: dim lies in [-rank, rank).
func.func @softmax_grad_dim(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range [-2, 2) for a rank-2 operand}}
  %dx = tfc.softmax_grad %dy, %y dim 2 : tensor<4x8xf32>
  return
}

// -----

// log_softmax_grad: dim lies in [-rank, rank).
func.func @log_softmax_grad_dim(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{dim -3 is out of range [-2, 2) for a rank-2 operand}}
  %dx = tfc.log_softmax_grad %dy, %y dim -3 : tensor<4x8xf32>
  return
}

// -----

// softmax_grad: dy, y and dx share one type.
func.func @softmax_grad_types(%dy: tensor<4x8xf32>, %y: tensor<4x8xbf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %dx = "tfc.softmax_grad"(%dy, %y) <{dim = -1 : i64}> : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

// gelu_grad: dy and x share one type.
func.func @gelu_grad_types(%dy: tensor<4x8xf32>, %x: tensor<8xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %dx = "tfc.gelu_grad"(%dy, %x) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// silu_grad takes floats only.
func.func @silu_grad_int(%dy: tensor<4xi32>, %x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point}}
  %dx = "tfc.silu_grad"(%dy, %x) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// cross_entropy_grad: logits are [N, C].
func.func @cross_entropy_grad_rank(%d: tensor<f32>, %l: tensor<2x4x8xf32>, %y: tensor<2xi64>) {
  // expected-error @+1 {{logits must be 2-d [N, C], got rank 3}}
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<f32>, tensor<2x4x8xf32>, tensor<2xi64> -> tensor<2x4x8xf32>
  return
}

// -----

// cross_entropy_grad: one label per row.
func.func @cross_entropy_grad_labels(%d: tensor<f32>, %l: tensor<4x8xf32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{labels must be 1-d with one label per logits row (4), got 3}}
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<f32>, tensor<4x8xf32>, tensor<3xi64> -> tensor<4x8xf32>
  return
}

// -----

// cross_entropy_grad: dloss has the loss type (f32 for bf16 logits).
func.func @cross_entropy_grad_dloss(%d: tensor<bf16>, %l: tensor<4x8xbf16>, %y: tensor<4xi64>) {
  // expected-error @+1 {{dloss must have the loss type 'f32' (accumulationType of the logits), got 'bf16'}}
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<bf16>, tensor<4x8xbf16>, tensor<4xi64> -> tensor<4x8xbf16>
  return
}

// -----

// cross_entropy_grad: label_smoothing lies in [0, 1].
func.func @cross_entropy_grad_smoothing(%d: tensor<f32>, %l: tensor<4x8xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{label_smoothing must be in [0, 1], got 1.5}}
  %dx = tfc.cross_entropy_grad %d, %l, %y label_smoothing 1.500000e+00 : tensor<f32>, tensor<4x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
  return
}

// -----

// cross_entropy_grad: ignore_index fits the labels' type.
func.func @cross_entropy_grad_ignore(%d: tensor<f32>, %l: tensor<4x8xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{ignore_index 4294967296 does not fit the labels' element type 'i32'}}
  %dx = tfc.cross_entropy_grad %d, %l, %y ignore_index 4294967296 : tensor<f32>, tensor<4x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  return
}

// -----

// cross_entropy_grad: dlogits has the logits' type.
func.func @cross_entropy_grad_result(%d: tensor<f32>, %l: tensor<4x8xbf16>, %y: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'tfc.cross_entropy_grad' op inferred type(s) 'tensor<4x8xbf16>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<f32>, tensor<4x8xbf16>, tensor<4xi64> -> tensor<4x8xf32>
  return
}

// -----

// embedding_grad: the table gradient is [V, D].
func.func @embedding_grad_rank(%dy: tensor<4x8xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{dtable must be 2-d [V, D], got rank 1}}
  %t = tfc.embedding_grad %dy, %ids : tensor<4x8xf32>, tensor<4xi64> -> tensor<8xf32>
  return
}

// -----

// embedding_grad: dtable has dy's element type.
func.func @embedding_grad_type(%dy: tensor<4x8xbf16>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{dtable element type 'f32' must equal dy's 'bf16'}}
  %t = tfc.embedding_grad %dy, %ids : tensor<4x8xbf16>, tensor<4xi64> -> tensor<16x8xf32>
  return
}

// -----

// embedding_grad: dy is ids.shape + [D].
func.func @embedding_grad_shape(%dy: tensor<4x8xf32>, %ids: tensor<2x2xi64>) {
  // expected-error @+1 {{dy shape 4x8 must be ids.shape + [D] (2x2x8)}}
  %t = tfc.embedding_grad %dy, %ids : tensor<4x8xf32>, tensor<2x2xi64> -> tensor<16x8xf32>
  return
}

// -----

// adamw: the gradient has the parameter's shape.
func.func @adamw_grad_shape(%p: tensor<16xf32>, %g: tensor<8xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw' op grad shape 8 must equal param shape 16}}
  %0:3 = tfc.adamw %p, %g, %p, %p, %lr, %step : tensor<16xf32>, tensor<8xf32>, tensor<f32>
  return
}

// -----

// adamw: beta1 lies in [0, 1).
func.func @adamw_beta1(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw' op beta1 must lie in [0, 1), got 1}}
  %0:3 = tfc.adamw %p, %p, %p, %p, %lr, %step beta1 1.0 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// adam: beta2 lies in [0, 1).
func.func @adam_beta2(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adam' op beta2 must lie in [0, 1), got -5.000000e-01}}
  %0:3 = tfc.adam %p, %p, %p, %p, %lr, %step beta2 -5.0e-01 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// adam: eps is non-negative.
func.func @adam_eps(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adam' op eps must be non-negative and finite, got -1}}
  %0:3 = tfc.adam %p, %p, %p, %p, %lr, %step eps -1.0 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// adamw: weight_decay is non-negative and finite.
func.func @adamw_weight_decay(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw' op weight_decay must be non-negative and finite, got INF}}
  %0:3 = tfc.adamw %p, %p, %p, %p, %lr, %step weight_decay 0x7FF0000000000000 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// adamw: the moments have exactly the parameter's type.
func.func @adamw_moment_type(%p: tensor<16xf32>, %m: tensor<16xbf16>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw' op failed to verify that all of {param, exp_avg, exp_avg_sq, param_out, exp_avg_out, exp_avg_sq_out} have same type}}
  %0:3 = "tfc.adamw"(%p, %p, %m, %p, %lr, %step) : (tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>, tensor<16xf32>, tensor<f32>, tensor<i64>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// adamw: the learning rate is a 0-d float tensor.
func.func @adamw_lr_rank(%p: tensor<16xf32>, %lr: tensor<1xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw' op operand #4 must be 0D tensor of floating-point (f16, bf16, f32, f64) values}}
  %0:3 = tfc.adamw %p, %p, %p, %p, %lr, %step : tensor<16xf32>, tensor<16xf32>, tensor<1xf32>
  return
}

// -----

// adam: the step count is a 0-d i64 tensor.
func.func @adam_step_type(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i32>) {
  // expected-error @+1 {{'tfc.adam' op operand #5 must be 0D tensor of 64-bit signless integer values}}
  %0:3 = "tfc.adam"(%p, %p, %p, %p, %lr, %step) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// sgd: the gradient has the parameter's shape.
func.func @sgd_grad_shape(%p: tensor<16xf32>, %g: tensor<4x4xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op grad shape 4x4 must equal param shape 16}}
  %0 = tfc.sgd %p, %g, %lr, %step : tensor<16xf32>, tensor<4x4xf32>, tensor<f32>
  return
}

// -----

// sgd: momentum is non-negative.
func.func @sgd_momentum(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op momentum must be non-negative and finite, got -9.000000e-01}}
  %0:2 = tfc.sgd %p, %p, %lr, %step momentum_buffer(%p : tensor<16xf32>) momentum -9.0e-01 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// sgd: dampening is non-negative.
func.func @sgd_dampening(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op dampening must be non-negative and finite, got -1}}
  %0:2 = tfc.sgd %p, %p, %lr, %step momentum_buffer(%p : tensor<16xf32>) momentum 9.0e-01 dampening -1.0 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// sgd: weight_decay is non-negative.
func.func @sgd_weight_decay(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op weight_decay must be non-negative and finite, got -1.000000e-01}}
  %0 = tfc.sgd %p, %p, %lr, %step weight_decay -1.0e-01 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// sgd: nesterov needs momentum and no dampening (torch's rule).
func.func @sgd_nesterov(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op nesterov needs momentum > 0 and dampening 0, got momentum 9.000000e-01 and dampening 5.000000e-01}}
  %0:2 = tfc.sgd %p, %p, %lr, %step momentum_buffer(%p : tensor<16xf32>) momentum 9.0e-01 dampening 5.0e-01 nesterov : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// sgd: momentum needs a buffer.
func.func @sgd_missing_buffer(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op momentum != 0 needs a momentum buffer operand}}
  %0 = tfc.sgd %p, %p, %lr, %step momentum 9.0e-01 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// sgd: a buffer without momentum is rejected (torch keeps none).
func.func @sgd_extra_buffer(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op a momentum buffer needs momentum != 0}}
  %0:2 = tfc.sgd %p, %p, %lr, %step momentum_buffer(%p : tensor<16xf32>) : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

// sgd: the momentum buffer has exactly the parameter's type.
func.func @sgd_buffer_type(%p: tensor<16xf32>, %b: tensor<16xf64>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.sgd' op momentum buffer type 'tensor<16xf64>' must equal param type 'tensor<16xf32>'}}
  %0:2 = "tfc.sgd"(%p, %p, %lr, %step, %b) {momentum = 9.0e-01 : f64} : (tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>, tensor<16xf64>) -> (tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// An optimizer update is not pointwise: it needs a multi_tensor kernel.
func.func @pointwise_with_sgd(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<16xf32> {
  // expected-error @+1 {{'tfc.fusion' op a pointwise kernel cannot hold 'tfc.sgd' (role multi_tensor)}}
  %r = tfc.fusion pointwise (%a = %p : tensor<16xf32>, %b = %lr : tensor<f32>, %c = %step : tensor<i64>) -> tensor<16xf32> {
    // expected-note @+1 {{'tfc.sgd' here}}
    %0 = tfc.sgd %a, %a, %b, %c : tensor<16xf32>, tensor<16xf32>, tensor<f32>
    tfc.yield %0 : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// Result attributes of a training step: only tfc.update and tfc.output.
// expected-error @+1 {{unknown tfc result attribute 'tfc.param' (expected 'tfc.update', 'tfc.output' or 'tfc.grad')}}
func.func @unknown_result_attr(%w: tensor<4xf32> {tfc.param = "w"}) -> (tensor<4xf32> {tfc.param = "w"}) {
  return %w : tensor<4xf32>
}

// -----

// A result name is a non-empty string.
// expected-error @+1 {{'tfc.output' on result #0 must be a non-empty string}}
func.func @empty_output(%x: tensor<f32>) -> (tensor<f32> {tfc.output = ""}) {
  return %x : tensor<f32>
}

// -----

// Two results cannot update the same argument.
// expected-error @+1 {{result #1 reuses the 'tfc.update' name 'w' of result #0}}
func.func @double_update(%w: tensor<4xf32> {tfc.param = "w"}) -> (tensor<4xf32> {tfc.update = "w"}, tensor<4xf32> {tfc.update = "w"}) {
  return %w, %w : tensor<4xf32>, tensor<4xf32>
}

// -----

// An update names a tfc.param or tfc.state argument (not an input).
// expected-error @+1 {{result #0 updates 'x', which names no tfc.param or tfc.state argument}}
func.func @update_input(%x: tensor<4xf32> {tfc.input = "x"}) -> (tensor<4xf32> {tfc.update = "x"}) {
  return %x : tensor<4xf32>
}

// -----

// An update has exactly the type of the argument it replaces.
// expected-error @+1 {{result #0 updates 'step' of type 'tensor<i64>' with a value of type 'tensor<i32>'}}
func.func @update_type(%s: tensor<i64> {tfc.state = "step"}, %t: tensor<i32>) -> (tensor<i32> {tfc.update = "step"}) {
  return %t : tensor<i32>
}

// -----

// adamw8bit: the gradient has the parameter's shape.
func.func @adamw8bit_grad_shape(%p: tensor<300xf32>, %g: tensor<30xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op grad shape 30 must equal param shape 300}}
  %0:5 = tfc.adamw8bit %p, %g, %m, %ma, %m, %ma, %lr, %step : tensor<300xf32>, tensor<30xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: betas lie in [0, 1) (the adamw rules: eps and weight_decay too).
func.func @adamw8bit_beta2(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op beta2 must lie in [0, 1), got 1}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step beta2 1.0 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: eps is non-negative and finite.
func.func @adamw8bit_eps(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op eps must be non-negative and finite, got -1}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step eps -1.0 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: weight_decay is non-negative and finite.
func.func @adamw8bit_weight_decay(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op weight_decay must be non-negative and finite, got -5.000000e-01}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step weight_decay -0.5 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: the parameter is f32.
func.func @adamw8bit_param_f32(%p: tensor<300xbf16>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op param must be f32 (8-bit state updates f32 weights), got 'tensor<300xbf16>'}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step : tensor<300xbf16>, tensor<300xbf16>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: the codes have the parameter's shape.
func.func @adamw8bit_codes_shape(%p: tensor<300xf32>, %m: tensor<30x10xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op state codes shape 30x10 must equal param shape 300}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step : tensor<300xf32>, tensor<300xf32>, tensor<30x10xui8>, tensor<2xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: the codes are ui8.
func.func @adamw8bit_codes_type(%p: tensor<300xf32>, %m: tensor<300xi32>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{operand #2 must be statically shaped tensor of 8-bit unsigned integer values}}
  %0:5 = "tfc.adamw8bit"(%p, %p, %m, %ma, %m, %ma, %lr, %step) : (tensor<300xf32>, tensor<300xf32>, tensor<300xi32>, tensor<2xf32>, tensor<300xi32>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<300xf32>, tensor<300xi32>, tensor<2xf32>, tensor<300xi32>, tensor<2xf32>)
  return
}

// -----

// adamw8bit: block_size is a power of two in [32, 1024].
func.func @adamw8bit_block_size(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<3xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op block_size must be a power of two in [32, 1024], got 100}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step block_size 100 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<3xf32>, tensor<f32>
  return
}

// -----

// adamw8bit: one absmax per block of block_size elements.
func.func @adamw8bit_absmax(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<1xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tfc.adamw8bit' op absmax must hold one scale per block of 256 elements: 2 for param shape 300, got 1}}
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<1xf32>, tensor<f32>
  return
}

// -----

// A block_quantized kernel holds exactly one adamw8bit op.
func.func @block_quantized_two(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<300xf32> {
  // expected-error @+1 {{a block_quantized kernel holds exactly one block_quantized op, found 2}}
  %r = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> tensor<300xf32> {
    // expected-note @+1 {{'tfc.adamw8bit' here}}
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %a, %c, %d, %c, %d, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    // expected-note @+1 {{'tfc.adamw8bit' here}}
    %p2, %m2, %ma2, %v2, %va2 = tfc.adamw8bit %p1, %a, %m1, %ma1, %v1, %va1, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    tfc.yield %p2 : tensor<300xf32>
  }
  return %r : tensor<300xf32>
}

// -----

// A whole-tensor sum in a multi_tensor kernel exists only after every block has
// finished: an update of the same launch cannot read it (the clip coefficient of a
// global norm needs its own launch before the update).
func.func @update_reads_tensor_sum(%p: tensor<64xf32>, %g: tensor<64xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<64xf32> {
  // expected-error @+1 {{'tfc.mul' reads a whole-tensor sum of this multi_tensor kernel, which exists only after every block has finished: only scalar pointwise ops may follow it in the same launch}}
  %r = tfc.fusion multi_tensor (%a = %p : tensor<64xf32>, %b = %g : tensor<64xf32>, %c = %lr : tensor<f32>, %d = %step : tensor<i64>) -> tensor<64xf32> {
    %sq = tfc.mul %b, %b : tensor<64xf32>, tensor<64xf32>
    %n = tfc.reduce_sum %sq dims [0] : tensor<64xf32> -> tensor<f32>
    // expected-note @+1 {{'tfc.mul' here}}
    %scaled = tfc.mul %b, %n : tensor<64xf32>, tensor<f32>
    %p2 = tfc.sgd %a, %scaled, %c, %d : tensor<64xf32>, tensor<64xf32>, tensor<f32>
    tfc.yield %p2 : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// The module's GEMM compute choice has one value (precision=tf32 sets it).
// expected-error @+1 {{'tfc.f32_gemm_compute' must be the string "tf32" on the module}}
module attributes {tfc.f32_gemm_compute = "fp8"} {
}

// -----

// tfc attributes on operations other than the module are unknown.
module {
  // expected-error @+1 {{unknown tfc attribute 'tfc.fast' on an operation (expected 'tfc.f32_gemm_compute' or 'tfc.checkpoint_blocks' on the module, 'tfc.pad_from' on a tfc.matmul, 'tfc.refresh' or 'tfc.optimizer_in_backward' on a function, 'tfc.saved_activation_bytes' on a function or entry, or 'tfc.recomputed'; between the train-step stages also 'tfc.step_stages' on a function and 'tfc.loss_seed' on a tfc.constant)}}
  func.func @f() attributes {tfc.fast = 1 : i64} {
    return
  }
}

// -----

// Between the train-step stages a gradient result names the parameter it
// belongs to (passes/training/StepForm.h); an input is not one.
// expected-error @+1 {{result #0 is the gradient of 'x', which names no tfc.param argument}}
func.func @grad_of_input(%x: tensor<4xf32> {tfc.input = "x"}) -> (tensor<4xf32> {tfc.grad = "x"}) {
  return %x : tensor<4xf32>
}

// -----

// The gradient has its parameter's type.
// expected-error @+1 {{result #0 is the gradient of 'w' of type 'tensor<4xf32>' with a value of type 'tensor<2xf32>'}}
func.func @grad_type(%w: tensor<4xf32> {tfc.param = "w"}, %g: tensor<2xf32>) -> (tensor<2xf32> {tfc.grad = "w"}) {
  return %g : tensor<2xf32>
}

// -----

// The loss seed is the 0-d constant the backward starts from.
func.func @seed(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.loss_seed' must be a unit attribute on a 0-d tfc.constant}}
  %0 = tfc.neg %a {tfc.loss_seed} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The saved-activation record is a byte count.
// expected-error @+1 {{'tfc.saved_activation_bytes' must be a non-negative integer on a function or a tfcrt.entry}}
func.func @saved() attributes {tfc.saved_activation_bytes = -4 : i64} {
  return
}

// -----

// The stage record is a list of stage names on a function.
// expected-error @+1 {{'tfc.step_stages' must be an array of stage names on a function}}
func.func @stages() attributes {tfc.step_stages = "gradients"} {
  return
}

// -----

// tfc.pad_from records a padded GEMM's [M, N, K] before padding.
func.func @pad_from(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'tfc.pad_from' must be three positive sizes [M, N, K] on a tfc.matmul}}
  %c = tfc.matmul %a, %b {tfc.pad_from = array<i64: 7, 8>} : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

// A straight_through's value and source have the result's type.
func.func @straight_through_types(%x: tensor<4xf32>, %s: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.straight_through' op failed to verify that all of {value, source, result} have same type}}
  %t = "tfc.straight_through"(%x, %s) : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
