// RUN: tfc-opt %s --tfc-build-train-step=optimizer=radam | FileCheck %s
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=radam beta2=0.9' | FileCheck %s --check-prefix=BETA2
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=radam beta1=-0.1' 2>&1 | FileCheck %s --check-prefix=BETARANGE

// optimizer=radam is torch.optim.RAdam built from plain tfc ops: states
// "P.exp_avg", "P.exp_avg_sq" of P's type. The scalars torch forms in Python
// floats are f64: the bias corrections 1 - beta^t (beta^t = exp(t ln
// beta)), rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t) with rho_inf =
// 2 / (1 - beta2) - 1 = 1999, the rectification r = sqrt((rho_t - 4)
// (rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)). Both updates are
// built: (Mhat * lr) and ((Mhat * lr) * (1 / (sqrt(V) + eps) *
// sqrt(1 - beta2^t))) * r, and a select on rho_t > 5 takes one.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// CHECK-SAME: %[[WM:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg"}, %[[WV:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg_sq"},
// CHECK-SAME: %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.exp_avg"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.exp_avg_sq"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// CHECK: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// CHECK: %[[NEXT:.*]] = tfc.add %[[STEP]],
// CHECK-NEXT: %[[T:.*]] = tfc.convert %[[NEXT]] : tensor<i64> -> tensor<f64>
// CHECK-NEXT: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[LNB1:.*]] = tfc.constant dense<-0.10536051565782628> : tensor<f64>
// CHECK-NEXT: %[[E1:.*]] = tfc.mul %[[T]], %[[LNB1]]
// CHECK-NEXT: %[[B1T:.*]] = tfc.exp %[[E1]]
// CHECK-NEXT: %[[BC1:.*]] = tfc.sub %[[ONE]], %[[B1T]]
// CHECK-NEXT: %[[LNB2:.*]] = tfc.constant dense<-0.0010005003335835344> : tensor<f64>
// CHECK-NEXT: %[[E2:.*]] = tfc.mul %[[T]], %[[LNB2]]
// CHECK-NEXT: %[[B2T:.*]] = tfc.exp %[[E2]]
// CHECK-NEXT: %[[BC2:.*]] = tfc.sub %[[ONE]], %[[B2T]]
// CHECK-NEXT: %[[RHOINF:.*]] = tfc.constant dense<1998.9999999999982> : tensor<f64>
// CHECK-NEXT: %[[TWO:.*]] = tfc.constant dense<2.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[TWOT:.*]] = tfc.mul %[[TWO]], %[[T]]
// CHECK-NEXT: %[[WEIGHTED:.*]] = tfc.mul %[[TWOT]], %[[B2T]]
// CHECK-NEXT: %[[RATIO:.*]] = tfc.div %[[WEIGHTED]], %[[BC2]]
// CHECK-NEXT: %[[RHOT:.*]] = tfc.sub %[[RHOINF]], %[[RATIO]]
// CHECK-NEXT: %[[FIVE:.*]] = tfc.constant dense<5.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[COND:.*]] = tfc.compare gt, %[[RHOT]], %[[FIVE]] : tensor<f64>, tensor<f64>
// CHECK-NEXT: %[[FOUR:.*]] = tfc.constant dense<4.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[RM4:.*]] = tfc.sub %[[RHOT]], %[[FOUR]]
// CHECK-NEXT: %[[RM2:.*]] = tfc.sub %[[RHOT]], %[[TWO]]
// CHECK-NEXT: %[[N0:.*]] = tfc.mul %[[RM4]], %[[RM2]]
// CHECK-NEXT: %[[N:.*]] = tfc.mul %[[N0]], %[[RHOINF]]
// CHECK-NEXT: %[[LIMIT:.*]] = tfc.constant dense<3984014.9999999925> : tensor<f64>
// CHECK-NEXT: %[[D:.*]] = tfc.mul %[[LIMIT]], %[[RHOT]]
// CHECK-NEXT: %[[Q:.*]] = tfc.div %[[N]], %[[D]]
// CHECK-NEXT: %[[RECT64:.*]] = tfc.sqrt %[[Q]] : tensor<f64>
// CHECK-NEXT: %[[RBC2:.*]] = tfc.sqrt %[[BC2]] : tensor<f64>
// CHECK: %[[WM2:.*]] = tfc.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[WV2:.*]] = tfc.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[BC1F:.*]] = tfc.convert %[[BC1]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[MHAT:.*]] = tfc.div %[[WM2]], %[[BC1F]] : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %[[PLAIN:.*]] = tfc.mul %[[MHAT]], %[[LR]] : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %[[ROOT:.*]] = tfc.sqrt %[[WV2]]
// CHECK-NEXT: %[[EPS:.*]] = tfc.constant dense<9.99999993E-9> : tensor<f32>
// CHECK-NEXT: %[[DEN:.*]] = tfc.add %[[ROOT]], %[[EPS]]
// CHECK-NEXT: %[[UNIT:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[RECIP:.*]] = tfc.div %[[UNIT]], %[[DEN]]
// CHECK-NEXT: %[[RBC2F:.*]] = tfc.convert %[[RBC2]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[ALR:.*]] = tfc.mul %[[RECIP]], %[[RBC2F]]
// CHECK-NEXT: %[[RECT:.*]] = tfc.convert %[[RECT64]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[ADAPTED:.*]] = tfc.mul %[[PLAIN]], %[[ALR]]
// CHECK-NEXT: %[[RECTIFIED:.*]] = tfc.mul %[[ADAPTED]], %[[RECT]]
// CHECK-NEXT: %[[DELTA:.*]] = tfc.select %[[COND]], %[[RECTIFIED]], %[[PLAIN]] : tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]]
// CHECK: return %{{.*}}, %[[W2]], %{{.*}}, %[[WM2]], %[[WV2]], %{{.*}}, %{{.*}}, %[[NEXT]] :

// beta2 = 0.9: rho_inf = 19 and (rho_inf - 4)(rho_inf - 2) = 255.
// BETA2-LABEL: func.func @train_step
// BETA2: tfc.constant dense<19.000000000000004> : tensor<f64>
// BETA2: tfc.constant dense<255.00000000000011> : tensor<f64>

// torch's range of the betas.
// BETARANGE: --tfc-build-train-step: beta1 and beta2 must lie in [0, 1)

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
