// RUN: tfc-opt %s --split-input-file --tfc-build-train-step | FileCheck %s --check-prefix=ADAMW
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=sgd momentum=0.9 nesterov=true weight-decay=0.01' | FileCheck %s --check-prefix=SGD
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adam max-grad-norm=1.5' | FileCheck %s --check-prefix=CLIP
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=loss-scaling=true init-scale=1024 growth-interval=7 growth-factor=4 backoff-factor=0.25' | FileCheck %s --check-prefix=SCALE
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=decay-all=true' | FileCheck %s --check-prefix=DECAYALL
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=loss-scaling=true init-scale=1024 min-scale=16 max-scale=4096' | FileCheck %s --check-prefix=BOUNDS
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=schedule=warmup-cosine' | FileCheck %s --check-prefix=COSINE
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adafactor' | FileCheck %s --check-prefix=ADAFACTOR
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adafactor weight-decay=0.1 beta2-decay=-0.5 eps1=1e-6 eps2=1e-2 clip-threshold=2' | FileCheck %s --check-prefix=ADAOPTS
// RUN: tfc-opt %s --split-input-file '--tfc-build-train-step=accumulate-steps=4 loss-scaling=true max-grad-norm=1' | FileCheck %s --check-prefix=ACCUM

// A linear layer with a squared-error loss; the unnamed target becomes input
// "arg3". Each RUN line shows one configuration of the same model.

// AdamW (the default): two moments per parameter, step + 1 fed to every
// update, the loss first, then one tfc.update result per param and state.
// ADAMW-LABEL: func.func @train_step
// ADAMW-SAME: (%[[W:.*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:.*]]: tensor<4xf32> {tfc.param = "b"},
// ADAMW-SAME: %[[WM:.*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg"}, %[[WV:.*]]: tensor<4x8xf32> {tfc.state = "w.exp_avg_sq"},
// ADAMW-SAME: %[[BM:.*]]: tensor<4xf32> {tfc.state = "b.exp_avg"}, %[[BV:.*]]: tensor<4xf32> {tfc.state = "b.exp_avg_sq"},
// ADAMW-SAME: %[[STEP:.*]]: tensor<i64> {tfc.state = "step"}, %[[LR:.*]]: tensor<f32> {tfc.input = "lr"},
// ADAMW-SAME: %[[X:.*]]: tensor<2x8xf32> {tfc.input = "x"}, %[[Y:.*]]: tensor<2x4xf32> {tfc.input = "arg3"})
// ADAMW-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.update = "w"}, tensor<4xf32> {tfc.update = "b"},
// ADAMW-SAME: tensor<4x8xf32> {tfc.update = "w.exp_avg"}, tensor<4x8xf32> {tfc.update = "w.exp_avg_sq"},
// ADAMW-SAME: tensor<4xf32> {tfc.update = "b.exp_avg"}, tensor<4xf32> {tfc.update = "b.exp_avg_sq"}, tensor<i64> {tfc.update = "step"})
// ADAMW: %[[LOSS:.*]] = tfc.reduce_mean
// ADAMW: %[[GB:.*]] = tfc.reduce_sum %{{.*}} dims [0]
// ADAMW: %[[GW:.*]] = tfc.matmul %{{.*}}, %[[X]] transpose_a
// ADAMW: %[[ONE:.*]] = tfc.constant dense<1> : tensor<i64>
// ADAMW: %[[NEXT:.*]] = tfc.add %[[STEP]], %[[ONE]] : tensor<i64>, tensor<i64>
// ADAMW: %[[W2:.*]], %[[WM2:.*]], %[[WV2:.*]] = tfc.adamw %[[W]], %[[GW]], %[[WM]], %[[WV]], %[[LR]], %[[NEXT]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>
// ADAMW: %[[B2:.*]], %[[BM2:.*]], %[[BV2:.*]] = tfc.adamw %[[B]], %[[GB]], %[[BM]], %[[BV]], %[[LR]], %[[NEXT]] weight_decay 0.000000e+00 : tensor<4xf32>, tensor<4xf32>, tensor<f32>
// ADAMW: return %[[LOSS]], %[[W2]], %[[B2]], %[[WM2]], %[[WV2]], %[[BM2]], %[[BV2]], %[[NEXT]] :

