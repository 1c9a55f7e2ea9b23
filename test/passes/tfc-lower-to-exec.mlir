// The whole lowering pipeline on the example models: it succeeds, the result verifies
// and round-trips (custom and generic form), and it has the expected structure, both
// with fusion=none (one op per kernel) and with fusion (the default, --tfc-fuse).
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-lower-to-exec=fusion=none | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-lower-to-exec=fusion=none --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec=fusion=none | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec=fusion=none --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec=fusion=none | grep -c "tfcrt.launch @" | FileCheck %s --check-prefix=GPT-LAUNCHES
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec=fusion=none | grep -c "tfcrt.kernel @" | FileCheck %s --check-prefix=GPT-KERNELS
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec=fusion=none | grep -c "tfcrt.gemm " | FileCheck %s --check-prefix=GPT-GEMMS
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-lower-to-exec | FileCheck %s --check-prefix=MLP-FUSED
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec | FileCheck %s --check-prefix=GPT-FUSED
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=GPT-FUSED
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec | grep -c "tfcrt.kernel @" | FileCheck %s --check-prefix=GPT-FUSED-KERNELS
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec | grep -c "tfcrt.launch @" | FileCheck %s --check-prefix=GPT-FUSED-LAUNCHES
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --tfc-lower-to-exec | grep -c "tfcrt.gemm " | FileCheck %s --check-prefix=GPT-GEMMS
// A bad fusion mode is one clear error.
// RUN: not tfc-opt %tfc_src/examples/models/mlp.mlir --tfc-lower-to-exec=fusion=some 2>&1 | FileCheck %s --check-prefix=BAD-MODE
// BAD-MODE: for the --fusion option: Cannot find option named 'some'!
// The pipeline's function= option picks the function, as convert-to-exec's does.
// RUN: tfc-opt %s --tfc-lower-to-exec="function=scores" | FileCheck %s --check-prefix=OPTION

// mlp: two linear layers become GEMMs (no kernel symbols), bias adds and ReLU pointwise
// kernels, the loss a row-reduction kernel writing the "loss" output; three 16 KiB
// activations fit in two arena slots.
// MLP-LABEL: tfcrt.arena size 32768 alignment 256
// MLP: tfcrt.kernel @k0 pointwise (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
// MLP: tfc.add
// MLP: tfcrt.kernel @k1 pointwise (tensor<32x128xf32>) -> tensor<32x128xf32>
// MLP: tfc.relu
// MLP: tfcrt.kernel @k2 pointwise (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>
// MLP: tfcrt.kernel @k3 row_reduction (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
// MLP: tfc.cross_entropy
// MLP: tfcrt.entry @forward
// MLP: %[[W1:.*]] = tfcrt.external param "fc1.weight" : memref<128x64xf32>
// MLP: %[[W2:.*]] = tfcrt.external param "fc2.weight" : memref<10x128xf32>
// MLP: %[[X:.*]] = tfcrt.external input "x" : memref<32x64xf32>
// MLP: %[[Y:.*]] = tfcrt.external input "labels" : memref<32xi64>
// MLP: %[[LOSS:.*]] = tfcrt.external output "loss" : memref<f32>
// MLP: %[[H:.*]] = tfcrt.arena_view offset 0 : memref<32x128xf32>
// MLP: tfcrt.gemm %[[X]], %[[W1]] -> %[[H]] transpose_b m 32 n 128 k 64 batch 1 lda 64 ldb 64 ldc 128
// MLP: tfcrt.launch @k0
// MLP: tfcrt.launch @k1
// MLP: tfcrt.gemm %{{.*}}, %[[W2]] -> %{{.*}} transpose_b m 32 n 10 k 128 batch 1 lda 128 ldb 128 ldc 10
// MLP: tfcrt.launch @k2
// MLP: tfcrt.launch @k3 (%{{.*}}, %[[Y]]) -> (%[[LOSS]])
// MLP-NEXT: tfcrt.return
// MLP-NOT: func.func

