// The fusion option of the pipelines: --tfc-fuse runs by default, fusion=none keeps one
// op per kernel (differential tests, bisecting), and a bad value is one clear error.
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-train-pipeline="optimizer=sgd" | FileCheck %s --check-prefix=FUSED
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-train-pipeline="optimizer=sgd fusion=all" | FileCheck %s --check-prefix=FUSED
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-train-pipeline="fusion=none optimizer=sgd" | FileCheck %s --check-prefix=NONE
// RUN: not tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-train-pipeline="optimizer=sgd fusion=maybe" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-lower-to-exec="fusion=maybe" 2>&1 | FileCheck %s --check-prefix=BAD-LOWER

// The mlp's training step fused: bias + ReLU as the first GEMM's epilogue and the
// output bias as the second's (the backward reads the ReLU's output), the loss with
// its gradient and the output bias's gradient (a column sum over the rows) in one row
// kernel, the ReLU backward as the prologue of the hidden bias gradient's column
// reduction (which also writes the masked gradient the GEMMs read), the step count,
// the four SGD updates in one multi-tensor launch.
// FUSED-LABEL: tfcrt.entry @train_step
// FUSED: tfcrt.gemm {{.*}} epilogue relu_bias
// FUSED: tfcrt.gemm {{.*}} epilogue bias
// FUSED-COUNT-4: tfcrt.launch
// FUSED-NOT: tfcrt.launch
// FUSED: tfcrt.return

// NONE-LABEL: tfcrt.entry @train_step
// NONE-COUNT-14: tfcrt.launch
// NONE-NOT: tfcrt.launch
// NONE: tfcrt.return

// BAD: error: unknown value 'maybe' for option fusion (expected all or none)
// BAD-LOWER: for the --fusion option: Cannot find option named 'maybe'!
