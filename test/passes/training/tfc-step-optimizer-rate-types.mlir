// RUN: tfc-opt %s --split-input-file --tfc-step-gradients '--tfc-step-optimizer=optimizer=sgd schedule=warmup-cosine' | FileCheck %s
// RUN: tfc-opt %s --split-input-file '--tfc-train-pipeline=optimizer=adafactor' -o /dev/null

// The learning-rate schedule's rates are f64 when the model has an f64
// parameter, so an f64 model steps with torch's unrounded rate (they were
// f32 whatever the model: SGD at lr 0.01 drifted 5e-10 per step from
// torch's f64 run). The schedule computes in f64 too; an f32 parameter of
// the same model gets the rate converted to f32, and Adafactor (f32 state)
// takes it in f32.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %{{[^:]*}}: tensor<f64> {tfc.input = "lr"}
// CHECK-SAME: %{{[^:]*}}: tensor<f64> {tfc.input = "min_lr"}
// CHECK: tfc.cos %{{.*}} : tensor<f64>
// CHECK: tfc.sgd %{{.*}} : tensor<8xf64>, tensor<8xf64>, tensor<f64>
// CHECK: %[[R32:.*]] = tfc.convert %{{.*}} : tensor<f64> -> tensor<f32>
// CHECK: tfc.sgd %{{.*}}, %[[R32]], %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<f32>
func.func @loss(%w: tensor<8xf64> {tfc.param = "w"}, %v: tensor<4xf32> {tfc.param = "v"},
                %x: tensor<8xf64> {tfc.input = "x"}) -> tensor<f64> {
  %p = tfc.mul %w, %x : tensor<8xf64>, tensor<8xf64>
  %s = tfc.reduce_sum %p dims [0] : tensor<8xf64> -> tensor<f64>
  %q = tfc.mul %v, %v : tensor<4xf32>, tensor<4xf32>
  %t = tfc.reduce_sum %q dims [0] : tensor<4xf32> -> tensor<f32>
  %t64 = tfc.convert %t : tensor<f32> -> tensor<f64>
  %l = tfc.add %s, %t64 : tensor<f64>, tensor<f64>
  return %l : tensor<f64>
}

// -----

// An f32 model keeps f32 rates.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %{{[^:]*}}: tensor<f32> {tfc.input = "lr"}
// CHECK-NOT: tensor<f64>
// CHECK: return
func.func @loss(%w: tensor<8xf32> {tfc.param = "w"}, %x: tensor<8xf32> {tfc.input = "x"})
    -> tensor<f32> {
  %p = tfc.mul %w, %x : tensor<8xf32>, tensor<8xf32>
  %s = tfc.reduce_sum %p dims [0] : tensor<8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
