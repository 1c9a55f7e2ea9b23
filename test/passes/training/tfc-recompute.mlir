// RUN: tfc-opt %s --tfc-build-train-step --tfc-recompute | FileCheck %s
// RUN: tfc-opt %s --tfc-build-train-step '--tfc-recompute=mode=none' | FileCheck %s --check-prefix=NONE
// RUN: env TFC_LOG=debug tfc-opt %s --tfc-build-train-step --tfc-recompute -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: tfc-opt %s '--tfc-train-pipeline=recompute=cheap target=host' | FileCheck %s --check-prefix=LOWERED
// RUN: not tfc-opt %s --tfc-build-train-step '--tfc-recompute=mode=all' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfc-opt %s '--tfc-train-pipeline=recompute=all' 2>&1 | FileCheck %s --check-prefix=BADPIPE

// LayerNorm, a linear layer with GELU, a classifier. Without recompute the
// backward reads the LayerNorm output y (the first GEMM's weight gradient)
// and the GELU output (the second's), both saved from the forward. With
// mode=cheap the minimum cut saves the GELU input h (its VJP needs it anyway)
// and the LayerNorm statistics (a number per row), and the backward
// recomputes the GELU output right before the weight gradient that reads it
// and y right before the one that reads it: the same ops on the same
// inputs, so the same values. Clones carry tfc.recomputed: fusion merges
// them into the backward kernels after them, never back into the forward.
// The function records the bytes the backward then reads from the forward:
// h (1024), the statistics (32 + 32) and the logits (128, read by the
// cross-entropy gradient).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: attributes {tfc.saved_activation_bytes = 1216 : i64}
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = tfc.layer_norm %[[X:[^ ]*]] weight
// CHECK: %[[H:.*]] = tfc.add
// CHECK: %[[A:.*]] = tfc.gelu %[[H]]
// CHECK: %[[LOGITS:.*]] = tfc.matmul %[[A]]
// CHECK: tfc.cross_entropy_grad
// CHECK: %[[A2:.*]] = tfc.gelu %[[H]] approximate tanh {tfc.recomputed}
// CHECK-NEXT: tfc.matmul %{{.*}}, %[[A2]] transpose_a
// CHECK: %[[Y2:.*]], %{{.*}}, %{{.*}} = tfc.layer_norm %[[X]] weight %{{.*}} {tfc.recomputed}
// CHECK-NEXT: tfc.matmul %{{.*}}, %[[Y2]] transpose_a
// CHECK: tfc.layer_norm_grad %{{.*}}, %[[X]], %[[MEAN]], %[[RSTD]]
// mode=none changes nothing but the record: y (512) and the GELU output
// (1024) are saved too.
// NONE-LABEL: func.func @train_step
// NONE-SAME: attributes {tfc.saved_activation_bytes = 2752 : i64}
// NONE: tfc.layer_norm %
// NONE-NOT: tfc.layer_norm %
// NONE: tfc.gelu %
// NONE-NOT: tfc.gelu %
// NONE: return

// TFC_LOG=debug lists what is saved and what is recomputed.
// LOG-DAG: --tfc-recompute: @train_step saves tfc.add tensor<8x32xf32> (1024 bytes)
// LOG-DAG: --tfc-recompute: @train_step recomputes tfc.gelu tensor<8x32xf32> (1024 bytes)
// LOG-DAG: --tfc-recompute: @train_step recomputes tfc.layer_norm tensor<8x16xf32> (512 bytes)
// LOG-DAG: --tfc-recompute: @train_step saves tfc.layer_norm tensor<8x1xf32> (32 bytes)

// recompute= on --tfc-train-pipeline runs the pass after CSE (which would
// merge a recomputed op back into the forward's), before kernels form.
// The record travels to the entry (and the artifact's manifest).
// LOWERED-LABEL: tfcrt.entry @train_step attributes {tfc.saved_activation_bytes = 1216 : i64}

// BAD: error: --tfc-recompute: unknown mode 'all' (expected none, cheap or blocks)
// BADPIPE: error: unknown value 'all' for option recompute (expected none, cheap or blocks)
func.func @loss(%x: tensor<8x16xf32> {tfc.input = "x"},
                %g: tensor<16xf32> {tfc.param = "ln.weight"},
                %w1: tensor<32x16xf32> {tfc.param = "fc.weight"},
                %b1: tensor<32xf32> {tfc.param = "fc.bias"},
                %w2: tensor<4x32xf32> {tfc.param = "proj.weight"},
                %y: tensor<8xi64> {tfc.input = "y"}) -> tensor<f32> {
  %ln, %mean, %rstd = tfc.layer_norm %x weight %g : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %h = tfc.matmul %ln, %w1 transpose_b : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  %hb = tfc.add %h, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %a = tfc.gelu %hb approximate tanh : tensor<8x32xf32>
  %logits = tfc.matmul %a, %w2 transpose_b : tensor<8x32xf32>, tensor<4x32xf32> -> tensor<8x4xf32>
  %loss = tfc.cross_entropy %logits, %y : tensor<8x4xf32>, tensor<8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}

