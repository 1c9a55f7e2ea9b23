// RUN: tfc-translate --emit-cuda %s | FileCheck %s

// Backward ops in kernels (TfcGradOps.td); test/codegen/cuda/CMakeLists.txt
// also compiles every kernel here with NVRTC for sm_80 and sm_90.

// gelu_grad and silu_grad are pointwise: dy * f'(x) per element, fused
// with each other; the derivatives are common/ScalarOps.h's, as on the host.
// CHECK-LABEL: // ===== kernel activation_grads: kind pointwise
// CHECK: = tfc::scalar::geluErfGrad<tfc_math, float>(
// CHECK: = tfc::scalar::geluTanhGrad<tfc_math, float>(
// CHECK: = tfc::scalar::siluGrad<tfc_math, float>(
func.func @activation_grads(%dy: tensor<16x64x512xf32>, %x: tensor<16x64x512xf32>) -> tensor<16x64x512xf32> {
  %r = tfc.fusion pointwise (%a = %dy : tensor<16x64x512xf32>, %b = %x : tensor<16x64x512xf32>) -> tensor<16x64x512xf32> {
    %0 = tfc.gelu_grad %a, %b : tensor<16x64x512xf32>
    %1 = tfc.gelu_grad %0, %b approximate tanh : tensor<16x64x512xf32>
    %2 = tfc.silu_grad %1, %b : tensor<16x64x512xf32>
    tfc.yield %2 : tensor<16x64x512xf32>
  } {kernel_name = "activation_grads"}
  return %r : tensor<16x64x512xf32>
}

// -----

// softmax_grad: one row sum of dy * y per warp, then y * (dy - s).
// CHECK-LABEL: // ===== kernel softmax_grad: kind row_reduction
// CHECK: tfc_warp_allreduce
func.func @softmax_grad(%dy: tensor<16x4x64x64xf32>, %y: tensor<16x4x64x64xf32>) -> tensor<16x4x64x64xf32> {
  %r = tfc.fusion row_reduction (%a = %dy : tensor<16x4x64x64xf32>, %b = %y : tensor<16x4x64x64xf32>) -> tensor<16x4x64x64xf32> {
    %0 = tfc.softmax_grad %a, %b dim -1 : tensor<16x4x64x64xf32>
    tfc.yield %0 : tensor<16x4x64x64xf32>
  } {kernel_name = "softmax_grad"}
  return %r : tensor<16x4x64x64xf32>
}

// -----

// log_softmax_grad over rows of 4096 bf16 values: one block per row.
// CHECK-LABEL: // ===== kernel log_softmax_grad: kind row_reduction
// CHECK: tfc_block_allreduce
func.func @log_softmax_grad(%dy: tensor<8x4096xbf16>, %y: tensor<8x4096xbf16>) -> tensor<8x4096xbf16> {
  %r = tfc.fusion row_reduction (%a = %dy : tensor<8x4096xbf16>, %b = %y : tensor<8x4096xbf16>) -> tensor<8x4096xbf16> {
    %0 = tfc.log_softmax_grad %a, %b dim -1 : tensor<8x4096xbf16>
    tfc.yield %0 : tensor<8x4096xbf16>
  } {kernel_name = "log_softmax_grad"}
  return %r : tensor<8x4096xbf16>
}

// -----

