// RUN: tfc-opt %s --split-input-file --tfc-schedule-kernels | FileCheck %s --check-prefix=SM90
// RUN: tfc-opt %s --split-input-file --tfc-schedule-kernels=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tfc-opt %s --split-input-file --tfc-schedule-kernels=target=host | FileCheck %s --check-prefix=HOST
// The schedule round-trips: printed, parsed and printed again unchanged.
// RUN: tfc-opt %s --split-input-file --tfc-schedule-kernels | tfc-opt --split-input-file | FileCheck %s --check-prefix=SM90
// An unknown target is one clear error.
// RUN: %expect-exit 1 tfc-opt %s --split-input-file --tfc-schedule-kernels=target=sm_75 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: unknown target 'sm_75' (expected sm_80, sm_90 or host)
// row-unroll replaces the unroll of block-per-row kernels (an A/B knob);
// out of range it is one clear error, from the pass and from the pipeline.
// RUN: tfc-opt %s --split-input-file --tfc-schedule-kernels=row-unroll=1 | FileCheck %s --check-prefix=UNROLL1
// RUN: tfc-opt %s --split-input-file --tfc-schedule-kernels="target=sm_80 row-unroll=8" | FileCheck %s --check-prefix=UNROLL8
// RUN: %expect-exit 1 tfc-opt %s --split-input-file --tfc-schedule-kernels=row-unroll=17 2>&1 | FileCheck %s --check-prefix=BADUNROLL
// BADUNROLL: error: row-unroll must be in [1, 16] (or 0: the target's choice), got 17
// RUN: %expect-exit 1 tfc-opt %S/../../../examples/models/gpt-mini.mlir "--tfc-train-pipeline=optimizer=adamw row-unroll=x" 2>&1 | FileCheck %s --check-prefix=BADPIPE
// BADPIPE: unknown value 'x' for option row-unroll (expected 0 to 16)

// --tfc-schedule-kernels records on every kernel how it launches on the
// target (TfcKernelSchedule.h); the CUDA emitters read it.

// A pointwise kernel: 256 threads, 16-byte vectors, a grid capped at 8 waves
// of resident blocks (132 SMs x 8 blocks x 8 on sm_90, 108 SMs on sm_80).
// The host interpreter needs no launch: the schedule names the target only.
// SM90: tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32> schedule <target = sm_90, threads = 256, vector_bytes = 16, max_blocks = 8448>
// SM80: tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32> schedule <target = sm_80, threads = 256, vector_bytes = 16, max_blocks = 6912>
// HOST: tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32> schedule <target = host>
tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32> {
^bb0(%x: tensor<1024xf32>):
  %0 = tfc.relu %x : tensor<1024xf32>
  tfcrt.yield %0 : tensor<1024xf32>
}

// -----

