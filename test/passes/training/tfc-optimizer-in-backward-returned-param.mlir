// RUN: tfc-opt %s --tfc-build-train-step --tfc-optimizer-in-backward | FileCheck %s
// RUN: tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=true target=host' | FileCheck %s --check-prefix=LOWERED

// A loss that is a parameter itself: the step returns the parameter's old
// value as its loss, so the return is a reader of the old value. The
// update must follow the last reader of what it writes in place, but never
// the return: it stays before it (it then cannot be in place, and the
// lowering copies). Moving it after the return left a block without a
// terminator at its end and crashed the pass (found by fuzz-compiler).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[X:[^:]*]]: tensor<f32> {tfc.param = "x"}
// CHECK: %[[NEW:.*]], %{{.*}}, %{{.*}} = tfc.adamw %[[X]],
// CHECK-NEXT: return %[[X]], %[[NEW]],

// LOWERED: tfcrt.entry @train_step
func.func @loss(%x: tensor<f32> {tfc.param = "x"}) -> tensor<f32> {
  return %x : tensor<f32>
}
