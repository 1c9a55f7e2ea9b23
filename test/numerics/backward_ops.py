"""Backward-op numerics cases (TfcGradOps.td), appended to forward_ops.CASES.

Each case runs the backward op (after its forward op where the backward
reads the forward's outputs or statistics) and compares with
torch.autograd.grad of the PyTorch function in float64 on the same rounded
inputs: the reference is what autograd computes, not a restatement of tfc's
formula.
"""
import torch
import torch.nn.functional as F

from forward_ops import simple


def vjp(fn, inputs, cotangent, wrt):
    """torch.autograd.grad of fn(*inputs) with `cotangent`, for the inputs
    whose indices are in `wrt`."""
    leaves = [t.detach().clone().requires_grad_(i in wrt) if t.is_floating_point() else t
              for i, t in enumerate(inputs)]
    out = fn(*leaves)
    grads = torch.autograd.grad(out, [leaves[i] for i in wrt], cotangent)
    return list(grads)


def ln_ref(x, w, b, dy):
    return vjp(lambda x, w, b: F.layer_norm(x, (96,), w, b, 1e-5), [x, w, b], dy, [0, 1, 2])


def ln2_ref(x, dy):
    return vjp(lambda x: F.layer_norm(x, (4, 24), None, None, 1e-5), [x], dy, [0])


def rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def ce_ref(x, labels, **kw):
    return vjp(lambda x: F.cross_entropy(x, labels, **kw) * 1.5, [x], None, [0])[0]


def softmax_grads_ref(z, dy, dim, rnd):
    """PyTorch's softmax / log_softmax backward (what autograd runs) applied
    to the forward outputs as the forward kernels stored them (`rnd` rounds
    to the case's dtype), so a 16-bit case compares the backward op alone."""
    y, l = rnd(torch.softmax(z, dim)), rnd(torch.log_softmax(z, dim))
    return [torch._softmax_backward_data(dy, y, dim, y.dtype),
            torch._log_softmax_backward_data(dy, l, dim, l.dtype)]


def _ignore3(i, t):
    return t if i != 1 else torch.where(torch.arange(12) % 4 == 0, torch.full_like(t, 3), t)