// decay-all=true puts every parameter in one group: the bias is decayed too
// (AdamW's default 0.01 prints as nothing).
// DECAYALL-LABEL: func.func @train_step
// DECAYALL: tfc.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>
// DECAYALL: tfc.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>

// SGD with momentum: one buffer per parameter; the options become the op's
// attributes (dampening 0, torch's rule for nesterov); the bias (rank 1) is in
// the parameter group without weight decay.
// SGD-LABEL: func.func @train_step
// SGD-SAME: %[[WB:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.momentum_buffer"}, %[[BB:[^:]*]]: tensor<4xf32> {tfc.state = "b.momentum_buffer"}, %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// SGD-SAME: tensor<4x8xf32> {tfc.update = "w.momentum_buffer"}, tensor<4xf32> {tfc.update = "b.momentum_buffer"}, tensor<i64> {tfc.update = "step"})
// SGD: tfc.sgd %{{.*}}, %{{.*}}, %[[LR]], %{{.*}} momentum_buffer(%[[WB]] : tensor<4x8xf32>) momentum 9.000000e-01 nesterov weight_decay 1.000000e-02 : tensor<4x8xf32>
// SGD: tfc.sgd %{{.*}}, %{{.*}}, %[[LR]], %{{.*}} momentum_buffer(%[[BB]] : tensor<4xf32>) momentum 9.000000e-01 nesterov : tensor<4xf32>
// SGD-NOT: tfc.select

// Clipping: one f32 norm over both gradients, coef = max / (norm + 1e-6)
// clamped to 1, every gradient scaled by it before the optimizer.
// CLIP-LABEL: func.func @train_step
// CLIP: %[[GB:.*]] = tfc.reduce_sum %{{.*}} dims [0] : tensor<2x4xf32> -> tensor<4xf32>
// CLIP: %[[GW:.*]] = tfc.matmul
// CLIP: %[[SQW:.*]] = tfc.mul %[[GW]], %[[GW]] : tensor<4x8xf32>, tensor<4x8xf32>
// CLIP: %[[SW:.*]] = tfc.reduce_sum %[[SQW]] dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
// CLIP: %[[SQB:.*]] = tfc.mul %[[GB]], %[[GB]] : tensor<4xf32>, tensor<4xf32>
// CLIP: %[[SB:.*]] = tfc.reduce_sum %[[SQB]] dims [0] : tensor<4xf32> -> tensor<f32>
// CLIP: %[[TOTAL:.*]] = tfc.add %{{.*}}, %[[SB]]
// CLIP: %[[NORM:.*]] = tfc.sqrt %[[TOTAL]] : tensor<f32>
// CLIP: %[[EPS:.*]] = tfc.constant dense<9.99999997E-7> : tensor<f32>
// CLIP: %[[DEN:.*]] = tfc.add %[[NORM]], %[[EPS]]
// CLIP: %[[MAX:.*]] = tfc.constant dense<1.500000e+00> : tensor<f32>
// CLIP: %[[COEF:.*]] = tfc.div %[[MAX]], %[[DEN]]
// CLIP: %[[CLAMP:.*]] = tfc.minimum %[[COEF]], %{{.*}} : tensor<f32>, tensor<f32>
// CLIP: %[[CW:.*]] = tfc.mul %[[GW]], %[[CLAMP]] : tensor<4x8xf32>, tensor<f32>
// CLIP: %[[CB:.*]] = tfc.mul %[[GB]], %[[CLAMP]] : tensor<4xf32>, tensor<f32>
// CLIP: tfc.adam %{{.*}}, %[[CW]],
// CLIP: tfc.adam %{{.*}}, %[[CB]],

