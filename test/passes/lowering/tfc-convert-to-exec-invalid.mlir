// RUN: tfc-opt %s --split-input-file --tfc-convert-to-exec --verify-diagnostics
// RUN: not tfc-opt %s --split-input-file --tfc-convert-to-exec=alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not tfc-opt %s --split-input-file --tfc-convert-to-exec=function=loss,eval 2>&1 | FileCheck %s --check-prefix=TWOFORWARD

// Errors of --tfc-convert-to-exec, each a diagnostic at the offending op.

// Arena offsets are aligned to a power of two.
// ALIGN: error: --tfc-convert-to-exec: alignment 48 is not a positive power of two

// Several functions lower into one program, but only the training-step
// functions keep their names: two others would both be @forward.
// TWOFORWARD: error: --tfc-convert-to-exec: no func.func @loss to lower
// TWOFORWARD: error: --tfc-convert-to-exec: two functions lower to the entry @forward (only train_step, accumulate_step and apply_step keep their names; any other function becomes @forward)

// The function to lower must exist (function=<name> picks it, default @loss).
// expected-error @+1 {{--tfc-convert-to-exec: no func.func @loss to lower (choose one with function=<name>)}}
module {
  func.func @forward_only() {
    return
  }
}

// -----

// A module is lowered once: it already has an arena.
// expected-error @+1 {{--tfc-convert-to-exec: the module already has a tfcrt.arena or a symbol @forward}}
module {
  tfcrt.arena size 0 alignment 256
  func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// A declaration has no body to lower.
// expected-error @+1 {{'func.func' op has no body to lower}}
func.func private @loss(tensor<4xf32>) -> tensor<4xf32>

// -----

// Every argument needs a buffer type.
// expected-error @+1 {{'func.func' op argument #0 has type 'i32', which has no tfcrt buffer type (a statically shaped tensor of a tfc element type is needed)}}
func.func @loss(%x: i32) -> tensor<4xf32> {
  %0 = tfc.fusion pointwise () -> tensor<4xf32> {
    %c = tfc.constant dense<1.0> : tensor<4xf32>
    tfc.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Ops outside regions mean region formation has not run.
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.neg' op is outside any tfc.fusion; run --tfc-form-kernels first}}
  %0 = tfc.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A stop_gradient left in the program means decomposition has not run
// (region formation leaves it where it is: it belongs to no kernel).
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.stop_gradient' op is outside any tfc.fusion; run --tfc-decompose first (it drops stop_gradients and straight_throughs)}}
  %0 = tfc.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Ops of other dialects have no tfcrt form (calls are not supported).
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op cannot be lowered to tfcrt}}
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A gemm fusion holds a GEMM and the epilogue cuBLASLt fuses (bias, ReLU, GELU): the
// kernel rules reject an exp epilogue when the input is verified, before lowering.
func.func @loss(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'tfc.fusion' op a gemm kernel holds one tfc.matmul and optionally the epilogue cuBLASLt fuses (a row bias add, then ReLU or GELU's tanh form): 'tfc.exp' is not an epilogue op}}
  %0 = tfc.fusion gemm (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x2xf32>) -> tensor<4x2xf32> {
    %m = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    // expected-note @+1 {{'tfc.exp' here}}
    %r = tfc.exp %m : tensor<4x2xf32>
    tfc.yield %r : tensor<4x2xf32>
  }
  return %0 : tensor<4x2xf32>
}

// -----

// Partially broadcast batch dims need one stride per result batch dim; --tfc-decompose
// broadcasts them explicitly first.
func.func @loss(%x: tensor<4x1x2x5xf32>, %y: tensor<3x5x6xf32>) -> tensor<4x3x2x6xf32> {
  %0 = tfc.fusion gemm (%a = %x : tensor<4x1x2x5xf32>, %b = %y : tensor<3x5x6xf32>) -> tensor<4x3x2x6xf32> {
    // expected-error @+1 {{'tfc.matmul' op batch dims 4x1 of 'a' broadcast partially to 4x3, which one batch stride cannot express; run --tfc-decompose to broadcast them explicitly}}
    %m = tfc.matmul %a, %b : tensor<4x1x2x5xf32>, tensor<3x5x6xf32> -> tensor<4x3x2x6xf32>
    tfc.yield %m : tensor<4x3x2x6xf32>
  }
  return %0 : tensor<4x3x2x6xf32>
}

// -----

// A buffer's size in bytes must fit in int64_t (the arena is addressed in bytes).
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfc.fusion' op result of type 'tensor<3000000000x3000000000x3000000000xf32>' has no buffer size that fits in int64_t bytes}}
  %0 = tfc.fusion pointwise () -> tensor<3000000000x3000000000x3000000000xf32> {
    %c = tfc.constant dense<1.0> : tensor<3000000000x3000000000x3000000000xf32>
    tfc.yield %c : tensor<3000000000x3000000000x3000000000xf32>
  }
  return %x : tensor<4xf32>
}

// -----

// In-place updates are copies run in sequence, so two arguments cannot
// exchange values.
// expected-error @+1 {{'func.func' op result updating argument #0 reads argument #1, which is updated too; updates that exchange arguments are not supported}}
func.func @loss(%a: tensor<4xf32> {tfc.param = "a"}, %b: tensor<4xf32> {tfc.state = "b"}) -> (tensor<4xf32> {tfc.update = "a"}, tensor<4xf32> {tfc.update = "b"}) {
  return %b, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// (The TWOFORWARD case: @loss and @eval would both become @forward.)
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @eval(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
