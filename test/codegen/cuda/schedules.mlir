// RUN: tfc-translate --emit-cuda %s | FileCheck %s

// Kernels under schedules other than the default target's: the emitters take
// threads, rows per block, vector width and the grid cap from the kernel's
// `schedule` attribute (a tfcrt.kernel's, or here a tfc.fusion's), and the
// launch geometry follows. The CPU emulation (emulation/check_numerics.py)
// runs every kernel of this file against PyTorch, so a schedule the emitters
// mishandle (a row skipped by the grid-stride loop, a partial the last block
// misses) fails there.

// softmax over rows of 64 with one block of 64 threads per row, the grid
// capped at 16 blocks: each block walks rows 16 apart.
// CHECK-LABEL: // ===== kernel softmax_block_rows: kind row_reduction, grid [16, 1, 1], block [64, 1, 1]
// CHECK: // tfc kernel softmax_block_rows: row_reduction, 64 rows of 64, one block per row
// CHECK: __launch_bounds__(64)
// CHECK: for (int row = blockIdx.x; row < 64; row += gridDim.x) {
func.func @softmax_block_rows(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<64x64xf32>) -> tensor<64x64xf32> {
    %0 = tfc.softmax %a dim -1 : tensor<64x64xf32>
    tfc.yield %0 : tensor<64x64xf32>
  } {kernel_name = "softmax_block_rows", schedule = #tfc.schedule<target = sm_80, threads = 64, max_blocks = 16>}
  return %r : tensor<64x64xf32>
}

