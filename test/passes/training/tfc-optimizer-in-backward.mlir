// RUN: tfc-opt %s --tfc-build-train-step --tfc-optimizer-in-backward | FileCheck %s
// RUN: tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=true target=host' | FileCheck %s --check-prefix=LOWERED
// RUN: not tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=true max-grad-norm=1' 2>&1 | FileCheck %s --check-prefix=CLIP
// RUN: not tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=true precision=fp16' 2>&1 | FileCheck %s --check-prefix=FP16
// RUN: not tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=true accumulate-steps=2' 2>&1 | FileCheck %s --check-prefix=ACCUM
// RUN: not tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=true optimizer=adafactor' 2>&1 | FileCheck %s --check-prefix=ADAFACTOR
// RUN: not tfc-opt %s '--tfc-train-pipeline=optimizer-in-backward=yes' 2>&1 | FileCheck %s --check-prefix=BAD

// Two linear layers. Without the pass every update runs after the whole
// backward; with it, the second layer's weight is updated right after its
// gradient and after the last read of its old value (the backward GEMM that
// passes the gradient to the first layer), before the first layer's
// gradient exists. The step counter plus one, which every update reads,
// moves to the top.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W1:[^:]*]]: tensor<16x8xf32> {tfc.param = "fc1.weight"}, %[[W2:[^:]*]]: tensor<4x16xf32> {tfc.param = "fc2.weight"}
// CHECK-SAME: attributes {tfc.optimizer_in_backward}
// CHECK: %[[ONE:.*]] = tfc.constant dense<1> : tensor<i64>
// CHECK: %[[STEP:.*]] = tfc.add %{{.*}}, %[[ONE]] : tensor<i64>, tensor<i64>
// CHECK: tfc.cross_entropy_grad
// CHECK: %[[DH:.*]] = tfc.matmul %{{.*}}, %[[W2]] : {{.*}} -> tensor<2x16xf32>
// CHECK: %[[G2:.*]] = tfc.matmul %{{.*}} transpose_a : {{.*}} -> tensor<4x16xf32>
// CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = tfc.adamw %[[W2]], %[[G2]], {{.*}}, %[[STEP]]
// CHECK: %[[G1:.*]] = tfc.matmul %{{.*}} transpose_a : {{.*}} -> tensor<16x8xf32>
// CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = tfc.adamw %[[W1]], %[[G1]], {{.*}}, %[[STEP]]

// Lowered, each update keeps a launch of its own (one launch over all
// would move them back to the end).
// LOWERED-COUNT-2: tfcrt.kernel @{{.*}} multi_tensor
// LOWERED-LABEL: tfcrt.entry @train_step

// CLIP: error: optimizer-in-backward=true cannot be combined with max-grad-norm (the global norm needs every gradient first)
// FP16: error: optimizer-in-backward=true cannot be combined with loss-scaling (skipping a step needs every gradient first; fp16 turns it on: give loss-scaling=false)
// ACCUM: error: optimizer-in-backward=true cannot be combined with accumulate-steps (the update needs every micro-batch first)
// ADAFACTOR: error: optimizer-in-backward=true cannot be combined with optimizer=adafactor (its update is plain ops over the gradients)
// BAD: error: unknown value 'yes' for option optimizer-in-backward (expected true or false)
func.func @loss(%w1: tensor<16x8xf32> {tfc.param = "fc1.weight"},
                %w2: tensor<4x16xf32> {tfc.param = "fc2.weight"},
                %x: tensor<2x8xf32> {tfc.input = "x"},
                %y: tensor<2xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w1 transpose_b : tensor<2x8xf32>, tensor<16x8xf32> -> tensor<2x16xf32>
  %a = tfc.relu %h : tensor<2x16xf32>
  %l = tfc.matmul %a, %w2 transpose_b : tensor<2x16xf32>, tensor<4x16xf32> -> tensor<2x4xf32>
  %loss = tfc.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