// layer_norm_grad_input: two row means (of g and g * xhat) from the stored
// statistics; bf16 activations with an f32 weight.
// CHECK-LABEL: // ===== kernel layer_norm_grad_input: kind row_reduction
func.func @layer_norm_grad_input(%dy: tensor<16x64x128xbf16>, %x: tensor<16x64x128xbf16>, %m: tensor<16x64x1xf32>, %s: tensor<16x64x1xf32>, %w: tensor<128xf32>) -> tensor<16x64x128xbf16> {
  %r = tfc.fusion row_reduction (%a = %dy : tensor<16x64x128xbf16>, %b = %x : tensor<16x64x128xbf16>, %c = %m : tensor<16x64x1xf32>, %d = %s : tensor<16x64x1xf32>, %e = %w : tensor<128xf32>) -> tensor<16x64x128xbf16> {
    %0 = tfc.layer_norm_grad_input %a, %b, %c, %d weight %e : (tensor<16x64x128xbf16>, tensor<16x64x128xbf16>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> tensor<16x64x128xbf16>
    tfc.yield %0 : tensor<16x64x128xbf16>
  } {kernel_name = "layer_norm_grad_input"}
  return %r : tensor<16x64x128xbf16>
}

// -----

// rms_norm_grad_input without a weight, in f64.
// CHECK-LABEL: // ===== kernel rms_norm_grad_input: kind row_reduction
func.func @rms_norm_grad_input(%dy: tensor<32x96xf64>, %x: tensor<32x96xf64>, %s: tensor<32x1xf64>) -> tensor<32x96xf64> {
  %r = tfc.fusion row_reduction (%a = %dy : tensor<32x96xf64>, %b = %x : tensor<32x96xf64>, %c = %s : tensor<32x1xf64>) -> tensor<32x96xf64> {
    %0 = tfc.rms_norm_grad_input %a, %b, %c : (tensor<32x96xf64>, tensor<32x96xf64>, tensor<32x1xf64>) -> tensor<32x96xf64>
    tfc.yield %0 : tensor<32x96xf64>
  } {kernel_name = "rms_norm_grad_input"}
  return %r : tensor<32x96xf64>
}

// -----

// cross_entropy_grad (mean): every warp counts the rows not ignored before
// the row loop, then p - onehot scaled by dloss / count per row.
// CHECK-LABEL: // ===== kernel cross_entropy_grad: kind row_reduction
// CHECK: count
func.func @cross_entropy_grad(%dl: tensor<f32>, %x: tensor<1024x256xf32>, %y: tensor<1024xi64>) -> tensor<1024x256xf32> {
  %r = tfc.fusion row_reduction (%a = %dl : tensor<f32>, %b = %x : tensor<1024x256xf32>, %c = %y : tensor<1024xi64>) -> tensor<1024x256xf32> {
    %0 = tfc.cross_entropy_grad %a, %b, %c : tensor<f32>, tensor<1024x256xf32>, tensor<1024xi64> -> tensor<1024x256xf32>
    tfc.yield %0 : tensor<1024x256xf32>
  } {kernel_name = "cross_entropy_grad"}
  return %r : tensor<1024x256xf32>
}

// -----

// cross_entropy_grad (sum, label smoothing) on bf16 logits with i32 labels.
// CHECK-LABEL: // ===== kernel cross_entropy_grad_smooth: kind row_reduction
func.func @cross_entropy_grad_smooth(%dl: tensor<f32>, %x: tensor<8x10xbf16>, %y: tensor<8xi32>) -> tensor<8x10xbf16> {
  %r = tfc.fusion row_reduction (%a = %dl : tensor<f32>, %b = %x : tensor<8x10xbf16>, %c = %y : tensor<8xi32>) -> tensor<8x10xbf16> {
    %0 = tfc.cross_entropy_grad %a, %b, %c ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<f32>, tensor<8x10xbf16>, tensor<8xi32> -> tensor<8x10xbf16>
    tfc.yield %0 : tensor<8x10xbf16>
  } {kernel_name = "cross_entropy_grad_smooth"}
  return %r : tensor<8x10xbf16>
}

// -----

// rms_norm_grad_input whose x is recomputed from a sigmoid (a slow-path call)
// and whose dy is a constant: neither is held in a register array, since an
// array live across the sigmoid's calls spills (fuzz seed 1503150 did, with
// dy's array of 32 floats per lane) and a constant costs nothing to
// recompute. The NVRTC check of this file fails on any spill.
// CHECK-LABEL: // ===== kernel rms_norm_grad_recomputed: kind row_reduction
// CHECK-NOT: {{[a-z][0-9]+}}[32];
// CHECK: expf(
// CHECK-NOT: {{[a-z][0-9]+}}[32];
// CHECK: out0[j] =
func.func @rms_norm_grad_recomputed(%x: tensor<1000xbf16>) -> tensor<1000xbf16> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<1000xbf16>) -> tensor<1000xbf16> {
    %0 = tfc.sigmoid %a : tensor<1000xbf16>
    %1 = tfc.constant dense<3.000000e+00> : tensor<1000xbf16>
    %2 = tfc.add %0, %1 : tensor<1000xbf16>, tensor<1000xbf16>
    %y, %s = tfc.rms_norm %2 : (tensor<1000xbf16>) -> (tensor<1000xbf16>, tensor<1xf32>)
    %3 = tfc.constant dense<1.000000e+00> : tensor<1000xbf16>
    %4 = tfc.rms_norm_grad_input %3, %2, %s : (tensor<1000xbf16>, tensor<1000xbf16>, tensor<1xf32>) -> tensor<1000xbf16>
    tfc.yield %4 : tensor<1000xbf16>
  } {kernel_name = "rms_norm_grad_recomputed"}
  return %r : tensor<1000xbf16>
}

