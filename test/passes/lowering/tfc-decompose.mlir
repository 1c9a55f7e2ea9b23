// RUN: tfc-opt %s --split-input-file --tfc-decompose | FileCheck %s

// Composite ops become ops with a kernel role; matmul batch broadcasting that one
// batch stride cannot express becomes an explicit tfc.broadcast_to.

// Causal attention (gpt-mini's): q k^T, scale 1/sqrt(32), a top-left lower-triangular
// mask (key s visible iff s <= query t) filled with -inf, softmax, then p v.
// CHECK-LABEL: func.func @causal_attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x32xf32>, %[[K:.*]]: tensor<2x4x8x32xf32>, %[[V:.*]]: tensor<2x4x8x32xf32>)
// CHECK: %[[S:.*]] = tfc.matmul %[[Q]], %[[K]] transpose_b : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32> -> tensor<2x4x8x8xf32>
// CHECK: %[[SCALE:.*]] = tfc.constant dense<0.176776692> : tensor<f32>
// CHECK: %[[SCALED:.*]] = tfc.mul %[[S]], %[[SCALE]] : tensor<2x4x8x8xf32>, tensor<f32>
// CHECK: %[[ROW:.*]] = tfc.iota dim 0 : tensor<8x8xi32>
// CHECK: %[[COL:.*]] = tfc.iota dim 1 : tensor<8x8xi32>
// CHECK: %[[VISIBLE:.*]] = tfc.compare le, %[[COL]], %[[ROW]] : tensor<8x8xi32>, tensor<8x8xi32>
// CHECK: %[[NEGINF:.*]] = tfc.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[MASKED:.*]] = tfc.select %[[VISIBLE]], %[[SCALED]], %[[NEGINF]] : tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>
// CHECK: %[[P:.*]] = tfc.softmax %[[MASKED]] dim -1 : tensor<2x4x8x8xf32>
// CHECK: %[[O:.*]] = tfc.matmul %[[P]], %[[V]] : tensor<2x4x8x8xf32>, tensor<2x4x8x32xf32> -> tensor<2x4x8x32xf32>
// CHECK-NOT: tfc.attention
// CHECK: return %[[O]]
func.func @causal_attention(%q: tensor<2x4x8x32xf32>, %k: tensor<2x4x8x32xf32>, %v: tensor<2x4x8x32xf32>) -> tensor<2x4x8x32xf32> {
  %0 = tfc.attention %q, %k, %v causal : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32> -> tensor<2x4x8x32xf32>
  return %0 : tensor<2x4x8x32xf32>
}

// -----

// A causal mask with fewer queries than keys stays top-left aligned: [T, S] = [4, 6].
// CHECK-LABEL: func.func @causal_rectangular
// CHECK: tfc.iota dim 0 : tensor<4x6xi32>
// CHECK: tfc.iota dim 1 : tensor<4x6xi32>
// CHECK: tfc.compare le
// CHECK: tfc.select {{.*}} : tensor<4x6xi1>, tensor<3x4x6xf32>, tensor<f32>
func.func @causal_rectangular(%q: tensor<3x4x16xf32>, %k: tensor<3x6x16xf32>, %v: tensor<3x6x8xf32>) -> tensor<3x4x8xf32> {
  %0 = tfc.attention %q, %k, %v causal : tensor<3x4x16xf32>, tensor<3x6x16xf32>, tensor<3x6x8xf32> -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}

// -----

