// RUN: not tfc-opt %s --tfc-pad-shapes=pad=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tfc-opt %s --tfc-pad-shapes=pad=tiles 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not tfc-opt %s --tfc-pad-shapes=target=sm_75 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not tfc-opt %s '--tfc-train-pipeline=pad=-8' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not tfc-opt %s '--tfc-train-pipeline=pad=1000000' 2>&1 | FileCheck %s --check-prefix=HUGE

// Bad option values are one line naming what is accepted.
// ZERO: error: --tfc-pad-shapes: unknown pad '0' (expected auto, none or an integer from 1 to 4096)
// WORD: error: --tfc-pad-shapes: unknown pad 'tiles' (expected auto, none or an integer from 1 to 4096)
// TARGET: error: --tfc-pad-shapes: unknown target 'sm_75' (expected sm_80, sm_90 or host)
// PIPELINE: error: unknown value '-8' for option pad (expected auto, none or an integer from 1 to 4096)
// A multiple past 4096 is refused (it compiled, then asked for 180 TB at load).
// HUGE: error: unknown value '1000000' for option pad (expected auto, none or an integer from 1 to 4096)
func.func @loss(%x: tensor<4x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %s = tfc.reduce_sum %x dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
