// RUN: tfc-opt %s --split-input-file --tfc-dedupe-kernels | FileCheck %s

// --tfc-dedupe-kernels keeps one tfcrt.kernel per distinct body and points
// every launch of a duplicate at it.

// Two kernels that differ only in their name, SSA names and locations become
// one: the first is kept, both launches run it, the second is erased.
// CHECK-LABEL: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT: tfcrt.kernel @k1
// CHECK: tfcrt.kernel @k2 pointwise (tensor<4xf32>) -> tensor<4xf32> {
// CHECK: tfcrt.entry @forward
// CHECK: tfcrt.launch @k0 (%{{.*}}, %{{.*}}) -> (%[[T:[^)]*]])
// CHECK-NEXT: tfcrt.launch @k0 (%[[T]], %{{.*}}) -> (%{{.*}})
// CHECK-NEXT: tfcrt.launch @k2
tfcrt.arena size 256 alignment 256
tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.add %a, %b : tensor<4xf32>, tensor<4xf32> loc("layer0")
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @k1 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %sum = tfc.add %x, %y : tensor<4xf32>, tensor<4xf32> loc("layer1")
  tfcrt.yield %sum : tensor<4xf32>
}
tfcrt.kernel @k2 pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4xf32>
  %b = tfcrt.external input "b" : memref<4xf32>
  %o = tfcrt.external output "out0" : memref<4xf32>
  %t = tfcrt.arena_view offset 0 : memref<4xf32>
  %u = tfcrt.external output "out1" : memref<4xf32>
  tfcrt.launch @k0 (%a, %b) -> (%t) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.launch @k1 (%t, %b) -> (%o) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.launch @k2 (%o) -> (%u) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// Alike but not the same: an op attribute (the GELU approximation), the
// operand order (a - b against b - a), the shapes, the kind and in_place each
// make a distinct kernel, so nothing is merged.
// CHECK-LABEL: tfcrt.kernel @gelu pointwise
// CHECK: tfcrt.kernel @gelu_tanh pointwise
// CHECK: tfcrt.kernel @sub pointwise
// CHECK: tfcrt.kernel @sub_swapped pointwise
// CHECK: tfcrt.kernel @sub8 pointwise
// CHECK: tfcrt.kernel @sub_in_place pointwise
tfcrt.kernel @gelu pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.gelu %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @gelu_tanh pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.gelu %x approximate tanh : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @sub pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @sub_swapped pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.sub %b, %a : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @sub8 pointwise (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
  %0 = tfc.sub %a, %b : tensor<8xf32>, tensor<8xf32>
  tfcrt.yield %0 : tensor<8xf32>
}
tfcrt.kernel @sub_in_place pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// Entries of one program share kernels: apply_step launches the kernel that
// accumulate_step launched first.
// CHECK-LABEL: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
// CHECK-NOT: tfcrt.kernel
// CHECK: tfcrt.entry @accumulate_step
// CHECK: tfcrt.launch @k0
// CHECK: tfcrt.entry @apply_step
// CHECK: tfcrt.launch @k0
tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.add %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @k1 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.add %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @accumulate_step {
  %acc = tfcrt.external state "acc" : memref<4xf32>
  %g = tfcrt.external input "g" : memref<4xf32>
  tfcrt.launch @k0 (%acc, %g) -> (%acc) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
tfcrt.entry @apply_step {
  %p = tfcrt.external param "p" : memref<4xf32>
  %acc = tfcrt.external state "acc" : memref<4xf32>
  tfcrt.launch @k1 (%p, %acc) -> (%p) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
