// RUN: tfc-translate --emit-cuda %s | FileCheck %s

// layer_norm over rows of 128: one warp per row (8 rows per block), the row
// in registers (4 per lane), two-pass mean/variance with warp-shuffle
// all-reduces; mean and rstd are written once per row.
// CHECK-LABEL: // ===== kernel layer_norm: kind row_reduction, grid [128, 1, 1], block [256, 1, 1]
// CHECK: v = op(v, __shfl_xor_sync(0xffffffffu, v, m));
// CHECK: layer_norm(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out0, float* __restrict__ out1, float* __restrict__ out2)
// CHECK: const int lane = threadIdx.x & 31;
// CHECK: for (int row = (int)blockIdx.x * 8 + warp; row < 1024; row += (int)gridDim.x * 8) {
// CHECK-NEXT: float [[X:x[0-9]+]][4];
// CHECK: const int j = lane + 32 * k;
// CHECK-NEXT: const float [[L:v[0-9]+]] = in0[row * 128 + j];
// CHECK-NEXT: [[X]][k] = [[L]];
// CHECK: [[S:acc[0-9]+]] = [[S]] + ([[X]][k]);
// CHECK: [[S]] = tfc_warp_allreduce([[S]], tfc_sum_op());
// CHECK-NEXT: const float [[MEAN:s[0-9]+]] = [[S]] / 128.0f;
// CHECK: [[Q:acc[0-9]+]] = [[Q]] + (([[X]][k] - [[MEAN]]) * ([[X]][k] - [[MEAN]]));
// CHECK: const float [[RSTD:s[0-9]+]] = 1.0f / sqrtf([[Q]] / 128.0f + 1e-05f);
// CHECK: if (lane == 0) out1[row] = [[MEAN]];
// CHECK-NEXT: if (lane == 0) out2[row] = [[RSTD]];
// CHECK: const float [[W:v[0-9]+]] = in1[j];
// CHECK-NEXT: const float [[B:v[0-9]+]] = in2[j];
// CHECK-NEXT: const float [[Y:v[0-9]+]] = (([[X]][k] - [[MEAN]]) * [[RSTD]]) * [[W]] + [[B]];
// CHECK-NEXT: out0[row * 128 + j] = [[Y]];
func.func @layer_norm(%x: tensor<16x64x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>) {
  %r:3 = tfc.fusion row_reduction (%a = %x : tensor<16x64x128xf32>, %c = %w : tensor<128xf32>, %d = %b : tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>) {
    %y, %m, %s = tfc.layer_norm %a weight %c bias %d eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
    tfc.yield %y, %m, %s : tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>
  } {kernel_name = "layer_norm"}
  return %r#0, %r#1, %r#2 : tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>
}

// softmax over rows of 1000 (not a multiple of 32): lanes test j < 1000;
// max, then sum of exp, then exp(x - max) / sum, all from registers.
// CHECK-LABEL: // ===== kernel softmax_1000: kind row_reduction
// CHECK: float [[X:x[0-9]+]][32];
// CHECK: if (j < 1000) {
// CHECK: [[M:acc[0-9]+]] = tfc_max([[M]], (float)([[X]][k]));
// CHECK: [[M]] = tfc_warp_allreduce([[M]], tfc_max_op());
// CHECK: [[E:acc[0-9]+]] = [[E]] + (expf([[X]][k] - [[M]]));
// CHECK: [[E]] = tfc_warp_allreduce([[E]], tfc_sum_op());
// CHECK: const float [[P:v[0-9]+]] = expf([[X]][k] - [[M]]) / [[E]];
// CHECK-NEXT: out0[row * 1000 + j] = [[P]];
func.func @softmax_1000(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<64x1000xf32>) -> tensor<64x1000xf32> {
    %0 = tfc.softmax %a dim -1 : tensor<64x1000xf32>
    tfc.yield %0 : tensor<64x1000xf32>
  } {kernel_name = "softmax_1000"}
  return %r : tensor<64x1000xf32>
}

