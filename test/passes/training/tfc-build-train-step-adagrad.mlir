// RUN: tfc-opt %s --tfc-build-train-step=optimizer=adagrad | FileCheck %s
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=adagrad lr-decay=0.25 initial-accumulator-value=0.5 eps=1e-6 weight-decay=0.1' | FileCheck %s --check-prefix=ALL
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adagrad lr-decay=-1' 2>&1 | FileCheck %s --check-prefix=DECAYRANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adagrad initial-accumulator-value=-0.1' 2>&1 | FileCheck %s --check-prefix=INITRANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adagrad eps=-2' 2>&1 | FileCheck %s --check-prefix=EPSRANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adamw lr-decay=0.1' 2>&1 | FileCheck %s --check-prefix=NOTDECAY
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=rmsprop initial-accumulator-value=1' 2>&1 | FileCheck %s --check-prefix=NOTINIT

// optimizer=adagrad is torch.optim.Adagrad built from plain tfc ops: one
// state "P.sum" of P's type; sum + G * G, then P - (lr * G) / (sqrt(sum) +
// eps) with torch's default eps 1e-10 (the eps option is not given). Without
// lr-decay the step size is lr itself.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// CHECK-SAME: %[[WS:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.sum"}, %[[BS:[^:]*]]: tensor<4xf32> {tfc.state = "b.sum"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// CHECK-SAME: tensor<4x8xf32> {tfc.update = "w.sum"}, tensor<4xf32> {tfc.update = "b.sum"}, tensor<i64> {tfc.update = "step"})
// CHECK: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// CHECK: %[[NEXT:.*]] = tfc.add %[[STEP]],
// CHECK-NEXT: %[[SQ:.*]] = tfc.mul %[[GW]], %[[GW]]
// CHECK-NEXT: %[[WS2:.*]] = tfc.add %[[WS]], %[[SQ]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[ROOT:.*]] = tfc.sqrt %[[WS2]] : tensor<4x8xf32>
// CHECK-NEXT: %[[EPS:.*]] = tfc.constant dense<1.000000e-10> : tensor<f32>
// CHECK-NEXT: %[[DEN:.*]] = tfc.add %[[ROOT]], %[[EPS]]
// CHECK-NEXT: %[[LG:.*]] = tfc.mul %[[LR]], %[[GW]]
// CHECK-NEXT: %[[DELTA:.*]] = tfc.div %[[LG]], %[[DEN]]
// CHECK-NEXT: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[BS2:.*]] = tfc.add %[[BS]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: %[[B2:.*]] = tfc.sub %[[B]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: return %{{.*}}, %[[W2]], %[[B2]], %[[WS2]], %[[BS2]], %[[NEXT]] :

// Every option: the L2 penalty on the matrix only; the step size
// lr / (1 + (t - 1) * lr-decay) in f64 from the step count, rounded to f32
// once; on the first step (t == 1) sum reads as initial-accumulator-value
// (the runtime zero-fills state).
// ALL-LABEL: func.func @train_step
// ALL-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// ALL-SAME: %[[WS:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.sum"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.sum"},
// ALL-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// ALL: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// ALL: %[[NEXT:.*]] = tfc.add %[[STEP]],
// ALL: %[[WD:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// ALL: %[[PEN:.*]] = tfc.mul %[[W]], %[[WD]]
// ALL: %[[G:.*]] = tfc.add %[[GW]], %[[PEN]] : tensor<4x8xf32>, tensor<4x8xf32>
// ALL: %[[T:.*]] = tfc.convert %[[NEXT]] : tensor<i64> -> tensor<f64>
// ALL: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f64>
// ALL: %[[TM1:.*]] = tfc.sub %[[T]], %[[ONE]]
// ALL: %[[DECAY:.*]] = tfc.constant dense<2.500000e-01> : tensor<f64>
// ALL: %[[DECAYED:.*]] = tfc.mul %[[TM1]], %[[DECAY]]
// ALL: %[[FACTOR:.*]] = tfc.add %[[ONE]], %[[DECAYED]]
// ALL: %[[LR64:.*]] = tfc.convert %[[LR]] : tensor<f32> -> tensor<f64>
// ALL: %[[CLR64:.*]] = tfc.div %[[LR64]], %[[FACTOR]]
// ALL: %[[CLR:.*]] = tfc.convert %[[CLR64]] : tensor<f64> -> tensor<f32>
// ALL: %[[FIRST:.*]] = tfc.compare eq, %[[NEXT]], %{{.*}} : tensor<i64>, tensor<i64>
// ALL: %[[INIT:.*]] = tfc.constant dense<5.000000e-01> : tensor<f32>
// ALL: %[[OLD:.*]] = tfc.select %[[FIRST]], %[[INIT]], %[[WS]] : tensor<i1>, tensor<f32>, tensor<4x8xf32>
// ALL: %[[SQ:.*]] = tfc.mul %[[G]], %[[G]]
// ALL: %[[WS2:.*]] = tfc.add %[[OLD]], %[[SQ]]
// ALL: %[[ROOT:.*]] = tfc.sqrt %[[WS2]]
// ALL: %[[EPS:.*]] = tfc.constant dense<9.99999997E-7> : tensor<f32>
// ALL: %[[DEN:.*]] = tfc.add %[[ROOT]], %[[EPS]]
// ALL: %[[LG:.*]] = tfc.mul %[[CLR]], %[[G]]
// ALL: %[[DELTA:.*]] = tfc.div %[[LG]], %[[DEN]]
// ALL: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]]
// ALL-NOT: tfc.mul %[[B]],
// ALL: return %{{.*}}, %[[W2]], %{{.*}}, %[[WS2]], %{{.*}}, %[[NEXT]] :

// Option ranges, and the options of adagrad given to another optimizer.
// DECAYRANGE: --tfc-build-train-step: lr-decay must be non-negative and finite
// INITRANGE: --tfc-build-train-step: initial-accumulator-value must be non-negative and finite
// EPSRANGE: --tfc-build-train-step: eps must be non-negative and finite (or -1 for the optimizer's default)
// NOTDECAY: --tfc-build-train-step: lr-decay is an option of optimizer=adagrad only
// NOTINIT: --tfc-build-train-step: initial-accumulator-value is an option of optimizer=adagrad only

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
