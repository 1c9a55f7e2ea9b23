// Every example model parses, verifies, round-trips through the generic form
// and survives canonicalization + CSE.
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/mlp.mlir --canonicalize --cse | FileCheck %s --check-prefix=MLP
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --mlir-print-op-generic | tfc-opt | FileCheck %s --check-prefix=GPT
// RUN: tfc-opt %tfc_src/examples/models/gpt-mini.mlir --canonicalize --cse | FileCheck %s --check-prefix=GPT

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
