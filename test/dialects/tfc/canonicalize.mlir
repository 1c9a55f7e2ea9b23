// RUN: tfc-opt %s --split-input-file --canonicalize | FileCheck %s

// One case per fold and canonicalization pattern (TfcFolds.cpp), with negative cases
// showing what must not fold.

// convert of convert collapses when the inner conversion is exact (f16 -> f32).
// CHECK-LABEL: func.func @convert_exact_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[C:.*]] = tfc.convert %[[X]] : tensor<4xf16> -> tensor<4xbf16>
// CHECK-NEXT: return %[[C]]
func.func @convert_exact_chain(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = tfc.convert %x : tensor<4xf16> -> tensor<4xf32>
  %1 = tfc.convert %0 : tensor<4xf32> -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// A lossy inner conversion (f32 -> f16 rounds) must stay.
// CHECK-LABEL: func.func @convert_lossy_chain
// CHECK: tfc.convert %{{.*}} : tensor<4xf32> -> tensor<4xf16>
// CHECK: tfc.convert %{{.*}} : tensor<4xf16> -> tensor<4xf32>
func.func @convert_lossy_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xf16>
  %1 = tfc.convert %0 : tensor<4xf16> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// An exact round trip (bf16 -> f32 -> bf16) disappears entirely.
// CHECK-LABEL: func.func @convert_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]]
func.func @convert_round_trip(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tfc.convert %x : tensor<4xbf16> -> tensor<4xf32>
  %1 = tfc.convert %0 : tensor<4xf32> -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// i32 -> i64 is exact, i64 -> f32 is not: the pair folds to one i32 -> f32.
// CHECK-LABEL: func.func @convert_int_chain
// CHECK-NEXT: %[[C:.*]] = tfc.convert %{{.*}} : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT: return %[[C]]
func.func @convert_int_chain(%x: tensor<4xi32>) -> tensor<4xf32> {
  %0 = tfc.convert %x : tensor<4xi32> -> tensor<4xi64>
  %1 = tfc.convert %0 : tensor<4xi64> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Converting to the same type is the identity.
// CHECK-LABEL: func.func @convert_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @convert_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x * 1 and 1 * x are x when the shape does not change.
// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_by_one(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = tfc.constant dense<1.0> : tensor<f32>
  %0 = tfc.mul %x, %one : tensor<4x8xf32>, tensor<f32>
  %1 = tfc.mul %one, %x : tensor<f32>, tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// x * 2 is not an identity.
// CHECK-LABEL: func.func @mul_by_two
// CHECK: tfc.mul
func.func @mul_by_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = tfc.constant dense<2.0> : tensor<f32>
  %0 = tfc.mul %x, %two : tensor<4xf32>, tensor<f32>
  return %0 : tensor<4xf32>
}

// -----

// Small constants fold through arithmetic, broadcasting included.
// CHECK-LABEL: func.func @fold_arith
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_arith() -> tensor<2x2xf32> {
  %a = tfc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = tfc.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = tfc.add %a, %b : tensor<2x2xf32>, tensor<2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Splat constants fold through unary math and stay splats.
// CHECK-LABEL: func.func @fold_unary_splat
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<2.000000e+00> : tensor<1024x1024xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_unary_splat() -> tensor<1024x1024xf32> {
  %a = tfc.constant dense<4.0> : tensor<1024x1024xf32>
  %0 = tfc.sqrt %a : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Comparisons and conversions of constants fold; float -> int truncates toward zero.
// CHECK-LABEL: func.func @fold_compare_convert
// CHECK-DAG: tfc.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: tfc.constant dense<[1, -2, 3]> : tensor<3xi32>
func.func @fold_compare_convert() -> (tensor<3xi1>, tensor<3xi32>) {
  %a = tfc.constant dense<[1.5, -2.5, 3.0]> : tensor<3xf32>
  %b = tfc.constant dense<[2.0, -3.0, 3.0]> : tensor<3xf32>
  %0 = tfc.compare lt, %a, %b : tensor<3xf32>, tensor<3xf32>
  %1 = tfc.convert %a : tensor<3xf32> -> tensor<3xi32>
  return %0, %1 : tensor<3xi1>, tensor<3xi32>
}

// -----

// Integer division by zero is left to run time.
// CHECK-LABEL: func.func @no_fold_div_by_zero
// CHECK: tfc.div
func.func @no_fold_div_by_zero() -> tensor<2xi32> {
  %a = tfc.constant dense<[4, 6]> : tensor<2xi32>
  %b = tfc.constant dense<[2, 0]> : tensor<2xi32>
  %0 = tfc.div %a, %b : tensor<2xi32>, tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// atan2 of constants folds in double, rounded once, with C's signs at the
// zeros: atan2(-0, -1) = -pi, atan2(+0, -0) = +pi; a broadcast scalar too.
// CHECK-LABEL: func.func @fold_atan2
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<[0.785398185, -3.14159274, 3.14159274, 1.57079637]> : tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = tfc.constant dense<[-0.78539816339744828, 0.000000e+00]> : tensor<2xf64>
// CHECK-NEXT: return %[[C]], %[[D]]
func.func @fold_atan2() -> (tensor<4xf32>, tensor<2xf64>) {
  %y = tfc.constant dense<[1.0, -0.0, 0.0, 1.0]> : tensor<4xf32>
  %x = tfc.constant dense<[1.0, -1.0, -0.0, 0.0]> : tensor<4xf32>
  %0 = tfc.atan2 %y, %x : tensor<4xf32>, tensor<4xf32>
  %v = tfc.constant dense<[-2.0, 0.0]> : tensor<2xf64>
  %two = tfc.constant dense<2.0> : tensor<f64>
  %1 = tfc.atan2 %v, %two : tensor<2xf64>, tensor<f64>
  return %0, %1 : tensor<4xf32>, tensor<2xf64>
}

// -----

// Bitwise ops of integer constants fold on the two's-complement bits: i64
// at its extremes, i32 with a broadcast scalar mask, i1 as logic (not of
// i1 is logical not).
// CHECK-LABEL: func.func @fold_bitwise
// CHECK-DAG: %[[AND:.*]] = tfc.constant dense<[1, 12, 9223372036854775807, 0]> : tensor<4xi64>
// CHECK-DAG: %[[OR:.*]] = tfc.constant dense<[7, -1, -1, -9223372036854775807]> : tensor<4xi64>
// CHECK-DAG: %[[XOR:.*]] = tfc.constant dense<[6, -13, -9223372036854775808, -9223372036854775807]> : tensor<4xi64>
// CHECK-DAG: %[[NOT:.*]] = tfc.constant dense<[-6, 0, -9223372036854775808, 9223372036854775807]> : tensor<4xi64>
// CHECK-DAG: %[[MASK:.*]] = tfc.constant dense<[0, 255, 0, 1]> : tensor<4xi32>
// CHECK-DAG: %[[NOT32:.*]] = tfc.constant dense<[2147483647, -256, 255, -2]> : tensor<4xi32>
// CHECK-DAG: %[[BXOR:.*]] = tfc.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[BNOT:.*]] = tfc.constant dense<[false, true, false, true]> : tensor<4xi1>
// CHECK: return %[[AND]], %[[OR]], %[[XOR]], %[[NOT]], %[[MASK]], %[[NOT32]], %[[BXOR]], %[[BNOT]]
func.func @fold_bitwise() -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>) {
  %x = tfc.constant dense<[5, -1, 9223372036854775807, -9223372036854775808]> : tensor<4xi64>
  %y = tfc.constant dense<[3, 12, -1, 1]> : tensor<4xi64>
  %0 = tfc.bitwise_and %x, %y : tensor<4xi64>, tensor<4xi64>
  %1 = tfc.bitwise_or %x, %y : tensor<4xi64>, tensor<4xi64>
  %2 = tfc.bitwise_xor %x, %y : tensor<4xi64>, tensor<4xi64>
  %3 = tfc.bitwise_not %x : tensor<4xi64>
  %v = tfc.constant dense<[-2147483648, 255, -256, 1]> : tensor<4xi32>
  %m = tfc.constant dense<255> : tensor<i32>
  %4 = tfc.bitwise_and %v, %m : tensor<4xi32>, tensor<i32>
  %5 = tfc.bitwise_not %v : tensor<4xi32>
  %p = tfc.constant dense<[true, false, true, false]> : tensor<4xi1>
  %q = tfc.constant dense<[true, true, false, false]> : tensor<4xi1>
  %6 = tfc.bitwise_xor %p, %q : tensor<4xi1>, tensor<4xi1>
  %7 = tfc.bitwise_not %p : tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Identities: x & -1, x | 0, x ^ 0 (either side) and x & x, x | x are x
// (true for i1 is its all-ones); ~~x is x. x ^ x is not folded to a
// constant, and neither is an identity that broadcasts x to a larger shape.
// CHECK-LABEL: func.func @bitwise_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<4xi1>, %[[S:.*]]: tensor<i32>)
// CHECK-NEXT: %[[Z:.*]] = tfc.constant dense<0> : tensor<4xi32>
// CHECK-NEXT: %[[XX:.*]] = tfc.bitwise_xor %[[X]], %[[X]]
// CHECK-NEXT: %[[BC:.*]] = tfc.bitwise_or %[[S]], %[[Z]] : tensor<i32>, tensor<4xi32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[B]], %[[B]], %[[XX]], %[[BC]]
func.func @bitwise_identities(%x: tensor<4xi64>, %b: tensor<4xi1>, %s: tensor<i32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xi32>) {
  %ones = tfc.constant dense<-1> : tensor<i64>
  %zero = tfc.constant dense<0> : tensor<i64>
  %true = tfc.constant dense<true> : tensor<i1>
  %z4 = tfc.constant dense<0> : tensor<4xi32>
  %0 = tfc.bitwise_and %x, %ones : tensor<4xi64>, tensor<i64>
  %1 = tfc.bitwise_or %zero, %x : tensor<i64>, tensor<4xi64>
  %2 = tfc.bitwise_xor %x, %zero : tensor<4xi64>, tensor<i64>
  %3 = tfc.bitwise_and %x, %x : tensor<4xi64>, tensor<4xi64>
  %n = tfc.bitwise_not %x : tensor<4xi64>
  %4 = tfc.bitwise_not %n : tensor<4xi64>
  %5 = tfc.bitwise_and %true, %b : tensor<i1>, tensor<4xi1>
  %6 = tfc.bitwise_or %b, %b : tensor<4xi1>, tensor<4xi1>
  %7 = tfc.bitwise_xor %x, %x : tensor<4xi64>, tensor<4xi64>
  %8 = tfc.bitwise_or %s, %z4 : tensor<i32>, tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xi32>
}

// -----

// Shifts of integer constants fold at their width: << drops the bits
// shifted out, >> fills with the sign; an amount outside [0, bits) gives 0
// (<<) or the sign fill (>>), as torch >= 2.1.
// CHECK-LABEL: func.func @fold_shifts
// CHECK-DAG: %[[SHL:.*]] = tfc.constant dense<[1, -2, -2147483648, 0, 0, 0, 0]> : tensor<7xi32>
// CHECK-DAG: %[[SHR:.*]] = tfc.constant dense<[1, -1, 0, -1, 0, -1073741824, 0]> : tensor<7xi32>
// CHECK-DAG: %[[SHL64:.*]] = tfc.constant dense<[-9223372036854775808, 0, 3298534883328, -9223372036854775808, 0]> : tensor<5xi64>
// CHECK-DAG: %[[SHR64:.*]] = tfc.constant dense<[0, -1, 0, 131072, -1]> : tensor<5xi64>
// CHECK-DAG: %[[BC:.*]] = tfc.constant dense<[8, -8, 0]> : tensor<3xi64>
// CHECK: return %[[SHL]], %[[SHR]], %[[SHL64]], %[[SHR64]], %[[BC]]
func.func @fold_shifts() -> (tensor<7xi32>, tensor<7xi32>, tensor<5xi64>, tensor<5xi64>, tensor<3xi64>) {
  %x = tfc.constant dense<[1, -1, 5, -8, 100, -2147483648, 7]> : tensor<7xi32>
  %k = tfc.constant dense<[0, 1, 31, 32, -1, 1, 100]> : tensor<7xi32>
  %0 = tfc.shift_left %x, %k : tensor<7xi32>, tensor<7xi32>
  %1 = tfc.shift_right %x, %k : tensor<7xi32>, tensor<7xi32>
  %h = tfc.constant dense<[1, -5, 3, 1099511627776, -1]> : tensor<5xi64>
  %n = tfc.constant dense<[63, 64, 40, 23, -3]> : tensor<5xi64>
  %2 = tfc.shift_left %h, %n : tensor<5xi64>, tensor<5xi64>
  %3 = tfc.shift_right %h, %n : tensor<5xi64>, tensor<5xi64>
  %c = tfc.constant dense<[1, -1, 0]> : tensor<3xi64>
  %three = tfc.constant dense<3> : tensor<i64>
  %4 = tfc.shift_left %c, %three : tensor<3xi64>, tensor<i64>
  return %0, %1, %2, %3, %4 : tensor<7xi32>, tensor<7xi32>, tensor<5xi64>, tensor<5xi64>, tensor<3xi64>
}

// -----

// x << 0, x >> 0 are x and 0 << k, 0 >> k are 0; not an amount of 0 that
// broadcasts x to a larger shape, nor 0 shifted by a broadcast amount.
// CHECK-LABEL: func.func @shift_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>, %[[S:.*]]: tensor<i32>, %[[K:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[Z:.*]] = tfc.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[Z0:.*]] = tfc.constant dense<0> : tensor<i32>
// CHECK-DAG: %[[BC:.*]] = tfc.shift_left %[[S]], %[[Z]] : tensor<i32>, tensor<4xi32>
// CHECK-DAG: %[[BZ:.*]] = tfc.shift_right %[[Z0]], %[[K]] : tensor<i32>, tensor<4xi32>
// CHECK: return %[[X]], %[[X]], %[[Z]], %[[BC]], %[[BZ]]
func.func @shift_identities(%x: tensor<4xi64>, %s: tensor<i32>, %k: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %zero = tfc.constant dense<0> : tensor<i64>
  %z4 = tfc.constant dense<0> : tensor<4xi32>
  %z0 = tfc.constant dense<0> : tensor<i32>
  %0 = tfc.shift_left %x, %zero : tensor<4xi64>, tensor<i64>
  %1 = tfc.shift_right %x, %zero : tensor<4xi64>, tensor<i64>
  %2 = tfc.shift_left %z4, %k : tensor<4xi32>, tensor<4xi32>
  %3 = tfc.shift_left %s, %z4 : tensor<i32>, tensor<4xi32>
  %4 = tfc.shift_right %z0, %k : tensor<i32>, tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xi64>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// erf folds in double: erf(1) rounded once to f32, the signed zero kept.
// CHECK-LABEL: func.func @fold_erf
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<[0.842700779, -0.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_erf() -> tensor<3xf32> {
  %x = tfc.constant dense<[1.0, -0.0, 0x7F800000]> : tensor<3xf32>
  %0 = tfc.erf %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// fmod of constants folds exactly, with the dividend's sign: 5.5 % 2 = 1.5,
// -5.5 % 2 = -1.5, -0 % 3 = -0, a multiple gives +0, a huge dividend is
// exact (1e30f mod 7 = 1), x % inf = x, x % 0 and inf % y are NaN (of
// either sign: the sign bit of libm's NaN is not checked); a broadcast
// scalar divisor in f64 too.
// CHECK-LABEL: func.func @fold_fmod
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<[1.500000e+00, -1.500000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00, -2.500000e+00, {{0x[7F]FC00000}}, {{0x[7F]FC00000}}]> : tensor<8xf32>
// CHECK-NEXT: %[[D:.*]] = tfc.constant dense<[-1.250000e+00, 7.500000e-01]> : tensor<2xf64>
// CHECK-NEXT: return %[[C]], %[[D]]
func.func @fold_fmod() -> (tensor<8xf32>, tensor<2xf64>) {
  %x = tfc.constant dense<[5.5, -5.5, -0.0, 6.0, 1.0e30, -2.5, 1.0, 0x7F800000]> : tensor<8xf32>
  %y = tfc.constant dense<[2.0, 2.0, 3.0, -3.0, 7.0, 0x7F800000, 0.0, 2.0]> : tensor<8xf32>
  %0 = tfc.fmod %x, %y : tensor<8xf32>, tensor<8xf32>
  %v = tfc.constant dense<[-7.25, 4.75]> : tensor<2xf64>
  %m = tfc.constant dense<-2.0> : tensor<f64>
  %1 = tfc.fmod %v, %m : tensor<2xf64>, tensor<f64>
  return %0, %1 : tensor<8xf32>, tensor<2xf64>
}

// -----

// neg is an involution and abs is idempotent.
// CHECK-LABEL: func.func @neg_neg_abs_abs
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.*]] = tfc.abs %[[X]]
// CHECK-NEXT: return %[[X]], %[[A]]
func.func @neg_neg_abs_abs(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfc.neg %x : tensor<4xf32>
  %1 = tfc.neg %0 : tensor<4xf32>
  %2 = tfc.abs %x : tensor<4xf32>
  %3 = tfc.abs %2 : tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// select with a constant condition or equal branches picks a branch.
// CHECK-LABEL: func.func @select_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xi1>)
// CHECK-NEXT: return %[[X]], %[[Y]]
func.func @select_fold(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tfc.constant dense<true> : tensor<4xi1>
  %0 = tfc.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %1 = tfc.select %c, %y, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x ^ 1 is x.
// CHECK-LABEL: func.func @pow_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @pow_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.pow %x, 1.0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A chain of reshapes is one reshape of the original value.
// CHECK-LABEL: func.func @reshape_reshape
func.func @reshape_reshape(%x: tensor<16x64x128xf32>) -> tensor<16x8192xf32> {
  // CHECK-NEXT: %[[R:.*]] = tfc.reshape %arg0 : tensor<16x64x128xf32> -> tensor<16x8192xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = tfc.reshape %x : tensor<16x64x128xf32> -> tensor<1024x128xf32>
  %1 = tfc.reshape %0 : tensor<1024x128xf32> -> tensor<16x8192xf32>
  return %1 : tensor<16x8192xf32>
}

// -----

// A reshape chain that returns to the original shape disappears.
// CHECK-LABEL: func.func @reshape_round_trip
func.func @reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tfc.reshape %0 : tensor<32xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Reshaping to the operand's own type is the identity.
// CHECK-LABEL: func.func @reshape_identity
func.func @reshape_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A reshaped small constant is a constant with the new shape (row-major).
// CHECK-LABEL: func.func @reshape_constant
func.func @reshape_constant() -> tensor<2x2xi32> {
  // CHECK-NEXT: %[[C:.*]] = tfc.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-NEXT: return %[[C]]
  %c = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = tfc.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// A genuine reshape of a non-constant stays.
// CHECK-LABEL: func.func @reshape_kept
func.func @reshape_kept(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  // CHECK-NEXT: tfc.reshape %arg0 : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// Two transposes compose into one with the composed permutation.
// CHECK-LABEL: func.func @transpose_transpose
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK-NEXT: %[[T:.*]] = tfc.transpose %arg0, [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK-NEXT: return %[[T]]
  %0 = tfc.transpose %x, [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = tfc.transpose %0, [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// A transpose undone by its inverse disappears (merge and split heads).
// CHECK-LABEL: func.func @transpose_inverse
func.func @transpose_inverse(%x: tensor<16x64x4x32xf32>) -> tensor<16x64x4x32xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.transpose %x, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %1 = tfc.transpose %0, [0, 2, 1, 3] : tensor<16x4x64x32xf32> -> tensor<16x64x4x32xf32>
  return %1 : tensor<16x64x4x32xf32>
}

// -----

// The identity permutation is the identity, even when sizes repeat.
// CHECK-LABEL: func.func @transpose_identity
func.func @transpose_identity(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.transpose %x, [0, 1] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A real transpose stays, also when it keeps the type (square matrix).
// CHECK-LABEL: func.func @transpose_kept
func.func @transpose_kept(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK-NEXT: tfc.transpose %arg0, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %0 = tfc.transpose %x, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A transposed splat is the same splat in the new shape.
// CHECK-LABEL: func.func @transpose_splat
func.func @transpose_splat() -> tensor<8x4xf32> {
  // CHECK-NEXT: %[[C:.*]] = tfc.constant dense<2.500000e+00> : tensor<8x4xf32>
  // CHECK-NEXT: return %[[C]]
  %c = tfc.constant dense<2.5> : tensor<4x8xf32>
  %0 = tfc.transpose %c, [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Broadcasting to the operand's own type is the identity.
// CHECK-LABEL: func.func @broadcast_identity
func.func @broadcast_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.broadcast_to %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A broadcast splat is a splat of the broadcast shape.
// CHECK-LABEL: func.func @broadcast_splat
func.func @broadcast_splat() -> tensor<16x64x128xbf16> {
  // CHECK-NEXT: %[[C:.*]] = tfc.constant dense<1.000000e+00> : tensor<16x64x128xbf16>
  // CHECK-NEXT: return %[[C]]
  %c = tfc.constant dense<1.0> : tensor<bf16>
  %0 = tfc.broadcast_to %c : tensor<bf16> -> tensor<16x64x128xbf16>
  return %0 : tensor<16x64x128xbf16>
}

// -----

// Broadcasting twice is one broadcast of the original value.
// CHECK-LABEL: func.func @broadcast_broadcast
func.func @broadcast_broadcast(%x: tensor<128xf32>) -> tensor<16x64x128xf32> {
  // CHECK-NEXT: %[[B:.*]] = tfc.broadcast_to %arg0 : tensor<128xf32> -> tensor<16x64x128xf32>
  // CHECK-NEXT: return %[[B]]
  %0 = tfc.broadcast_to %x : tensor<128xf32> -> tensor<64x128xf32>
  %1 = tfc.broadcast_to %0 : tensor<64x128xf32> -> tensor<16x64x128xf32>
  return %1 : tensor<16x64x128xf32>
}

// -----

// A non-splat constant is not broadcast at compile time (it would grow).
// CHECK-LABEL: func.func @broadcast_dense_kept
func.func @broadcast_dense_kept() -> tensor<2x2xf32> {
  // CHECK-NEXT: %[[C:.*]] = tfc.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: tfc.broadcast_to %[[C]] : tensor<2xf32> -> tensor<2x2xf32>
  %c = tfc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tfc.broadcast_to %c : tensor<2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// x * ones that widens x's shape becomes a broadcast of x (either side).
// CHECK-LABEL: func.func @mul_ones_broadcast
func.func @mul_ones_broadcast(%x: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>) {
  // CHECK-NEXT: %[[A:.*]] = tfc.broadcast_to %arg0 : tensor<4xf32> -> tensor<2x4xf32>
  // CHECK-NEXT: %[[B:.*]] = tfc.broadcast_to %arg0 : tensor<4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: return %[[A]], %[[B]]
  %ones = tfc.constant dense<1.0> : tensor<2x4xf32>
  %0 = tfc.mul %x, %ones : tensor<4xf32>, tensor<2x4xf32>
  %ones3 = tfc.constant dense<1.0> : tensor<3x1xf32>
  %1 = tfc.mul %ones3, %x : tensor<3x1xf32>, tensor<4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<3x4xf32>
}

// -----

// Multiplying by a splat other than one is a real multiplication.
// CHECK-LABEL: func.func @mul_twos_kept
func.func @mul_twos_kept(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // CHECK-NEXT: %[[C:.*]] = tfc.constant dense<2.000000e+00> : tensor<2x4xf32>
  // CHECK-NEXT: tfc.mul %arg0, %[[C]] : tensor<4xf32>, tensor<2x4xf32>
  %twos = tfc.constant dense<2.0> : tensor<2x4xf32>
  %0 = tfc.mul %x, %twos : tensor<4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A slice covering the whole tensor with unit steps is the identity.
// CHECK-LABEL: func.func @slice_identity
func.func @slice_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.slice %x [0, 0] to [4, 8] step [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Partial and strided slices stay.
// CHECK-LABEL: func.func @slice_kept
func.func @slice_kept(%x: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<2x8xf32>) {
  // CHECK-NEXT: tfc.slice %arg0 [0, 4] to [4, 8] : tensor<4x8xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: tfc.slice %arg0 [0, 0] to [4, 8] step [2, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  %0 = tfc.slice %x [0, 4] to [4, 8] : tensor<4x8xf32> -> tensor<4x4xf32>
  %1 = tfc.slice %x [0, 0] to [4, 8] step [2, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<2x8xf32>
}

// -----

// A slice of a splat is a smaller splat.
// CHECK-LABEL: func.func @slice_splat
func.func @slice_splat() -> tensor<2xi64> {
  // CHECK-NEXT: %[[C:.*]] = tfc.constant dense<7> : tensor<2xi64>
  // CHECK-NEXT: return %[[C]]
  %c = tfc.constant dense<7> : tensor<8xi64>
  %0 = tfc.slice %c [1] to [5] step [2] : tensor<8xi64> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Padding by zero elements everywhere is the identity.
// CHECK-LABEL: func.func @pad_identity
func.func @pad_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.pad %x low [0, 0] high [0, 0] value 0.0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Real padding stays.
// CHECK-LABEL: func.func @pad_kept
func.func @pad_kept(%x: tensor<4x5xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: tfc.pad %arg0 low [0, 0] high [0, 3] value 0.000000e+00
  %0 = tfc.pad %x low [0, 0] high [0, 3] value 0.0 : tensor<4x5xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Concatenating a single input is that input.
// CHECK-LABEL: func.func @concat_single
func.func @concat_single(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = tfc.concat %x dim 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Concatenating several inputs stays.
// CHECK-LABEL: func.func @concat_kept
func.func @concat_kept(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // CHECK-NEXT: tfc.concat %arg0, %arg0 dim 0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %0 = tfc.concat %x, %x dim 0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Reducing only size-1 dims with keepdim leaves every element as it was.
// CHECK-LABEL: func.func @sum_of_singleton
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4x1xf32>
func.func @sum_of_singleton(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = tfc.reduce_sum %x dims [1] keepdim : tensor<4x1xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// The mean of one 16-bit value is that value (the f32 round trip is exact).
// CHECK-LABEL: func.func @mean_of_singleton
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x1xbf16>)
// CHECK-NEXT: return %[[X]] : tensor<1x8x1xbf16>
func.func @mean_of_singleton(%x: tensor<1x8x1xbf16>) -> tensor<1x8x1xbf16> {
  %0 = tfc.reduce_mean %x dims [0, -1] keepdim : tensor<1x8x1xbf16> -> tensor<1x8x1xbf16>
  return %0 : tensor<1x8x1xbf16>
}

// -----

// The max over one element per output is that element.
// CHECK-LABEL: func.func @max_of_singleton
// CHECK-SAME: (%[[X:.*]]: tensor<1x8xi32>)
// CHECK-NEXT: return %[[X]] : tensor<1x8xi32>
func.func @max_of_singleton(%x: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %0 = tfc.reduce_max %x dims [0] keepdim : tensor<1x8xi32> -> tensor<1x8xi32>
  return %0 : tensor<1x8xi32>
}

// -----

// A size-1 dim without keepdim changes the type: the reduction becomes a
// reshape (a batch-1 position-embedding gradient's sum over the batch).
// CHECK-LABEL: func.func @singleton_without_keepdim
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>)
// CHECK-NEXT: %[[R:.*]] = tfc.reshape %[[X]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @singleton_without_keepdim(%x: tensor<4x1xf32>) -> tensor<4xf32> {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x1xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The same for a mean and a max over leading size-1 dims of 16-bit and
// integer tensors.
// CHECK-LABEL: func.func @singletons_to_reshapes
// CHECK-NEXT: tfc.reshape %{{.*}} : tensor<1x1x6xbf16> -> tensor<6xbf16>
// CHECK-NEXT: tfc.reshape %{{.*}} : tensor<1x3xi32> -> tensor<3xi32>
// CHECK-NEXT: return
func.func @singletons_to_reshapes(%x: tensor<1x1x6xbf16>, %y: tensor<1x3xi32>) -> (tensor<6xbf16>, tensor<3xi32>) {
  %0 = tfc.reduce_mean %x dims [0, 1] : tensor<1x1x6xbf16> -> tensor<6xbf16>
  %1 = tfc.reduce_max %y dims [0] : tensor<1x3xi32> -> tensor<3xi32>
  return %0, %1 : tensor<6xbf16>, tensor<3xi32>
}

// -----

// A reduction over an empty dimension writes zeros (sums of nothing): it
// stays, although it reduces no data.
// CHECK-LABEL: func.func @empty_reduction_kept
// CHECK: tfc.reduce_sum %{{.*}} dims [1] : tensor<3x0xf32> -> tensor<3xf32>
func.func @empty_reduction_kept(%x: tensor<3x0xf32>) -> tensor<3xf32> {
  %0 = tfc.reduce_sum %x dims [1] : tensor<3x0xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A real reduction (size 8) is kept even with keepdim.
// CHECK-LABEL: func.func @real_reduction_kept
// CHECK: tfc.reduce_mean %{{.*}} dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
func.func @real_reduction_kept(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = tfc.reduce_mean %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// The max of a splat constant is the splat, whatever the reduced size.
// CHECK-LABEL: func.func @max_of_splat
// CHECK-NEXT: %[[C:.*]] = tfc.constant dense<-1.500000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[C]] : tensor<4xf32>
func.func @max_of_splat() -> tensor<4xf32> {
  %c = tfc.constant dense<-1.5> : tensor<4x8xf32>
  %0 = tfc.reduce_max %c dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Sums of splats round differently from the kernel's accumulation order, so
// they stay.
// CHECK-LABEL: func.func @sum_of_splat_kept
// CHECK: tfc.reduce_sum
func.func @sum_of_splat_kept() -> tensor<4xf32> {
  %c = tfc.constant dense<0.1> : tensor<4x8xf32>
  %0 = tfc.reduce_sum %c dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An embedding of iota ids (position embeddings) reads the table's first rows in order:
// the table itself when the ids cover it.
// CHECK-LABEL: func.func @embedding_of_full_iota
// CHECK-SAME: (%[[T:.*]]: tensor<64x32xf32>)
// CHECK-NEXT: return %[[T]] : tensor<64x32xf32>
func.func @embedding_of_full_iota(%t: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %ids = tfc.iota dim 0 : tensor<64xi64>
  %0 = tfc.embedding %t, %ids : tensor<64x32xf32>, tensor<64xi64> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// Fewer ids than table rows: a slice of the first rows.
// CHECK-LABEL: func.func @embedding_of_short_iota
// CHECK-NEXT: %[[S:.*]] = tfc.slice %{{.*}} [0, 0] to [10, 32] : tensor<64x32xbf16> -> tensor<10x32xbf16>
// CHECK-NEXT: return %[[S]]
func.func @embedding_of_short_iota(%t: tensor<64x32xbf16>) -> tensor<10x32xbf16> {
  %ids = tfc.iota dim 0 : tensor<10xi32>
  %0 = tfc.embedding %t, %ids : tensor<64x32xbf16>, tensor<10xi32> -> tensor<10x32xbf16>
  return %0 : tensor<10x32xbf16>
}

// -----

// Other ids stay a gather: 2-D iotas repeat rows, and ids beyond the table are not
// rows of it.
// CHECK-LABEL: func.func @embedding_of_other_ids
// CHECK: tfc.embedding
// CHECK: tfc.embedding
func.func @embedding_of_other_ids(%t: tensor<8x4xf32>) -> (tensor<2x8x4xf32>, tensor<9x4xf32>) {
  %ids = tfc.iota dim 1 : tensor<2x8xi64>
  %0 = tfc.embedding %t, %ids : tensor<8x4xf32>, tensor<2x8xi64> -> tensor<2x8x4xf32>
  %long = tfc.iota dim 0 : tensor<9xi64>
  %1 = tfc.embedding %t, %long : tensor<8x4xf32>, tensor<9xi64> -> tensor<9x4xf32>
  return %0, %1 : tensor<2x8x4xf32>, tensor<9x4xf32>
}

// -----

// The gradient of an embedding of iota ids (position embeddings): dy's rows are the
// table gradient's first rows, so dy padded with zero rows, no scatter kernel.
// CHECK-LABEL: func.func @embedding_grad_iota
// CHECK-SAME: (%[[DY:.*]]: tensor<9x16xbf16>)
// CHECK: %[[P:.+]] = tfc.pad %[[DY]] low [0, 0] high [41, 0] value 0.000000e+00 : tensor<9x16xbf16> -> tensor<50x16xbf16>
// CHECK-NEXT: return %[[P]]
func.func @embedding_grad_iota(%dy: tensor<9x16xbf16>) -> tensor<50x16xbf16> {
  %ids = tfc.iota dim 0 : tensor<9xi32>
  %0 = tfc.embedding_grad %dy, %ids : tensor<9x16xbf16>, tensor<9xi32> -> tensor<50x16xbf16>
  return %0 : tensor<50x16xbf16>
}

// -----

// A [B, T] dy of reshaped position ids covering the table: the reshape alone.
// CHECK-LABEL: func.func @embedding_grad_full_iota
// CHECK: %[[R:.+]] = tfc.reshape %{{[^ ]+}} : tensor<1x8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @embedding_grad_full_iota(%dy: tensor<1x8x4xf32>) -> tensor<8x4xf32> {
  %ids = tfc.iota dim 0 : tensor<8xi64>
  %r = tfc.reshape %ids : tensor<8xi64> -> tensor<1x8xi64>
  %0 = tfc.embedding_grad %dy, %r : tensor<1x8x4xf32>, tensor<1x8xi64> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Nothing scattered (no ids) or a table without elements: zeros, no kernel.
// CHECK-LABEL: func.func @embedding_grad_empty
// CHECK-DAG: %[[Z:.+]] = tfc.constant dense<0.000000e+00> : tensor<6x4xf32>
// CHECK-DAG: %[[E:.+]] = tfc.constant dense<0.000000e+00> : tensor<6x0xf32>
// CHECK: return %[[Z]], %[[E]]
func.func @embedding_grad_empty(%dy: tensor<0x4xf32>, %ids: tensor<0xi64>, %dy2: tensor<3x0xf32>, %ids2: tensor<3xi64>) -> (tensor<6x4xf32>, tensor<6x0xf32>) {
  %0 = tfc.embedding_grad %dy, %ids : tensor<0x4xf32>, tensor<0xi64> -> tensor<6x4xf32>
  %1 = tfc.embedding_grad %dy2, %ids2 : tensor<3x0xf32>, tensor<3xi64> -> tensor<6x0xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<6x0xf32>
}

// -----

// Other ids stay a scatter: a 2-D iota repeats ids, and an iota longer than the table
// scatters past it.
// CHECK-LABEL: func.func @embedding_grad_other_ids
// CHECK: tfc.embedding_grad
// CHECK: tfc.embedding_grad
func.func @embedding_grad_other_ids(%dy: tensor<2x8x4xf32>, %dy2: tensor<9x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %ids = tfc.iota dim 1 : tensor<2x8xi64>
  %0 = tfc.embedding_grad %dy, %ids : tensor<2x8x4xf32>, tensor<2x8xi64> -> tensor<8x4xf32>
  %long = tfc.iota dim 0 : tensor<9xi64>
  %1 = tfc.embedding_grad %dy2, %long : tensor<9x4xf32>, tensor<9xi64> -> tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// stop_gradient is not folded away: canonicalization may run before
// autodiff, which must still see it.
// CHECK-LABEL: func.func @stop_gradient_kept
// CHECK: tfc.stop_gradient
func.func @stop_gradient_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
