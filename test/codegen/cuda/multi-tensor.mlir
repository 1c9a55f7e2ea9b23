// RUN: tfc-translate --emit-cuda --split-input-file %s | FileCheck %s

// AdamW of one parameter with bf16 gradients: lr, step and the bias
// corrections are computed once per thread before the grid-stride loop; the
// element update follows torch.optim.AdamW's order (decay, moments, denom,
// addcdiv) and writes the parameter and both moments.
// CHECK-LABEL: // ===== kernel adamw: kind multi_tensor, grid [32, 1, 1], block [256, 1, 1]
// CHECK: extern "C" __global__ void __launch_bounds__(256) adamw(const float* __restrict__ in0, const __nv_bfloat16* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const long long* __restrict__ in5, float* __restrict__ out0, float* __restrict__ out1, float* __restrict__ out2)
// CHECK: const float [[LR:v[0-9]+]] = in4[0];
// CHECK: const long long [[STEP:v[0-9]+]] = in5[0];
// CHECK: const double [[LRD:lr[0-9]+]] = (double)[[LR]];
// CHECK: const double [[BC1:bc[0-9]+]] = 1.0 - pow(0.9, (double)[[STEP]]);
// CHECK: const double [[BC2:bc[0-9]+]] = 1.0 - pow(0.999, (double)[[STEP]]);
// CHECK: const float [[NEG:s[0-9]+]] = (float)(-([[LRD]] / [[BC1]]));
// CHECK: const float [[BC2S:s[0-9]+]] = (float)sqrt([[BC2]]);
// CHECK: const float [[DECAY:s[0-9]+]] = (float)(1.0 - [[LRD]] * 0.01);
// CHECK: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 8192; i += (int)gridDim.x * blockDim.x) {
// CHECK-NEXT: const float [[P0:v[0-9]+]] = in0[i];
// CHECK-NEXT: const float [[G:v[0-9]+]] = __bfloat162float(in1[i]);
// CHECK-NEXT: const float [[M0:v[0-9]+]] = in2[i];
// CHECK-NEXT: const float [[V0:v[0-9]+]] = in3[i];
// CHECK-NEXT: const float [[P:v[0-9]+]] = [[P0]] * [[DECAY]];
// CHECK-NEXT: const float [[M:v[0-9]+]] = fmaf([[G]], 0.1f, [[M0]] * 0.9f);
// CHECK-NEXT: const float [[V:v[0-9]+]] = [[V0]] * 0.999f + 0.001f * [[G]] * [[G]];
// CHECK: const float [[D:v[0-9]+]] = sqrtf([[V]]) / [[BC2S]] + 1e-08f;
// CHECK: const float [[P2:v[0-9]+]] = [[P]] + [[NEG]] * [[M]] / [[D]];
// CHECK: out0[i] = [[P2]];
// CHECK: out1[i] = [[M]];
// CHECK: out2[i] = [[V]];
func.func @adamw(%p: tensor<128x64xf32>, %g: tensor<128x64xbf16>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) {
  %r:3 = tfc.fusion multi_tensor (%a = %p : tensor<128x64xf32>, %b = %g : tensor<128x64xbf16>, %c = %m : tensor<128x64xf32>, %d = %v : tensor<128x64xf32>, %e = %lr : tensor<f32>, %f = %step : tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) {
    %0:3 = tfc.adamw %a, %b, %c, %d, %e, %f : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
    tfc.yield %0#0, %0#1, %0#2 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  } {kernel_name = "adamw"}
  return %r#0, %r#1, %r#2 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
}

// -----

// One launch updates two parameters of different shapes: SGD with nesterov
// momentum (the buffer restarts from d_p when step == 1) and plain SGD with
// a bf16 weight copy written by the same kernel. Each shape gets its own
// grid-stride loop; the grid covers the largest tensor.
// CHECK-LABEL: // ===== kernel sgd_pair: kind multi_tensor, grid [8, 1, 1], block [256, 1, 1]
// CHECK: const float [[NEGLR:s[0-9]+]] = (float)(-(double){{v[0-9]+}});
// CHECK: for (int i = {{.*}}; i < 2048;
// CHECK: const float [[D:v[0-9]+]] = fmaf({{v[0-9]+}}, 0.0001f, {{v[0-9]+}});
// CHECK: const float [[B:v[0-9]+]] = {{v[0-9]+}} == 1LL ? [[D]] : fmaf([[D]], 1.0f, {{v[0-9]+}} * 0.9f);
// CHECK: const float [[N:v[0-9]+]] = fmaf([[B]], 0.9f, [[D]]);
// CHECK: const float [[P2:v[0-9]+]] = fmaf([[N]], [[NEGLR]], {{v[0-9]+}});
// CHECK: out0[i] = [[P2]];
// CHECK: out1[i] = [[B]];
// CHECK: for (int i = {{.*}}; i < 64;
// CHECK: const float [[Q:v[0-9]+]] = fmaf({{v[0-9]+}}, {{s[0-9]+}}, {{v[0-9]+}});
// CHECK: out2[i] = [[Q]];
// CHECK: const float [[QB:v[0-9]+]] = tfc_round_bf16((float)([[Q]]));
// CHECK: out3[i] = __float2bfloat16_rn([[QB]]);
func.func @sgd_pair(%p: tensor<64x32xf32>, %g: tensor<64x32xf32>, %buf: tensor<64x32xf32>, %q: tensor<64xf32>, %h: tensor<64xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xbf16>) {
  %r:4 = tfc.fusion multi_tensor (%a = %p : tensor<64x32xf32>, %b = %g : tensor<64x32xf32>, %c = %buf : tensor<64x32xf32>, %d = %q : tensor<64xf32>, %e = %h : tensor<64xf32>, %f = %lr : tensor<f32>, %s = %step : tensor<i64>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xbf16>) {
    %0:2 = tfc.sgd %a, %b, %f, %s momentum_buffer(%c : tensor<64x32xf32>) momentum 9.000000e-01 nesterov weight_decay 1.000000e-04 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
    %1 = tfc.sgd %d, %e, %f, %s : tensor<64xf32>, tensor<64xf32>, tensor<f32>
    %2 = tfc.convert %1 : tensor<64xf32> -> tensor<64xbf16>
    tfc.yield %0#0, %0#1, %1, %2 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xbf16>
  } {kernel_name = "sgd_pair"}
  return %r#0, %r#1, %r#2, %r#3 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xbf16>
}

// -----

// An AdamW kernel that updates in place (tfcrt.kernel in_place [0, 2, 3]): the
// parameter and moment pointers alias their outputs, so neither side of a
// pair is __restrict__; the gradient, lr and step keep it. Each element is
// loaded before its update is stored, by the same thread.
// CHECK-LABEL: // ===== kernel adamw_in_place: kind multi_tensor
// CHECK: adamw_in_place(const float* in0, const float* __restrict__ in1, const float* in2, const float* in3, const float* __restrict__ in4, const long long* __restrict__ in5, float* out0, float* out1, float* out2)
// CHECK: const float [[P:v[0-9]+]] = in0[i];
// CHECK: out0[i] =
tfcrt.kernel @adamw_in_place multi_tensor (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<f32>, tensor<i64>) -> (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>) in_place [0, 2, 3] {
^bb0(%p: tensor<1000xf32>, %g: tensor<1000xf32>, %m: tensor<1000xf32>, %v: tensor<1000xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %p2, %m2, %v2 = tfc.adamw %p, %g, %m, %v, %lr, %t : tensor<1000xf32>, tensor<1000xf32>, tensor<f32>
  tfcrt.yield %p2, %m2, %v2 : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>
}

// -----

// Whole-tensor sums of several gradients in one launch (the global norm's sums
// of squares after unscaling, and an inf/NaN check: a sum of g * 0 is NaN iff a
// gradient is inf or NaN), with the clip coefficient computed from them: each
// thread accumulates its share of every tensor in the tensors' grid-stride
// loops, each block reduces its threads (fixed tree order) and writes one
// partial per sum, and the last block to finish adds the partials in block
// order and computes the scalar outputs. The grid is fixed (partials).
// CHECK-LABEL: // ===== kernel grad_norm: kind multi_tensor, grid [40, 1, 1], block [256, 1, 1]
// CHECK: __device__ float tfc_partial_sum0[40];
// CHECK: __device__ float tfc_partial_sum2[40];
// CHECK: if (gridDim.x != 40) __trap();
// CHECK: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 10240; i += (int)gridDim.x * blockDim.x) {
// CHECK: [[A:tsum[0-9]+]] = [[A]] +
// CHECK: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 300; i += (int)gridDim.x * blockDim.x) {
// CHECK: [[A]] = tfc_block_allreduce([[A]], tfc_sum_op(), tfc_sum_shm0);
// CHECK: if (threadIdx.x == 0) tfc_partial_sum0[blockIdx.x] = [[A]];
// CHECK: if (tfc_last_block && threadIdx.x == 0) {
// CHECK: for (int b = 1; b < 40; ++b) {{total[0-9]+}} = {{total[0-9]+}} + __ldcg(&tfc_partial_sum0[b]);
// CHECK: sqrtf(
// CHECK: out0[0] =
// CHECK: out1[0] =
// CHECK: tfc_blocks_done = 0u;
func.func @grad_norm(%g1: tensor<80x128xf32>, %g2: tensor<300xbf16>, %inv: tensor<f32>) -> (tensor<f32>, tensor<i1>) {
  %r:2 = tfc.fusion multi_tensor (%a = %g1 : tensor<80x128xf32>, %b = %g2 : tensor<300xbf16>, %s = %inv : tensor<f32>) -> (tensor<f32>, tensor<i1>) {
    %u1 = tfc.mul %a, %s : tensor<80x128xf32>, tensor<f32>
    %q1 = tfc.mul %u1, %u1 : tensor<80x128xf32>, tensor<80x128xf32>
    %s1 = tfc.reduce_sum %q1 dims [0, 1] : tensor<80x128xf32> -> tensor<f32>
    %b32 = tfc.convert %b : tensor<300xbf16> -> tensor<300xf32>
    %u2 = tfc.mul %b32, %s : tensor<300xf32>, tensor<f32>
    %q2 = tfc.mul %u2, %u2 : tensor<300xf32>, tensor<300xf32>
    %s2 = tfc.reduce_sum %q2 dims [0] : tensor<300xf32> -> tensor<f32>
    %zero = tfc.constant dense<0.0> : tensor<f32>
    %z1 = tfc.mul %a, %zero : tensor<80x128xf32>, tensor<f32>
    %n1 = tfc.reduce_sum %z1 dims [0, 1] : tensor<80x128xf32> -> tensor<f32>
    %total = tfc.add %s1, %s2 : tensor<f32>, tensor<f32>
    %norm = tfc.sqrt %total : tensor<f32>
    %one = tfc.constant dense<1.0> : tensor<f32>
    %eps = tfc.constant dense<1.0e-6> : tensor<f32>
    %d = tfc.add %norm, %eps : tensor<f32>, tensor<f32>
    %c = tfc.div %one, %d : tensor<f32>, tensor<f32>
    %coef = tfc.minimum %c, %one : tensor<f32>, tensor<f32>
    %bad = tfc.compare ne, %n1, %zero : tensor<f32>, tensor<f32>
    tfc.yield %coef, %bad : tensor<f32>, tensor<i1>
  } {kernel_name = "grad_norm"}
  return %r#0, %r#1 : tensor<f32>, tensor<i1>
}