// Rows of at most 1024 elements: one warp each, 8 rows per block. Longer
// rows: one block each, with the fewest threads (128 up to 1024) that leave
// each at most 16 elements (4096 / 256 = 16), loading 4 elements ahead in a
// pass that re-reads the row (unroll = 4; a warp per row: 1, omitted). A
// schedule already present is replaced.
// SM90: tfcrt.kernel @k0 row_reduction {{.*}} schedule <target = sm_90, threads = 256, rows_per_block = 8, max_blocks = 65535>
// SM90: tfcrt.kernel @k1 row_reduction {{.*}} schedule <target = sm_90, threads = 256, max_blocks = 65535, unroll = 4>
// SM80: tfcrt.kernel @k1 row_reduction {{.*}} schedule <target = sm_80, threads = 256, max_blocks = 65535, unroll = 4>
// UNROLL1: tfcrt.kernel @k0 row_reduction {{.*}} schedule <target = sm_90, threads = 256, rows_per_block = 8, max_blocks = 65535>
// UNROLL1: tfcrt.kernel @k1 row_reduction {{.*}} schedule <target = sm_90, threads = 256, max_blocks = 65535>
// UNROLL8: tfcrt.kernel @k0 row_reduction {{.*}} schedule <target = sm_80, threads = 256, rows_per_block = 8, max_blocks = 65535>
// UNROLL8: tfcrt.kernel @k1 row_reduction {{.*}} schedule <target = sm_80, threads = 256, max_blocks = 65535, unroll = 8>
tfcrt.kernel @k0 row_reduction (tensor<64x768xf32>) -> tensor<64x768xf32> schedule <target = sm_80, threads = 64, max_blocks = 1> {
^bb0(%x: tensor<64x768xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<64x768xf32>
  tfcrt.yield %0 : tensor<64x768xf32>
}
tfcrt.kernel @k1 row_reduction (tensor<8x4096xf32>) -> tensor<8x4096xf32> {
^bb0(%x: tensor<8x4096xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<8x4096xf32>
  tfcrt.yield %0 : tensor<8x4096xf32>
}

// -----

// A loss is summed over the rows by the last block to finish, one partial
// per block: the grid is capped at 512 blocks.
// SM90: tfcrt.kernel @k0 row_reduction {{.*}} schedule <target = sm_90, threads = 256, rows_per_block = 8, max_blocks = 512>
tfcrt.kernel @k0 row_reduction (tensor<4096x64xf32>, tensor<4096xi64>) -> tensor<f32> {
^bb0(%logits: tensor<4096x64xf32>, %labels: tensor<4096xi64>):
  %0 = tfc.cross_entropy %logits, %labels : tensor<4096x64xf32>, tensor<4096xi64> -> tensor<f32>
  tfcrt.yield %0 : tensor<f32>
}

// -----

// A column reduction: 32 columns x 8 row groups per block, splitting long
// columns until the grid reaches 4 waves of blocks (528 on sm_90).
// SM90: tfcrt.kernel @k0 column_reduction {{.*}} schedule <target = sm_90, threads = 256, rows_per_block = 8, max_blocks = 528>
// SM80: tfcrt.kernel @k0 column_reduction {{.*}} schedule <target = sm_80, threads = 256, rows_per_block = 8, max_blocks = 432>
tfcrt.kernel @k0 column_reduction (tensor<1024x64xf32>) -> tensor<64xf32> {
^bb0(%x: tensor<1024x64xf32>):
  %0 = tfc.reduce_sum %x dims [0] : tensor<1024x64xf32> -> tensor<64xf32>
  tfcrt.yield %0 : tensor<64xf32>
}

// -----

// multi_tensor: 256 threads and at most 4096 blocks; with a whole-tensor sum
// (a gradient norm) at most 512, one partial per block. block_quantized runs
// one thread per element of a quantization block (the op's block_size).
// SM90: tfcrt.kernel @k0 multi_tensor {{.*}} schedule <target = sm_90, threads = 256, max_blocks = 4096>
// SM90: tfcrt.kernel @k1 multi_tensor {{.*}} schedule <target = sm_90, threads = 256, max_blocks = 512>
// SM90: tfcrt.kernel @k2 block_quantized {{.*}} schedule <target = sm_90, threads = 128>
// HOST: tfcrt.kernel @k2 block_quantized {{.*}} schedule <target = host>
tfcrt.kernel @k0 multi_tensor (tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<i64>) -> tensor<64xf32> {
^bb0(%p: tensor<64xf32>, %g: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %0 = tfc.sgd %p, %g, %lr, %t : tensor<64xf32>, tensor<64xf32>, tensor<f32>
  tfcrt.yield %0 : tensor<64xf32>
}
tfcrt.kernel @k1 multi_tensor (tensor<64xf32>) -> tensor<f32> {
^bb0(%g: tensor<64xf32>):
  %0 = tfc.reduce_sum %g dims [0] : tensor<64xf32> -> tensor<f32>
  tfcrt.yield %0 : tensor<f32>
}
tfcrt.kernel @k2 block_quantized (tensor<256xf32>, tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<256xui8>, tensor<2xf32>) {
^bb0(%p: tensor<256xf32>, %g: tensor<256xf32>, %q: tensor<256xui8>, %s: tensor<2xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %p, %g, %q, %s, %q, %s, %lr, %t block_size 128 : tensor<256xf32>, tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<f32>
  tfcrt.yield %p1, %m1, %ma1, %v1, %va1 : tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<256xui8>, tensor<2xf32>
}
