// The target option of the pipelines: kernels are scheduled for sm_90 by
// default, for sm_80 or the host when asked, and a bad value is one clear
// error in either pipeline.
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec | FileCheck %s --check-prefix=SM90
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-train-pipeline="optimizer=sgd target=host" | FileCheck %s --check-prefix=HOST
// RUN: not tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-train-pipeline="optimizer=sgd target=sm_70" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-lower-to-exec=target=gpu 2>&1 | FileCheck %s --check-prefix=BAD-LOWER

// gpt-mini's forward: the head split's pointwise kernel and the loss's row kernel (one
// warp per row, a loss summed by the last of at most 512 blocks), each with the
// schedule it will launch with.
// SM90: tfcrt.kernel @{{k[0-9]+}} pointwise {{.*}} schedule <target = sm_90, threads = 256, vector_bytes = 16, max_blocks = 8448>
// SM90: tfcrt.kernel @{{k[0-9]+}} row_reduction {{.*}} schedule <target = sm_90, threads = 256, rows_per_block = 8, max_blocks = 512>
// SM80: tfcrt.kernel @{{k[0-9]+}} pointwise {{.*}} schedule <target = sm_80, threads = 256, vector_bytes = 16, max_blocks = 6912>

// For the host every kernel of the train step says so and nothing else.
// HOST-LABEL: tfcrt.kernel @k0
// HOST-SAME: schedule <target = host> {
// HOST-NOT: target = sm_
// HOST: tfcrt.entry @train_step

// BAD: error: unknown value 'sm_70' for option target (expected sm_80, sm_90 or host)
// BAD-LOWER: error: unknown target 'gpu' (expected sm_80, sm_90 or host)