// -----

// layer_norm backward with the weight and bias gradients and the residual
// gradient's bias gradient in the row kernel: column sums over the rows.
// Each lane accumulates its 4 positions of the row (j = lane + 32 k) over
// the rows its warp walks, in registers; the block's warps add theirs into
// shared memory one after the other, the block writes its partial row, and
// the last block to finish sums the 128 partials in block order
// (deterministic), then writes the per-column outputs.
// CHECK-LABEL: // ===== kernel layer_norm_backward_param_grads: kind row_reduction, grid [128, 1, 1], block [256, 1, 1]
// CHECK: __device__ float tfc_partial_col0[16384];
// CHECK: if (gridDim.x != 128) __trap();
// CHECK: float [[ACC:colacc[0-9]+]][4];
// CHECK: for (int row =
// CHECK: [[ACC]][k] = [[ACC]][k] +
// CHECK: __shared__ float tfc_block_col0[128];
// CHECK: if (warp == q) {
// CHECK: tfc_partial_col0[blockIdx.x * 128 + j] = tfc_block_col0[j];
// CHECK: tfc_last_block = atomicAdd(&tfc_blocks_done, 1u) == gridDim.x - 1;
// CHECK: if (tfc_last_block) {
// CHECK: for (int jc = threadIdx.x; jc < 128; jc += blockDim.x) {
// CHECK: for (int b = 0; b < 128; ++b) {{coltotal[0-9]+}} += __ldcg(&tfc_partial_col0[b * 128 + jc]);
// CHECK: if (threadIdx.x == 0) tfc_blocks_done = 0u;
func.func @layer_norm_backward_param_grads(%dy: tensor<16x64x128xf32>, %x: tensor<16x64x128xf32>, %m: tensor<16x64x1xf32>, %s: tensor<16x64x1xf32>, %w: tensor<128xf32>, %res: tensor<16x64x128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
  %r:4 = tfc.fusion row_reduction (%a = %dy : tensor<16x64x128xf32>, %b = %x : tensor<16x64x128xf32>, %c = %m : tensor<16x64x1xf32>, %d = %s : tensor<16x64x1xf32>, %e = %w : tensor<128xf32>, %f = %res : tensor<16x64x128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
    %dx = tfc.layer_norm_grad_input %a, %b, %c, %d weight %e : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> tensor<16x64x128xf32>
    %sum = tfc.add %f, %dx : tensor<16x64x128xf32>, tensor<16x64x128xf32>
    %xc = tfc.sub %b, %c : tensor<16x64x128xf32>, tensor<16x64x1xf32>
    %xhat = tfc.mul %xc, %d : tensor<16x64x128xf32>, tensor<16x64x1xf32>
    %g = tfc.mul %a, %xhat : tensor<16x64x128xf32>, tensor<16x64x128xf32>
    %dw = tfc.reduce_sum %g dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    %db = tfc.reduce_sum %a dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    %dbias = tfc.reduce_sum %sum dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    tfc.yield %sum, %dw, %db, %dbias : tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
  } {kernel_name = "layer_norm_backward_param_grads"}
  return %r#0, %r#1, %r#2, %r#3 : tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
}