// A softmax of x / t over rows of 1000 (a warp per row): the division is a
// slow-path call, so the row is recomputed in every pass rather than held,
// and the max and sum of exp come from one pass (the online form, combined
// across the warp's lanes by shuffles) instead of two.
// CHECK-LABEL: // ===== kernel softmax_slow_prologue: kind row_reduction
// CHECK-NOT: float {{x[0-9]+}}[
// CHECK: const float [[D:v[0-9]+]] = {{v[0-9]+}} / {{v[0-9]+}};
// CHECK-NEXT: tfc_softmax_update([[M:acc[0-9]+]], [[S:acc[0-9]+]], (float)([[D]]));
// CHECK: tfc_warp_softmax_allreduce([[M]], [[S]]);
// CHECK-NOT: allreduce
// CHECK: expf({{v[0-9]+}} - [[M]]) / [[S]];
func.func @softmax_slow_prologue(%x: tensor<64x1000xf32>, %t: tensor<f32>) -> tensor<64x1000xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<64x1000xf32>, %b = %t : tensor<f32>) -> tensor<64x1000xf32> {
    %d = tfc.div %a, %b : tensor<64x1000xf32>, tensor<f32>
    %0 = tfc.softmax %d dim -1 : tensor<64x1000xf32>
    tfc.yield %0 : tensor<64x1000xf32>
  } {kernel_name = "softmax_slow_prologue"}
  return %r : tensor<64x1000xf32>
}

// A row of 50257 bf16 logits is longer than 1024: one block of 1024 threads
// per row, block all-reduces through shared memory, and the row is re-read
// instead of being kept (50 values per thread would not fit in registers).
// The max and the sum of exp come from one read of the row (the online
// form: the running sum is rescaled when the maximum grows), so the row is
// read twice, not three times. Each pass is a rolled loop over chunks of
// the schedule's unroll (4) elements a thread: the chunk's four loads are
// issued before the first value is used (loadAhead), then the chunk is
// reduced or written in order, so the results are those of one element at
// a time.
// CHECK-LABEL: // ===== kernel log_softmax_vocab: kind row_reduction, grid [8, 1, 1], block [1024, 1, 1]
// CHECK: __launch_bounds__(1024) log_softmax_vocab(const __nv_bfloat16* __restrict__ in0, __nv_bfloat16* __restrict__ out0)
// CHECK-NEXT: __shared__ float tfc_shm_softmax_float[64];
// CHECK-NEXT: for (int row = blockIdx.x; row < 8; row += gridDim.x) {
// CHECK-NEXT: float [[M:acc[0-9]+]] = __int_as_float(0xff800000), [[S:acc[0-9]+]] = 0.0f;
// CHECK-NOT: float x{{[0-9]+}}[
// CHECK: #pragma unroll 1
// CHECK-NEXT: for (int k0 = 0; k0 < 50; k0 += 4) {
// CHECK-NEXT: float [[A:ahead[0-9]+]][4];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int u = 0; u < 4; ++u) {
// CHECK-NEXT: const int j = (int)threadIdx.x + 1024 * (k0 + u);
// CHECK-NEXT: if (j < 50257) {
// CHECK-NEXT: const float [[V:v[0-9]+]] = __bfloat162float(in0[row * 50257 + j]);
// CHECK-NEXT: [[A]][u] = [[V]];
// CHECK: for (int u = 0; u < 4; ++u) {
// CHECK-NEXT: const int j = (int)threadIdx.x + 1024 * (k0 + u);
// CHECK-NEXT: if (j < 50257) {
// CHECK-NEXT: tfc_softmax_update([[M]], [[S]], (float)([[A]][u]));
// CHECK: tfc_block_softmax_allreduce([[M]], [[S]], tfc_shm_softmax_float);
// CHECK-NEXT: const float [[LS:s[0-9]+]] = logf([[S]]);
// CHECK-NOT: allreduce
// CHECK: [[B:ahead[0-9]+]][u] = {{v[0-9]+}};
// CHECK: const float [[Y:v[0-9]+]] = tfc_round_bf16(([[B]][u] - [[M]]) - [[LS]]);
// CHECK-NEXT: out0[row * 50257 + j] = __float2bfloat16_rn([[Y]]);
func.func @log_softmax_vocab(%x: tensor<8x50257xbf16>) -> tensor<8x50257xbf16> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<8x50257xbf16>) -> tensor<8x50257xbf16> {
    %0 = tfc.log_softmax %a dim -1 : tensor<8x50257xbf16>
    tfc.yield %0 : tensor<8x50257xbf16>
  } {kernel_name = "log_softmax_vocab"}
  return %r : tensor<8x50257xbf16>
}

