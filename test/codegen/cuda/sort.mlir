// RUN: tfc-translate --emit-cuda --split-input-file %s | FileCheck %s
// RUN: tfc-translate --emit-host --split-input-file %s | FileCheck %s --check-prefix=HOST

// tfc.sort, a sort kernel: one block per row (256 threads, 3 rows -> 3
// blocks), a bitonic network over (key, position) pairs padded to 1024 with
// virtual sentinels (a comparator whose upper position is >= 1000 is
// skipped). 1024 f32 keys and i64 positions fit in shared memory: the row is
// loaded, sorted there and stored once. Every comparator asks the host's
// comparator (tfc::scalar::sortsBefore, common/ScalarOps.h) whether the upper
// pair goes first. The emulation (check_numerics.py) compares it with
// torch.sort(stable=True) on NaN, infinities, signed zeros and ties.
// CHECK-LABEL: // ===== kernel sort_f32: kind sort, grid [3, 1, 1], block [256, 1, 1]
// CHECK: // tfc kernel sort_f32: sort of 3 rows of 1000: a block per row, a bitonic network over 1024 (position, key) pairs in shared memory, 3 blocks of 256
// CHECK: TFC_SCALAR_FN bool sortsBefore(
// CHECK: sort_f32(const float* __restrict__ in0, float* __restrict__ out0, long long* __restrict__ out1)
// CHECK-NEXT: __shared__ float tfc_keys[1024];
// CHECK-NEXT: __shared__ long long tfc_pos[1024];
// CHECK-NEXT: for (long long row = blockIdx.x; row < 3; row += gridDim.x) {
// CHECK-NEXT: const long long base = row * 1000;
// CHECK-NEXT: for (long long i = threadIdx.x; i < 1000; i += blockDim.x) {
// CHECK-NEXT: tfc_keys[i] = in0[base + i];
// CHECK-NEXT: tfc_pos[i] = i;
// CHECK: __syncthreads();
// CHECK-NEXT: for (long long k = 2; k <= 1024; k <<= 1) {
// CHECK-NEXT: for (long long j = k >> 1; j > 0; j >>= 1) {
// CHECK-NEXT: for (long long t = threadIdx.x; t < 512; t += blockDim.x) {
// CHECK-NEXT: const long long lo = (t / j) * 2 * j + t % j;
// CHECK-NEXT: const long long hi = j == (k >> 1) ? (t / j) * 2 * j + 2 * j - 1 - t % j : lo + j;
// CHECK-NEXT: if (hi < 1000) {
// CHECK-NEXT: const float a = tfc_keys[lo], b = tfc_keys[hi];
// CHECK-NEXT: const long long pa = tfc_pos[lo], pb = tfc_pos[hi];
// CHECK-NEXT: if (tfc::scalar::sortsBefore<float>(b, pb, a, pa, false)) {
// CHECK-NEXT: tfc_keys[lo] = b;
// CHECK-NEXT: tfc_keys[hi] = a;
// CHECK-NEXT: tfc_pos[lo] = pb;
// CHECK-NEXT: tfc_pos[hi] = pa;
// CHECK: out0[base + i] = tfc_keys[i];
// CHECK-NEXT: out1[base + i] = tfc_pos[i];

// The host program: the op itself, both results.
// HOST-LABEL: # ===== kernel sort_f32
// HOST: kind sort
// HOST: op %1 sort f32 3x1000 (%0) descending=false
// HOST-NEXT: op %2 result i64 3x1000 (%1) index=1
// HOST-NEXT: out %1
// HOST-NEXT: out %2
func.func @sort_f32(%x: tensor<3x1000xf32>) -> (tensor<3x1000xf32>, tensor<3x1000xi64>) {
  %r:2 = tfc.fusion sort (%a = %x : tensor<3x1000xf32>) -> (tensor<3x1000xf32>, tensor<3x1000xi64>) {
    %v, %i = tfc.sort %a : tensor<3x1000xf32> -> tensor<3x1000xf32>, tensor<3x1000xi64>
    tfc.yield %v, %i : tensor<3x1000xf32>, tensor<3x1000xi64>
  } {kernel_name = "sort_f32"}
  return %r#0, %r#1 : tensor<3x1000xf32>, tensor<3x1000xi64>
}

// -----