BACKWARD_CASES = [
    simple("gelu_grad", [([4, 33], "float"), ([4, 33], "float")], [([4, 33], None), ([4, 33], None)],
           "  %0 = tfc.gelu_grad %a, %b : tensor<4x33x{d}>\n"
           "  %1 = tfc.gelu_grad %a, %b approximate tanh : tensor<4x33x{d}>\n"
           "  return %0, %1 : tensor<4x33x{d}>, tensor<4x33x{d}>",
           lambda dy, x: vjp(F.gelu, [x], dy, [0]) +
           vjp(lambda x: F.gelu(x, approximate="tanh"), [x], dy, [0]), tol=2.0),
    simple("silu_grad", [([4, 33], "float"), ([4, 33], "float")], [([4, 33], None)],
           "  %0 = tfc.silu_grad %a, %b : tensor<4x33x{d}>\n"
           "  return %0 : tensor<4x33x{d}>",
           lambda dy, x: vjp(F.silu, [x], dy, [0]), tol=2.0),
    # The backward reads the forward's (rounded) output, as autodiff wires it.
    simple("softmax_grad", [([3, 5, 77], "float"), ([3, 5, 77], "float")],
           [([3, 5, 77], None), ([3, 5, 77], None)],
           "  %y = tfc.softmax %a dim -1 : tensor<3x5x77x{d}>\n"
           "  %0 = tfc.softmax_grad %b, %y dim -1 : tensor<3x5x77x{d}>\n"
           "  %l = tfc.log_softmax %a dim -1 : tensor<3x5x77x{d}>\n"
           "  %1 = tfc.log_softmax_grad %b, %l dim 2 : tensor<3x5x77x{d}>\n"
           "  return %0, %1 : tensor<3x5x77x{d}>, tensor<3x5x77x{d}>",
           lambda z, dy, rnd: softmax_grads_ref(z, dy, -1, rnd), tol=8.0),
    # A non-last dim goes through --tfc-decompose's transposes.
    simple("softmax_grad_dim0", [([6, 4], "float"), ([6, 4], "float")], [([6, 4], None), ([6, 4], None)],
           "  %y = tfc.softmax %a dim 0 : tensor<6x4x{d}>\n"
           "  %0 = tfc.softmax_grad %b, %y dim 0 : tensor<6x4x{d}>\n"
           "  %l = tfc.log_softmax %a dim 0 : tensor<6x4x{d}>\n"
           "  %1 = tfc.log_softmax_grad %b, %l dim -2 : tensor<6x4x{d}>\n"
           "  return %0, %1 : tensor<6x4x{d}>, tensor<6x4x{d}>",
           lambda z, dy, rnd: softmax_grads_ref(z, dy, 0, rnd), tol=8.0),
    simple("layer_norm_grad",
           [([4, 6, 96], "float"), ([96], "float"), ([96], "float"), ([4, 6, 96], "float")],
           [([4, 6, 96], None), ([96], None), ([96], None)],
           "  %y, %m, %r = tfc.layer_norm %a weight %b bias %c : (tensor<4x6x96x{d}>, tensor<96x{d}>, tensor<96x{d}>) -> (tensor<4x6x96x{d}>, tensor<4x6x1x{acc}>, tensor<4x6x1x{acc}>)\n"
           "  %dx, %dw, %db = tfc.layer_norm_grad %d, %a, %m, %r weight %b : (tensor<4x6x96x{d}>, tensor<4x6x96x{d}>, tensor<4x6x1x{acc}>, tensor<4x6x1x{acc}>, tensor<96x{d}>) -> (tensor<4x6x96x{d}>, tensor<96x{d}>, tensor<96x{d}>)\n"
           "  return %dx, %dw, %db : tensor<4x6x96x{d}>, tensor<96x{d}>, tensor<96x{d}>",
           ln_ref, tol=8.0),
    simple("layer_norm_grad_no_weight", [([3, 4, 24], "float"), ([3, 4, 24], "float")], [([3, 4, 24], None)],
           "  %y, %m, %r = tfc.layer_norm %a normalized_rank 2 : (tensor<3x4x24x{d}>) -> (tensor<3x4x24x{d}>, tensor<3x1x1x{acc}>, tensor<3x1x1x{acc}>)\n"
           "  %dx = tfc.layer_norm_grad %b, %a, %m, %r normalized_rank 2 : (tensor<3x4x24x{d}>, tensor<3x4x24x{d}>, tensor<3x1x1x{acc}>, tensor<3x1x1x{acc}>) -> tensor<3x4x24x{d}>\n"
           "  return %dx : tensor<3x4x24x{d}>",
           ln2_ref, tol=8.0),
    simple("rms_norm_grad", [([5, 40], "float"), ([40], "float"), ([5, 40], "float")],
           [([5, 40], None), ([40], None)],
           "  %y, %r = tfc.rms_norm %a weight %b eps 1.0e-06 : (tensor<5x40x{d}>, tensor<40x{d}>) -> (tensor<5x40x{d}>, tensor<5x1x{acc}>)\n"
           "  %dx, %dw = tfc.rms_norm_grad %c, %a, %r weight %b : (tensor<5x40x{d}>, tensor<5x40x{d}>, tensor<5x1x{acc}>, tensor<40x{d}>) -> (tensor<5x40x{d}>, tensor<40x{d}>)\n"
           "  return %dx, %dw : tensor<5x40x{d}>, tensor<40x{d}>",
           lambda x, w, dy: vjp(rms, [x, w], dy, [0, 1]), tol=8.0),
    simple("cross_entropy_grad", [([12, 37], "float"), ([12], "index37")], [([12, 37], None), ([12, 37], None)],
           "  %dl = tfc.constant dense<1.5> : tensor<{acc}>\n"
           "  %0 = tfc.cross_entropy_grad %dl, %a, %b : tensor<{acc}>, tensor<12x37x{d}>, tensor<12xi64> -> tensor<12x37x{d}>\n"
           "  %1 = tfc.cross_entropy_grad %dl, %a, %b ignore_index 3 label_smoothing 1.0e-01 reduction sum : tensor<{acc}>, tensor<12x37x{d}>, tensor<12xi64> -> tensor<12x37x{d}>\n"
           "  return %0, %1 : tensor<12x37x{d}>, tensor<12x37x{d}>",
           lambda x, labels: [ce_ref(x, labels),
                              ce_ref(x, labels, ignore_index=3, label_smoothing=0.1, reduction="sum")],
           gen=_ignore3, tol=4.0),
    simple("embedding_grad", [([4, 9, 16], "float"), ([4, 9], "index50")], [([50, 16], None)],
           "  %0 = tfc.embedding_grad %a, %b : tensor<4x9x16x{d}>, tensor<4x9xi64> -> tensor<50x16x{d}>\n"
           "  return %0 : tensor<50x16x{d}>",
           lambda dy, ids: vjp(lambda t: F.embedding(ids, t), [torch.zeros(50, 16, dtype=dy.dtype)], dy, [0]),
           tol=2.0),
]
