// RUN: tfc-translate --emit-cuda --split-input-file %s | FileCheck %s
// RUN: tfc-translate --emit-host --split-input-file %s | FileCheck %s --check-prefix=HOST

// The token embedding's gradient (embedding_grad, a scatter kernel): one warp
// per table row (8 per block, 300 rows -> 38 blocks). The warp reads the ids
// 32 at a time, __ballot_sync marks the positions holding its row, and it adds
// those dy rows in increasing position order (__ffs, then clear the lowest
// bit), each lane owning columns lane + 32k (128 columns: 4 per lane, one
// pass). Every table row is stored once, zeros where no id matches. The
// emulation (check_numerics.py) runs it against an in-order f32 sum.
// CHECK-LABEL: // ===== kernel embedding_grad: kind scatter, grid [38, 1, 1], block [256, 1, 1]
// CHECK: embedding_grad(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out0)
// CHECK: const int lane = threadIdx.x & 31;
// CHECK-NEXT: for (int row = (int)blockIdx.x * 8 + (int)(threadIdx.x >> 5); row < 300; row += (int)gridDim.x * 8) {
// CHECK-NEXT: for (int c0 = 0; c0 < 128; c0 += 128) {
// CHECK-NEXT: float acc[4];
// CHECK: for (int j0 = 0; j0 < 1024; j0 += 32) {
// CHECK-NEXT: bool hit = false;
// CHECK-NEXT: const int j = j0 + lane;
// CHECK-NEXT: if (j < 1024) {
// CHECK-NEXT: const long long [[ID:v[0-9]+]] = in1[j];
// CHECK-NEXT: hit = (long long)([[ID]]) == (long long)row;
// CHECK: unsigned mask = __ballot_sync(0xffffffffu, hit);
// CHECK-NEXT: while (mask != 0u) {
// CHECK-NEXT: const int i = j0 + (__ffs(mask) - 1);
// CHECK-NEXT: mask &= mask - 1u;
// CHECK: const int d = c0 + lane + 32 * k;
// CHECK-NEXT: if (d < 128) {
// CHECK-NEXT: const float [[DY:v[0-9]+]] = in0[i * 128 + d];
// CHECK-NEXT: acc[k] += [[DY]];
// CHECK: out0[row * 128 + d] = acc[k];

// The host program: the op itself (the interpreter sums in the same order).
// HOST-LABEL: # ===== kernel embedding_grad
// HOST: kind scatter
// HOST: op %2 embedding_grad f32 300x128 (%0, %1)
func.func @embedding_grad(%dy: tensor<16x64x128xf32>, %ids: tensor<16x64xi64>) -> tensor<300x128xf32> {
  %r = tfc.fusion scatter (%a = %dy : tensor<16x64x128xf32>, %b = %ids : tensor<16x64xi64>) -> tensor<300x128xf32> {
    %0 = tfc.embedding_grad %a, %b : tensor<16x64x128xf32>, tensor<16x64xi64> -> tensor<300x128xf32>
    tfc.yield %0 : tensor<300x128xf32>
  } {kernel_name = "embedding_grad"}
  return %r : tensor<300x128xf32>
}

// -----

// bf16 dy and i32 ids, 37 positions (the last 32-id chunk is partial) and rows
// of 1100: 35 columns per lane, more than the 32 accumulators a lane holds, need
// two passes of 18 (576 columns each), each scanning the ids again. The sum is
// f32, rounded to bf16 once at the store.
// CHECK-LABEL: // ===== kernel embedding_grad_bf16: kind scatter, grid [7, 1, 1], block [256, 1, 1]
// CHECK: for (int c0 = 0; c0 < 1100; c0 += 576) {
// CHECK-NEXT: float acc[18];
// CHECK: const int [[ID:v[0-9]+]] = in1[j];
// CHECK: const float [[DY:v[0-9]+]] = __bfloat162float(in0[i * 1100 + d]);
// CHECK: out0[row * 1100 + d] = __float2bfloat16_rn(acc[k]);
func.func @embedding_grad_bf16(%dy: tensor<37x1100xbf16>, %ids: tensor<37xi32>) -> tensor<50x1100xbf16> {
  %r = tfc.fusion scatter (%a = %dy : tensor<37x1100xbf16>, %b = %ids : tensor<37xi32>) -> tensor<50x1100xbf16> {
    %0 = tfc.embedding_grad %a, %b : tensor<37x1100xbf16>, tensor<37xi32> -> tensor<50x1100xbf16>
    tfc.yield %0 : tensor<50x1100xbf16>
  } {kernel_name = "embedding_grad_bf16"}
  return %r : tensor<50x1100xbf16>
}

