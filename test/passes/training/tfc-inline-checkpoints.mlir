// RUN: tfc-opt %s --split-input-file --tfc-inline-checkpoints | FileCheck %s
// RUN: %expect-exit 1 tfc-opt %s --split-input-file --tfc-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTODIFF

// Each tfc.checkpoint becomes the ops of its body, in place: inputs for the
// body's arguments, the yielded values for its results. The module records
// the block of each parameter a checkpoint takes (0, 1 in program order);
// the embedding table, read outside any checkpoint, is in no block (-1).
// CHECK-LABEL: module attributes {tfc.checkpoint_blocks = {a.weight = 0 : i64, b.weight = 1 : i64, embed = -1 : i64}}
// CHECK-LABEL: func.func @loss
// CHECK-NOT: tfc.checkpoint
// CHECK: %[[E:.*]] = tfc.embedding
// CHECK: %[[M0:.*]] = tfc.matmul %[[E]], %arg2
// CHECK: %[[G0:.*]] = tfc.gelu %[[M0]]
// CHECK: %[[M1:.*]] = tfc.matmul %[[G0]], %arg3
// CHECK: %[[R:.*]] = tfc.reduce_sum %[[M1]]
// CHECK: return %[[R]]
func.func @loss(%ids: tensor<8xi64> {tfc.input = "ids"},
                %emb: tensor<10x16xf32> {tfc.param = "embed"},
                %w0: tensor<16x16xf32> {tfc.param = "a.weight"},
                %w1: tensor<16x16xf32> {tfc.param = "b.weight"}) -> tensor<f32> {
  %e = tfc.embedding %emb, %ids : tensor<10x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %h0 = tfc.checkpoint (%x = %e : tensor<8x16xf32>, %w = %w0 : tensor<16x16xf32>) -> tensor<8x16xf32> {
    %m = tfc.matmul %x, %w transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %g = tfc.gelu %m approximate tanh : tensor<8x16xf32>
    tfc.yield %g : tensor<8x16xf32>
  }
  %h1 = tfc.checkpoint (%x = %h0 : tensor<8x16xf32>, %w = %w1 : tensor<16x16xf32>) -> tensor<8x16xf32> {
    %m = tfc.matmul %x, %w transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    tfc.yield %m : tensor<8x16xf32>
  }
  %s = tfc.reduce_sum %h1 dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// --tfc-autodiff does not look into a checkpoint: the error says what to
// run first.
// AUTODIFF: error: 'tfc.checkpoint' is not differentiable but lies on the path from a parameter to the loss (dissolve checkpoints first: --tfc-inline-checkpoints; the pipelines do)

// -----

// A parameter two checkpoints take (a tied weight) belongs to neither block;
// one a checkpoint takes and an op outside reads neither.
// CHECK-LABEL: module attributes {tfc.checkpoint_blocks = {also.outside = -1 : i64, own = 1 : i64, shared = -1 : i64}}
func.func @loss(%x: tensor<4xf32> {tfc.input = "x"},
                %shared: tensor<4xf32> {tfc.param = "shared"},
                %also: tensor<4xf32> {tfc.param = "also.outside"},
                %own: tensor<4xf32> {tfc.param = "own"}) -> tensor<f32> {
  %a = tfc.checkpoint (%p = %x : tensor<4xf32>, %q = %shared : tensor<4xf32>, %r = %also : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.mul %p, %q : tensor<4xf32>, tensor<4xf32>
    %1 = tfc.add %0, %r : tensor<4xf32>, tensor<4xf32>
    tfc.yield %1 : tensor<4xf32>
  }
  %b = tfc.checkpoint (%p = %a : tensor<4xf32>, %q = %shared : tensor<4xf32>, %r = %own : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.mul %p, %q : tensor<4xf32>, tensor<4xf32>
    %1 = tfc.mul %0, %r : tensor<4xf32>, tensor<4xf32>
    tfc.yield %1 : tensor<4xf32>
  }
  %c = tfc.add %b, %also : tensor<4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %c dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Without checkpoints nothing changes: no attribute is added.
// CHECK-LABEL: module {
// CHECK: func.func @plain
func.func @plain(%x: tensor<4xf32> {tfc.param = "w"}) -> tensor<f32> {
  %s = tfc.reduce_sum %x dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