// Rows of 5000 (padded to 8192: 96 KiB of pairs, past the shared budget) sort
// in place in the outputs, descending, with 1024 threads a row; the indices
// are yielded first.
// CHECK-LABEL: // ===== kernel sort_long: kind sort, grid [2, 1, 1], block [1024, 1, 1]
// CHECK: sort descending of 2 rows of 5000: a block per row, a bitonic network over 8192 (position, key) pairs in global memory
// CHECK: sort_long(const float* __restrict__ in0, long long* __restrict__ out0, float* __restrict__ out1)
// CHECK-NOT: __shared__
// CHECK: out1[base + i] = in0[base + i];
// CHECK-NEXT: out0[base + i] = i;
// CHECK: if (hi < 5000) {
// CHECK-NEXT: const float a = out1[base + lo], b = out1[base + hi];
// CHECK-NEXT: const long long pa = out0[base + lo], pb = out0[base + hi];
// CHECK-NEXT: if (tfc::scalar::sortsBefore<float>(b, pb, a, pa, true)) {
// CHECK-NEXT: out1[base + lo] = b;
func.func @sort_long(%x: tensor<2x5000xf32>) -> (tensor<2x5000xi64>, tensor<2x5000xf32>) {
  %r:2 = tfc.fusion sort (%a = %x : tensor<2x5000xf32>) -> (tensor<2x5000xi64>, tensor<2x5000xf32>) {
    %v, %i = tfc.sort %a descending : tensor<2x5000xf32> -> tensor<2x5000xf32>, tensor<2x5000xi64>
    tfc.yield %i, %v : tensor<2x5000xi64>, tensor<2x5000xf32>
  } {kernel_name = "sort_long"}
  return %r#0, %r#1 : tensor<2x5000xi64>, tensor<2x5000xf32>
}

// -----

// bf16 keys compare as float and are stored back exactly.
// CHECK-LABEL: // ===== kernel sort_bf16: kind sort, grid [4, 1, 1], block [256, 1, 1]
// CHECK: tfc_keys[i] = __bfloat162float(in0[base + i]);
// CHECK: out0[base + i] = __float2bfloat16_rn(tfc_keys[i]);
func.func @sort_bf16(%x: tensor<4x37xbf16>) -> (tensor<4x37xbf16>, tensor<4x37xi64>) {
  %r:2 = tfc.fusion sort (%a = %x : tensor<4x37xbf16>) -> (tensor<4x37xbf16>, tensor<4x37xi64>) {
    %v, %i = tfc.sort %a : tensor<4x37xbf16> -> tensor<4x37xbf16>, tensor<4x37xi64>
    tfc.yield %v, %i : tensor<4x37xbf16>, tensor<4x37xi64>
  } {kernel_name = "sort_bf16"}
  return %r#0, %r#1 : tensor<4x37xbf16>, tensor<4x37xi64>
}

// -----

// i64 keys, descending, in 3x300: 8-byte keys.
// CHECK-LABEL: // ===== kernel sort_i64: kind sort, grid [3, 1, 1], block [256, 1, 1]
// CHECK: __shared__ long long tfc_keys[512];
// CHECK: tfc::scalar::sortsBefore<long long>(b, pb, a, pa, true)
func.func @sort_i64(%x: tensor<3x300xi64>) -> (tensor<3x300xi64>, tensor<3x300xi64>) {
  %r:2 = tfc.fusion sort (%a = %x : tensor<3x300xi64>) -> (tensor<3x300xi64>, tensor<3x300xi64>) {
    %v, %i = tfc.sort %a descending : tensor<3x300xi64> -> tensor<3x300xi64>, tensor<3x300xi64>
    tfc.yield %v, %i : tensor<3x300xi64>, tensor<3x300xi64>
  } {kernel_name = "sort_i64"}
  return %r#0, %r#1 : tensor<3x300xi64>, tensor<3x300xi64>
}

// -----

// Rows of one element: the network has no stage; each row is copied.
// CHECK-LABEL: // ===== kernel sort_single: kind sort, grid [5, 1, 1], block [256, 1, 1]
// CHECK: for (long long k = 2; k <= 1; k <<= 1) {
func.func @sort_single(%x: tensor<5x1xf64>) -> (tensor<5x1xf64>, tensor<5x1xi64>) {
  %r:2 = tfc.fusion sort (%a = %x : tensor<5x1xf64>) -> (tensor<5x1xf64>, tensor<5x1xi64>) {
    %v, %i = tfc.sort %a : tensor<5x1xf64> -> tensor<5x1xf64>, tensor<5x1xi64>
    tfc.yield %v, %i : tensor<5x1xf64>, tensor<5x1xi64>
  } {kernel_name = "sort_single"}
  return %r#0, %r#1 : tensor<5x1xf64>, tensor<5x1xi64>
}