// -----

// Column sums with a mean and a bf16 result computed per column after the
// combine, over 37 rows of 96 (5 blocks, the last one partly idle).
// CHECK-LABEL: // ===== kernel row_max_and_column_mean: kind row_reduction, grid [5, 1, 1]
// CHECK: if (tfc_last_block) {
// CHECK: / 37.0f
// CHECK: __float2bfloat16_rn(
func.func @row_max_and_column_mean(%x: tensor<37x96xf32>) -> (tensor<37xf32>, tensor<96xbf16>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<37x96xf32>) -> (tensor<37xf32>, tensor<96xbf16>) {
    %0 = tfc.reduce_max %a dims [1] : tensor<37x96xf32> -> tensor<37xf32>
    %1 = tfc.mul %a, %a : tensor<37x96xf32>, tensor<37x96xf32>
    %2 = tfc.reduce_mean %1 dims [0] : tensor<37x96xf32> -> tensor<96xf32>
    %3 = tfc.convert %2 : tensor<96xf32> -> tensor<96xbf16>
    tfc.yield %0, %3 : tensor<37xf32>, tensor<96xbf16>
  } {kernel_name = "row_max_and_column_mean"}
  return %r#0, %r#1 : tensor<37xf32>, tensor<96xbf16>
}

// -----

// cross_entropy and its gradient on the same logits (a train step's loss
// kernel): the gradient reuses the forward's row max and sum of exp instead
// of reducing them again, and a long row (20000 logits, re-read from memory
// in every pass) gets both from one read (the online form), so it is read
// twice (statistics, gradient), not five times. The default schedule's
// unroll = 4 loads four logits a thread ahead of their use in each pass
// (the online update branches on each value: loaded one at a time, a
// thread would wait for every load).
// CHECK-LABEL: // ===== kernel cross_entropy_and_grad: kind row_reduction
// CHECK: for (int k0 = 0; k0 < 20; k0 += 4) {
// CHECK-NEXT: float [[A:ahead[0-9]+]][4];
// CHECK: [[A]][u] = {{v[0-9]+}};
// CHECK: tfc_softmax_update([[M:acc[0-9]+]], [[S:acc[0-9]+]], (float)([[A]][u]));
// CHECK: tfc_block_softmax_allreduce([[M]], [[S]], tfc_shm_softmax_float);
// CHECK-NOT: allreduce
// CHECK: const float [[INV:s[0-9]+]] = 1.0f / [[S]];
// CHECK-NOT: allreduce
// CHECK: float [[B:ahead[0-9]+]][4];
// CHECK: expf([[B]][u] - [[M]]) * [[INV]]
// CHECK-NOT: allreduce(
func.func @cross_entropy_and_grad(%x: tensor<64x20000xf32>, %y: tensor<64xi64>) -> (tensor<f32>, tensor<64x20000xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<64x20000xf32>, %b = %y : tensor<64xi64>) -> (tensor<f32>, tensor<64x20000xf32>) {
    %0 = tfc.cross_entropy %a, %b : tensor<64x20000xf32>, tensor<64xi64> -> tensor<f32>
    %1 = tfc.constant dense<1.000000e+00> : tensor<f32>
    %2 = tfc.cross_entropy_grad %1, %a, %b : tensor<f32>, tensor<64x20000xf32>, tensor<64xi64> -> tensor<64x20000xf32>
    tfc.yield %0, %2 : tensor<f32>, tensor<64x20000xf32>
  } {kernel_name = "cross_entropy_and_grad"}
  return %r#0, %r#1 : tensor<f32>, tensor<64x20000xf32>
}
