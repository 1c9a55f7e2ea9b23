// Every example model parses, verifies, round-trips through the generic form
// and survives canonicalization + CSE.
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --canonicalize --cse | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --canonicalize --cse | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt2-small.mlir | FileCheck %s --check-prefix=GPT2
// gpt-mini.mlir's body is what gen_gpt.py writes for its size (header aside).
// RUN: %python %tfc_src/examples/models/gen_gpt.py --preset gpt-mini | tail -n +8 > %t.gen
// RUN: tail -n +8 %tfc_src/examples/models/gpt-mini.mlir | diff - %t.gen

// The MLP keeps its parameter names, two GEMMs and the loss.
// MLP-LABEL: func.func @loss
// MLP-SAME: {tfc.param = "fc1.weight"}
// MLP-SAME: {tfc.input = "labels"}
// MLP: tfc.matmul
// MLP: tfc.relu
// MLP: tfc.matmul
// MLP: tfc.cross_entropy {{.*}} -> tensor<f32>

// gpt-mini: embeddings, two pre-LN blocks with causal attention, final LN, tied LM head.
// GPT-LABEL: func.func @loss
// GPT-SAME: {tfc.param = "wte.weight"}
// GPT-SAME: {tfc.param = "h.1.mlp.c_proj.bias"}
// GPT-SAME: {tfc.input = "targets"}
// GPT: tfc.embedding
// GPT: tfc.layer_norm
// GPT: tfc.attention {{.*}} causal
// GPT: tfc.gelu {{.*}} approximate tanh
// GPT: tfc.layer_norm
// GPT: tfc.attention {{.*}} causal
// GPT: tfc.layer_norm
// GPT: tfc.matmul %{{.*}}, %arg0 transpose_b
// GPT: tfc.cross_entropy {{.*}} -> tensor<f32>

// gpt2-small (gen_gpt.py): 12 blocks of width 768, vocab 50304, context 1024.
// GPT2-LABEL: func.func @loss
// GPT2-SAME: {tfc.param = "wte.weight"}
// GPT2-SAME: {tfc.param = "h.11.mlp.c_proj.bias"}
// GPT2-SAME: %arg{{[0-9]+}}: tensor<1x1024xi64> {tfc.input = "targets"}
// GPT2-COUNT-12: tfc.attention {{.*}} causal
// GPT2: tfc.matmul %{{.*}}, %arg0 transpose_b : tensor<1x1024x768xf32>, tensor<50304x768xf32> -> tensor<1x1024x50304xf32>
