// RUN: tfc-opt %s '--tfc-train-pipeline=accumulate-steps=4 optimizer=sgd momentum=0.9 loss-scaling=true' | FileCheck %s
// RUN: tfc-opt %s '--tfc-train-pipeline=accumulate-steps=4 optimizer=sgd momentum=0.9 loss-scaling=true' | tfc-translate --emit-artifact -o %t.artifact
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.artifact/manifest.json
// RUN: rm -rf %t.cache
// RUN: env TFC_CACHE_DIR=%t.cache tfc-run %s --train-step 'accumulate-steps=2 optimizer=sgd loss-scaling=true' --device host --seed 3 --steps 3 --trace %t.trace --quiet
// RUN: FileCheck %s --check-prefix=TRACE < %t.trace
// RUN: env TFC_CACHE_DIR=%t.cache tfc-run %s --train-step 'accumulate-steps=2 optimizer=sgd loss-scaling=true' --entry accumulate_step --device host --seed 3 --trace %t.entry --quiet
// RUN: FileCheck %s --check-prefix=ENTRY < %t.entry
// RUN: %expect-exit 1 tfc-run %s --train-step 'accumulate-steps=0' --device host 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: %expect-exit 1 tfc-run %s --train-step 'accumulate-steps=2x' --device host 2>&1 | FileCheck %s --check-prefix=UNPARSED

// With gradient accumulation --tfc-train-pipeline lowers @accumulate_step
// and @apply_step into ONE program: one arena (sized for the larger entry,
// the entries never run together), kernel symbols numbered across both
// entries, and each entry declaring the externals it binds; the ones both
// bind (params, accumulators, loss_scale) have the same name, role and type.
// Each accumulator is updated in place: accumulate_step's add writes the sum
// over it, apply_step's reset writes the zeros straight into it after its
// last read; no copies remain. apply_step launches kernels accumulate_step
// launched first (identical kernels are kept once).
// CHECK: tfcrt.arena size {{[0-9]+}} alignment 256
// CHECK-NOT: tfcrt.arena
// CHECK: tfcrt.kernel @k0
// CHECK-LABEL: tfcrt.entry @accumulate_step
// CHECK: tfcrt.external param "w" : memref<4x8xf32>
// CHECK: tfcrt.external param "b" : memref<4xf32>
// CHECK: %[[WA:.*]] = tfcrt.external state "w.grad_accum" : memref<4x8xf32>
// CHECK: %[[BA:.*]] = tfcrt.external state "b.grad_accum" : memref<4xf32>
// CHECK: tfcrt.external state "loss_scale" : memref<f32>
// CHECK: tfcrt.external input "x" : memref<2x8xf32>
// CHECK: tfcrt.external input "arg3" : memref<2x4xf32>
// CHECK: tfcrt.external output "loss" : memref<f32>
// CHECK-NOT: tfcrt.external
// CHECK-NOT: tfcrt.copy
// CHECK: tfcrt.launch @{{.*}} (%[[WA]], %{{.*}}) -> (%[[WA]])
// CHECK-NEXT: tfcrt.launch @{{.*}} (%[[BA]], %{{.*}}) -> (%[[BA]])
// CHECK-NEXT: tfcrt.return
// CHECK-NOT: tfcrt.kernel @k0
// CHECK-LABEL: tfcrt.entry @apply_step
// CHECK: tfcrt.external param "w" : memref<4x8xf32>
// CHECK: tfcrt.external param "b" : memref<4xf32>
// CHECK: %[[WA:.*]] = tfcrt.external state "w.grad_accum" : memref<4x8xf32>
// CHECK: %[[BA:.*]] = tfcrt.external state "b.grad_accum" : memref<4xf32>
// CHECK: tfcrt.external state "w.momentum_buffer" : memref<4x8xf32>
// CHECK: tfcrt.external state "b.momentum_buffer" : memref<4xf32>
// CHECK: tfcrt.external state "step" : memref<i64>
// CHECK: tfcrt.external state "loss_scale" : memref<f32>
// CHECK: tfcrt.external state "growth_tracker" : memref<i64>
// CHECK: tfcrt.external input "lr" : memref<f32>
// CHECK: tfcrt.external output "found_inf" : memref<i1>
// CHECK-NOT: tfcrt.external
// CHECK-NOT: tfcrt.copy
// CHECK: tfcrt.launch @k4 (
// CHECK-NOT: tfcrt.copy
// CHECK: tfcrt.launch @{{.*}} () -> (%[[WA]])
// CHECK-NEXT: tfcrt.launch @{{.*}} () -> (%[[BA]])
// CHECK-NEXT: tfcrt.return
// CHECK-NOT: func.func @accumulate_step
// CHECK-NOT: func.func @apply_step

// The artifact has one buffer per external name (the writer shares them
// across entries) and both entries.
// MANIFEST: "name": "w"
// MANIFEST-NOT: "name": "w"
// MANIFEST: "name": "w.grad_accum"
// MANIFEST-NOT: "name": "w.grad_accum"
// MANIFEST: "name": "accumulate_step"
// MANIFEST: "name": "apply_step"

// tfc-run with accumulate-steps=2 runs accumulate_step twice and apply_step
// per step: the step counter counts optimizer steps, the scale stays set.
// TRACE: {"run": 0, "loss_scale": 65536, "loss": {{[-0-9.e]+}}, "step": 1, "growth_tracker": 1, "found_inf": false}
// TRACE: {"run": 1, "loss_scale": 65536, "loss": {{[-0-9.e]+}}, "step": 2, "growth_tracker": 2, "found_inf": false}
// TRACE: {"run": 2, "loss_scale": 65536, "loss": {{[-0-9.e]+}}, "step": 3, "growth_tracker": 3, "found_inf": false}

// --entry runs one entry: accumulate_step reads the (fresh, zero) scale and
// leaves it and the step counter as they were.
// ENTRY: {"run": 0, "loss_scale": 0, "loss": {{[-0-9.e]+}}, "step": 0, "growth_tracker": 0, "found_inf": false}

// A bad option value fails before the model is read (the JIT checks the
// options as the pass would), naming the option string.
// ZERO: invalid train-step options 'accumulate-steps=0': accumulate-steps must be at least 1 (1: no accumulation)
// ZERO: tfc-run: compilation of
// A value llvm::cl cannot parse is named too (cl itself only prints to
// stderr, leaving callers of the JIT and the C API no message).
// UNPARSED: invalid train-step options 'accumulate-steps=2x': invalid value '2x' for option accumulate-steps
func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}, %y: tensor<2x4xf32>) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %z = tfc.add %mm, %b : tensor<2x4xf32>, tensor<4xf32>
  %d = tfc.sub %z, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %sq = tfc.mul %d, %d : tensor<2x4xf32>, tensor<2x4xf32>
  %s = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
