// RUN: tfc-opt %s --tfc-build-train-step=optimizer=rmsprop | FileCheck %s
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=rmsprop alpha=0.8 eps=1e-6 momentum=0.5 centered=true weight-decay=0.1' | FileCheck %s --check-prefix=ALL
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=rmsprop alpha=1' 2>&1 | FileCheck %s --check-prefix=ALPHARANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=rmsprop momentum=-0.5' 2>&1 | FileCheck %s --check-prefix=MOMRANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adam alpha=0.9' 2>&1 | FileCheck %s --check-prefix=NOTALPHA
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=sgd centered=true' 2>&1 | FileCheck %s --check-prefix=NOTCENTERED

// optimizer=rmsprop is torch.optim.RMSprop built from plain tfc ops: by
// default one state "P.square_avg" of P's type; square_avg * alpha +
// ((1 - alpha) * G) * G (torch's addcmul order), then sqrt before eps, and
// P - (lr * G) / (sqrt + eps).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// CHECK-SAME: %[[WS:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.square_avg"}, %[[BS:[^:]*]]: tensor<4xf32> {tfc.state = "b.square_avg"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// CHECK-SAME: tensor<4x8xf32> {tfc.update = "w.square_avg"}, tensor<4xf32> {tfc.update = "b.square_avg"}, tensor<i64> {tfc.update = "step"})
// CHECK: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// CHECK: %[[NEXT:.*]] = tfc.add %[[STEP]],
// CHECK: %[[ALPHA:.*]] = tfc.constant dense<9.900000e-01> : tensor<f32>
// CHECK: %[[REST:.*]] = tfc.constant dense<0.00999999977> : tensor<f32>
// CHECK: %[[KEPT:.*]] = tfc.mul %[[WS]], %[[ALPHA]]
// CHECK: %[[SG:.*]] = tfc.mul %[[REST]], %[[GW]]
// CHECK: %[[SGG:.*]] = tfc.mul %[[SG]], %[[GW]]
// CHECK: %[[WS2:.*]] = tfc.add %[[KEPT]], %[[SGG]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[ROOT:.*]] = tfc.sqrt %[[WS2]] : tensor<4x8xf32>
// CHECK: %[[EPS:.*]] = tfc.constant dense<9.99999993E-9> : tensor<f32>
// CHECK: %[[DEN:.*]] = tfc.add %[[ROOT]], %[[EPS]]
// CHECK: %[[LG:.*]] = tfc.mul %[[LR]], %[[GW]]
// CHECK: %[[DELTA:.*]] = tfc.div %[[LG]], %[[DEN]]
// CHECK: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[BS2:.*]] = tfc.add %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: %[[B2:.*]] = tfc.sub %[[B]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: return %{{.*}}, %[[W2]], %[[B2]], %[[WS2]], %[[BS2]], %[[NEXT]] :

// Every option: states square_avg, momentum_buffer, grad_avg (torch's
// order); the L2 penalty G + 0.1 * P on the matrix only (rank < 2 is not
// decayed by default); centered subtracts grad_avg^2 under the sqrt;
// momentum keeps buffer * 0.5 + G / D and steps P - buffer * lr.
// ALL-LABEL: func.func @train_step
// ALL-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// ALL-SAME: %[[WS:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.square_avg"}, %[[WB:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.momentum_buffer"}, %[[WA:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.grad_avg"},
// ALL-SAME: %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.square_avg"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.momentum_buffer"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.grad_avg"},
// ALL-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// ALL: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// ALL: %[[WD:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// ALL: %[[PEN:.*]] = tfc.mul %[[W]], %[[WD]]
// ALL: %[[G:.*]] = tfc.add %[[GW]], %[[PEN]] : tensor<4x8xf32>, tensor<4x8xf32>
// ALL: %[[ALPHA0:.*]] = tfc.constant dense<8.000000e-01> : tensor<f32>
// ALL: %[[REST0:.*]] = tfc.constant dense<2.000000e-01> : tensor<f32>
// ALL: %[[KS:.*]] = tfc.mul %[[WS]], %[[ALPHA0]]
// ALL: %[[SS:.*]] = tfc.mul %[[REST0]], %[[G]]
// ALL: %[[AS:.*]] = tfc.mul %[[SS]], %[[G]]
// ALL: %[[WS2:.*]] = tfc.add %[[KS]], %[[AS]] : tensor<4x8xf32>, tensor<4x8xf32>
// ALL: %[[ALPHA:.*]] = tfc.constant dense<8.000000e-01> : tensor<f32>
// ALL: %[[REST:.*]] = tfc.constant dense<2.000000e-01> : tensor<f32>
// ALL: %[[KA:.*]] = tfc.mul %[[WA]], %[[ALPHA]]
// ALL: %[[NA:.*]] = tfc.mul %[[G]], %[[REST]]
// ALL: %[[WA2:.*]] = tfc.add %[[KA]], %[[NA]]
// ALL: %[[MSQ:.*]] = tfc.mul %[[WA2]], %[[WA2]]
// ALL: %[[VAR:.*]] = tfc.sub %[[WS2]], %[[MSQ]]
// ALL: %[[ROOT:.*]] = tfc.sqrt %[[VAR]]
// ALL: %[[EPS:.*]] = tfc.constant dense<9.99999997E-7> : tensor<f32>
// ALL: %[[DEN:.*]] = tfc.add %[[ROOT]], %[[EPS]]
// ALL: %[[MOM:.*]] = tfc.constant dense<5.000000e-01> : tensor<f32>
// ALL: %[[KB:.*]] = tfc.mul %[[WB]], %[[MOM]]
// ALL: %[[RATIO:.*]] = tfc.div %[[G]], %[[DEN]]
// ALL: %[[WB2:.*]] = tfc.add %[[KB]], %[[RATIO]]
// ALL: %[[DELTA:.*]] = tfc.mul %[[WB2]], %[[LR]]
// ALL: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]]
// ALL-NOT: tfc.mul %[[B]],
// ALL: return %{{.*}}, %[[W2]], %{{.*}}, %[[WS2]], %[[WB2]], %[[WA2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :

// Option ranges, and the options of rmsprop given to another optimizer.
// ALPHARANGE: --tfc-build-train-step: alpha must lie in [0, 1)
// MOMRANGE: --tfc-build-train-step: momentum must be non-negative and finite
// NOTALPHA: --tfc-build-train-step: alpha is an option of optimizer=rmsprop only
// NOTCENTERED: --tfc-build-train-step: centered is an option of optimizer=rmsprop only

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