// Loss scaling: a zero (fresh) scale reads as init-scale; the scaled loss is
// differentiated and the plain loss returned; the gradients are checked
// (x * 0 summed: NaN iff some x is inf/NaN) and unscaled; on overflow every
// param and state keeps its value and the scale backs off, otherwise the
// tracker counts to growth-interval and the scale grows.
// SCALE-LABEL: func.func @train_step
// SCALE-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[SCALE:[^:]*]]: tensor<f32> {tfc.state = "loss_scale"}, %[[TRACK:[^:]*]]: tensor<i64> {tfc.state = "growth_tracker"}, %{{[^:]*}}: tensor<f32> {tfc.input = "lr"}
// SCALE-SAME: tensor<i64> {tfc.update = "step"}, tensor<f32> {tfc.update = "loss_scale"}, tensor<i64> {tfc.update = "growth_tracker"}, tensor<i1> {tfc.output = "found_inf"})
// SCALE: %[[LOSS:.*]] = tfc.reduce_mean
// SCALE: %[[SEED:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// SCALE: %[[ZERO:.*]] = tfc.constant dense<0.000000e+00> : tensor<f32>
// SCALE: %[[INIT:.*]] = tfc.constant dense<1.024000e+03> : tensor<f32>
// SCALE: %[[FRESH:.*]] = tfc.compare eq, %[[SCALE]], %[[ZERO]]
// SCALE: %[[S:.*]] = tfc.select %[[FRESH]], %[[INIT]], %[[SCALE]]
// SCALE: tfc.mul %[[SEED]], %[[S]] : tensor<f32>, tensor<f32>
// SCALE: %[[INV:.*]] = tfc.div %{{.*}}, %[[S]] : tensor<f32>, tensor<f32>
// SCALE: %[[PROBE:.*]] = tfc.mul %[[GW:.*]], %{{.*}} : tensor<4x8xf32>, tensor<f32>
// SCALE: tfc.reduce_sum %[[PROBE]] dims [0, 1]
// SCALE: %[[UW:.*]] = tfc.mul %[[GW]], %[[INV]] : tensor<4x8xf32>, tensor<f32>
// SCALE: %[[FOUND:.*]] = tfc.compare ne,
// SCALE: %[[NEXT:.*]] = tfc.add %[[STEP]],
// SCALE: %[[W2:.*]], %{{.*}}, %{{.*}} = tfc.adamw %{{.*}}, %[[UW]], %{{.*}}, %{{.*}}, %{{.*}}, %[[NEXT]]
// SCALE: %[[KEEPW:.*]] = tfc.select %[[FOUND]], %{{.*}}, %[[W2]] : tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32>
// SCALE: %[[KEEPSTEP:.*]] = tfc.select %[[FOUND]], %[[STEP]], %[[NEXT]] : tensor<i1>, tensor<i64>, tensor<i64>
// SCALE: %[[COUNTED:.*]] = tfc.add %[[TRACK]],
// SCALE: %[[INTERVAL:.*]] = tfc.constant dense<7> : tensor<i64>
// SCALE: %[[GROW:.*]] = tfc.compare eq, %[[COUNTED]], %[[INTERVAL]]
// SCALE: %[[FOUR:.*]] = tfc.constant dense<4.000000e+00> : tensor<f32>
// SCALE: %[[GROWN:.*]] = tfc.mul %[[S]], %[[FOUR]]
// SCALE: %[[CLEAN:.*]] = tfc.select %[[GROW]], %[[GROWN]], %[[S]]
// SCALE: %[[CLEANT:.*]] = tfc.select %[[GROW]], %{{.*}}, %[[COUNTED]]
// SCALE: %[[QUARTER:.*]] = tfc.constant dense<2.500000e-01> : tensor<f32>
// SCALE: %[[BACK:.*]] = tfc.mul %[[S]], %[[QUARTER]]
// SCALE: %[[NEWS:.*]] = tfc.select %[[FOUND]], %[[BACK]], %[[CLEAN]]
// SCALE: %[[NEWT:.*]] = tfc.select %[[FOUND]], %{{.*}}, %[[CLEANT]]

// schedule=warmup-cosine: the rate comes from the step counter (the steps
// taken before this one) and four runtime inputs; the optimizer reads it and
// the step reports it as applied_lr.
// COSINE-LABEL: func.func @train_step
// COSINE-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}, %[[MIN:[^:]*]]: tensor<f32> {tfc.input = "min_lr"}, %[[WARM:[^:]*]]: tensor<i64> {tfc.input = "warmup_steps"}, %[[TOTAL:[^:]*]]: tensor<i64> {tfc.input = "total_steps"}
// COSINE-SAME: tensor<i64> {tfc.update = "step"}, tensor<f32> {tfc.output = "applied_lr"})
// COSINE: %[[S:.*]] = tfc.convert %[[STEP]] : tensor<i64> -> tensor<f32>
// COSINE: tfc.sub %[[TOTAL]], %[[WARM]]
// COSINE: %[[C:.*]] = tfc.cos
// COSINE: %[[WARMING:.*]] = tfc.compare lt, %[[STEP]], %[[WARM]]
// COSINE: %[[RATE:.*]] = tfc.select %[[WARMING]]
// COSINE: tfc.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RATE]],
// COSINE: return {{.*}}, %[[RATE]] :

