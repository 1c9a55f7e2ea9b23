// RUN: tfc-opt %s --tfc-build-train-step=optimizer=adamax | FileCheck %s
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adamax beta1=1' 2>&1 | FileCheck %s --check-prefix=BETARANGE

// optimizer=adamax is torch.optim.Adamax built from plain tfc ops: states
// "P.exp_avg" and "P.exp_inf" of P's type; exp_avg * beta1 + G * (1 -
// beta1); exp_inf = max(exp_inf * beta2, |G| + eps); the step size
// lr / (1 - beta1^t) in f64 (beta1^t = exp(t ln beta1), t the step count
// after the increment), rounded to f32 once; P - (clr * exp_avg) / exp_inf.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// CHECK-SAME: %[[WM:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg"}, %[[WU:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.exp_inf"},
// CHECK-SAME: %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.exp_avg"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.exp_inf"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// CHECK-SAME: tensor<4x8xf32> {tfc.update = "w.exp_avg"}, tensor<4x8xf32> {tfc.update = "w.exp_inf"}, tensor<4xf32> {tfc.update = "b.exp_avg"}, tensor<4xf32> {tfc.update = "b.exp_inf"}, tensor<i64> {tfc.update = "step"})
// CHECK: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// CHECK: %[[NEXT:.*]] = tfc.add %[[STEP]],
// CHECK-NEXT: %[[B1:.*]] = tfc.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT: %[[R1:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[KM:.*]] = tfc.mul %[[WM]], %[[B1]]
// CHECK-NEXT: %[[AM:.*]] = tfc.mul %[[GW]], %[[R1]]
// CHECK-NEXT: %[[WM2:.*]] = tfc.add %[[KM]], %[[AM]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[B2:.*]] = tfc.constant dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT: %[[KU:.*]] = tfc.mul %[[WU]], %[[B2]]
// CHECK-NEXT: %[[ABS:.*]] = tfc.abs %[[GW]] : tensor<4x8xf32>
// CHECK-NEXT: %[[EPS:.*]] = tfc.constant dense<9.99999993E-9> : tensor<f32>
// CHECK-NEXT: %[[AU:.*]] = tfc.add %[[ABS]], %[[EPS]]
// CHECK-NEXT: %[[WU2:.*]] = tfc.maximum %[[KU]], %[[AU]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[T:.*]] = tfc.convert %[[NEXT]] : tensor<i64> -> tensor<f64>
// CHECK-NEXT: %[[LNB1:.*]] = tfc.constant dense<-0.10536051565782628> : tensor<f64>
// CHECK-NEXT: %[[E:.*]] = tfc.mul %[[T]], %[[LNB1]]
// CHECK-NEXT: %[[B1T:.*]] = tfc.exp %[[E]] : tensor<f64>
// CHECK-NEXT: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[BC1:.*]] = tfc.sub %[[ONE]], %[[B1T]]
// CHECK-NEXT: %[[LR64:.*]] = tfc.convert %[[LR]] : tensor<f32> -> tensor<f64>
// CHECK-NEXT: %[[CLR64:.*]] = tfc.div %[[LR64]], %[[BC1]]
// CHECK-NEXT: %[[CLR:.*]] = tfc.convert %[[CLR64]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[SM:.*]] = tfc.mul %[[CLR]], %[[WM2]]
// CHECK-NEXT: %[[DELTA:.*]] = tfc.div %[[SM]], %[[WU2]]
// CHECK-NEXT: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[BP2:.*]] = tfc.sub %[[B]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: return %{{.*}}, %[[W2]], %[[BP2]], %[[WM2]], %[[WU2]], %{{.*}}, %{{.*}}, %[[NEXT]] :

// torch's range of the betas.
// BETARANGE: --tfc-build-train-step: beta1 and beta2 must lie in [0, 1)

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
