// RUN: tfc-opt %s --split-input-file --tfc-auto-mixed-precision=precision=bf16 '--tfc-build-train-step=loss-scaling=true' --tfc-weight-copies | FileCheck %s
// RUN: tfc-opt %s --split-input-file --tfc-auto-mixed-precision=precision=bf16 '--tfc-pad-shapes=pad=8' --tfc-build-train-step --tfc-weight-copies | FileCheck %s --check-prefix=PADDED
// RUN: tfc-opt %s --split-input-file --tfc-auto-mixed-precision=precision=bf16 '--tfc-build-train-step=accumulate-steps=2' --tfc-weight-copies | FileCheck %s --check-prefix=ACCUM
// RUN: tfc-opt %s --split-input-file '--tfc-train-pipeline=precision=bf16 target=host' | FileCheck %s --check-prefix=LOWERED

// The forward of a bf16 train step reads its weight through a copy of its
// own (convert to bf16). The copy becomes state "w.bf16" read in its place;
// the step returns the copy of the updated (or, on a skipped step, kept)
// weight as its update; @refresh_weight_copies computes the copy from the
// parameter, for the runtime to run when the parameter is set.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x8xf32> {tfc.param = "w"}
// CHECK-SAME: %[[C:[^:]*]]: tensor<4x8xbf16> {tfc.state = "w.bf16"}, %{{[^:]*}}: tensor<f32> {tfc.input = "lr"}
// CHECK-SAME: tensor<4x8xbf16> {tfc.update = "w.bf16"})
// CHECK-NOT: tfc.convert %[[W]]
// CHECK: tfc.matmul %{{.*}}, %[[C]] transpose_b
// CHECK: %[[NEW:.*]] = tfc.select %{{.*}}, %[[W]], %{{.*}} : tensor<i1>, tensor<4x8xf32>
// CHECK: %[[COPY:.*]] = tfc.convert %[[NEW]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return {{.*}}, %[[COPY]] :
// CHECK-LABEL: func.func @refresh_weight_copies
// CHECK-SAME: (%[[P:.*]]: tensor<4x8xf32> {tfc.param = "w"}, %{{.*}}: tensor<4x8xbf16> {tfc.state = "w.bf16"})
// CHECK-SAME: -> (tensor<4x8xbf16> {tfc.update = "w.bf16"}) attributes {tfc.refresh}
// CHECK: %[[R:.*]] = tfc.convert %[[P]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return %[[R]]

// With padding the copy is the padded bf16 weight, named with its shape.
// PADDED-LABEL: func.func @train_step
// PADDED-SAME: tensor<8x8xbf16> {tfc.state = "w.bf16.8x8"}
// PADDED: %[[NEW:.*]], %{{.*}}, %{{.*}} = tfc.adamw
// PADDED: %[[C:.*]] = tfc.convert %[[NEW]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// PADDED: tfc.pad %[[C]] low [0, 0] high [4, 0] value 0.000000e+00 : tensor<4x8xbf16> -> tensor<8x8xbf16>

// Gradient accumulation: @accumulate_step reads the copy, @apply_step, which
// updates the weight, updates the copy.
// ACCUM-LABEL: func.func @accumulate_step
// ACCUM-SAME: tensor<4x8xbf16> {tfc.state = "w.bf16"}
// ACCUM-NOT: tfc.update = "w.bf16"
// ACCUM-LABEL: func.func @apply_step
// ACCUM-SAME: tensor<4x8xbf16> {tfc.state = "w.bf16"}
// ACCUM-SAME: tensor<4x8xbf16> {tfc.update = "w.bf16"}

// --tfc-train-pipeline=precision=bf16 (for the host: no padding) lowers the
// refresh function to a refresh entry; the step's copy update lands in the
// optimizer's multi-tensor kernel.
// LOWERED-LABEL: tfcrt.entry @train_step
// LOWERED: tfcrt.external state "w.bf16" : memref<4x8xbf16>
// LOWERED: tfcrt.entry @refresh_weight_copies refresh
func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"},
                %x: tensor<2x8xf32> {tfc.input = "x"},
                %y: tensor<2xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %l = tfc.cross_entropy %h, %y : tensor<2x4xf32>, tensor<2xi64> -> tensor<f32>
  return %l : tensor<f32>
}