// bf16 attention with an explicit scale and dropout, no mask: scores and softmax stay in
// f32 (the GEMM keeps its fp32 accumulator), dropout acts on the probabilities, and they
// are rounded to bf16 once, for the second GEMM.
// CHECK-LABEL: func.func @bf16_dropout_attention
// CHECK-SAME: %[[SEED:[^:]*]]: tensor<i64>, %[[OFFSET:[^:]*]]: tensor<i64>
// CHECK: %[[S:.*]] = tfc.matmul %{{.*}}, %{{.*}} transpose_b : tensor<4x8x16xbf16>, tensor<4x8x16xbf16> -> tensor<4x8x8xf32>
// CHECK: %[[SCALE:.*]] = tfc.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[SCALED:.*]] = tfc.mul %[[S]], %[[SCALE]]
// CHECK-NOT: tfc.select
// CHECK: %[[P:.*]] = tfc.softmax %[[SCALED]] dim -1 : tensor<4x8x8xf32>
// CHECK: %[[D:.*]] = tfc.dropout %[[P]], %[[SEED]], %[[OFFSET]] p 1.000000e-01 : tensor<4x8x8xf32>
// CHECK: %[[H:.*]] = tfc.convert %[[D]] : tensor<4x8x8xf32> -> tensor<4x8x8xbf16>
// CHECK: tfc.matmul %[[H]], %{{.*}} : tensor<4x8x8xbf16>, tensor<4x8x16xbf16> -> tensor<4x8x16xbf16>
func.func @bf16_dropout_attention(%q: tensor<4x8x16xbf16>, %k: tensor<4x8x16xbf16>, %v: tensor<4x8x16xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<4x8x16xbf16> {
  %0 = tfc.attention %q, %k, %v scale 0.125 dropout 0.1 seed %seed offset %offset : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16> -> tensor<4x8x16xbf16>
  return %0 : tensor<4x8x16xbf16>
}

// -----

// attn_mask: a bf16 additive bias is converted to the f32 scores and added after the
// scale; an i1 padding mask selects -inf where it is false; both after the causal mask.
// CHECK-LABEL: func.func @masked_attention
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<8x8xbf16>, %[[PAD:[^:]*]]: tensor<4x1x8xi1>
// CHECK: %[[SCALED:.*]] = tfc.mul
// CHECK: %[[CAUSAL:.*]] = tfc.select %{{.*}}, %[[SCALED]], %{{.*}} : tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
// CHECK: %[[B32:.*]] = tfc.convert %[[BIAS]] : tensor<8x8xbf16> -> tensor<8x8xf32>
// CHECK: %[[BIASED:.*]] = tfc.add %[[CAUSAL]], %[[B32]] : tensor<4x8x8xf32>, tensor<8x8xf32>
// CHECK: tfc.softmax %[[BIASED]] dim -1
// CHECK: %[[S2:.*]] = tfc.mul
// CHECK: %[[PADDED:.*]] = tfc.select %[[PAD]], %[[S2]], %{{.*}} : tensor<4x1x8xi1>, tensor<4x8x8xf32>, tensor<f32>
// CHECK: tfc.softmax %[[PADDED]] dim -1
func.func @masked_attention(%q: tensor<4x8x16xbf16>, %bias: tensor<8x8xbf16>, %pad: tensor<4x1x8xi1>) -> (tensor<4x8x16xbf16>, tensor<4x8x16xbf16>) {
  %0 = tfc.attention %q, %q, %q causal mask %bias : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<8x8xbf16> -> tensor<4x8x16xbf16>
  %1 = tfc.attention %q, %q, %q mask %pad : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x1x8xi1> -> tensor<4x8x16xbf16>
  return %0, %1 : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>
}

// -----

// Dropout with p = 0 is the identity and is not emitted.
// CHECK-LABEL: func.func @zero_dropout_attention
// CHECK-NOT: tfc.dropout
func.func @zero_dropout_attention(%q: tensor<8x16xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<8x16xf32> {
  %0 = tfc.attention %q, %q, %q dropout 0.0 seed %seed offset %offset : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Softmax over a non-last dim: swap that dim with the last, softmax over the last, swap
// back (the permutation is its own inverse).
// CHECK-LABEL: func.func @softmax_middle_dim
// CHECK: %[[T:.*]] = tfc.transpose %{{.*}}, [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK: %[[S:.*]] = tfc.softmax %[[T]] dim -1 : tensor<2x4x3xf32>
// CHECK: %[[B:.*]] = tfc.transpose %[[S]], [0, 2, 1] : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
// CHECK: return %[[B]]
func.func @softmax_middle_dim(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tfc.softmax %x dim 1 : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// log_softmax over dim 0, given as a negative dim.
// CHECK-LABEL: func.func @log_softmax_first_dim
// CHECK: %[[T:.*]] = tfc.transpose %{{.*}}, [1, 0] : tensor<5x7xf16> -> tensor<7x5xf16>
// CHECK: %[[S:.*]] = tfc.log_softmax %[[T]] dim -1 : tensor<7x5xf16>
// CHECK: tfc.transpose %[[S]], [1, 0] : tensor<7x5xf16> -> tensor<5x7xf16>
func.func @log_softmax_first_dim(%x: tensor<5x7xf16>) -> tensor<5x7xf16> {
  %0 = tfc.log_softmax %x dim -2 : tensor<5x7xf16>
  return %0 : tensor<5x7xf16>
}

// -----

// Softmax over the last dim is already a row reduction and is left alone.
// CHECK-LABEL: func.func @softmax_last_dim
// CHECK-NOT: tfc.transpose
// CHECK: tfc.softmax %{{.*}} dim 1 : tensor<2x3xf32>
func.func @softmax_last_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tfc.softmax %x dim 1 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A sum over a leading and the last dim: a row reduction over the trailing suffix [2],
// then a column reduction over [0] (indices before the suffix are unchanged).
// CHECK-LABEL: func.func @reduce_sum_split
// CHECK: %[[R:.*]] = tfc.reduce_sum %{{.*}} dims [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>
// CHECK: %[[C:.*]] = tfc.reduce_sum %[[R]] dims [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: return %[[C]]
func.func @reduce_sum_split(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %0 = tfc.reduce_sum %x dims [0, -1] : tensor<4x8x16xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// keepdim is kept by both halves; the suffix can span several dims ([2, 3]).
// CHECK-LABEL: func.func @reduce_max_keepdim
// CHECK: %[[R:.*]] = tfc.reduce_max %{{.*}} dims [2, 3] keepdim : tensor<2x3x4x5xi32> -> tensor<2x3x1x1xi32>
// CHECK: tfc.reduce_max %[[R]] dims [0] keepdim : tensor<2x3x1x1xi32> -> tensor<1x3x1x1xi32>
func.func @reduce_max_keepdim(%x: tensor<2x3x4x5xi32>) -> tensor<1x3x1x1xi32> {
  %0 = tfc.reduce_max %x dims [0, 2, 3] keepdim : tensor<2x3x4x5xi32> -> tensor<1x3x1x1xi32>
  return %0 : tensor<1x3x1x1xi32>
}

// -----

// A 16-bit mean goes through f32 so that the intermediate is not rounded to bf16.
// CHECK-LABEL: func.func @reduce_mean_bf16
// CHECK: %[[W:.*]] = tfc.convert %{{.*}} : tensor<4x8x16xbf16> -> tensor<4x8x16xf32>
// CHECK: %[[R:.*]] = tfc.reduce_mean %[[W]] dims [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>
// CHECK: %[[C:.*]] = tfc.reduce_mean %[[R]] dims [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: tfc.convert %[[C]] : tensor<8xf32> -> tensor<8xbf16>
func.func @reduce_mean_bf16(%x: tensor<4x8x16xbf16>) -> tensor<8xbf16> {
  %0 = tfc.reduce_mean %x dims [0, 2] : tensor<4x8x16xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// A 16-bit max is exact in any precision and is not widened.
// CHECK-LABEL: func.func @reduce_max_f16
// CHECK-NOT: tfc.convert
// CHECK: %[[R:.*]] = tfc.reduce_max %{{.*}} dims [2] : tensor<3x4x5xf16> -> tensor<3x4xf16>
// CHECK: tfc.reduce_max %[[R]] dims [0] : tensor<3x4xf16> -> tensor<4xf16>
// CHECK-NOT: tfc.convert
func.func @reduce_max_f16(%x: tensor<3x4x5xf16>) -> tensor<4xf16> {
  %0 = tfc.reduce_max %x dims [0, 2] : tensor<3x4x5xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Row-only and column-only reductions are kernels already.
// CHECK-LABEL: func.func @reductions_kept
// CHECK: tfc.reduce_sum %{{.*}} dims [1, 2] : tensor<2x3x4xf32> -> tensor<2xf32>
// CHECK: tfc.reduce_sum %{{.*}} dims [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
func.func @reductions_kept(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %0 = tfc.reduce_sum %x dims [1, 2] : tensor<2x3x4xf32> -> tensor<2xf32>
  %1 = tfc.reduce_sum %x dims [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<2xf32>, tensor<4xf32>
}

// -----

// Batch dims [4, 1] and [3] broadcast partially to [4, 3]: no single batch stride
// addresses them, so both operands are broadcast explicitly.
// CHECK-LABEL: func.func @matmul_partial_broadcast
// CHECK: %[[A:.*]] = tfc.broadcast_to %{{.*}} : tensor<4x1x2x5xf32> -> tensor<4x3x2x5xf32>
// CHECK: %[[B:.*]] = tfc.broadcast_to %{{.*}} : tensor<3x5x6xf32> -> tensor<4x3x5x6xf32>
// CHECK: tfc.matmul %[[A]], %[[B]] : tensor<4x3x2x5xf32>, tensor<4x3x5x6xf32> -> tensor<4x3x2x6xf32>
func.func @matmul_partial_broadcast(%a: tensor<4x1x2x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<4x3x2x6xf32> {
  %0 = tfc.matmul %a, %b : tensor<4x1x2x5xf32>, tensor<3x5x6xf32> -> tensor<4x3x2x6xf32>
  return %0 : tensor<4x3x2x6xf32>
}

// -----

// One matrix for the whole batch (stride 0) or one per batch (full batch dims) is fine.
// CHECK-LABEL: func.func @matmul_stridable
// CHECK-NOT: tfc.broadcast_to
// CHECK: tfc.matmul %{{.*}}, %{{.*}} transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32>
// CHECK: tfc.matmul %{{.*}}, %{{.*}} : tensor<1x1x2x5xf32>, tensor<4x3x5x6xf32>
func.func @matmul_stridable(%x: tensor<16x64x128xf32>, %w: tensor<384x128xf32>, %a: tensor<1x1x2x5xf32>, %b: tensor<4x3x5x6xf32>) -> (tensor<16x64x384xf32>, tensor<4x3x2x6xf32>) {
  %0 = tfc.matmul %x, %w transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  %1 = tfc.matmul %a, %b : tensor<1x1x2x5xf32>, tensor<4x3x5x6xf32> -> tensor<4x3x2x6xf32>
  return %0, %1 : tensor<16x64x384xf32>, tensor<4x3x2x6xf32>
}

// -----

// layer_norm_grad: dx from the dx-only row kernel; dweight and dbias are column
// reduce_sums over the leading dims, of dy * xhat and dy widened to f32.
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-SAME: (%[[DY:[^:]+]]: tensor<4x6x96xbf16>, %[[X:[^:]+]]: tensor<4x6x96xbf16>, %[[M:[^:]+]]: tensor<4x6x1xf32>, %[[R:[^:]+]]: tensor<4x6x1xf32>, %[[W:[^:]+]]: tensor<96xf32>)
// CHECK: %[[DX:.+]] = tfc.layer_norm_grad_input %[[DY]], %[[X]], %[[M]], %[[R]] weight %[[W]] : (tensor<4x6x96xbf16>, tensor<4x6x96xbf16>, tensor<4x6x1xf32>, tensor<4x6x1xf32>, tensor<96xf32>) -> tensor<4x6x96xbf16>
// CHECK: %[[DYF:.+]] = tfc.convert %[[DY]] : tensor<4x6x96xbf16> -> tensor<4x6x96xf32>
// CHECK: %[[XF:.+]] = tfc.convert %[[X]] : tensor<4x6x96xbf16> -> tensor<4x6x96xf32>
// CHECK: %[[C:.+]] = tfc.sub %[[XF]], %[[M]]
// CHECK: %[[XHAT:.+]] = tfc.mul %[[C]], %[[R]]
// CHECK: %[[P:.+]] = tfc.mul %[[DYF]], %[[XHAT]]
// CHECK: %[[DW:.+]] = tfc.reduce_sum %[[P]] dims [0, 1] : tensor<4x6x96xf32> -> tensor<96xf32>
// CHECK: %[[DB:.+]] = tfc.reduce_sum %[[DYF]] dims [0, 1] : tensor<4x6x96xf32> -> tensor<96xf32>
// CHECK: return %[[DX]], %[[DW]], %[[DB]]
func.func @layer_norm_grad(%dy: tensor<4x6x96xbf16>, %x: tensor<4x6x96xbf16>, %m: tensor<4x6x1xf32>, %r: tensor<4x6x1xf32>, %w: tensor<96xf32>) -> (tensor<4x6x96xbf16>, tensor<96xf32>, tensor<96xf32>) {
  %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %m, %r weight %w : (tensor<4x6x96xbf16>, tensor<4x6x96xbf16>, tensor<4x6x1xf32>, tensor<4x6x1xf32>, tensor<96xf32>) -> (tensor<4x6x96xbf16>, tensor<96xf32>, tensor<96xf32>)
  return %dx, %dw, %db : tensor<4x6x96xbf16>, tensor<96xf32>, tensor<96xf32>
}

// -----

// rms_norm_grad: xhat = x * rstd; the f32 sum is converted to the bf16 weight's type.
// CHECK-LABEL: func.func @rms_norm_grad
// CHECK: tfc.rms_norm_grad_input %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} weight %{{[^ ]+}} : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x1xf32>, tensor<32xbf16>) -> tensor<8x32xf32>
// CHECK: %[[XHAT:.+]] = tfc.mul %{{[^ ]+}}, %{{[^ ]+}} : tensor<8x32xf32>, tensor<8x1xf32>
// CHECK: %[[P:.+]] = tfc.mul %{{[^ ]+}}, %[[XHAT]] : tensor<8x32xf32>, tensor<8x32xf32>
// CHECK: %[[S:.+]] = tfc.reduce_sum %[[P]] dims [0] : tensor<8x32xf32> -> tensor<32xf32>
// CHECK: tfc.convert %[[S]] : tensor<32xf32> -> tensor<32xbf16>
func.func @rms_norm_grad(%dy: tensor<8x32xf32>, %x: tensor<8x32xf32>, %r: tensor<8x1xf32>, %w: tensor<32xbf16>) -> (tensor<8x32xf32>, tensor<32xbf16>) {
  %dx, %dw = tfc.rms_norm_grad %dy, %x, %r weight %w : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x1xf32>, tensor<32xbf16>) -> (tensor<8x32xf32>, tensor<32xbf16>)
  return %dx, %dw : tensor<8x32xf32>, tensor<32xbf16>
}

// -----

// Without a weight only the row kernel remains.
// CHECK-LABEL: func.func @layer_norm_grad_no_weight
// CHECK-NEXT: %[[DX:.+]] = tfc.layer_norm_grad_input %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} normalized_rank 2 :
// CHECK-NEXT: return %[[DX]]
func.func @layer_norm_grad_no_weight(%dy: tensor<3x4x24xf32>, %x: tensor<3x4x24xf32>, %m: tensor<3x1x1xf32>, %r: tensor<3x1x1xf32>) -> tensor<3x4x24xf32> {
  %dx = tfc.layer_norm_grad %dy, %x, %m, %r normalized_rank 2 : (tensor<3x4x24xf32>, tensor<3x4x24xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>) -> tensor<3x4x24xf32>
  return %dx : tensor<3x4x24xf32>
}

// -----

// embedding_grad is not composite: it stays, a scatter kernel of its own (a one-hot
// GEMM before); its iota and empty cases are canonicalization patterns
// (canonicalize.mlir).
// CHECK-LABEL: func.func @embedding_grad
// CHECK-NEXT: %[[G:.+]] = tfc.embedding_grad %{{[^ ]+}}, %{{[^ ]+}} : tensor<4x9x16xbf16>, tensor<4x9xi32> -> tensor<50x16xbf16>
// CHECK-NEXT: return %[[G]]
func.func @embedding_grad(%dy: tensor<4x9x16xbf16>, %ids: tensor<4x9xi32>) -> tensor<50x16xbf16> {
  %0 = tfc.embedding_grad %dy, %ids : tensor<4x9x16xbf16>, tensor<4x9xi32> -> tensor<50x16xbf16>
  return %0 : tensor<50x16xbf16>
}

// -----

// softmax_grad over a non-last dim: both operands are transposed.
// CHECK-LABEL: func.func @softmax_grad_dim0
// CHECK: %[[A:.+]] = tfc.transpose %{{[^ ]+}}, [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
// CHECK: %[[B:.+]] = tfc.transpose %{{[^ ]+}}, [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
// CHECK: %[[G:.+]] = tfc.softmax_grad %[[A]], %[[B]] dim -1 : tensor<4x6xf32>
// CHECK: tfc.transpose %[[G]], [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
func.func @softmax_grad_dim0(%dy: tensor<6x4xf32>, %y: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = tfc.softmax_grad %dy, %y dim 0 : tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// tfc.stop_gradient only means something to differentiation, which runs
// before: here it is its operand.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: tfc.stop_gradient
// CHECK: %[[Y:.*]] = tfc.exp %[[X]]
// CHECK: return %[[Y]]
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = tfc.stop_gradient %x : tensor<4xf32>
  %y = tfc.exp %s : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// So does tfc.straight_through: here it is its value.
// CHECK-LABEL: func.func @straight_through
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK-NOT: tfc.straight_through
// CHECK: %[[Y:.*]] = tfc.exp %[[X]]
// CHECK: return %[[Y]]
func.func @straight_through(%x: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %t = tfc.straight_through %x, %s : tensor<4xf32>
  %y = tfc.exp %t : tensor<4xf32>
  return %y : tensor<4xf32>
}