// min-scale / max-scale clamp the next scale after GradScaler's rule.
// BOUNDS-LABEL: func.func @train_step
// BOUNDS: %[[MIN:.*]] = tfc.constant dense<1.600000e+01> : tensor<f32>
// BOUNDS-NEXT: %[[FLOOR:.*]] = tfc.maximum %{{.*}}, %[[MIN]]
// BOUNDS-NEXT: %[[MAX:.*]] = tfc.constant dense<4.096000e+03> : tensor<f32>
// BOUNDS-NEXT: %[[CLAMPED:.*]] = tfc.minimum %[[FLOOR]], %[[MAX]]
// BOUNDS: return {{.*}}, %[[CLAMPED]], %{{.*}}, %{{.*}} :
// SCALE: return %[[LOSS]], %[[KEEPW]], {{.*}}, %[[KEEPSTEP]], %[[NEWS]], %[[NEWT]], %[[FOUND]] :
// Adafactor: f32 row/column factors for the matrix, a full variance for the
// vector; the t-dependent scalars come from the runtime step (1 - beta2_t =
// t^-0.8, rho = min(lr, rsqrt(t))); alpha = max(eps2, RMS(w)) * rho; the
// factors are lerped toward the row/column means of g^2; V = R * C / max(
// mean(R), eps1) with eps1 = f32's epsilon; U = g * rsqrt(max(V, eps1^2));
// w -= alpha / max(1, RMS(U)) * U. No weight decay by default.
// ADAFACTOR-LABEL: func.func @train_step
// ADAFACTOR-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// ADAFACTOR-SAME: %[[R:[^:]*]]: tensor<4x1xf32> {tfc.state = "w.row_var"}, %[[C:[^:]*]]: tensor<1x8xf32> {tfc.state = "w.col_var"},
// ADAFACTOR-SAME: %[[V:[^:]*]]: tensor<4xf32> {tfc.state = "b.variance"}, %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// ADAFACTOR-SAME: tensor<4x1xf32> {tfc.update = "w.row_var"}, tensor<1x8xf32> {tfc.update = "w.col_var"}, tensor<4xf32> {tfc.update = "b.variance"}, tensor<i64> {tfc.update = "step"})
// ADAFACTOR: %[[GW:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_a
// ADAFACTOR: %[[NEXT:.*]] = tfc.add %[[STEP]],
// ADAFACTOR: %[[T:.*]] = tfc.convert %[[NEXT]] : tensor<i64> -> tensor<f32>
// ADAFACTOR: %[[WT:.*]] = tfc.pow %[[T]], -8.000000e-01 : tensor<f32>
// ADAFACTOR: %[[INVSQRT:.*]] = tfc.rsqrt %[[T]] : tensor<f32>
// ADAFACTOR: %[[RHO:.*]] = tfc.minimum %[[LR]], %[[INVSQRT]]
// ADAFACTOR: %[[WSQ:.*]] = tfc.mul %[[W]], %[[W]]
// ADAFACTOR: %[[WSUM:.*]] = tfc.reduce_sum %[[WSQ]] dims [0, 1]
// ADAFACTOR: %[[WMS:.*]] = tfc.div %[[WSUM]], %{{.*}}
// ADAFACTOR: %[[WRMS:.*]] = tfc.sqrt %[[WMS]]
// ADAFACTOR: %[[EPS2:.*]] = tfc.constant dense<1.000000e-03> : tensor<f32>
// ADAFACTOR: %[[FLOOR:.*]] = tfc.maximum %[[EPS2]], %[[WRMS]]
// ADAFACTOR: %[[ALPHA:.*]] = tfc.mul %[[FLOOR]], %[[RHO]]
// ADAFACTOR: %[[G2:.*]] = tfc.mul %[[GW]], %[[GW]]
// ADAFACTOR: %[[ROWMEAN:.*]] = tfc.reduce_mean %[[G2]] dims [-1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
// ADAFACTOR: %[[RD:.*]] = tfc.sub %[[ROWMEAN]], %[[R]]
// ADAFACTOR: %[[RS:.*]] = tfc.mul %[[WT]], %[[RD]]
// ADAFACTOR: %[[R2:.*]] = tfc.add %[[R]], %[[RS]] : tensor<4x1xf32>
// ADAFACTOR: %[[COLMEAN:.*]] = tfc.reduce_mean %[[G2]] dims [-2] keepdim : tensor<4x8xf32> -> tensor<1x8xf32>
// ADAFACTOR: %[[C2:.*]] = tfc.add %[[C]], %{{.*}} : tensor<1x8xf32>
// ADAFACTOR: %[[RMEAN:.*]] = tfc.reduce_mean %[[R2]] dims [-2] keepdim : tensor<4x1xf32> -> tensor<1x1xf32>
// ADAFACTOR: %[[OUTER:.*]] = tfc.mul %[[R2]], %[[C2]] : tensor<4x1xf32>, tensor<1x8xf32>
// ADAFACTOR: %[[EPS1:.*]] = tfc.constant dense<1.1920929E-7> : tensor<f32>
// ADAFACTOR: %[[DEN:.*]] = tfc.maximum %[[RMEAN]], %[[EPS1]]
// ADAFACTOR: %[[VAR:.*]] = tfc.div %[[OUTER]], %[[DEN]] : tensor<4x8xf32>, tensor<1x1xf32>
// ADAFACTOR: %[[EPS1SQ:.*]] = tfc.constant dense<1.42108547E-14> : tensor<f32>
// ADAFACTOR: %[[VF:.*]] = tfc.maximum %[[VAR]], %[[EPS1SQ]]
// ADAFACTOR: %[[RS2:.*]] = tfc.rsqrt %[[VF]] : tensor<4x8xf32>
// ADAFACTOR: %[[U:.*]] = tfc.mul %[[GW]], %[[RS2]]
// ADAFACTOR: %[[USQ:.*]] = tfc.mul %[[U]], %[[U]]
// ADAFACTOR: %[[USUM:.*]] = tfc.reduce_sum %[[USQ]] dims [0, 1]
// ADAFACTOR: %[[UMS:.*]] = tfc.div %[[USUM]], %{{.*}}
// ADAFACTOR: %[[URMS:.*]] = tfc.sqrt %[[UMS]]
// ADAFACTOR: %[[UCLAMP:.*]] = tfc.maximum %{{.*}}, %[[URMS]]
// ADAFACTOR: %[[SIZE:.*]] = tfc.div %[[ALPHA]], %[[UCLAMP]]
// ADAFACTOR: %[[DELTA:.*]] = tfc.mul %[[SIZE]], %[[U]]
// ADAFACTOR: %[[W2:.*]] = tfc.sub %[[W]], %[[DELTA]] : tensor<4x8xf32>, tensor<4x8xf32>
// ADAFACTOR: %[[VD:.*]] = tfc.sub %{{.*}}, %[[V]] : tensor<4xf32>, tensor<4xf32>
// ADAFACTOR: %[[V2:.*]] = tfc.add %[[V]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// ADAFACTOR: tfc.maximum %[[V2]], %{{.*}} : tensor<4xf32>, tensor<f32>
// ADAFACTOR: %[[B2:.*]] = tfc.sub %[[B]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// ADAFACTOR: return %{{.*}}, %[[W2]], %[[B2]], %[[R2]], %[[C2]], %[[V2]], %[[NEXT]] :

