// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-optimizer | FileCheck %s
// RUN: tfc-opt %s --tfc-step-gradients '--tfc-step-optimizer=optimizer=sgd momentum=0.9' | FileCheck %s --check-prefix=SGD
// RUN: tfc-opt %s --tfc-step-gradients '--tfc-step-optimizer=optimizer=sgd' --tfc-optimizer-in-backward | FileCheck %s --check-prefix=EARLY

// Parameter groups, as torch.optim's param_groups set them (the PyTorch
// frontend writes them from an optimizer's groups): backbone.w trains at a
// tenth of the learning rate (tfc.lr_scale: the step's rate times 0.1, so
// a schedule scales every group alike, as torch's schedulers do); head.b,
// a bias the rank < 2 rule would leave undecayed, has its group's weight
// decay 0.05; head.w keeps the optimizer's own settings (AdamW's default
// decay 0.01, printed as the op's default).
func.func @loss(%w: tensor<4x4xf32> {tfc.param = "backbone.w", tfc.lr_scale = 1.0e-01 : f64},
                %b: tensor<4xf32> {tfc.param = "head.b", tfc.weight_decay = 5.0e-02 : f64},
                %v: tensor<4x4xf32> {tfc.param = "head.w"},
                %x: tensor<2x4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %g = tfc.matmul %h, %v : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %y = tfc.add %g, %b : tensor<2x4xf32>, tensor<4xf32>
  %sq = tfc.mul %y, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]+]]: tensor<4x4xf32> {tfc.lr_scale = 1.000000e-01 : f64, tfc.param = "backbone.w"}
// CHECK-SAME: %[[LR:[^:]+]]: tensor<f32> {tfc.input = "lr"}
// CHECK: %[[TENTH:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// CHECK: %[[SCALED:.*]] = tfc.mul %[[LR]], %[[TENTH]]
// CHECK: tfc.adamw %[[W]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[SCALED]], %{{[^ ]+}} : tensor<4x4xf32>
// CHECK: tfc.adamw %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[LR]], %{{[^ ]+}} weight_decay 5.000000e-02 : tensor<4xf32>
// CHECK: tfc.adamw %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[LR]], %{{[^ ]+}} : tensor<4x4xf32>

// SGD with momentum: the same group settings (SGD's own decay is 0, the
// op's default; the pipeline with optimizer-in-backward takes them too).
// SGD-LABEL: func.func @train_step
// SGD: %[[TENTH:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// SGD: %[[SCALED:.*]] = tfc.mul %[[LR:[^,]+]], %[[TENTH]]
// SGD: tfc.sgd %{{[^,]+}}, %{{[^,]+}}, %[[SCALED]], %{{[^ ]+}} momentum_buffer({{.*}}) momentum 9.000000e-01 : tensor<4x4xf32>
// SGD: tfc.sgd %{{[^,]+}}, %{{[^,]+}}, %[[LR]], %{{[^ ]+}} momentum_buffer({{.*}}) momentum 9.000000e-01 weight_decay 5.000000e-02 : tensor<4xf32>
// SGD: tfc.sgd %{{[^,]+}}, %{{[^,]+}}, %[[LR]], %{{[^ ]+}} momentum_buffer({{.*}}) momentum 9.000000e-01 : tensor<4x4xf32>

// Updates moved into the backward (--tfc-optimizer-in-backward) keep the
// scaled rate: backbone.w's update still reads lr times 0.1.
// EARLY-LABEL: func.func @train_step
// EARLY: %[[TENTH:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// EARLY: %[[SCALED:.*]] = tfc.mul %{{[^,]+}}, %[[TENTH]]
// EARLY: tfc.sgd %{{[^,]+}}, %{{[^,]+}}, %[[SCALED]], %{{[^ ]+}} : tensor<4x4xf32>
