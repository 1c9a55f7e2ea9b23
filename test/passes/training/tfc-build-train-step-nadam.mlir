// RUN: tfc-opt %s --tfc-build-train-step=optimizer=nadam | FileCheck %s
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=nadam momentum-decay=0.01' | FileCheck %s --check-prefix=DECAY
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=nadam momentum-decay=-1' 2>&1 | FileCheck %s --check-prefix=DECAYRANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=nadam beta2=1' 2>&1 | FileCheck %s --check-prefix=BETARANGE
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=radam momentum-decay=0.01' 2>&1 | FileCheck %s --check-prefix=NOTDECAY
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=nadam nadam-fixed-product=true' | FileCheck %s --check-prefix=FIXED
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adam nadam-fixed-product=true' 2>&1 | FileCheck %s --check-prefix=NOTFIXED

// optimizer=nadam is torch.optim.NAdam built from plain tfc ops: states
// "P.mu_product" (0-d f32, as torch's) and "P.exp_avg", "P.exp_avg_sq" of
// P's type. The momentum mu_t = beta1 (1 - 0.5 * 0.96^(t * 0.004)) and
// mu_{t+1} are f64 (0.96^x = exp(x ln 0.96)); the product reads 1 on the
// first step (the runtime zero-fills state) and is multiplied in f32 by
// f32(mu_t) (and by f32(mu_{t+1}) for the next product); the two step sizes
// lr (1 - mu_t) / (1 - product) and lr mu_{t+1} / (1 - next product) are f64
// from the f32 products and rounded once; P takes the gradient's term, then
// exp_avg's, each over sqrt(exp_avg_sq / (1 - beta2^t)) + eps.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// CHECK-SAME: %[[WP:[^:]*]]: tensor<f32> {tfc.state = "w.mu_product"}, %[[WM:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg"}, %[[WV:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg_sq"},
// CHECK-SAME: %{{[^:]*}}: tensor<f32> {tfc.state = "b.mu_product"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.exp_avg"}, %{{[^:]*}}: tensor<4xf32> {tfc.state = "b.exp_avg_sq"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// CHECK-SAME: tensor<f32> {tfc.update = "w.mu_product"}, tensor<4x8xf32> {tfc.update = "w.exp_avg"}, tensor<4x8xf32> {tfc.update = "w.exp_avg_sq"},
// CHECK: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// CHECK: %[[NEXT:.*]] = tfc.add %[[STEP]],
// CHECK-NEXT: %[[T:.*]] = tfc.convert %[[NEXT]] : tensor<i64> -> tensor<f64>
// CHECK-NEXT: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[LNB2:.*]] = tfc.constant dense<-0.0010005003335835344> : tensor<f64>
// CHECK-NEXT: %[[E2:.*]] = tfc.mul %[[T]], %[[LNB2]]
// CHECK-NEXT: %[[B2T:.*]] = tfc.exp %[[E2]] : tensor<f64>
// CHECK-NEXT: %[[BC2:.*]] = tfc.sub %[[ONE]], %[[B2T]]
// CHECK-NEXT: %[[PSI:.*]] = tfc.constant dense<4.000000e-03> : tensor<f64>
// CHECK-NEXT: %[[TPSI:.*]] = tfc.mul %[[T]], %[[PSI]]
// CHECK-NEXT: %[[LN096:.*]] = tfc.constant dense<-0.040821994520255166> : tensor<f64>
// CHECK-NEXT: %[[EM:.*]] = tfc.mul %[[TPSI]], %[[LN096]]
// CHECK-NEXT: %[[POW:.*]] = tfc.exp %[[EM]] : tensor<f64>
// CHECK-NEXT: %[[HALF:.*]] = tfc.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT: %[[HALVED:.*]] = tfc.mul %[[HALF]], %[[POW]]
// CHECK-NEXT: %[[ONE2:.*]] = tfc.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[REST:.*]] = tfc.sub %[[ONE2]], %[[HALVED]]
// CHECK-NEXT: %[[BETA1:.*]] = tfc.constant dense<9.000000e-01> : tensor<f64>
// CHECK-NEXT: %[[MU:.*]] = tfc.mul %[[BETA1]], %[[REST]]
// CHECK-NEXT: %[[T1:.*]] = tfc.add %[[T]], %[[ONE]]
// CHECK-NEXT: %[[PSI1:.*]] = tfc.constant dense<4.000000e-03> : tensor<f64>
// CHECK-NEXT: %[[T1PSI:.*]] = tfc.mul %[[T1]], %[[PSI1]]
// CHECK-NEXT: %[[LN0961:.*]] = tfc.constant dense<-0.040821994520255166> : tensor<f64>
// CHECK-NEXT: %[[EM1:.*]] = tfc.mul %[[T1PSI]], %[[LN0961]]
// CHECK-NEXT: %[[POW1:.*]] = tfc.exp %[[EM1]] : tensor<f64>
// CHECK-NEXT: %[[HALF1:.*]] = tfc.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT: %[[HALVED1:.*]] = tfc.mul %[[HALF1]], %[[POW1]]
// CHECK-NEXT: %[[ONE3:.*]] = tfc.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[REST1:.*]] = tfc.sub %[[ONE3]], %[[HALVED1]]
// CHECK-NEXT: %[[BETA11:.*]] = tfc.constant dense<9.000000e-01> : tensor<f64>
// CHECK-NEXT: %[[MUNEXT:.*]] = tfc.mul %[[BETA11]], %[[REST1]]
// CHECK-NEXT: %[[MU32:.*]] = tfc.convert %[[MU]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[MUNEXT32:.*]] = tfc.convert %[[MUNEXT]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[C1:.*]] = tfc.constant dense<1> : tensor<i64>
// CHECK-NEXT: %[[FIRST:.*]] = tfc.compare eq, %[[NEXT]], %[[C1]] : tensor<i64>, tensor<i64>
// CHECK-NEXT: %[[UNIT:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[OLDP:.*]] = tfc.select %[[FIRST]], %[[UNIT]], %[[WP]] : tensor<i1>, tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[WP2:.*]] = tfc.mul %[[OLDP]], %[[MU32]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[PMU:.*]] = tfc.mul %[[WP2]], %[[MU32]]
// CHECK-NEXT: %[[PNEXT:.*]] = tfc.mul %[[PMU]], %[[MUNEXT32]]
// CHECK: %[[WM2:.*]] = tfc.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[WV2:.*]] = tfc.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[BC2F:.*]] = tfc.convert %[[BC2]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[VHAT:.*]] = tfc.div %[[WV2]], %[[BC2F]] : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %[[ROOT:.*]] = tfc.sqrt %[[VHAT]]
// CHECK-NEXT: %[[EPS:.*]] = tfc.constant dense<9.99999993E-9> : tensor<f32>
// CHECK-NEXT: %[[DEN:.*]] = tfc.add %[[ROOT]], %[[EPS]]
// CHECK-NEXT: %[[LR64:.*]] = tfc.convert %[[LR]] : tensor<f32> -> tensor<f64>
// CHECK-NEXT: %[[P64:.*]] = tfc.convert %[[WP2]] : tensor<f32> -> tensor<f64>
// CHECK-NEXT: %[[PN64:.*]] = tfc.convert %[[PNEXT]] : tensor<f32> -> tensor<f64>
// CHECK-NEXT: %[[OMMU:.*]] = tfc.sub %[[ONE]], %[[MU]]
// CHECK-NEXT: %[[GS:.*]] = tfc.mul %[[LR64]], %[[OMMU]]
// CHECK-NEXT: %[[OMP:.*]] = tfc.sub %[[ONE]], %[[P64]]
// CHECK-NEXT: %[[GSTEP64:.*]] = tfc.div %[[GS]], %[[OMP]]
// CHECK-NEXT: %[[AS:.*]] = tfc.mul %[[LR64]], %[[MUNEXT]]
// CHECK-NEXT: %[[OMPN:.*]] = tfc.sub %[[ONE]], %[[PN64]]
// CHECK-NEXT: %[[ASTEP64:.*]] = tfc.div %[[AS]], %[[OMPN]]
// CHECK-NEXT: %[[GSTEP:.*]] = tfc.convert %[[GSTEP64]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[ASTEP:.*]] = tfc.convert %[[ASTEP64]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[GT:.*]] = tfc.mul %[[GSTEP]], %[[GW]]
// CHECK-NEXT: %[[GD:.*]] = tfc.div %[[GT]], %[[DEN]]
// CHECK-NEXT: %[[HALFW:.*]] = tfc.sub %[[W]], %[[GD]]
// CHECK-NEXT: %[[AT:.*]] = tfc.mul %[[ASTEP]], %[[WM2]]
// CHECK-NEXT: %[[AD:.*]] = tfc.div %[[AT]], %[[DEN]]
// CHECK-NEXT: %[[W2:.*]] = tfc.sub %[[HALFW]], %[[AD]]
// CHECK: return %{{.*}}, %[[W2]], %{{.*}}, %[[WP2]], %[[WM2]], %[[WV2]], %{{.*}}, %{{.*}}, %{{.*}}, %[[NEXT]] :

