// RUN: tfc-translate --emit-cuda %s | FileCheck %s

// The bias gradient of a linear layer: 128 columns of 1024 rows. Few
// columns, so the rows are split over 16 blocks per column tile; each block
// combines its 8 row groups in order in shared memory, and the last block of
// a tile (integer atomic counter) sums the 16 partials in split order:
// deterministic, no float atomics.
// CHECK-LABEL: // ===== kernel bias_grad: kind column_reduction, grid [4, 16, 1], block [32, 8, 1]
// CHECK: __device__ float tfc_split_partial0[2048];
// CHECK-NEXT: __device__ unsigned int tfc_tiles_done[4];
// CHECK: const int o = (int)blockIdx.x * 32 + tx;
// CHECK: if (o < 128) {
// CHECK-NEXT: for (int r = r_begin + ty; r < r_end; r += 8) {
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[o + r * 128];
// CHECK-NEXT: [[A:acc[0-9]+]] = [[A]] + [[X]];
// CHECK: __shared__ float tfc_groups0[8][33];
// CHECK-NEXT: tfc_groups0[ty][tx] = [[A]];
// CHECK-NEXT: __syncthreads();
// CHECK: for (int g = 1; g < 8; ++g) [[T:total[0-9]+]] = [[T]] + tfc_groups0[g][tx];
// CHECK-NEXT: tfc_split_partial0[(int)blockIdx.y * 128 + o] = [[T]];
// CHECK-NEXT: __threadfence();
// CHECK-NOT: atomicAdd(&tfc_split
// CHECK: tfc_last_split = atomicAdd(&tfc_tiles_done[blockIdx.x], 1u) == 15u;
// CHECK: for (int s = 1; s < 16; ++s) [[F:total[0-9]+]] = [[F]] + __ldcg(&tfc_split_partial0[(int)s * 128 + o]);
// CHECK-NEXT: const float [[C:col[0-9]+]] = [[F]];
// CHECK-NEXT: out0[o] = [[C]];
// CHECK: if (tx == 0 && ty == 0) tfc_tiles_done[blockIdx.x] = 0u;
func.func @bias_grad(%dy: tensor<16x64x128xf32>) -> tensor<128xf32> {
  %r = tfc.fusion column_reduction (%a = %dy : tensor<16x64x128xf32>) -> tensor<128xf32> {
    %0 = tfc.reduce_sum %a dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    tfc.yield %0 : tensor<128xf32>
  } {kernel_name = "bias_grad"}
  return %r : tensor<128xf32>
}

// Many columns and short columns: one stage, no partials. A pointwise
// prologue (exp, rounded to bf16) feeds a mean and a keepdim max; the
// prologue's value is also an output, written while it is computed; the
// epilogue (neg) runs on the column's result.
// CHECK-LABEL: // ===== kernel mean_max_bf16: kind column_reduction, grid [1024, 1, 1], block [32, 8, 1]
// CHECK-NOT: tfc_split_partial
// CHECK: const float [[X:v[0-9]+]] = __bfloat162float(in0[o + r * 32768]);
// CHECK-NEXT: const float [[E:v[0-9]+]] = tfc_round_bf16(expf([[X]]));
// CHECK-NEXT: [[S:acc[0-9]+]] = [[S]] + [[E]];
// CHECK-NEXT: [[M:acc[0-9]+]] = tfc_max([[M]], [[E]]);
// CHECK-NEXT: out2[o + r * 32768] = __float2bfloat16_rn([[E]]);
// CHECK: const float [[MEAN:col[0-9]+]] = tfc_round_bf16({{total[0-9]+}} / 4.0f);
// CHECK-NEXT: const float [[MAX:col[0-9]+]] = tfc_round_bf16({{total[0-9]+}});
// CHECK-NEXT: out0[o] = __float2bfloat16_rn([[MEAN]]);
// CHECK-NEXT: const float [[N:v[0-9]+]] = tfc_round_bf16(-[[MAX]]);
// CHECK-NEXT: out1[o] = __float2bfloat16_rn([[N]]);
func.func @mean_max_bf16(%x: tensor<4x8x4096xbf16>) -> (tensor<8x4096xbf16>, tensor<1x8x4096xbf16>, tensor<4x8x4096xbf16>) {
  %r:3 = tfc.fusion column_reduction (%a = %x : tensor<4x8x4096xbf16>) -> (tensor<8x4096xbf16>, tensor<1x8x4096xbf16>, tensor<4x8x4096xbf16>) {
    %e = tfc.exp %a : tensor<4x8x4096xbf16>
    %0 = tfc.reduce_mean %e dims [0] : tensor<4x8x4096xbf16> -> tensor<8x4096xbf16>
    %1 = tfc.reduce_max %e dims [0] keepdim : tensor<4x8x4096xbf16> -> tensor<1x8x4096xbf16>
    %2 = tfc.neg %1 : tensor<1x8x4096xbf16>
    tfc.yield %0, %2, %e : tensor<8x4096xbf16>, tensor<1x8x4096xbf16>, tensor<4x8x4096xbf16>
  } {kernel_name = "mean_max_bf16"}
  return %r#0, %r#1, %r#2 : tensor<8x4096xbf16>, tensor<1x8x4096xbf16>, tensor<4x8x4096xbf16>
}

// A middle dimension reduced (dims [1] of 4x512x96): the column index
// interleaves around it; integer sums accumulate in i64 and wrap (through
// the unsigned type: signed overflow is undefined), as torch's.
// CHECK-LABEL: // ===== kernel middle_dim_i64: kind column_reduction
// CHECK: long long [[A:acc[0-9]+]] = 0LL;
// CHECK: const long long [[X:v[0-9]+]] = in0[o % 96 + o / 96 * 49152 + r * 96];
// CHECK-NEXT: [[A]] = (long long)((unsigned long long)[[A]] + (unsigned long long)[[X]]);
// CHECK: for (int g = 1; g < {{[0-9]+}}; ++g) [[T:total[0-9]+]] = (long long)((unsigned long long)[[T]] + (unsigned long long)tfc_groups0[g][tx]);
func.func @middle_dim_i64(%x: tensor<4x512x96xi64>) -> tensor<4x96xi64> {
  %r = tfc.fusion column_reduction (%a = %x : tensor<4x512x96xi64>) -> tensor<4x96xi64> {
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x512x96xi64> -> tensor<4x96xi64>
    tfc.yield %0 : tensor<4x96xi64>
  } {kernel_name = "middle_dim_i64"}
  return %r : tensor<4x96xi64>
}