// Adafactor's options: beta2-decay is the pow exponent, eps1/eps2 the floors,
// clip-threshold divides RMS(U); weight-decay=0.1 decays the matrix only
// (w * (1 - lr * 0.1), after alpha read the undecayed w).
// ADAOPTS-LABEL: func.func @train_step
// ADAOPTS-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}
// ADAOPTS-SAME: %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// ADAOPTS: tfc.pow %{{.*}}, -5.000000e-01 : tensor<f32>
// ADAOPTS: tfc.reduce_sum %{{.*}} dims [0, 1] : tensor<4x8xf32>
// ADAOPTS: tfc.constant dense<0.00999999977> : tensor<f32>
// ADAOPTS: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// ADAOPTS: %[[WD:.*]] = tfc.constant dense<1.000000e-01> : tensor<f32>
// ADAOPTS: %[[DECAY:.*]] = tfc.mul %[[LR]], %[[WD]]
// ADAOPTS: %[[KEEP:.*]] = tfc.sub %[[ONE]], %[[DECAY]]
// ADAOPTS: %[[WDEC:.*]] = tfc.mul %[[W]], %[[KEEP]] : tensor<4x8xf32>, tensor<f32>
// ADAOPTS: tfc.constant dense<9.99999997E-7> : tensor<f32>
// ADAOPTS: tfc.constant dense<9.99999996E-13> : tensor<f32>
// ADAOPTS: %[[D:.*]] = tfc.constant dense<2.000000e+00> : tensor<f32>
// ADAOPTS: tfc.div %{{.*}}, %[[D]] : tensor<f32>, tensor<f32>
// ADAOPTS: tfc.sub %[[WDEC]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// ADAOPTS-NOT: tfc.constant dense<1.000000e-01>
// ADAOPTS: return