// rms_norm of bf16 activations with an f32 weight: f32 statistics, y rounded
// to bf16 once.
// CHECK-LABEL: // ===== kernel rms_norm_bf16: kind row_reduction
// CHECK: [[Q:acc[0-9]+]] = [[Q]] + ([[X:x[0-9]+]][k] * [[X]][k]);
// CHECK: const float [[R:s[0-9]+]] = 1.0f / sqrtf([[Q]] / 256.0f + 1e-06f);
// CHECK: if (lane == 0) out1[row] = [[R]];
// CHECK: const float [[Y:v[0-9]+]] = tfc_round_bf16(([[X]][k] * [[R]]) * {{v[0-9]+}});
// CHECK-NEXT: out0[row * 256 + j] = __float2bfloat16_rn([[Y]]);
func.func @rms_norm_bf16(%x: tensor<32x256xbf16>, %w: tensor<256xf32>) -> (tensor<32x256xbf16>, tensor<32x1xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<32x256xbf16>, %b = %w : tensor<256xf32>) -> (tensor<32x256xbf16>, tensor<32x1xf32>) {
    %y, %rstd = tfc.rms_norm %a weight %b eps 1.000000e-06 : (tensor<32x256xbf16>, tensor<256xf32>) -> (tensor<32x256xbf16>, tensor<32x1xf32>)
    tfc.yield %y, %rstd : tensor<32x256xbf16>, tensor<32x1xf32>
  } {kernel_name = "rms_norm_bf16"}
  return %r#0, %r#1 : tensor<32x256xbf16>, tensor<32x1xf32>
}