// layer_norm with two rows (warps) per block and the grid capped at 5
// blocks: 1024 rows in steps of 10.
// CHECK-LABEL: // ===== kernel layer_norm_two_rows: kind row_reduction, grid [5, 1, 1], block [64, 1, 1]
// CHECK: for (int row = (int)blockIdx.x * 2 + warp; row < 1024; row += (int)gridDim.x * 2) {
func.func @layer_norm_two_rows(%x: tensor<16x64x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>) {
  %r:3 = tfc.fusion row_reduction (%a = %x : tensor<16x64x128xf32>, %c = %w : tensor<128xf32>, %d = %b : tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>) {
    %y, %m, %s = tfc.layer_norm %a weight %c bias %d eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
    tfc.yield %y, %m, %s : tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>
  } {kernel_name = "layer_norm_two_rows", schedule = #tfc.schedule<target = sm_90, threads = 64, rows_per_block = 2, max_blocks = 5>}
  return %r#0, %r#1, %r#2 : tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>
}

// A cross_entropy loss over 7 blocks: 7 partials, summed by the last block.
// CHECK-LABEL: // ===== kernel cross_entropy_seven_blocks: kind row_reduction, grid [7, 1, 1], block [256, 1, 1]
// CHECK: if (gridDim.x != 7) __trap();
func.func @cross_entropy_seven_blocks(%logits: tensor<1000x96xf32>, %labels: tensor<1000xi64>) -> tensor<f32> {
  %r = tfc.fusion row_reduction (%a = %logits : tensor<1000x96xf32>, %b = %labels : tensor<1000xi64>) -> tensor<f32> {
    %0 = tfc.cross_entropy %a, %b : tensor<1000x96xf32>, tensor<1000xi64> -> tensor<f32>
    tfc.yield %0 : tensor<f32>
  } {kernel_name = "cross_entropy_seven_blocks", schedule = #tfc.schedule<target = sm_90, threads = 256, rows_per_block = 8, max_blocks = 7>}
  return %r : tensor<f32>
}

// Column sums over the rows with one warp per block and 9 blocks.
// CHECK-LABEL: // ===== kernel column_sums_one_warp: kind row_reduction, grid [9, 1, 1], block [32, 1, 1]
// CHECK: __device__ float tfc_partial_col0[864];
func.func @column_sums_one_warp(%x: tensor<300x96xf32>) -> (tensor<300xf32>, tensor<96xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<300x96xf32>) -> (tensor<300xf32>, tensor<96xf32>) {
    %0 = tfc.reduce_max %a dims [1] : tensor<300x96xf32> -> tensor<300xf32>
    %1 = tfc.reduce_sum %a dims [0] : tensor<300x96xf32> -> tensor<96xf32>
    tfc.yield %0, %1 : tensor<300xf32>, tensor<96xf32>
  } {kernel_name = "column_sums_one_warp", schedule = #tfc.schedule<target = sm_90, threads = 32, max_blocks = 9>}
  return %r#0, %r#1 : tensor<300xf32>, tensor<96xf32>
}

// A pointwise kernel without vector accesses, 64 threads, 3 blocks.
// CHECK-LABEL: // ===== kernel gelu_scalar: kind pointwise, grid [3, 1, 1], block [64, 1, 1]
// CHECK: // tfc kernel gelu_scalar: pointwise over 1000 elements, scalar
func.func @gelu_scalar(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<1000xf32>) -> tensor<1000xf32> {
    %0 = tfc.gelu %a : tensor<1000xf32>
    tfc.yield %0 : tensor<1000xf32>
  } {kernel_name = "gelu_scalar", schedule = #tfc.schedule<target = sm_90, threads = 64, max_blocks = 3>}
  return %r : tensor<1000xf32>
}

// 8-byte vectors of f16: 4 elements per access.
// CHECK-LABEL: // ===== kernel add_f16_vec8: kind pointwise, grid [8, 1, 1], block [128, 1, 1]
// CHECK: // tfc kernel add_f16_vec8: pointwise over 4096 elements, vector width 4 when aligned
func.func @add_f16_vec8(%x: tensor<4096xf16>, %y: tensor<4096xf16>) -> tensor<4096xf16> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4096xf16>, %b = %y : tensor<4096xf16>) -> tensor<4096xf16> {
    %0 = tfc.add %a, %b : tensor<4096xf16>, tensor<4096xf16>
    tfc.yield %0 : tensor<4096xf16>
  } {kernel_name = "add_f16_vec8", schedule = #tfc.schedule<target = sm_80, threads = 128, vector_bytes = 8, max_blocks = 8>}
  return %r : tensor<4096xf16>
}

// A column reduction in blocks of 32 columns x 4 row groups, aiming at 40
// blocks: 2 column tiles x 20 row splits.
// CHECK-LABEL: // ===== kernel column_sum_four_groups: kind column_reduction, grid [2, 20, 1], block [32, 4, 1]
func.func @column_sum_four_groups(%x: tensor<4096x64xf32>) -> tensor<64xf32> {
  %r = tfc.fusion column_reduction (%a = %x : tensor<4096x64xf32>) -> tensor<64xf32> {
    %0 = tfc.reduce_sum %a dims [0] : tensor<4096x64xf32> -> tensor<64xf32>
    tfc.yield %0 : tensor<64xf32>
  } {kernel_name = "column_sum_four_groups", schedule = #tfc.schedule<target = sm_90, threads = 128, rows_per_block = 4, max_blocks = 40>}
  return %r : tensor<64xf32>
}

// Whole-tensor sums of a multi-tensor launch over 3 blocks of 128 threads.
// CHECK-LABEL: // ===== kernel sums_three_blocks: kind multi_tensor, grid [3, 1, 1], block [128, 1, 1]
// CHECK: __shared__ float tfc_sum_shm0[4];
func.func @sums_three_blocks(%x: tensor<5000xf32>, %y: tensor<77x3xf32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = tfc.fusion multi_tensor (%a = %x : tensor<5000xf32>, %b = %y : tensor<77x3xf32>) -> (tensor<f32>, tensor<f32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<5000xf32> -> tensor<f32>
    %1 = tfc.reduce_max %b dims [0, 1] : tensor<77x3xf32> -> tensor<f32>
    tfc.yield %0, %1 : tensor<f32>, tensor<f32>
  } {kernel_name = "sums_three_blocks", schedule = #tfc.schedule<target = sm_90, threads = 128, max_blocks = 3>}
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// unroll = 3 on rows of 5000 at 64 threads (79 elements a thread, too many
// for register arrays): every pass loads 3 elements a thread ahead of their
// use, the last chunk of a thread partly past the row (79 = 26 x 3 + 1,
// guarded by j < 5000). softmax_grad loads both row-shaped operands ahead
// for its row sum and again for dx.
// CHECK-LABEL: // ===== kernel softmax_grad_ahead_three: kind row_reduction, grid [6, 1, 1], block [64, 1, 1]
// CHECK: for (int k0 = 0; k0 < 79; k0 += 3) {
// CHECK-NEXT: float [[DY:ahead[0-9]+]][3];
// CHECK-NEXT: float [[Y:ahead[0-9]+]][3];
// CHECK: const int j = (int)threadIdx.x + 64 * (k0 + u);
// CHECK-NEXT: if (j < 5000) {
// CHECK: [[ACC:acc[0-9]+]] = [[ACC]] + ([[DY]][u] * [[Y]][u]);
// CHECK: for (int k0 = 0; k0 < 79; k0 += 3) {
func.func @softmax_grad_ahead_three(%dy: tensor<6x5000xf32>, %y: tensor<6x5000xf32>) -> tensor<6x5000xf32> {
  %r = tfc.fusion row_reduction (%a = %dy : tensor<6x5000xf32>, %b = %y : tensor<6x5000xf32>) -> tensor<6x5000xf32> {
    %0 = tfc.softmax_grad %a, %b dim -1 : tensor<6x5000xf32>
    tfc.yield %0 : tensor<6x5000xf32>
  } {kernel_name = "softmax_grad_ahead_three", schedule = #tfc.schedule<target = sm_90, threads = 64, max_blocks = 65535, unroll = 3>}
  return %r : tensor<6x5000xf32>
}

// A cross-entropy loss and its gradient on 4 blocks striding over 6 rows,
// unroll = 3: the online statistics and the gradient pass both read the
// logits 3 ahead.
// CHECK-LABEL: // ===== kernel cross_entropy_and_grad_ahead_three: kind row_reduction, grid [4, 1, 1], block [64, 1, 1]
// CHECK: tfc_softmax_update({{acc[0-9]+}}, {{acc[0-9]+}}, (float)({{ahead[0-9]+}}[u]));
// CHECK: expf({{ahead[0-9]+}}[u] -
func.func @cross_entropy_and_grad_ahead_three(%x: tensor<6x5000xf32>, %labels: tensor<6xi64>) -> (tensor<f32>, tensor<6x5000xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<6x5000xf32>, %b = %labels : tensor<6xi64>) -> (tensor<f32>, tensor<6x5000xf32>) {
    %0 = tfc.cross_entropy %a, %b : tensor<6x5000xf32>, tensor<6xi64> -> tensor<f32>
    %1 = tfc.constant dense<1.000000e+00> : tensor<f32>
    %2 = tfc.cross_entropy_grad %1, %a, %b : tensor<f32>, tensor<6x5000xf32>, tensor<6xi64> -> tensor<6x5000xf32>
    tfc.yield %0, %2 : tensor<f32>, tensor<6x5000xf32>
  } {kernel_name = "cross_entropy_and_grad_ahead_three", schedule = #tfc.schedule<target = sm_90, threads = 64, max_blocks = 4, unroll = 3>}
  return %r#0, %r#1 : tensor<f32>, tensor<6x5000xf32>
}

// A layer_norm of one row of 5000 with unroll = 3: its element pass loads x
// ahead but not the [5000] weight and bias, which have as many elements as
// the row but other coordinates (they would be loaded into arrays nothing
// reads, and again where they are used).
// CHECK-LABEL: // ===== kernel layer_norm_one_row_ahead: kind row_reduction, grid [1, 1, 1], block [64, 1, 1]
// CHECK-COUNT-3: for (int k0 = 0; k0 < 79; k0 += 3) {
// CHECK-NEXT: float [[X:ahead[0-9]+]][3];
// CHECK-NEXT: #pragma unroll
// CHECK: = (([[X]][u] - {{.*}}) * {{.*}}) * {{.*}} + {{.*}};
func.func @layer_norm_one_row_ahead(%x: tensor<1x5000xf32>, %w: tensor<5000xf32>, %b: tensor<5000xf32>) -> tensor<1x5000xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<1x5000xf32>, %c = %w : tensor<5000xf32>, %d = %b : tensor<5000xf32>) -> tensor<1x5000xf32> {
    %0, %1, %2 = tfc.layer_norm %a weight %c bias %d eps 1.0e-05 : (tensor<1x5000xf32>, tensor<5000xf32>, tensor<5000xf32>) -> (tensor<1x5000xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
    tfc.yield %0 : tensor<1x5000xf32>
  } {kernel_name = "layer_norm_one_row_ahead", schedule = #tfc.schedule<target = sm_90, threads = 64, max_blocks = 65535, unroll = 3>}
  return %r : tensor<1x5000xf32>
}