// accumulate-steps=4 builds @accumulate_step and @apply_step instead of
// @train_step. accumulate_step differentiates (loss / 4) * scale (its
// backward starts from (1 * scale) / 4), adds the gradients to the f32
// accumulators and returns the plain loss; it reads loss_scale but does not
// update it.
// ACCUM-NOT: func.func @train_step
// ACCUM-LABEL: func.func @accumulate_step
// ACCUM-SAME: (%[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {tfc.param = "b"},
// ACCUM-SAME: %[[WA:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.grad_accum"}, %[[BA:[^:]*]]: tensor<4xf32> {tfc.state = "b.grad_accum"},
// ACCUM-SAME: %[[LS:[^:]*]]: tensor<f32> {tfc.state = "loss_scale"}, %[[X:[^:]*]]: tensor<2x8xf32> {tfc.input = "x"}, %{{[^:]*}}: tensor<2x4xf32> {tfc.input = "arg3"})
// ACCUM-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.update = "w.grad_accum"}, tensor<4xf32> {tfc.update = "b.grad_accum"})
// ACCUM: %[[LOSS:.*]] = tfc.reduce_mean
// ACCUM: %[[SEED:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// ACCUM: %[[S:.*]] = tfc.select %{{.*}}, %{{.*}}, %[[LS]]
// ACCUM: %[[K:.*]] = tfc.constant dense<4.000000e+00> : tensor<f32>
// ACCUM: %[[SCALED:.*]] = tfc.mul %[[SEED]], %[[S]]
// ACCUM: tfc.div %[[SCALED]], %[[K]]
// ACCUM: %[[GB:.*]] = tfc.reduce_sum %{{.*}} dims [0] : tensor<2x4xf32> -> tensor<4xf32>
// ACCUM: %[[GW:.*]] = tfc.matmul %{{.*}}, %[[X]] transpose_a
// ACCUM: %[[WA2:.*]] = tfc.add %[[WA]], %[[GW]] : tensor<4x8xf32>, tensor<4x8xf32>
// ACCUM: %[[BA2:.*]] = tfc.add %[[BA]], %[[GB]] : tensor<4xf32>, tensor<4xf32>
// ACCUM: return %[[LOSS]], %[[WA2]], %[[BA2]] :