// cross_entropy with label smoothing: per-row loss from the row max, the sum
// of exp and the sum of (x - max); the label's logit is read at a clamped
// index; rows with ignore_index count nothing. The mean over rows is a
// fixed-order per-block sum plus a last-block stage: an integer atomic
// counter, no float atomics.
// CHECK-LABEL: // ===== kernel cross_entropy: kind row_reduction, grid [128, 1, 1], block [256, 1, 1]
// CHECK: __device__ float tfc_partial_loss0[128];
// CHECK-NEXT: __device__ float tfc_partial_count0[128];
// CHECK-NEXT: __device__ unsigned int tfc_blocks_done;
// CHECK: if (gridDim.x != 128) __trap();
// CHECK-NEXT: float run_loss0 = 0.0f, run_count0 = 0.0f;
// CHECK: [[M:acc[0-9]+]] = tfc_warp_allreduce([[M]], tfc_max_op());
// CHECK: [[E:acc[0-9]+]] = tfc_warp_allreduce([[E]], tfc_sum_op());
// CHECK: [[D:acc[0-9]+]] = tfc_warp_allreduce([[D]], tfc_sum_op());
// CHECK-NEXT: const float [[LS:s[0-9]+]] = logf([[E]]);
// CHECK-NEXT: const long long [[LAB:v[0-9]+]] = in1[row];
// CHECK-NEXT: const int [[SAFE:label[0-9]+]] = tfc_clamp<int>([[LAB]], 0, 255);
// CHECK-NEXT: const float [[PICK:v[0-9]+]] = in0[row * 256 + ([[SAFE]])];
// CHECK-NEXT: const bool [[IGN:ign[0-9]+]] = [[LAB]] == 7LL;
// CHECK-NEXT: const float [[LOSS:loss[0-9]+]] = [[IGN]] ? 0.0f : (([[LAB]] >= 0 && [[LAB]] < 256) ? 0.9f * (-(([[PICK]] - [[M]]) - [[LS]])) + 0.000390625f * (-([[D]] - 256.0f * [[LS]])) : __int_as_float(0x7fc00000));
// CHECK-NEXT: run_loss0 = run_loss0 + [[LOSS]];
// CHECK-NEXT: run_count0 = run_count0 + ([[IGN]] ? 0.0f : 1.0f);
// CHECK-NOT: atomicAdd(&tfc_partial
// CHECK: if (threadIdx.x == 0) tfc_last_block = atomicAdd(&tfc_blocks_done, 1u) == gridDim.x - 1;
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: if (tfc_last_block) {
// CHECK: for (int b = 0; b < 128; ++b) { total_loss0 += __ldcg(&tfc_partial_loss0[b]); total_count0 += __ldcg(&tfc_partial_count0[b]); }
// CHECK-NEXT: const float [[T:loss[0-9]+]] = total_loss0 / total_count0;
// CHECK-NEXT: out0[0] = [[T]];
// CHECK-NEXT: }
// CHECK-NEXT: if (threadIdx.x == 0) tfc_blocks_done = 0u;
func.func @cross_entropy(%logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>) -> tensor<f32> {
  %l = tfc.fusion row_reduction (%a = %logits : tensor<1024x256xf32>, %b = %labels : tensor<1024xi64>) -> tensor<f32> {
    %0 = tfc.cross_entropy %a, %b ignore_index 7 label_smoothing 1.000000e-01 : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
    tfc.yield %0 : tensor<f32>
  } {kernel_name = "cross_entropy"}
  return %l : tensor<f32>
}

// f64 logits, i32 labels, reduction sum, and a pointwise op on the loss: the
// loss and what depends on it are computed by the last block, in double.
// CHECK-LABEL: // ===== kernel cross_entropy_sum_f64: kind row_reduction
// CHECK: __device__ double tfc_partial_loss0[1];
// CHECK: const int [[LAB:v[0-9]+]] = in1[row];
// CHECK: const bool {{ign[0-9]+}} = [[LAB]] == -100LL;
// CHECK: const double [[T:loss[0-9]+]] = total_loss0;
// CHECK-NEXT: const double [[H:v[0-9]+]] = [[T]] * 0.5;
// CHECK-NEXT: out0[0] = [[H]];
func.func @cross_entropy_sum_f64(%logits: tensor<8x10xf64>, %labels: tensor<8xi32>) -> tensor<f64> {
  %l = tfc.fusion row_reduction (%a = %logits : tensor<8x10xf64>, %b = %labels : tensor<8xi32>) -> tensor<f64> {
    %0 = tfc.cross_entropy %a, %b reduction sum : tensor<8x10xf64>, tensor<8xi32> -> tensor<f64>
    %half = tfc.constant dense<5.000000e-01> : tensor<f64>
    %1 = tfc.mul %0, %half : tensor<f64>, tensor<f64>
    tfc.yield %1 : tensor<f64>
  } {kernel_name = "cross_entropy_sum_f64"}
  return %l : tensor<f64>
}

// layer_norm, then a reshape of its output to the logits of a cross_entropy
// over the same rows: the logit picked at the label is the normalized
// element recomputed at (row, label) from the row's statistics, the label an
// opaque digit of the index that the reshape carries through whole (fuzz seed
// 1503286 once failed here as "read outside the row being reduced").
// CHECK-LABEL: // ===== kernel layer_norm_cross_entropy: kind row_reduction
// CHECK: const int [[LAB:label[0-9]+]] = tfc_clamp<int>({{v[0-9]+}}, 0, 126);
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[row * 127 + ([[LAB]])];
// CHECK-NEXT: const float [[W:v[0-9]+]] = in1[([[LAB]])];
// CHECK-NEXT: const float [[B:v[0-9]+]] = in2[([[LAB]])];
// CHECK-NEXT: const float {{v[0-9]+}} = (([[X]] - {{s[0-9]+}}) * {{s[0-9]+}}) * [[W]] + [[B]];
func.func @layer_norm_cross_entropy(%x: tensor<3x4x5x127xf32>, %w: tensor<127xf32>, %b: tensor<127xf32>, %labels: tensor<60xi64>) -> tensor<f32> {
  %l = tfc.fusion row_reduction (%a = %x : tensor<3x4x5x127xf32>, %c = %w : tensor<127xf32>, %d = %b : tensor<127xf32>, %e = %labels : tensor<60xi64>) -> tensor<f32> {
    %y, %m, %s = tfc.layer_norm %a weight %c bias %d : (tensor<3x4x5x127xf32>, tensor<127xf32>, tensor<127xf32>) -> (tensor<3x4x5x127xf32>, tensor<3x4x5x1xf32>, tensor<3x4x5x1xf32>)
    %z = tfc.reshape %y : tensor<3x4x5x127xf32> -> tensor<60x127xf32>
    %0 = tfc.cross_entropy %z, %e reduction sum : tensor<60x127xf32>, tensor<60xi64> -> tensor<f32>
    tfc.yield %0 : tensor<f32>
  } {kernel_name = "layer_norm_cross_entropy"}
  return %l : tensor<f32>
}

// reduce_sum and reduce_max over trailing dims of equal geometry (4 rows of
// 8) share one kernel; an input reduced once is streamed, not kept. Each row
// output is stored as soon as it is known (nothing stays live for the end).
// CHECK-LABEL: // ===== kernel trailing_reductions: kind row_reduction
// CHECK-NOT: float x{{[0-9]+}}[
// CHECK: [[S:acc[0-9]+]] = [[S]] + ({{v[0-9]+}});
// CHECK: [[S]] = tfc_warp_allreduce([[S]], tfc_sum_op());
// CHECK-NEXT: const float [[RS:s[0-9]+]] = [[S]];
// CHECK-NEXT: if (lane == 0) out0[row] = [[RS]];
// CHECK: const float {{v[0-9]+}} = in1[row * 8 + j];
// CHECK: [[M:acc[0-9]+]] = tfc_warp_allreduce([[M]], tfc_max_op());
// CHECK-NEXT: const float [[RM:s[0-9]+]] = [[M]];
// CHECK-NEXT: if (lane == 0) out1[row] = [[RM]];
func.func @trailing_reductions(%x: tensor<4x8xf32>, %y: tensor<4x2x4xf32>) -> (tensor<4xf32>, tensor<4x1x1xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>, %b = %y : tensor<4x2x4xf32>) -> (tensor<4xf32>, tensor<4x1x1xf32>) {
    %0 = tfc.reduce_sum %a dims [-1] : tensor<4x8xf32> -> tensor<4xf32>
    %1 = tfc.reduce_max %b dims [2, 1] keepdim : tensor<4x2x4xf32> -> tensor<4x1x1xf32>
    tfc.yield %0, %1 : tensor<4xf32>, tensor<4x1x1xf32>
  } {kernel_name = "trailing_reductions"}
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x1x1xf32>
}

