// RUN: tfc-opt %s --split-input-file --tfc-convert-to-exec=function=train_step | FileCheck %s
// RUN: tfc-opt %s --split-input-file '--tfc-convert-to-exec=function=train_step in-place=false' | FileCheck %s --check-prefix=COPY

// In-place updates: a tfc.update result is written by its kernel straight into
// the external it replaces when that kernel is the last reader of the old value
// and reads it only at the index of the element it writes; otherwise it is
// copied over the external after the last launch.

// An elementwise update (p - g) whose kernel is the only reader of p: the
// kernel declares output 0 in place over input 0, the launch passes p's
// external for both, and no copy or arena slot remains. With in-place=false
// the value goes through the arena and a copy, as before.
// CHECK-LABEL: tfcrt.arena size 0 alignment 256
// CHECK: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
// CHECK: tfcrt.entry @train_step {
// CHECK-NEXT: %[[P:.*]] = tfcrt.external param "p" : memref<4xf32>
// CHECK-NEXT: %[[G:.*]] = tfcrt.external input "g" : memref<4xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[P]], %[[G]]) -> (%[[P]])
// CHECK-NEXT: tfcrt.return
// COPY-LABEL: tfcrt.arena size 256 alignment 256
// COPY: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// COPY: %[[P:.*]] = tfcrt.external param "p" : memref<4xf32>
// COPY: %[[V:.*]] = tfcrt.arena_view offset 0 : memref<4xf32>
// COPY-NEXT: tfcrt.launch @k0 (%[[P]], %{{.*}}) -> (%[[V]])
// COPY-NEXT: tfcrt.copy %[[V]] -> %[[P]] : memref<4xf32>
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %g: tensor<4xf32> {tfc.input = "g"})
    -> (tensor<4xf32> {tfc.update = "p"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  return %new : tensor<4xf32>
}

// -----

// An AdamW kernel updates the parameter and both moments in place (outputs 0,
// 1, 2 over inputs 0, 2, 3); lr and step are read by every element, but they
// are not updated by this kernel. The new step (step + 1) is written in place
// by its own kernel, and the AdamW kernel then reads the new value from the
// step external.
// CHECK-LABEL: tfcrt.arena size 0
// CHECK: tfcrt.kernel @k0 pointwise (tensor<i64>) -> tensor<i64> in_place [0]
// CHECK: tfcrt.kernel @k1 multi_tensor ({{.*}}) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) in_place [0, 2, 3]
// CHECK: %[[P:.*]] = tfcrt.external param "p"
// CHECK: %[[M:.*]] = tfcrt.external state "p.exp_avg"
// CHECK: %[[V:.*]] = tfcrt.external state "p.exp_avg_sq"
// CHECK: %[[S:.*]] = tfcrt.external state "step"
// CHECK: %[[G:.*]] = tfcrt.external input "g"
// CHECK: %[[LR:.*]] = tfcrt.external input "lr"
// CHECK-NEXT: tfcrt.launch @k0 (%[[S]]) -> (%[[S]])
// CHECK-NEXT: tfcrt.launch @k1 (%[[P]], %[[G]], %[[M]], %[[V]], %[[LR]], %[[S]]) -> (%[[P]], %[[M]], %[[V]])
// CHECK-NEXT: tfcrt.return
func.func @train_step(%p: tensor<8xf32> {tfc.param = "p"}, %m: tensor<8xf32> {tfc.state = "p.exp_avg"},
                      %v: tensor<8xf32> {tfc.state = "p.exp_avg_sq"}, %step: tensor<i64> {tfc.state = "step"},
                      %g: tensor<8xf32> {tfc.input = "g"}, %lr: tensor<f32> {tfc.input = "lr"})
    -> (tensor<8xf32> {tfc.update = "p"}, tensor<8xf32> {tfc.update = "p.exp_avg"},
        tensor<8xf32> {tfc.update = "p.exp_avg_sq"}, tensor<i64> {tfc.update = "step"}) {
  %t = tfc.fusion pointwise (%in = %step : tensor<i64>) -> tensor<i64> {
    %one = tfc.constant dense<1> : tensor<i64>
    %r = tfc.add %in, %one : tensor<i64>, tensor<i64>
    tfc.yield %r : tensor<i64>
  }
  %u:3 = tfc.fusion multi_tensor (%a = %p : tensor<8xf32>, %b = %g : tensor<8xf32>, %c = %m : tensor<8xf32>,
                                  %d = %v : tensor<8xf32>, %e = %lr : tensor<f32>, %f = %t : tensor<i64>)
      -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %p2, %m2, %v2 = tfc.adamw %a, %b, %c, %d, %e, %f : tensor<8xf32>, tensor<8xf32>, tensor<f32>
    tfc.yield %p2, %m2, %v2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  return %u#0, %u#1, %u#2, %t : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>
}

// -----

// A skipped step under loss scaling: the new value is select(found_inf, old,
// new), which reads the old value at the same index, so the select kernel
// writes in place and a skipped step writes each element's old value back.
// The optimizer kernel before it reads p too but is not the last reader: its
// result stays in the arena.
// CHECK-LABEL: tfcrt.arena size 256
// CHECK: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK: tfcrt.kernel @k1 pointwise (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [1]
// CHECK: %[[P:.*]] = tfcrt.external param "p"
// CHECK: %[[F:.*]] = tfcrt.external input "found_inf"
// CHECK: %[[V:.*]] = tfcrt.arena_view offset 0 : memref<4xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[P]], %{{.*}}) -> (%[[V]])
// CHECK-NEXT: tfcrt.launch @k1 (%[[F]], %[[P]], %[[V]]) -> (%[[P]])
// CHECK-NEXT: tfcrt.return
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %g: tensor<4xf32> {tfc.input = "g"},
                      %found: tensor<i1> {tfc.input = "found_inf"})
    -> (tensor<4xf32> {tfc.update = "p"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  %kept = tfc.fusion pointwise (%c = %found : tensor<i1>, %a = %p : tensor<4xf32>, %b = %new : tensor<4xf32>) -> tensor<4xf32> {
    %s = tfc.select %c, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    tfc.yield %s : tensor<4xf32>
  }
  return %kept : tensor<4xf32>
}

// -----

// A later kernel reads the old value (the norm of the old p is an output), so
// the update cannot overwrite it early: it is copied after the last launch.
// CHECK-LABEL: tfcrt.arena size 256
// CHECK: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK: %[[P:.*]] = tfcrt.external param "p"
// CHECK: %[[V:.*]] = tfcrt.arena_view offset 0 : memref<4xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[P]], %{{.*}}) -> (%[[V]])
// CHECK-NEXT: tfcrt.launch @k1 (%[[P]]) -> (%{{.*}})
// CHECK-NEXT: tfcrt.copy %[[V]] -> %[[P]] : memref<4xf32>
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %g: tensor<4xf32> {tfc.input = "g"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.output = "abs"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  %abs = tfc.fusion pointwise (%a = %p : tensor<4xf32>) -> tensor<4xf32> {
    %r = tfc.abs %a : tensor<4xf32>
    tfc.yield %r : tensor<4xf32>
  }
  return %new, %abs : tensor<4xf32>, tensor<4xf32>
}

// -----

// The kernel reads the old value at other indices than it writes (a
// transpose, a broadcast of a row), so element i may be overwritten before
// another thread reads it: both updates are copied.
// CHECK-LABEL: tfcrt.arena size 512
// CHECK: %[[P:.*]] = tfcrt.external param "p" : memref<4x4xf32>
// CHECK: %[[Q:.*]] = tfcrt.external param "q" : memref<1x4xf32>
// CHECK: tfcrt.copy %{{.*}} -> %[[P]] : memref<4x4xf32>
// CHECK-NEXT: tfcrt.copy %{{.*}} -> %[[Q]] : memref<1x4xf32>
func.func @train_step(%p: tensor<4x4xf32> {tfc.param = "p"}, %q: tensor<1x4xf32> {tfc.param = "q"})
    -> (tensor<4x4xf32> {tfc.update = "p"}, tensor<1x4xf32> {tfc.update = "q"}) {
  %t = tfc.fusion pointwise (%a = %p : tensor<4x4xf32>) -> tensor<4x4xf32> {
    %tr = tfc.transpose %a, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %s = tfc.add %a, %tr : tensor<4x4xf32>, tensor<4x4xf32>
    tfc.yield %s : tensor<4x4xf32>
  }
  %u = tfc.fusion column_reduction (%a = %q : tensor<1x4xf32>, %b = %t : tensor<4x4xf32>) -> tensor<1x4xf32> {
    %r = tfc.reduce_sum %b dims [0] keepdim : tensor<4x4xf32> -> tensor<1x4xf32>
    %s = tfc.add %a, %r : tensor<1x4xf32>, tensor<1x4xf32>
    tfc.yield %s : tensor<1x4xf32>
  }
  return %t, %u : tensor<4x4xf32>, tensor<1x4xf32>
}

// -----

// Gradient accumulators reset to zero: CSE leaves one zero kernel, first in
// the function, for both accumulators, which later kernels still read. Each
// update gets its own clone of that kernel after the last launch, written
// straight into its accumulator; the shared original is gone.
// CHECK-LABEL: tfcrt.arena size 0
// CHECK: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0]
// CHECK: tfcrt.kernel @k1 pointwise () -> tensor<4xf32> {
// CHECK: tfcrt.kernel @k2 pointwise () -> tensor<4xf32> {
// CHECK: %[[P:.*]] = tfcrt.external param "p"
// CHECK: %[[A:.*]] = tfcrt.external state "a"
// CHECK: %[[B:.*]] = tfcrt.external state "b"
// CHECK-NEXT: tfcrt.launch @k0 (%[[P]], %[[A]], %[[B]]) -> (%[[P]])
// CHECK-NEXT: tfcrt.launch @k1 () -> (%[[A]])
// CHECK-NEXT: tfcrt.launch @k2 () -> (%[[B]])
// CHECK-NEXT: tfcrt.return
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %acc_a: tensor<4xf32> {tfc.state = "a"},
                      %acc_b: tensor<4xf32> {tfc.state = "b"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.update = "a"}, tensor<4xf32> {tfc.update = "b"}) {
  %zero = tfc.fusion pointwise () -> tensor<4xf32> {
    %z = tfc.constant dense<0.0> : tensor<4xf32>
    tfc.yield %z : tensor<4xf32>
  }
  %new = tfc.fusion pointwise (%x = %p : tensor<4xf32>, %y = %acc_a : tensor<4xf32>, %z = %acc_b : tensor<4xf32>) -> tensor<4xf32> {
    %s = tfc.sub %x, %y : tensor<4xf32>, tensor<4xf32>
    %d = tfc.sub %s, %z : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  return %new, %zero, %zero : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The new value is read by a later kernel: it reads it from the external the
// update was written into. The kernel reading a reshape of the old value (a
// view) does not update in place: its update is copied.
// CHECK-LABEL: tfcrt.arena size 256
// CHECK: %[[P:.*]] = tfcrt.external param "p" : memref<4xf32>
// CHECK: %[[Q:.*]] = tfcrt.external param "q" : memref<2x2xf32>
// CHECK: %[[N:.*]] = tfcrt.external output "norm" : memref<4xf32>
// CHECK: tfcrt.launch @k0 (%[[P]]) -> (%[[P]])
// CHECK-NEXT: tfcrt.launch @k1 (%[[P]]) -> (%[[N]])
// CHECK-NEXT: %[[QF:.*]] = tfcrt.alias %[[Q]]
// CHECK-NEXT: %[[V:.*]] = tfcrt.arena_view
// CHECK-NEXT: tfcrt.launch @k2 (%[[QF]]) -> (%[[V]])
// CHECK-NEXT: %[[VQ:.*]] = tfcrt.alias %[[V]]
// CHECK-NEXT: tfcrt.copy %[[VQ]] -> %[[Q]] : memref<2x2xf32>
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %q: tensor<2x2xf32> {tfc.param = "q"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.output = "norm"}, tensor<2x2xf32> {tfc.update = "q"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>) -> tensor<4xf32> {
    %n = tfc.neg %a : tensor<4xf32>
    tfc.yield %n : tensor<4xf32>
  }
  %norm = tfc.fusion pointwise (%a = %new : tensor<4xf32>) -> tensor<4xf32> {
    %r = tfc.abs %a : tensor<4xf32>
    tfc.yield %r : tensor<4xf32>
  }
  %qf = tfc.reshape %q : tensor<2x2xf32> -> tensor<4xf32>
  %qn = tfc.fusion pointwise (%a = %qf : tensor<4xf32>) -> tensor<4xf32> {
    %n = tfc.neg %a : tensor<4xf32>
    tfc.yield %n : tensor<4xf32>
  }
  %q2 = tfc.reshape %qn : tensor<4xf32> -> tensor<2x2xf32>
  return %new, %norm, %q2 : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>
}

// -----

// AdamW8bit: the block_quantized kernel reads a quantization block's state
// before its barriers and writes it after, so the parameter, both codes and
// both absmax tensors are updated in place; the gradient is not.
// CHECK-LABEL: tfcrt.arena size 0
// CHECK: tfcrt.kernel @k0 block_quantized ({{.*}}) -> ({{.*}}) in_place [0, 2, 3, 4, 5]
// CHECK: %[[P:.*]] = tfcrt.external param "p"
// CHECK: %[[M:.*]] = tfcrt.external state "p.exp_avg.codes"
// CHECK: %[[MA:.*]] = tfcrt.external state "p.exp_avg.absmax"
// CHECK: %[[V:.*]] = tfcrt.external state "p.exp_avg_sq.codes"
// CHECK: %[[VA:.*]] = tfcrt.external state "p.exp_avg_sq.absmax"
// CHECK: tfcrt.launch @k0 (%[[P]], %{{.*}}, %[[M]], %[[MA]], %[[V]], %[[VA]], %{{.*}}, %{{.*}}) -> (%[[P]], %[[M]], %[[MA]], %[[V]], %[[VA]])
// CHECK-NEXT: tfcrt.return
func.func @train_step(%p: tensor<40x130xf32> {tfc.param = "p"}, %m: tensor<40x130xui8> {tfc.state = "p.exp_avg.codes"},
                      %ma: tensor<21xf32> {tfc.state = "p.exp_avg.absmax"}, %v: tensor<40x130xui8> {tfc.state = "p.exp_avg_sq.codes"},
                      %va: tensor<21xf32> {tfc.state = "p.exp_avg_sq.absmax"}, %g: tensor<40x130xf32> {tfc.input = "g"},
                      %lr: tensor<f32> {tfc.input = "lr"}, %step: tensor<i64> {tfc.input = "step"})
    -> (tensor<40x130xf32> {tfc.update = "p"}, tensor<40x130xui8> {tfc.update = "p.exp_avg.codes"},
        tensor<21xf32> {tfc.update = "p.exp_avg.absmax"}, tensor<40x130xui8> {tfc.update = "p.exp_avg_sq.codes"},
        tensor<21xf32> {tfc.update = "p.exp_avg_sq.absmax"}) {
  %r:5 = tfc.fusion block_quantized (%a = %p : tensor<40x130xf32>, %b = %g : tensor<40x130xf32>, %c = %m : tensor<40x130xui8>, %d = %ma : tensor<21xf32>, %e = %v : tensor<40x130xui8>, %f = %va : tensor<21xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> (tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>) {
    %0:5 = tfc.adamw8bit %a, %b, %c, %d, %e, %f, %h, %i : tensor<40x130xf32>, tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<f32>
    tfc.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
}

// -----

// The old value bound to two inputs of the kernel: the launch could pass the
// external as the output for only one of them, and the other would read
// overwritten elements, so the update is copied.
// CHECK-LABEL: tfcrt.arena size 256
// CHECK: tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK: %[[P:.*]] = tfcrt.external param "p"
// CHECK: %[[V:.*]] = tfcrt.arena_view offset 0 : memref<4xf32>
// CHECK-NEXT: tfcrt.launch @k0 (%[[P]], %[[P]]) -> (%[[V]])
// CHECK-NEXT: tfcrt.copy %[[V]] -> %[[P]] : memref<4xf32>
func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}) -> (tensor<4xf32> {tfc.update = "p"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %p : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.mul %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  return %new : tensor<4xf32>
}
