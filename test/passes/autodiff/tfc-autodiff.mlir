// RUN: tfc-opt %s --split-input-file --tfc-autodiff | FileCheck %s

// --tfc-autodiff adds @<function>_grad returning (loss, one gradient per
// tfc.param argument), named "loss" and "grad.<parameter>" for the runtime;
// the original function stays.

// Broadcast bias: its cotangent is summed back over the broadcast dims; a
// rank-2 weight against batched activations gets one flattened GEMM.
// CHECK-LABEL: func.func @loss(
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {tfc.param = "w"}, %[[B:.*]]: tensor<8xf32> {tfc.param = "b"}, %[[X:.*]]: tensor<2x3x8xf32> {tfc.input = "x"}) -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.output = "grad.w"}, tensor<8xf32> {tfc.output = "grad.b"})
// CHECK: %[[Y:.*]] = tfc.add %[[X]], %[[B]]
// CHECK: %[[L:.*]] = tfc.reduce_sum
// CHECK: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[G:.*]] = tfc.broadcast_to %{{.*}} : tensor<1x1x1xf32> -> tensor<2x3x4xf32>
// CHECK: %[[DY:.*]] = tfc.matmul %[[G]], %[[W]] : tensor<2x3x4xf32>, tensor<4x8xf32> -> tensor<2x3x8xf32>
// CHECK: %[[Y2:.*]] = tfc.reshape %[[Y]] : tensor<2x3x8xf32> -> tensor<6x8xf32>
// CHECK: %[[G2:.*]] = tfc.reshape %[[G]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[DW:.*]] = tfc.matmul %[[G2]], %[[Y2]] transpose_a : tensor<6x4xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
// CHECK: %[[DB:.*]] = tfc.reduce_sum %[[DY]] dims [0, 1] : tensor<2x3x8xf32> -> tensor<8xf32>
// CHECK: return %[[L]], %[[DW]], %[[DB]]
func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<8xf32> {tfc.param = "b"}, %x: tensor<2x3x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %y = tfc.add %x, %b : tensor<2x3x8xf32>, tensor<8xf32>
  %z = tfc.matmul %y, %w transpose_b : tensor<2x3x8xf32>, tensor<4x8xf32> -> tensor<2x3x4xf32>
  %s = tfc.reduce_sum %z dims [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A tied weight (embedding table = LM head) sums the cotangents of both
// uses with tfc.add; cross_entropy and embedding use their named backward
// ops; a parameter that does not reach the loss gets zeros.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[T:.*]]: tensor<6x4xf32> {tfc.param = "wte"}, %{{.*}}: tensor<4xf32> {tfc.param = "unused"}, %[[IDS:.*]]: tensor<3xi64> {tfc.input = "ids"}, %[[LAB:.*]]: tensor<3xi64> {tfc.input = "labels"})
// CHECK: %[[E:.*]] = tfc.embedding %[[T]], %[[IDS]]
// CHECK: %[[LOGITS:.*]] = tfc.matmul %[[E]], %[[T]] transpose_b
// CHECK: %[[L:.*]] = tfc.cross_entropy %[[LOGITS]], %[[LAB]]
// CHECK: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DLOGITS:.*]] = tfc.cross_entropy_grad %[[ONE]], %[[LOGITS]], %[[LAB]] : tensor<f32>, tensor<3x6xf32>, tensor<3xi64> -> tensor<3x6xf32>
// CHECK: %[[DE:.*]] = tfc.matmul %[[DLOGITS]], %[[T]] : tensor<3x6xf32>, tensor<6x4xf32> -> tensor<3x4xf32>
// CHECK: %[[DHEAD:.*]] = tfc.matmul %[[DLOGITS]], %[[E]] transpose_a : tensor<3x6xf32>, tensor<3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[DEMB:.*]] = tfc.embedding_grad %[[DE]], %[[IDS]] : tensor<3x4xf32>, tensor<3xi64> -> tensor<6x4xf32>
// CHECK: %[[DT:.*]] = tfc.add %[[DHEAD]], %[[DEMB]] : tensor<6x4xf32>, tensor<6x4xf32>
// CHECK: %[[ZERO:.*]] = tfc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %[[L]], %[[DT]], %[[ZERO]]
func.func @loss(%t: tensor<6x4xf32> {tfc.param = "wte"}, %u: tensor<4xf32> {tfc.param = "unused"}, %ids: tensor<3xi64> {tfc.input = "ids"}, %l: tensor<3xi64> {tfc.input = "labels"}) -> tensor<f32> {
  %e = tfc.embedding %t, %ids : tensor<6x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  %logits = tfc.matmul %e, %t transpose_b : tensor<3x4xf32>, tensor<6x4xf32> -> tensor<3x6xf32>
  %loss = tfc.cross_entropy %logits, %l : tensor<3x6xf32>, tensor<3xi64> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Attention differentiates whole: the backward recomputes the masked
// probabilities (as a fused attention kernel would) and chains the VJPs of
// its parts; only q is a parameter, so dk and dv are not built.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32> {tfc.param = "q"}, %[[K:.*]]: tensor<1x2x4x8xf32> {tfc.input = "k"}, %[[V:.*]]: tensor<1x2x4x8xf32> {tfc.input = "v"})
// CHECK: tfc.attention %[[Q]], %[[K]], %[[V]] causal
// CHECK: %[[G:.*]] = tfc.broadcast_to
// CHECK: %[[S:.*]] = tfc.matmul %[[Q]], %[[K]] transpose_b
// CHECK: %[[SCALE:.*]] = tfc.constant dense<0.353553385> : tensor<f32>
// CHECK: %[[SS:.*]] = tfc.mul %[[S]], %[[SCALE]]
// CHECK: %[[VISIBLE:.*]] = tfc.compare le
// CHECK: %[[MASKED:.*]] = tfc.select %[[VISIBLE]], %[[SS]]
// CHECK: %[[P:.*]] = tfc.softmax %[[MASKED]] dim -1
// CHECK: %[[DP:.*]] = tfc.matmul %[[G]], %[[V]] transpose_b
// CHECK: %[[DS:.*]] = tfc.softmax_grad %[[DP]], %[[P]] dim -1
// CHECK: %[[DSS:.*]] = tfc.mul %[[DS]], %{{.*}} : tensor<1x2x4x4xf32>, tensor<f32>
// CHECK: %[[DQ:.*]] = tfc.matmul %[[DSS]], %[[K]] : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
// CHECK-NOT: tfc.matmul
// CHECK: return %{{.*}}, %[[DQ]]
func.func @loss(%q: tensor<1x2x4x8xf32> {tfc.param = "q"}, %k: tensor<1x2x4x8xf32> {tfc.input = "k"}, %v: tensor<1x2x4x8xf32> {tfc.input = "v"}) -> tensor<f32> {
  %o = tfc.attention %q, %k, %v causal : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %s = tfc.reduce_sum %o dims [0, 1, 2, 3] : tensor<1x2x4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Ops off the parameter-to-loss path are never differentiated: the mask
// built from integer iota/compare is only read, and relu's VJP selects on
// its output: 0 where it is <= 0, else g (torch's threshold_backward, which
// passes g at a NaN).
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32> {tfc.param = "x"})
// CHECK: %[[R:.*]] = tfc.relu %[[X]]
// CHECK: %[[M:.*]] = tfc.compare lt
// CHECK: %[[ZERO:.*]] = tfc.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[SEL:.*]] = tfc.select %[[M]], %[[R]], %[[ZERO]]
// CHECK: %[[OFF:.*]] = tfc.compare le, %[[R]], %{{.*}}
// CHECK: %[[DX:.*]] = tfc.select %[[OFF]], %{{.*}}, %{{.*}}
// CHECK: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<4xf32>
func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<f32> {
  %r = tfc.relu %x : tensor<4xf32>
  %i = tfc.iota dim 0 : tensor<4xi32>
  %two = tfc.constant dense<2> : tensor<i32>
  %m = tfc.compare lt, %i, %two : tensor<4xi32>, tensor<i32>
  %zero = tfc.constant dense<0.0> : tensor<f32>
  %sel = tfc.select %m, %r, %zero : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  %s = tfc.reduce_sum %sel dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// tfc.stop_gradient (torch's detach): loss = sum(h * stop(h)) with h = x * w
// has gradient x * stop(h), not 2 x h: the cotangent reaches w only through
// the mul's first operand. The gradient function keeps no stop_gradient (its
// result is its operand); the original function keeps its own.
// CHECK-LABEL: func.func @loss(
// CHECK: tfc.stop_gradient
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32> {tfc.param = "w"}, %[[X:.*]]: tensor<4xf32> {tfc.input = "x"})
// CHECK-NOT: tfc.stop_gradient
// CHECK: %[[H:.*]] = tfc.mul %[[X]], %[[W]]
// CHECK: %[[P:.*]] = tfc.mul %[[H]], %[[H]]
// CHECK: %[[L:.*]] = tfc.reduce_sum %[[P]]
// CHECK: %[[DP:.*]] = tfc.broadcast_to
// CHECK: %[[DH:.*]] = tfc.mul %[[DP]], %[[H]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NOT: tfc.add
// CHECK: %[[DW:.*]] = tfc.mul %[[DH]], %[[X]] : tensor<4xf32>, tensor<4xf32>
// CHECK: return %[[L]], %[[DW]]
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %h = tfc.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %s = tfc.stop_gradient %h : tensor<4xf32>
  %p = tfc.mul %h, %s : tensor<4xf32>, tensor<4xf32>
  %l = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// tfc.straight_through (an in-place op under torch.no_grad()): loss =
// sum(t * t) with h = x * w and t = straight_through(max(h, 0), h). The
// forward uses the clamped value c, the gradient of t goes to h as through
// the identity: dt = 2c, dw = dt * x, with no select (relu's or maximum's
// derivative) on the way. The gradient function keeps no straight_through.
// CHECK-LABEL: func.func @loss(
// CHECK: tfc.straight_through
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32> {tfc.param = "w"}, %[[X:.*]]: tensor<4xf32> {tfc.input = "x"})
// CHECK-NOT: tfc.straight_through
// CHECK: %[[H:.*]] = tfc.mul %[[X]], %[[W]]
// CHECK: %[[C:.*]] = tfc.maximum %[[H]]
// CHECK: %[[P:.*]] = tfc.mul %[[C]], %[[C]]
// CHECK: %[[L:.*]] = tfc.reduce_sum %[[P]]
// CHECK-NOT: tfc.select
// CHECK: %[[DW:.*]] = tfc.mul %{{.*}}, %[[X]] : tensor<4xf32>, tensor<4xf32>
// CHECK: return %[[L]], %[[DW]]
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %h = tfc.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %zero = tfc.constant dense<0.0> : tensor<f32>
  %c = tfc.maximum %h, %zero : tensor<4xf32>, tensor<f32>
  %t = tfc.straight_through %c, %h : tensor<4xf32>
  %p = tfc.mul %t, %t : tensor<4xf32>, tensor<4xf32>
  %l = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A straight_through whose source does not depend on a parameter carries
// no gradient, even when its value does: here the loss is a constant.
// CHECK-LABEL: func.func @loss_grad
// CHECK-NOT: tfc.straight_through
// CHECK: %[[ZERO:.*]] = tfc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %{{.*}}, %[[ZERO]]
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %t = tfc.straight_through %w, %x : tensor<4xf32>
  %l = tfc.reduce_sum %t dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// tfc.embedding_grad in a forward (the frontend's scatter_add, index_add):
// linear in its rows, so their cotangent is the table cotangent's rows at
// the ids, an embedding lookup.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32> {tfc.param = "w"}, %[[IDS:.*]]: tensor<4xi64> {tfc.input = "ids"})
// CHECK: %[[T:.*]] = tfc.embedding_grad %[[W]], %[[IDS]] : tensor<4x3xf32>, tensor<4xi64> -> tensor<5x3xf32>
// CHECK: %[[DW:.*]] = tfc.embedding %{{.*}}, %[[IDS]] : tensor<5x3xf32>, tensor<4xi64> -> tensor<4x3xf32>
// CHECK: return %{{.*}}, %[[DW]]
func.func @loss(%w: tensor<4x3xf32> {tfc.param = "w"}, %ids: tensor<4xi64> {tfc.input = "ids"}) -> tensor<f32> {
  %t = tfc.embedding_grad %w, %ids : tensor<4x3xf32>, tensor<4xi64> -> tensor<5x3xf32>
  %p = tfc.mul %t, %t : tensor<5x3xf32>, tensor<5x3xf32>
  %l = tfc.reduce_sum %p dims [0, 1] : tensor<5x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A loss reached only through tfc.stop_gradient is a constant: every
// gradient is zero (torch: a loss with no grad_fn gives none).
// CHECK-LABEL: func.func @loss_grad
// CHECK-NOT: tfc.stop_gradient
// CHECK: %[[ZERO:.*]] = tfc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %{{.*}}, %[[ZERO]]
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}) -> tensor<f32> {
  %s = tfc.stop_gradient %w : tensor<4xf32>
  %l = tfc.reduce_sum %s dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// atan2(y, x) has torch's atan2_backward: r = 1 / (y^2 + x^2), dy = g x r,
// dx = g (-y) r, summed back over the dims x was broadcast along.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[Y:.*]]: tensor<2x3xf32> {tfc.param = "y"}, %[[X:.*]]: tensor<3xf32> {tfc.param = "x"})
// CHECK: %[[G:.*]] = tfc.broadcast_to
// CHECK-DAG: %[[XX:.*]] = tfc.mul %[[X]], %[[X]] : tensor<3xf32>, tensor<3xf32>
// CHECK-DAG: %[[YY:.*]] = tfc.mul %[[Y]], %[[Y]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[S:.*]] = tfc.add %[[YY]], %[[XX]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = tfc.div %[[ONE]], %[[S]] : tensor<f32>, tensor<2x3xf32>
// CHECK-DAG: %[[NY:.*]] = tfc.neg %[[Y]]
// CHECK-DAG: %[[GNY:.*]] = tfc.mul %[[G]], %[[NY]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-DAG: %[[DXF:.*]] = tfc.mul %[[GNY]], %[[R]]
// CHECK-DAG: %[[GX:.*]] = tfc.mul %[[G]], %[[X]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK-DAG: %[[DY:.*]] = tfc.mul %[[GX]], %[[R]]
// CHECK: %[[DX:.*]] = tfc.reduce_sum %[[DXF]] dims [0] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK: return %{{.*}}, %[[DY]], %[[DX]]
func.func @loss(%y: tensor<2x3xf32> {tfc.param = "y"}, %x: tensor<3xf32> {tfc.param = "x"}) -> tensor<f32> {
  %a = tfc.atan2 %y, %x : tensor<2x3xf32>, tensor<3xf32>
  %s = tfc.reduce_sum %a dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// erf has torch's derivative, in its order: (2 / sqrt(pi) * exp(-x^2)) * g.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[X:.*]]: tensor<5xf32> {tfc.param = "x"})
// CHECK: %[[G:.*]] = tfc.broadcast_to
// CHECK: %[[XX:.*]] = tfc.mul %[[X]], %[[X]]
// CHECK: %[[N:.*]] = tfc.neg %[[XX]]
// CHECK: %[[E:.*]] = tfc.exp %[[N]]
// CHECK: %[[C:.*]] = tfc.constant dense<1.12837923> : tensor<f32>
// CHECK: %[[CE:.*]] = tfc.mul %[[C]], %[[E]] : tensor<f32>, tensor<5xf32>
// CHECK: %[[DX:.*]] = tfc.mul %[[CE]], %[[G]] : tensor<5xf32>, tensor<5xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @loss(%x: tensor<5xf32> {tfc.param = "x"}) -> tensor<f32> {
  %e = tfc.erf %x : tensor<5xf32>
  %s = tfc.reduce_sum %e dims [0] : tensor<5xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// fmod(a, b) has torch's fmod backward: g for a, -g * trunc(a / b) for b
// (the quotient rounded, then truncated: q - fmod(q, 1), q where that is
// NaN, q * 0 where it is zero for trunc's sign), summed back over the dims
// b was broadcast along.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32> {tfc.param = "a"}, %[[B:.*]]: tensor<3xf32> {tfc.param = "b"})
// CHECK: %[[G:.*]] = tfc.broadcast_to
// CHECK: %[[Q:.*]] = tfc.div %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK-DAG: %[[ZERO:.*]] = tfc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[F:.*]] = tfc.fmod %[[Q]], %[[ONE]] : tensor<2x3xf32>, tensor<f32>
// CHECK-DAG: %[[FINITE:.*]] = tfc.compare eq, %[[F]], %[[F]]
// CHECK-DAG: %[[QF:.*]] = tfc.sub %[[Q]], %[[F]]
// CHECK: %[[W:.*]] = tfc.select %[[FINITE]], %[[QF]], %[[Q]]
// CHECK-DAG: %[[Z:.*]] = tfc.compare eq, %[[W]], %[[ZERO]]
// CHECK-DAG: %[[QZ:.*]] = tfc.mul %[[Q]], %[[ZERO]]
// CHECK: %[[T:.*]] = tfc.select %[[Z]], %[[QZ]], %[[W]]
// CHECK: %[[NG:.*]] = tfc.neg %[[G]]
// CHECK: %[[DBF:.*]] = tfc.mul %[[NG]], %[[T]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[DB:.*]] = tfc.reduce_sum %[[DBF]] dims [0] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK: return %{{.*}}, %[[G]], %[[DB]]
func.func @loss(%a: tensor<2x3xf32> {tfc.param = "a"}, %b: tensor<3xf32> {tfc.param = "b"}) -> tensor<f32> {
  %r = tfc.fmod %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %s = tfc.reduce_sum %r dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A backward op differentiated again (second order, TfcGradVjps.cpp):
// softmax_grad is linear in dy, so dy's cotangent is softmax_grad of the
// incoming cotangent with the same y; y's is c (dy - sum(dy y)) - dy
// sum(c y), computed in f32 for bf16 operands and rounded once.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[DY:.*]]: tensor<2x4xbf16> {tfc.param = "dy"}, %[[Y:.*]]: tensor<2x4xbf16> {tfc.param = "y"})
// CHECK: %[[C:.*]] = tfc.broadcast_to %{{.*}} : tensor<1x1xbf16> -> tensor<2x4xbf16>
// CHECK: %[[DDY:.*]] = tfc.softmax_grad %[[C]], %[[Y]] dim -1 : tensor<2x4xbf16>
// CHECK-DAG: %[[CW:.*]] = tfc.convert %[[C]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK-DAG: %[[DYW:.*]] = tfc.convert %[[DY]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK-DAG: %[[YW:.*]] = tfc.convert %[[Y]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK: %[[DYY:.*]] = tfc.mul %[[DYW]], %[[YW]]
// CHECK: %[[S:.*]] = tfc.reduce_sum %[[DYY]] dims [1] keepdim : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK: %[[CY:.*]] = tfc.mul %[[CW]], %[[YW]]
// CHECK: %[[T:.*]] = tfc.reduce_sum %[[CY]] dims [1] keepdim : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK: %[[DYT:.*]] = tfc.mul %[[DYW]], %[[T]]
// CHECK: %[[D:.*]] = tfc.sub %[[DYW]], %[[S]]
// CHECK: %[[CD:.*]] = tfc.mul %[[CW]], %[[D]]
// CHECK: %[[YC:.*]] = tfc.sub %[[CD]], %[[DYT]]
// CHECK: %[[DYN:.*]] = tfc.convert %[[YC]] : tensor<2x4xf32> -> tensor<2x4xbf16>
// CHECK: return %{{.*}}, %[[DDY]], %[[DYN]]
func.func @loss(%dy: tensor<2x4xbf16> {tfc.param = "dy"}, %y: tensor<2x4xbf16> {tfc.param = "y"}) -> tensor<bf16> {
  %dx = tfc.softmax_grad %dy, %y dim -1 : tensor<2x4xbf16>
  %s = tfc.reduce_sum %dx dims [0, 1] : tensor<2x4xbf16> -> tensor<bf16>
  return %s : tensor<bf16>
}

// -----

// Gradients into layer_norm's statistics (a derivative taken inside the
// forward reads them): over rows of N = 8, d mean / dx = 1 / N and d rstd /
// dx = -rstd^3 (x - mean) / N, in f32 for bf16 x, rounded once; no
// layer_norm_grad is built when y itself has no gradient.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xbf16> {tfc.param = "x"})
// CHECK: %[[Y:.*]], %[[M:.*]], %[[R:.*]] = tfc.layer_norm %[[X]]
// CHECK-NOT: tfc.layer_norm_grad
// CHECK: %[[N:.*]] = tfc.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[CM:.*]] = tfc.mul %{{.*}}, %[[N]] : tensor<2x1xf32>, tensor<f32>
// CHECK: %[[DM:.*]] = tfc.broadcast_to %[[CM]] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK: %[[XW:.*]] = tfc.convert %[[X]] : tensor<2x8xbf16> -> tensor<2x8xf32>
// CHECK: %[[XC:.*]] = tfc.sub %[[XW]], %[[M]]
// CHECK: %[[R2:.*]] = tfc.mul %[[R]], %[[R]]
// CHECK: %[[R3:.*]] = tfc.mul %[[R2]], %[[R]]
// CHECK: %[[R3N:.*]] = tfc.mul %[[R3]], %[[N]]
// CHECK: %[[CR:.*]] = tfc.mul %{{.*}}, %[[R3N]]
// CHECK: %[[T:.*]] = tfc.mul %[[CR]], %[[XC]]
// CHECK: %[[DR:.*]] = tfc.neg %[[T]]
// CHECK: %[[D:.*]] = tfc.add %[[DM]], %[[DR]]
// CHECK: %[[DX:.*]] = tfc.convert %[[D]] : tensor<2x8xf32> -> tensor<2x8xbf16>
// CHECK: return %{{.*}}, %[[DX]]
func.func @loss(%x: tensor<2x8xbf16> {tfc.param = "x"}) -> tensor<f32> {
  %y, %m, %r = tfc.layer_norm %x : (tensor<2x8xbf16>) -> (tensor<2x8xbf16>, tensor<2x1xf32>, tensor<2x1xf32>)
  %a = tfc.reduce_sum %m dims [0, 1] : tensor<2x1xf32> -> tensor<f32>
  %b = tfc.reduce_sum %r dims [0, 1] : tensor<2x1xf32> -> tensor<f32>
  %s = tfc.add %a, %b : tensor<f32>, tensor<f32>
  return %s : tensor<f32>
}

// -----

// Integer ops carry no gradient and need no VJP: the bitwise ops hashing
// ids into table rows (a hashed embedding) lie on no float path, and the
// table's gradient is embedding_grad at the hashed rows.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[T:.*]]: tensor<8x4xf32> {tfc.param = "table"}, %[[IDS:.*]]: tensor<3xi64> {tfc.input = "ids"})
// CHECK: %[[X:.*]] = tfc.bitwise_xor %{{.*}}, %[[IDS]] : tensor<3xi64>, tensor<3xi64>
// CHECK: %[[H:.*]] = tfc.bitwise_and %[[X]], %{{.*}} : tensor<3xi64>, tensor<i64>
// CHECK: %[[DT:.*]] = tfc.embedding_grad %{{.*}}, %[[H]] : tensor<3x4xf32>, tensor<3xi64> -> tensor<8x4xf32>
// CHECK: return %{{.*}}, %[[DT]]
func.func @loss(%t: tensor<8x4xf32> {tfc.param = "table"}, %ids: tensor<3xi64> {tfc.input = "ids"}) -> tensor<f32> {
  %p = tfc.constant dense<2654435761> : tensor<i64>
  %m = tfc.mul %ids, %p : tensor<3xi64>, tensor<i64>
  %x = tfc.bitwise_xor %m, %ids : tensor<3xi64>, tensor<3xi64>
  %mask = tfc.constant dense<7> : tensor<i64>
  %h = tfc.bitwise_and %x, %mask : tensor<3xi64>, tensor<i64>
  %e = tfc.embedding %t, %h : tensor<8x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  %s = tfc.reduce_sum %e dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// sort's values carry their cotangent back to the positions they came from:
// sorting the indices gives their inverse permutation, which gathers the
// cotangent (an embedding of one-wide rows, each row's offset r * n added);
// the indices have no cotangent.
// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {tfc.param = "x"})
// CHECK: %[[V:.*]], %[[I:.*]] = tfc.sort %[[X]] descending : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
// CHECK: tfc.broadcast_to
// CHECK: %[[G:.*]] = tfc.mul
// CHECK: %{{.*}}, %[[INV:.*]] = tfc.sort %[[I]] : tensor<2x3xi64> -> tensor<2x3xi64>, tensor<2x3xi64>
// CHECK: %[[ROW:.*]] = tfc.iota dim 0 : tensor<2x3xi64>
// CHECK: %[[N:.*]] = tfc.constant dense<3> : tensor<i64>
// CHECK: %[[START:.*]] = tfc.mul %[[ROW]], %[[N]]
// CHECK: %[[IDS:.*]] = tfc.add %[[INV]], %[[START]] : tensor<2x3xi64>, tensor<2x3xi64>
// CHECK: %[[TABLE:.*]] = tfc.reshape %[[G]] : tensor<2x3xf32> -> tensor<6x1xf32>
// CHECK: %[[DX:.*]] = tfc.embedding %[[TABLE]], %[[IDS]] : tensor<6x1xf32>, tensor<2x3xi64> -> tensor<2x3x1xf32>
// CHECK: %[[DXR:.*]] = tfc.reshape %[[DX]] : tensor<2x3x1xf32> -> tensor<2x3xf32>
// CHECK: return %{{.*}}, %[[DXR]]
func.func @loss(%x: tensor<2x3xf32> {tfc.param = "x"}) -> tensor<f32> {
  %v, %i = tfc.sort %x descending : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  %w = tfc.iota dim 1 : tensor<2x3xf32>
  %p = tfc.mul %v, %w : tensor<2x3xf32>, tensor<2x3xf32>
  %s = tfc.reduce_sum %p dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A strided slice keeping one element of a dimension (x[::k] with k past
// its size) takes no spreading there, whatever the step: its gradient is
// the cotangent padded by the start (a step of 1e8 used to pad to 1e8
// rows). The strided dim 1 (step 2, 2 of 5 kept) is still spread: each
// element padded to the step, 4 columns, all of those after the start.
// CHECK-LABEL: func.func @loss_grad(%arg0: tensor<4x5xf32>
// CHECK-NOT: 100000000x
// CHECK: tfc.pad %{{.*}} low [0, 0, 0] high [0, 0, 1] {{.*}} : tensor<1x2x1xf32> -> tensor<1x2x2xf32>
// CHECK: tfc.pad %{{.*}} low [2, 1] high [1, 0] {{.*}} : tensor<1x4xf32> -> tensor<4x5xf32>
func.func @loss(%w: tensor<4x5xf32> {tfc.param = "w"}) -> tensor<f32> {
  %s = tfc.slice %w [2, 1] to [4, 5] step [100000000, 2] : tensor<4x5xf32> -> tensor<1x2xf32>
  %l = tfc.reduce_sum %s dims [0, 1] : tensor<1x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