// Integer row sums (of squares, wrapping as well) wrap as torch's: the
// accumulation goes through the unsigned type, and tfc_sum_op's int
// overload does the same across lanes.
// CHECK-LABEL: // ===== kernel row_sum_i32: kind row_reduction
// CHECK: const int [[X:v[0-9]+]] = in0[row * 300 + j];
// CHECK-NEXT: const int [[SQ:v[0-9]+]] = (int)((unsigned int)[[X]] * (unsigned int)[[X]]);
// CHECK-NEXT: [[S:acc[0-9]+]] = (int)((unsigned int)[[S]] + (unsigned int)([[SQ]]));
// CHECK: [[S]] = tfc_{{warp|block}}_allreduce([[S]], tfc_sum_op(){{.*}});
func.func @row_sum_i32(%x: tensor<16x300xi32>) -> tensor<16xi32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<16x300xi32>) -> tensor<16xi32> {
    %0 = tfc.mul %a, %a : tensor<16x300xi32>, tensor<16x300xi32>
    %1 = tfc.reduce_sum %0 dims [-1] : tensor<16x300xi32> -> tensor<16xi32>
    tfc.yield %1 : tensor<16xi32>
  } {kernel_name = "row_sum_i32"}
  return %r : tensor<16xi32>
}

// A softmax written out of reduce_max, sub, exp, reduce_sum and div: the
// per-row statistics are registers read at the row's index; the row is kept
// in registers for the max and the sum. The final pass calls the division's
// slow path, and a register array indexed across a call would be spilled to
// local memory, so that pass (not unrolled) re-reads the row and recomputes
// exp(x - max) instead.
// CHECK-LABEL: // ===== kernel manual_softmax: kind row_reduction
// CHECK: float [[X:x[0-9]+]][2];
// CHECK: [[M:acc[0-9]+]] = tfc_warp_allreduce([[M]], tfc_max_op());
// CHECK-NEXT: const float [[RM:s[0-9]+]] = [[M]];
// CHECK: const float [[D:v[0-9]+]] = [[X]][k] - [[RM]];
// CHECK-NEXT: const float [[EX:v[0-9]+]] = expf([[D]]);
// CHECK: const float [[RS:s[0-9]+]] = {{acc[0-9]+}};
// CHECK: #pragma unroll 1
// CHECK: const float [[R:v[0-9]+]] = in0[row * 64 + j];
// CHECK-NEXT: const float [[D2:v[0-9]+]] = [[R]] - [[RM]];
// CHECK-NEXT: const float [[EX2:v[0-9]+]] = expf([[D2]]);
// CHECK-NEXT: const float [[P:v[0-9]+]] = [[EX2]] / [[RS]];
// CHECK-NEXT: out0[row * 64 + j] = [[P]];
func.func @manual_softmax(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<32x64xf32>) -> tensor<32x64xf32> {
    %m = tfc.reduce_max %a dims [-1] keepdim : tensor<32x64xf32> -> tensor<32x1xf32>
    %d = tfc.sub %a, %m : tensor<32x64xf32>, tensor<32x1xf32>
    %e = tfc.exp %d : tensor<32x64xf32>
    %s = tfc.reduce_sum %e dims [-1] keepdim : tensor<32x64xf32> -> tensor<32x1xf32>
    %p = tfc.div %e, %s : tensor<32x64xf32>, tensor<32x1xf32>
    tfc.yield %p : tensor<32x64xf32>
  } {kernel_name = "manual_softmax"}
  return %r : tensor<32x64xf32>
}