// apply_step is @train_step's tail on the accumulators (unscale and check,
// clip, optimizer, skipped-step selects, scaler update), then zeroes them
// unconditionally; no loss. The accumulators follow the parameters, as in
// accumulate_step.
// ACCUM-LABEL: func.func @apply_step
// ACCUM-SAME: (%[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}, %{{[^:]*}}: tensor<4xf32> {tfc.param = "b"},
// ACCUM-SAME: %[[WA:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.grad_accum"}, %[[BA:[^:]*]]: tensor<4xf32> {tfc.state = "b.grad_accum"},
// ACCUM-SAME: tensor<4x8xf32> {tfc.state = "w.exp_avg"}, %{{.*}}: tensor<4x8xf32> {tfc.state = "w.exp_avg_sq"},
// ACCUM-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LS:[^:]*]]: tensor<f32> {tfc.state = "loss_scale"}, %{{[^:]*}}: tensor<i64> {tfc.state = "growth_tracker"},
// ACCUM-SAME: %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"})
// ACCUM-SAME: -> (tensor<4x8xf32> {tfc.update = "w"},
// ACCUM-SAME: tensor<i64> {tfc.update = "step"}, tensor<f32> {tfc.update = "loss_scale"}, tensor<i64> {tfc.update = "growth_tracker"},
// ACCUM-SAME: tensor<4x8xf32> {tfc.update = "w.grad_accum"}, tensor<4xf32> {tfc.update = "b.grad_accum"}, tensor<i1> {tfc.output = "found_inf"})
// ACCUM: %[[S:.*]] = tfc.select %{{.*}}, %{{.*}}, %[[LS]]
// ACCUM: %[[ZW:.*]] = tfc.constant dense<0.000000e+00> : tensor<4x8xf32>
// ACCUM: %[[ZB:.*]] = tfc.constant dense<0.000000e+00> : tensor<4xf32>
// ACCUM: %[[INV:.*]] = tfc.div %{{.*}}, %[[S]]
// ACCUM: %[[UW:.*]] = tfc.mul %[[WA]], %[[INV]] : tensor<4x8xf32>, tensor<f32>
// ACCUM: %[[UB:.*]] = tfc.mul %[[BA]], %[[INV]] : tensor<4xf32>, tensor<f32>
// ACCUM: %[[FOUND:.*]] = tfc.compare ne,
// ACCUM: tfc.sqrt
// ACCUM: %[[CLAMP:.*]] = tfc.minimum
// ACCUM: %[[CW:.*]] = tfc.mul %[[UW]], %[[CLAMP]]
// ACCUM: %[[NEXT:.*]] = tfc.add %[[STEP]],
// ACCUM: %[[W2:.*]], %{{.*}}, %{{.*}} = tfc.adamw %[[W]], %[[CW]], %{{.*}}, %{{.*}}, %[[LR]], %[[NEXT]]
// ACCUM: %[[KEEPW:.*]] = tfc.select %[[FOUND]], %[[W]], %[[W2]]
// ACCUM: %[[KEEPSTEP:.*]] = tfc.select %[[FOUND]], %[[STEP]], %[[NEXT]]
// ACCUM: %[[NEWS:.*]] = tfc.select %[[FOUND]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<f32>, tensor<f32>
// ACCUM: return %[[KEEPW]], {{.*}}, %[[KEEPSTEP]], %[[NEWS]], %{{.*}}, %[[ZW]], %[[ZB]], %[[FOUND]] :
func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}, %y: tensor<2x4xf32>) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %d = tfc.sub %z, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %sq = tfc.mul %d, %d : tensor<2x4xf32>, tensor<2x4xf32>
  %s = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Adafactor on a batch of matrices (rank 3): factored over the last two
// dims, the leading one kept (row_var 3x4x1, col_var 3x1x8, row mean 3x1x1).
// ADAFACTOR-LABEL: func.func @train_step
// ADAFACTOR-SAME: tensor<3x4x8xf32> {tfc.param = "w"}, %{{[^:]*}}: tensor<3x4x1xf32> {tfc.state = "w.row_var"}, %{{[^:]*}}: tensor<3x1x8xf32> {tfc.state = "w.col_var"}
// ADAFACTOR: tfc.reduce_mean %{{.*}} dims [-1] keepdim : tensor<3x4x8xf32> -> tensor<3x4x1xf32>
// ADAFACTOR: tfc.reduce_mean %{{.*}} dims [-2] keepdim : tensor<3x4x8xf32> -> tensor<3x1x8xf32>
// ADAFACTOR: tfc.reduce_mean %{{.*}} dims [-2] keepdim : tensor<3x4x1xf32> -> tensor<3x1x1xf32>
// ADAFACTOR: tfc.mul %{{.*}}, %{{.*}} : tensor<3x4x1xf32>, tensor<3x1x8xf32>
func.func @loss(%w: tensor<3x4x8xf32> {tfc.param = "w"}, %x: tensor<3x4x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %p = tfc.mul %w, %x : tensor<3x4x8xf32>, tensor<3x4x8xf32>
  %s = tfc.reduce_sum %p dims [0, 1, 2] : tensor<3x4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