// momentum-decay is psi in 0.96^(t psi).
// DECAY-LABEL: func.func @train_step
// DECAY: %[[T:.*]] = tfc.convert %{{.*}} : tensor<i64> -> tensor<f64>
// DECAY: %[[PSI:.*]] = tfc.constant dense<1.000000e-02> : tensor<f64>
// DECAY-NEXT: tfc.mul %[[T]], %[[PSI]]

// nadam-fixed-product=true forms the next product as torch >= 2.0 does,
// mu_product * mu_{t+1}: no second multiplication by mu_t.
// FIXED-LABEL: func.func @train_step
// FIXED: %[[MU32:.*]] = tfc.convert %{{.*}} : tensor<f64> -> tensor<f32>
// FIXED-NEXT: %[[MUNEXT32:.*]] = tfc.convert %{{.*}} : tensor<f64> -> tensor<f32>
// FIXED: %[[P:.*]] = tfc.mul %{{.*}}, %[[MU32]] : tensor<f32>, tensor<f32>
// FIXED-NEXT: %{{.*}} = tfc.mul %[[P]], %[[MUNEXT32]]

// Option ranges, and nadam's options given to another optimizer.
// DECAYRANGE: --tfc-build-train-step: momentum-decay must be non-negative and finite
// BETARANGE: --tfc-build-train-step: beta1 and beta2 must lie in [0, 1)
// NOTDECAY: --tfc-build-train-step: momentum-decay is an option of optimizer=nadam only
// NOTFIXED: --tfc-build-train-step: nadam-fixed-product is an option of optimizer=nadam only

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