// bias + dropout + residual + layer_norm + softmax + rms_norm in one kernel:
// the pointwise prologue is computed while the row is loaded, each row
// reduction after the statistics it depends on.
// CHECK-LABEL: // ===== kernel fused_block: kind row_reduction
// CHECK: const long long [[SEED:v[0-9]+]] = in3[0];
// CHECK-NEXT: const long long [[OFF:v[0-9]+]] = in4[0];
// CHECK-NEXT: for (int row
// CHECK: tfc::scalar::dropoutKeep([[SEED]], [[OFF]], (unsigned long long)(row * 128 + j), 429496729ull)
// CHECK: = tfc_warp_allreduce({{acc[0-9]+}}, tfc_sum_op());
// CHECK: = tfc_warp_allreduce({{acc[0-9]+}}, tfc_sum_op());
// CHECK: = tfc_warp_allreduce({{acc[0-9]+}}, tfc_max_op());
// CHECK: = tfc_warp_allreduce({{acc[0-9]+}}, tfc_sum_op());
// CHECK: = tfc_warp_allreduce({{acc[0-9]+}}, tfc_sum_op());
// CHECK: out0[row * 128 + j] =
func.func @fused_block(%x: tensor<16x64x128xf32>, %r: tensor<16x64x128xf32>, %w: tensor<128xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16x64x128xf32> {
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x64x128xf32>, %b = %r : tensor<16x64x128xf32>, %c = %w : tensor<128xf32>, %s = %seed : tensor<i64>, %t = %offset : tensor<i64>) -> tensor<16x64x128xf32> {
    %d = tfc.dropout %a, %s, %t p 1.000000e-01 : tensor<16x64x128xf32>
    %h = tfc.add %d, %b : tensor<16x64x128xf32>, tensor<16x64x128xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %c : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
    %p = tfc.softmax %y dim -1 : tensor<16x64x128xf32>
    %z, %zr = tfc.rms_norm %p : (tensor<16x64x128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
    tfc.yield %z : tensor<16x64x128xf32>
  } {kernel_name = "fused_block"}
  return %o : tensor<16x64x128xf32>
}

// The same dropout + residual prologue on rows of 768 (a warp per row, 24
// lanes each). Held in a fully unrolled array, dropout's Philox rounds
// overlap across the lanes: scripts/fuzz-fusion's seed 900030 (a 7600-wide
// cross-entropy row, 15 lanes at 512 threads) used all 128 registers and
// spilled 168 bytes. So a dropout prologue counts three registers a lane
// against the row-array budget; over it, as here, the statistics passes
// (not unrolled) recompute the prologue from memory instead.
// CHECK-LABEL: // ===== kernel dropout_long_rows: kind row_reduction
// CHECK: for (int row
// CHECK-NEXT: float [[ACC:acc[0-9]+]] = 0.0f;
// CHECK-NEXT: #pragma unroll 1
// CHECK-NEXT: for (int k = 0; k < 24; ++k) {
// CHECK: tfc::scalar::dropoutKeep(
// CHECK: [[ACC]] = tfc_warp_allreduce([[ACC]], tfc_sum_op());
func.func @dropout_long_rows(%x: tensor<64x768xf32>, %r: tensor<64x768xf32>, %w: tensor<768xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<64x768xf32> {
  %o = tfc.fusion row_reduction (%a = %x : tensor<64x768xf32>, %b = %r : tensor<64x768xf32>, %c = %w : tensor<768xf32>, %s = %seed : tensor<i64>, %t = %offset : tensor<i64>) -> tensor<64x768xf32> {
    %d = tfc.dropout %a, %s, %t p 1.000000e-01 : tensor<64x768xf32>
    %h = tfc.add %d, %b : tensor<64x768xf32>, tensor<64x768xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %c : (tensor<64x768xf32>, tensor<768xf32>) -> (tensor<64x768xf32>, tensor<64x1xf32>, tensor<64x1xf32>)
    tfc.yield %y : tensor<64x768xf32>
  } {kernel_name = "dropout_long_rows"}
  return %o : tensor<64x768xf32>
}

// Rows of 1000 (a warp per row, 32 lanes each): a residual add + layer_norm
// holds its input row in registers (one 32-lane array), and so does the
// second kernel. The first reduces a square root of the normalized row too:
// its body's own math calls a slow path, and a fully unrolled pass saves
// what is live across each call (scripts/fuzz-fusion's seed 961280: two
// 32-lane arrays and a division and a square root in the row used all 255
// registers at sm_90 and spilled). Such a kernel's arrays get 16 registers
// a lane: rows this long are re-read in every pass, none unrolled.
// CHECK-LABEL: // ===== kernel slow_path_long_rows: kind row_reduction
// CHECK-NOT: {{x[0-9]+}}[32];
// CHECK: sqrtf(
// CHECK-NOT: #pragma unroll{{$}}
// CHECK-LABEL: // ===== kernel long_rows: kind row_reduction
// CHECK: float {{x[0-9]+}}[32];
func.func @slow_path_long_rows(%x: tensor<64x1000xf32>, %r: tensor<64x1000xf32>, %w: tensor<1000xf32>) -> (tensor<64x1000xf32>, tensor<64xf32>) {
  %o:2 = tfc.fusion row_reduction (%a = %x : tensor<64x1000xf32>, %b = %r : tensor<64x1000xf32>, %c = %w : tensor<1000xf32>) -> (tensor<64x1000xf32>, tensor<64xf32>) {
    %h = tfc.add %a, %b : tensor<64x1000xf32>, tensor<64x1000xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %c : (tensor<64x1000xf32>, tensor<1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1xf32>, tensor<64x1xf32>)
    %q = tfc.abs %y : tensor<64x1000xf32>
    %s = tfc.sqrt %q : tensor<64x1000xf32>
    %t = tfc.reduce_sum %s dims [-1] : tensor<64x1000xf32> -> tensor<64xf32>
    tfc.yield %y, %t : tensor<64x1000xf32>, tensor<64xf32>
  } {kernel_name = "slow_path_long_rows"}
  return %o#0, %o#1 : tensor<64x1000xf32>, tensor<64xf32>
}
func.func @long_rows(%x: tensor<64x1000xf32>, %r: tensor<64x1000xf32>, %w: tensor<1000xf32>) -> (tensor<64x1000xf32>, tensor<64xf32>) {
  %o:2 = tfc.fusion row_reduction (%a = %x : tensor<64x1000xf32>, %b = %r : tensor<64x1000xf32>, %c = %w : tensor<1000xf32>) -> (tensor<64x1000xf32>, tensor<64xf32>) {
    %h = tfc.add %a, %b : tensor<64x1000xf32>, tensor<64x1000xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %c : (tensor<64x1000xf32>, tensor<1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1xf32>, tensor<64x1xf32>)
    %q = tfc.abs %y : tensor<64x1000xf32>
    %t = tfc.reduce_sum %q dims [-1] : tensor<64x1000xf32> -> tensor<64xf32>
    tfc.yield %y, %t : tensor<64x1000xf32>, tensor<64xf32>
  } {kernel_name = "long_rows"}
  return %o#0, %o#1 : tensor<64x1000xf32>, tensor<64xf32>
}

// Two layer_norms and both their backwards over one row of 1000 (seed 992880 of
// scripts/fuzz-fusion): with its input rows in 32-lane arrays, the six fully
// unrolled passes kept what they read of eight row-sized operands live and spilled
// 868 bytes at sm_90 (255 registers). Elements per lane x row-sized operands x row
// reductions (32 x 8 x 6 = 1536) is beyond kUnrolledRowPressure, so the kernel holds
// no arrays and re-reads its rows in rolled loops (32 registers, no spills; the
// nvrtc test of this file checks that).
// CHECK-LABEL: // ===== kernel fused_norms_long_row: kind row_reduction
// CHECK: fused_norms_long_row(const float* __restrict__ in0
// CHECK-NOT: {{x[0-9]+}}[32];
// CHECK-NOT: #pragma unroll{{$}}
// CHECK: out7[j] =
func.func @fused_norms_long_row(%x: tensor<1000xf32>, %w1: tensor<1000xf32>, %o: tensor<1000xf32>, %w2: tensor<1000xf32>, %b2: tensor<1000xf32>, %l: tensor<f32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<f32>, tensor<1000xf32>, tensor<1000xf32>) {
  %r:8 = tfc.fusion row_reduction (%in = %x : tensor<1000xf32>, %in_0 = %w1 : tensor<1000xf32>, %in_1 = %o : tensor<1000xf32>, %in_2 = %w2 : tensor<1000xf32>, %in_3 = %b2 : tensor<1000xf32>, %in_4 = %l : tensor<f32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<f32>, tensor<1000xf32>, tensor<1000xf32>) {
    %y, %mean, %rstd = tfc.layer_norm %in weight %in_0 : (tensor<1000xf32>, tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>)
    %0 = tfc.compare gt, %y, %in_1 : tensor<1000xf32>, tensor<1000xf32>
    %1 = tfc.select %0, %y, %in_1 : tensor<1000xi1>, tensor<1000xf32>, tensor<1000xf32>
    %y_5, %mean_6, %rstd_7 = tfc.layer_norm %1 weight %in_2 bias %in_3 : (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>)
    %2 = tfc.reduce_mean %y_5 dims [0] : tensor<1000xf32> -> tensor<f32>
    %3 = tfc.reduce_mean %1 dims [0] : tensor<1000xf32> -> tensor<f32>
    %4 = tfc.add %2, %3 : tensor<f32>, tensor<f32>
    %5 = tfc.add %4, %in_4 : tensor<f32>, tensor<f32>
    %6 = tfc.constant dense<1.000000e-03> : tensor<1000xf32>
    %7 = tfc.layer_norm_grad_input %6, %1, %mean_6, %rstd_7 weight %in_2 : (tensor<1000xf32>, tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1000xf32>) -> tensor<1000xf32>
    %8 = tfc.add %7, %6 : tensor<1000xf32>, tensor<1000xf32>
    %9 = tfc.constant dense<0.000000e+00> : tensor<f32>
    %10 = tfc.select %0, %8, %9 : tensor<1000xi1>, tensor<1000xf32>, tensor<f32>
    %11 = tfc.layer_norm_grad_input %10, %in, %mean, %rstd weight %in_0 : (tensor<1000xf32>, tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1000xf32>) -> tensor<1000xf32>
    tfc.yield %mean, %rstd, %1, %mean_6, %rstd_7, %5, %10, %11 : tensor<1xf32>, tensor<1xf32>, tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<f32>, tensor<1000xf32>, tensor<1000xf32>
  } {kernel_name = "fused_norms_long_row"}
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : tensor<1xf32>, tensor<1xf32>, tensor<1000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<f32>, tensor<1000xf32>, tensor<1000xf32>
}

// A layer_norm over the trailing [3, 40] of [16, 3, 40] (rows of 120) whose result
// is read as [48, 40]: element row * 120 + j of the row loop is, as [48, 40],
// (row * 3 + j / 40, j % 40), a first coordinate that starts inside the lane
// index's digit and runs into the row's (scripts/fuzz-fusion seed 993850: an
// rms_norm backward read through such a reshape failed codegen with "read at an
// index outside the row being reduced", as the index was bound to an opaque
// variable). It stays the current row, so the epilogue reads the row array.
// CHECK-LABEL: // ===== kernel norm_read_as_other_rows: kind row_reduction
// CHECK: norm_read_as_other_rows(const float* __restrict__ in0
// CHECK: const float [[B:v[0-9]+]] = in1[row * 120 + j];
// CHECK: out0[row * 120 + j] =
func.func @norm_read_as_other_rows(%x: tensor<16x3x40xf32>, %o: tensor<48x40xf32>) -> tensor<48x40xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<16x3x40xf32>, %b = %o : tensor<48x40xf32>) -> tensor<48x40xf32> {
    %y, %m, %s = tfc.layer_norm %a normalized_rank 2 : (tensor<16x3x40xf32>) -> (tensor<16x3x40xf32>, tensor<16x1x1xf32>, tensor<16x1x1xf32>)
    %v = tfc.reshape %y : tensor<16x3x40xf32> -> tensor<48x40xf32>
    %0 = tfc.add %v, %b : tensor<48x40xf32>, tensor<48x40xf32>
    tfc.yield %0 : tensor<48x40xf32>
  } {kernel_name = "norm_read_as_other_rows"}
  return %r : tensor<48x40xf32>
}
