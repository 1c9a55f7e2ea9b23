// RUN: tfc-opt %s '--tfc-train-pipeline=loss-scaling=true' | FileCheck %s
// RUN: tfc-opt %s '--tfc-train-pipeline=loss-scaling=true' | tfc-translate --emit-artifact -o %t.artifact
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.artifact/manifest.json
// RUN: tfc-run %t.artifact --entry train_step --device host --seed 3 --steps 3 --trace %t.trace --quiet
// RUN: FileCheck %s --check-prefix=TRACE < %t.trace

// --tfc-train-pipeline = --tfc-build-train-step + --tfc-lower-to-exec on
// @train_step. State arguments become externals of role state; updated
// params and state get no output buffer: the kernel computing each new value
// writes it straight into its external (in place, no copies), here the
// optimizer kernel, which also holds the select that keeps the old value on
// a skipped step; tfc.output results are outputs named by the attribute;
// the entry is @train_step.
// CHECK-LABEL: tfcrt.entry @train_step
// CHECK: %[[W:.*]] = tfcrt.external param "w" : memref<4x8xf32>
// CHECK: %[[B:.*]] = tfcrt.external param "b" : memref<4xf32>
// CHECK: %[[WM:.*]] = tfcrt.external state "w.exp_avg" : memref<4x8xf32>
// CHECK: %[[WV:.*]] = tfcrt.external state "w.exp_avg_sq" : memref<4x8xf32>
// CHECK: %[[BM:.*]] = tfcrt.external state "b.exp_avg" : memref<4xf32>
// CHECK: %[[BV:.*]] = tfcrt.external state "b.exp_avg_sq" : memref<4xf32>
// CHECK: %[[STEP:.*]] = tfcrt.external state "step" : memref<i64>
// CHECK: %[[SCALE:.*]] = tfcrt.external state "loss_scale" : memref<f32>
// CHECK: %[[TRACK:.*]] = tfcrt.external state "growth_tracker" : memref<i64>
// CHECK: tfcrt.external input "lr" : memref<f32>
// CHECK: tfcrt.external input "x" : memref<2x8xf32>
// CHECK: tfcrt.external input "arg3" : memref<2x4xf32>
// CHECK: %[[LOSS:.*]] = tfcrt.external output "loss" : memref<f32>
// CHECK: %[[F:.*]] = tfcrt.external output "found_inf" : memref<i1>
// CHECK-NOT: tfcrt.external
// CHECK-NOT: tfcrt.copy
// The whole-tensor sums (the mean-squared loss, the inf/NaN check of both
// gradients) are one multi-tensor launch writing the loss and found_inf; both
// parameters' AdamW updates and the selects that keep the old values on a
// skipped step are a second one (--tfc-fuse) writing the six parameters and
// moments in place; then the step, scale and tracker updates in one kernel,
// in place too.
// CHECK: tfcrt.launch @{{.*}} -> (%[[LOSS]], %[[F]]) :
// CHECK-NEXT: tfcrt.launch @{{.*}} (%{{.*}}) -> (%[[W]], %[[B]], %[[WM]], %[[WV]], %[[BM]], %[[BV]]) :
// CHECK-NEXT: tfcrt.launch @{{.*}} (%[[STEP]], %[[F]], %[[TRACK]], %[[SCALE]]) -> (%[[STEP]], %[[SCALE]], %[[TRACK]])
// CHECK-NEXT: tfcrt.return

// The artifact records the state role; the runtime zero-fills state, so the
// first step runs with loss_scale 0 read as init-scale (65536), and the
// state persists across the runs of one process: the step counts 1, 2, 3.
// MANIFEST: "name": "w.exp_avg",
// MANIFEST-NEXT: "role": "state",
// MANIFEST: "name": "loss_scale",
// MANIFEST-NEXT: "role": "state",
// TRACE: {"run": 0, "step": 1, "loss_scale": 65536, "growth_tracker": 1, "loss": {{.*}}, "found_inf": false}
// TRACE-NEXT: {"run": 1, "step": 2, "loss_scale": 65536, "growth_tracker": 2,
// TRACE-NEXT: {"run": 2, "step": 3, "loss_scale": 65536, "growth_tracker": 3,
func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}, %y: tensor<2x4xf32>) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %d = tfc.sub %z, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %sq = tfc.mul %d, %d : tensor<2x4xf32>, tensor<2x4xf32>
  %s = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