// gpt-mini: a planned arena; kernels of each kind in program order (the token embedding
// gather, the residual add of the position embeddings, which canonicalization turned
// from a gather of iota ids into the wpe table itself, ln_1 as a row reduction, the QKV
// bias, slices and head transposes, the decomposed causal attention); linear layers as
// flattened GEMMs (m = 16 * 64), attention as 64 batched GEMMs; the loss written by the
// last launch.
// GPT-LABEL: tfcrt.arena size {{[0-9]+}} alignment 256
// GPT: tfcrt.kernel @k0 gather (tensor<256x128xf32>, tensor<16x64xi64>) -> tensor<16x64x128xf32>
// GPT-NEXT: ^bb0
// GPT-NEXT: tfc.embedding
// GPT: tfcrt.kernel @k1 pointwise (tensor<16x64x128xf32>, tensor<64x128xf32>) -> tensor<16x64x128xf32>
// GPT: tfc.add
// GPT: tfcrt.kernel @k2 row_reduction
// GPT: tfc.layer_norm
// GPT: tfcrt.kernel @k3 pointwise
// GPT: tfc.add {{.*}} : tensor<16x64x384xf32>, tensor<384xf32>
// GPT: tfcrt.kernel @k4 pointwise
// GPT: tfc.slice
// GPT: tfcrt.kernel @k5 pointwise
// GPT: tfc.transpose
// GPT: tfc.constant dense<0.176776692> : tensor<f32>
// GPT-NEXT: tfc.mul
// GPT: tfc.iota dim 0 : tensor<64x64xi32>
// GPT: tfc.iota dim 1 : tensor<64x64xi32>
// GPT: tfc.compare le
// GPT: tfc.constant dense<0xFF800000> : tensor<f32>
// GPT-NEXT: tfc.select
// GPT: row_reduction (tensor<16x4x64x64xf32>) -> tensor<16x4x64x64xf32>
// GPT-NEXT: ^bb0
// GPT-NEXT: tfc.softmax {{.*}} dim -1
// GPT: row_reduction (tensor<1024x256xf32>, tensor<1024xi64>) -> tensor<f32>
// GPT-NEXT: ^bb0
// GPT-NEXT: tfc.cross_entropy
// GPT: tfcrt.entry @forward
// GPT: %[[WTE:.*]] = tfcrt.external param "wte.weight" : memref<256x128xf32>
// GPT: tfcrt.external param "h.1.mlp.c_proj.bias" : memref<128xf32>
// GPT: %[[TOKENS:.*]] = tfcrt.external input "tokens" : memref<16x64xi64>
// GPT: %[[TARGETS:.*]] = tfcrt.external input "targets" : memref<16x64xi64>
// GPT: %[[LOSS:.*]] = tfcrt.external output "loss" : memref<f32>
// GPT: tfcrt.launch @k0 (%[[WTE]], %[[TOKENS]])
// GPT: tfcrt.gemm {{.*}} transpose_b m 1024 n 384 k 128 batch 1 lda 128 ldb 128 ldc 384 stride_a 0 stride_b 0 stride_c 0
// GPT: tfcrt.alias {{.*}} : memref<16x64x128xf32> -> memref<16x64x4x32xf32>
// GPT: tfcrt.gemm {{.*}} transpose_b m 64 n 64 k 32 batch 64 lda 32 ldb 32 ldc 64 stride_a 2048 stride_b 2048 stride_c 4096
// GPT: tfcrt.gemm {{.*}} m 64 n 32 k 64 batch 64 lda 64 ldb 32 ldc 32 stride_a 4096 stride_b 2048 stride_c 2048
// GPT: tfcrt.gemm {{.*}} transpose_b m 1024 n 128 k 128 batch 1
// GPT: tfcrt.gemm {{.*}} transpose_b m 1024 n 512 k 128 batch 1
// GPT: tfcrt.gemm {{.*}} transpose_b m 1024 n 128 k 512 batch 1
// GPT: %[[LOGITS:.*]] = tfcrt.arena_view offset {{[0-9]+}} : memref<16x64x256xf32>
// GPT-NEXT: tfcrt.gemm %{{.*}}, %[[WTE]] -> %[[LOGITS]] transpose_b m 1024 n 256 k 128 batch 1
// GPT-NEXT: %[[FLAT:.*]] = tfcrt.alias %[[LOGITS]] : memref<16x64x256xf32> -> memref<1024x256xf32>
// GPT-NEXT: %[[LABELS:.*]] = tfcrt.alias %[[TARGETS]] : memref<16x64xi64> -> memref<1024xi64>
// GPT-NEXT: tfcrt.launch @k44 (%[[FLAT]], %[[LABELS]]) -> (%[[LOSS]])
// GPT-NEXT: tfcrt.return
// GPT-NOT: func.func

// fusion=none: 45 launches (1 gather: the position embedding is its table's first
// rows, 8 row reductions, 36 pointwise: CSE shares the causal mask between the
// layers) of 20 distinct kernels (the second block launches the first block's
// kernels again), and 13 GEMMs (6 per block, the LM head).
// GPT-LAUNCHES: 45
// GPT-KERNELS: 20
// GPT-GEMMS: 13

// mlp fused: each bias add is its GEMM's epilogue, and the ReLU too (cuBLASLt's
// EPILOGUE_RELU_BIAS), so one kernel is left around the GEMMs: the loss.
// MLP-FUSED-LABEL: tfcrt.arena
// MLP-FUSED: tfcrt.kernel @k0 row_reduction (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
// MLP-FUSED-NEXT: ^bb0
// MLP-FUSED-NEXT: tfc.cross_entropy
// MLP-FUSED-NOT: tfcrt.kernel
// MLP-FUSED: tfcrt.entry @forward
// MLP-FUSED: tfcrt.gemm {{.*}} bias {{.*}} epilogue relu_bias
// MLP-FUSED: tfcrt.gemm {{.*}} bias {{.*}} epilogue bias
// MLP-FUSED-NEXT: tfcrt.launch @k0
// MLP-FUSED-NEXT: tfcrt.return

