// RUN: tfc-opt %s --split-input-file | FileCheck %s
// Round trip through the generic form too: printing and parsing it must agree.
// RUN: tfc-opt %s --split-input-file --mlir-print-op-generic | tfc-opt --split-input-file | FileCheck %s

// Unary elementwise ops keep their operand's type.
// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
  // CHECK: tfc.neg %{{.*}} : tensor<4x8xf32>
  %0 = tfc.neg %x : tensor<4x8xf32>
  // CHECK: tfc.abs %{{.*}} : tensor<4xi32>
  %1 = tfc.abs %i : tensor<4xi32>
  // CHECK: tfc.gelu %{{.*}} approximate tanh : tensor<4x8xf32>
  %2 = tfc.gelu %0 approximate tanh : tensor<4x8xf32>
  // CHECK: tfc.gelu %{{.*}} : tensor<4x8xf32>
  %3 = tfc.gelu %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Binary ops broadcast numpy-style; the result type is inferred.
// CHECK-LABEL: func.func @broadcast
func.func @broadcast(%x: tensor<16x64x128xf32>, %b: tensor<128xf32>) -> tensor<16x64x128xf32> {
  // CHECK: tfc.add %{{.*}}, %{{.*}} : tensor<16x64x128xf32>, tensor<128xf32>
  %0 = tfc.add %x, %b : tensor<16x64x128xf32>, tensor<128xf32>
  return %0 : tensor<16x64x128xf32>
}