// -----

// Pointwise ops computing dy run at each matched (position, column), once per
// dy element: here the sum of two gradients, in f64 (double accumulators).
// Two blocks stride over 7 rows with one warp per block (a schedule other than
// the default's).
// CHECK-LABEL: // ===== kernel embedding_grad_prologue: kind scatter, grid [2, 1, 1], block [32, 1, 1]
// CHECK: for (int row = (int)blockIdx.x * 1 + (int)(threadIdx.x >> 5); row < 7; row += (int)gridDim.x * 1) {
// CHECK: double acc[2];
// CHECK: const double [[A:v[0-9]+]] = in0[i * 33 + d];
// CHECK-NEXT: const double [[B:v[0-9]+]] = in1[i * 33 + d];
// CHECK-NEXT: const double [[S:v[0-9]+]] = [[A]] + [[B]];
// CHECK-NEXT: acc[k] += [[S]];
func.func @embedding_grad_prologue(%dy1: tensor<5x3x33xf64>, %dy2: tensor<5x3x33xf64>, %ids: tensor<5x3xi64>) -> tensor<7x33xf64> {
  %r = tfc.fusion scatter (%a = %dy1 : tensor<5x3x33xf64>, %b = %dy2 : tensor<5x3x33xf64>, %c = %ids : tensor<5x3xi64>) -> tensor<7x33xf64> {
    %0 = tfc.add %a, %b : tensor<5x3x33xf64>, tensor<5x3x33xf64>
    %1 = tfc.embedding_grad %0, %c : tensor<5x3x33xf64>, tensor<5x3xi64> -> tensor<7x33xf64>
    tfc.yield %1 : tensor<7x33xf64>
  } {kernel_name = "embedding_grad_prologue", schedule = #tfc.schedule<target = sm_90, threads = 32, rows_per_block = 1, max_blocks = 2>}
  return %r : tensor<7x33xf64>
}

// -----

// Constant ids (a traced module indexing with a literal list) are cloned into the
// kernel as a table: read, not computed, like ids in memory.
// CHECK-LABEL: // ===== kernel embedding_grad_constant_ids: kind scatter, grid [1, 1, 1], block [256, 1, 1]
// CHECK: __device__ const long long [[T:tfc_table[0-9]+]][6] = {3LL, 0LL, 3LL, 5LL, 1LL, 3LL};
// CHECK: hit = (long long)([[T]][j]) == (long long)row;
func.func @embedding_grad_constant_ids(%dy: tensor<6x40xf32>) -> tensor<6x40xf32> {
  %r = tfc.fusion scatter (%a = %dy : tensor<6x40xf32>) -> tensor<6x40xf32> {
    %ids = tfc.constant dense<[3, 0, 3, 5, 1, 3]> : tensor<6xi64>
    %0 = tfc.embedding_grad %a, %ids : tensor<6x40xf32>, tensor<6xi64> -> tensor<6x40xf32>
    tfc.yield %0 : tensor<6x40xf32>
  } {kernel_name = "embedding_grad_constant_ids"}
  return %r : tensor<6x40xf32>
}

// -----

// A table of width 1 (the frontend's scatter_add flattens its positions into
// rows of one element): the dy load does not depend on the lane loop's k, so
// it is hoisted above the loop, and each `#pragma unroll` stays on its loop.
// CHECK-LABEL: // ===== kernel embedding_grad_width_one: kind scatter
// CHECK: const float [[V:v[0-9]+]] = in0[i];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 1; ++k) {
// CHECK: acc[k] += [[V]];
// CHECK: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 1; ++k) {
func.func @embedding_grad_width_one(%dy: tensor<32x1xf32>, %ids: tensor<32xi64>) -> tensor<144x1xf32> {
  %r = tfc.fusion scatter (%a = %dy : tensor<32x1xf32>, %b = %ids : tensor<32xi64>) -> tensor<144x1xf32> {
    %0 = tfc.embedding_grad %a, %b : tensor<32x1xf32>, tensor<32xi64> -> tensor<144x1xf32>
    tfc.yield %0 : tensor<144x1xf32>
  } {kernel_name = "embedding_grad_width_one"}
  return %r : tensor<144x1xf32>
}
