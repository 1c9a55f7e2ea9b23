// RUN: tfc-opt %s --tfc-build-train-step '--tfc-recompute=mode=blocks' | FileCheck %s
// RUN: env TFC_LOG=debug tfc-opt %s --tfc-build-train-step '--tfc-recompute=mode=blocks' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG
// mode=blocks on two layers (their parameters named "layers.0.*" and
// "layers.1.*"): only each layer's input is saved (the embedding output,
// and the first layer's output), every op of a layer, GEMMs included, is
// recomputed once for that layer's backward. Layers come from the layer
// index in the parameters' names; ops reading a parameter of no layer (the
// embedding, the head) are outside any: the cheap policy applies there. The
// last layer's output feeds the head's weight gradient, so that layer is
// recomputed at the very start of the backward (no saving there).
// CHECK-LABEL: func.func @train_step
// CHECK: %[[E:.*]] = tfc.embedding
// CHECK: %[[H0:.*]] = tfc.matmul %[[E]]
// CHECK: %[[X1:.*]] = tfc.add %[[E]]
// CHECK: tfc.cross_entropy_grad
// CHECK: tfc.matmul %[[X1]], %{{.*}} transpose_b {tfc.recomputed}
// CHECK: tfc.matmul %[[E]], %{{.*}} transpose_b {tfc.recomputed}
// LOG-DAG: saves tfc.embedding tensor<8x16xf32> (512 bytes) in block -1
// LOG-DAG: saves tfc.add tensor<8x16xf32> (512 bytes) in block 0
// LOG-DAG: recomputes tfc.matmul tensor<8x16xf32> (512 bytes) in block 0
// LOG-DAG: recomputes tfc.matmul tensor<8x16xf32> (512 bytes) in block 1
// LOG-DAG: saves tfc.matmul tensor<8x10xf32> (320 bytes) in block -1
func.func @loss(%ids: tensor<8xi64> {tfc.input = "ids"},
                %emb: tensor<10x16xf32> {tfc.param = "embed.weight"},
                      %w0: tensor<16x16xf32> {tfc.param = "layers.0.weight"},
                      %w1: tensor<16x16xf32> {tfc.param = "layers.1.weight"},
                      %head: tensor<10x16xf32> {tfc.param = "head.weight"},
                      %y: tensor<8xi64> {tfc.input = "y"}) -> tensor<f32> {
  %e = tfc.embedding %emb, %ids : tensor<10x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %h0 = tfc.matmul %e, %w0 transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %g0 = tfc.gelu %h0 approximate tanh : tensor<8x16xf32>
  %x1 = tfc.add %e, %g0 : tensor<8x16xf32>, tensor<8x16xf32>
  %h1 = tfc.matmul %x1, %w1 transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %g1 = tfc.gelu %h1 approximate tanh : tensor<8x16xf32>
  %x2 = tfc.add %x1, %g1 : tensor<8x16xf32>, tensor<8x16xf32>
  %logits = tfc.matmul %x2, %head transpose_b : tensor<8x16xf32>, tensor<10x16xf32> -> tensor<8x10xf32>
  %loss = tfc.cross_entropy %logits, %y : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
