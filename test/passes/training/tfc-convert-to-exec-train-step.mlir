// RUN: tfc-opt %s --tfc-convert-to-exec=function=train_step | FileCheck %s

// A training step: tfc.state arguments are externals of role state; a
// tfc.update result has no output buffer but is copied over its argument
// after every launch, those read from an argument first (here "m" takes
// "p"'s old value before "p" is overwritten); an unchanged update needs no
// copy; tfc.output names an output; the entry keeps the name train_step.
// CHECK-LABEL: tfcrt.entry @train_step {
// CHECK-NEXT: %[[P:.*]] = tfcrt.external param "p" : memref<4xf32>
// CHECK-NEXT: %[[M:.*]] = tfcrt.external state "m" : memref<4xf32>
// CHECK-NEXT: %[[S:.*]] = tfcrt.external state "s" : memref<4xf32>
// CHECK-NEXT: %[[G:.*]] = tfcrt.external input "g" : memref<4xf32>
// CHECK-NEXT: %[[N:.*]] = tfcrt.external output "norm" : memref<4xf32>
// CHECK-NEXT: %[[V:.*]] = tfcrt.arena_view offset 0 : memref<4xf32>
// CHECK-NEXT: tfcrt.launch @{{.*}} (%[[P]], %[[G]]) -> (%[[V]])
// CHECK-NEXT: tfcrt.launch @{{.*}} (%[[V]]) -> (%[[N]])
// CHECK-NEXT: tfcrt.copy %[[P]] -> %[[M]] : memref<4xf32>
// CHECK-NEXT: tfcrt.copy %[[V]] -> %[[P]] : memref<4xf32>
// CHECK-NEXT: tfcrt.return
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %m: tensor<4xf32> {tfc.state = "m"},
                      %s: tensor<4xf32> {tfc.state = "s"}, %g: tensor<4xf32> {tfc.input = "g"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.output = "norm"},
        tensor<4xf32> {tfc.update = "m"}, tensor<4xf32> {tfc.update = "s"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  %norm = tfc.fusion pointwise (%a = %new : tensor<4xf32>) -> tensor<4xf32> {
    %e = tfc.abs %a : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  return %new, %norm, %p, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