// gpt-mini fused: 13 launches of 9 distinct kernels around the same 13 GEMMs (the
// second block launches the first block's kernels again). Every linear layer's bias is
// its GEMM's epilogue, and the MLP's GELU too (cuBLASLt's GELU_BIAS: the forward alone
// needs no GELU input). The embedding gather; the position embeddings' add as ln_1's
// prologue; that add (its inputs barely larger than its result) is recomputed, not
// stored, where the first residual add reads it again; per block the head split (one
// kernel, three outputs), scale + causal mask (iota, compare, select duplicated into
// each layer) + softmax, the merge of the heads, residual add + ln_2 (writing the
// residual stream and the normalized rows), residual add + the next layer_norm; the
// loss.
// GPT-FUSED-LABEL: tfcrt.arena
// GPT-FUSED: tfcrt.kernel @k0 gather
// GPT-FUSED-NEXT: ^bb0
// GPT-FUSED-NEXT: tfc.embedding
// GPT-FUSED: tfcrt.kernel @k1 row_reduction (tensor<16x64x128xf32>, tensor<64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<16x64x128xf32>
// GPT-FUSED-NEXT: ^bb0
// GPT-FUSED-NEXT: tfc.add
// GPT-FUSED-NEXT: tfc.layer_norm
// GPT-FUSED: tfcrt.kernel @k2 pointwise (tensor<16x64x384xf32>) -> (tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>)
// GPT-FUSED: tfcrt.kernel @k3 row_reduction (tensor<16x4x64x64xf32>) -> tensor<16x4x64x64xf32>
// GPT-FUSED: tfc.iota
// GPT-FUSED: tfc.compare le
// GPT-FUSED: tfc.select
// GPT-FUSED-NEXT: tfc.softmax
// GPT-FUSED: tfcrt.kernel @k4 pointwise (tensor<16x4x64x32xf32>) -> tensor<16x64x4x32xf32>
// GPT-FUSED-NEXT: ^bb0
// GPT-FUSED-NEXT: tfc.transpose
// GPT-FUSED: tfcrt.kernel @k5 row_reduction (tensor<16x64x128xf32>, tensor<64x128xf32>, tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x128xf32>)
// GPT-FUSED-NEXT: ^bb0
// GPT-FUSED-NEXT: tfc.add
// GPT-FUSED-NEXT: tfc.add
// GPT-FUSED-NEXT: tfc.layer_norm
// GPT-FUSED: tfcrt.kernel @k6 row_reduction (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x128xf32>)
// GPT-FUSED-NEXT: ^bb0
// GPT-FUSED-NEXT: tfc.add
// GPT-FUSED-NEXT: tfc.layer_norm
// GPT-FUSED: tfcrt.kernel @[[LOSS:k[0-9]+]] row_reduction (tensor<1024x256xf32>, tensor<1024xi64>) -> tensor<f32>
// GPT-FUSED-NEXT: ^bb0
// GPT-FUSED-NEXT: tfc.cross_entropy
// GPT-FUSED: tfcrt.entry @forward
// GPT-FUSED-NOT: tfcrt.copy
// GPT-FUSED: tfcrt.gemm {{.*}} bias {{.*}} n 384 {{.*}} epilogue bias
// GPT-FUSED: tfcrt.gemm {{.*}} bias {{.*}} n 512 {{.*}} epilogue gelu_bias
// GPT-FUSED: tfcrt.gemm {{.*}} bias {{.*}} n 128 {{.*}} epilogue bias
// GPT-FUSED-NOT: tfcrt.copy
// GPT-FUSED: tfcrt.launch @[[LOSS]]
// GPT-FUSED-NEXT: tfcrt.return
// GPT-FUSED-LAUNCHES: 13
// GPT-FUSED-KERNELS: 9

// OPTION-LABEL: tfcrt.arena
// OPTION: tfcrt.kernel @k0 row_reduction
// OPTION: tfc.mul
// OPTION-NEXT: tfc.softmax
// OPTION: tfcrt.entry @forward
// OPTION: tfcrt.external input "x" : memref<4x8xf32>
// OPTION: tfcrt.external output "out0" : memref<4x4xf32>
// OPTION: tfcrt.gemm
// OPTION-NOT: func.func @scores
func.func @scores(%x: tensor<4x8xf32> {tfc.input = "x"}) -> tensor<4x4xf32> {
  %0 = tfc.attention %x, %x, %x : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = tfc.matmul %0, %x transpose_b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
