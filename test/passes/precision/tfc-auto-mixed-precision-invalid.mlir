// RUN: tfc-opt %s --split-input-file --tfc-auto-mixed-precision=precision=bf16 -verify-diagnostics
// RUN: not tfc-opt %s --tfc-auto-mixed-precision=precision=int8 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tfc-opt %s '--tfc-auto-mixed-precision=precision=bf16 function=nope' 2>&1 | FileCheck %s --check-prefix=NOFUNC

// An unknown precision names the accepted ones; a function that does not
// exist is named.
// UNKNOWN: error: --tfc-auto-mixed-precision: unknown precision 'int8' (expected f32, tf32, bf16 or fp16)
// NOFUNC: error: --tfc-auto-mixed-precision: no func.func @nope to retype

// Precision is chosen on the forward: an optimizer update (a train step that
// is already built) is refused with what to do instead.
func.func @step(%w: tensor<4xf32> {tfc.param = "w"}, %g: tensor<4xf32>,
                %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>,
                %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{--tfc-auto-mixed-precision: 'tfc.adamw' cannot be retyped; choose the precision on the forward, before --tfc-build-train-step and kernel formation}}
  %w2, %m2, %v2 = tfc.adamw %w, %g, %m, %v, %lr, %s : tensor<4xf32>, tensor<4xf32>, tensor<f32>
  return %w2 : tensor<4xf32>
}
