// RUN: tfc-opt %s --tfc-convert-to-exec="function=eval alignment=64" | FileCheck %s --check-prefix=EVAL

// The options of --tfc-convert-to-exec.

// function= picks the function to lower (the others stay); a scalar result of a function
// other than @loss is "out0"; alignment= sets the arena alignment. Kernel names skip
// symbols the module already has.
// EVAL-LABEL: tfcrt.arena size 64 alignment 64
// EVAL: func.func @loss
// EVAL: tfcrt.kernel @k1 pointwise
// EVAL: tfcrt.kernel @k2 row_reduction
// EVAL: tfcrt.entry @forward
// EVAL: %[[O:.*]] = tfcrt.external output "out0" : memref<f32>
// EVAL: %[[V:.*]] = tfcrt.arena_view offset 0 : memref<16xf32>
// EVAL: tfcrt.launch @k1
// EVAL: tfcrt.launch @k2 (%[[V]]) -> (%[[O]])
// EVAL-NOT: func.func @eval
func.func @k0() {
  return
}
func.func @loss(%x: tensor<16xf32>) -> tensor<16xf32> {
  return %x : tensor<16xf32>
}
func.func @eval(%x: tensor<16xf32> {tfc.input = "x"}) -> tensor<f32> {
  %0 = tfc.fusion pointwise (%in = %x : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.abs %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %1 = tfc.fusion row_reduction (%in = %0 : tensor<16xf32>) -> tensor<f32> {
    %r = tfc.reduce_sum %in dims [0] : tensor<16xf32> -> tensor<f32>
    tfc.yield %r : tensor<f32>
  }
  return %1 : tensor<f32>
}
