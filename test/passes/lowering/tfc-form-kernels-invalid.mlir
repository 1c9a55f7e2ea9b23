// RUN: tfc-opt %s --split-input-file --tfc-form-kernels --verify-diagnostics

// Errors of --tfc-form-kernels.

// Composite ops have no kernel kind: --tfc-decompose must run first.
func.func @attention(%q: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'tfc.attention' op is a composite op; run --tfc-decompose before --tfc-form-kernels}}
  %0 = tfc.attention %q, %q, %q : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
