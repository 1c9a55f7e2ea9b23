"""Float64 gradient checks of --tfc-autodiff on the host backend.

For each case: a one-op (or few-op) f64 function whose float inputs are
tfc.param arguments, turned into a scalar loss = sum_i sum(out_i * w_i) with
fixed random weights w_i (tfc.input), so every output element gets its own
cotangent. `tfc-run --grad` computes (loss, gradients); they must equal

  1. torch.autograd's gradients of the same computation in float64
     (rtol 1e-7, atol 1e-9; cases without a torch reference skip this), and
  2. a central difference of tfc's own forward loss along a random
     direction u: (L(x + h u) - L(x - h u)) / 2h == sum_i <grad_i, u_i>
     (h = 1e-5, relative error below 1e-6), which checks each VJP against
     the forward it differentiates, independently of PyTorch.

Usage: gradcheck.py --tfc-run BIN [--case NAME ...] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

import philox
import safetensors_io

H = 1e-5


def ttype(shape):
    return "tensor<" + "".join(f"{s}x" for s in shape) + "f64>"


class Case:
    """`args`: (shape, kind) per input, named a, b, c...; kinds: float,
    positive (params), index<N>, seed, offset, bool (batch inputs).
    `body`: MLIR computing the values named in `outs` ((name, shape) each).
    `ref`: torch function of the inputs returning the outputs, or None.
    `rtol`: tolerance against torch; `fd`: False where the forward rounds
    through f32, which a central difference in f64 cannot resolve."""

    def __init__(self, name, args, outs, body, ref, gen=None, rtol=1e-7, fd=True):
        self.name, self.args, self.outs, self.body = name, args, outs, body
        self.ref, self.gen, self.rtol, self.fd = ref, gen, rtol, fd


def build(case, g):
    sig, inputs, params = [], {}, []
    for i, (shape, kind) in enumerate(case.args):
        name = chr(ord("a") + i)
        if kind in ("float", "positive"):
            t = torch.randn(shape, generator=g, dtype=torch.float64)
            if kind == "positive":
                t = torch.rand(shape, generator=g, dtype=torch.float64) + 0.5
            sig.append(f"%{name}: {ttype(shape)} {{tfc.param = \"{name}\"}}")
            params.append(name)
        elif kind.startswith("index"):
            t = torch.randint(0, int(kind[5:]), shape, generator=g, dtype=torch.int64)
            sig.append(f"%{name}: tensor<{''.join(f'{s}x' for s in shape)}i64> {{tfc.input = \"{name}\"}}")
        elif kind in ("seed", "offset"):
            t = torch.tensor(0x5EED1234 if kind == "seed" else 77, dtype=torch.int64)
            sig.append(f"%{name}: tensor<i64> {{tfc.input = \"{name}\"}}")
        elif kind == "bool":
            t = torch.rand(shape, generator=g) < 0.5
            sig.append(f"%{name}: tensor<{''.join(f'{s}x' for s in shape)}i1> {{tfc.input = \"{name}\"}}")
        else:
            raise ValueError(kind)
        if case.gen:
            t = case.gen(i, t)
        inputs[name] = t
    lines, terms = [case.body], []
    for j, (value, shape) in enumerate(case.outs):
        w = f"w{j}"
        inputs[w] = torch.randn(shape, generator=g, dtype=torch.float64)
        sig.append(f"%{w}: {ttype(shape)} {{tfc.input = \"{w}\"}}")
        lines.append(f"  %__m{j} = tfc.mul %{value}, %{w} : {ttype(shape)}, {ttype(shape)}")
        if shape:
            dims = ", ".join(str(d) for d in range(len(shape)))
            lines.append(f"  %__s{j} = tfc.reduce_sum %__m{j} dims [{dims}] : {ttype(shape)} -> tensor<f64>")
        else:
            lines.append(f"  %__s{j} = tfc.add %__m{j}, %__m{j} : tensor<f64>, tensor<f64>")
            lines.append(f"  %__h{j} = tfc.constant dense<0.5> : tensor<f64>")
            lines.append(f"  %__t{j} = tfc.mul %__s{j}, %__h{j} : tensor<f64>, tensor<f64>")
            terms.append(f"%__t{j}")
            continue
        terms.append(f"%__s{j}")
    total = terms[0]
    for j, term in enumerate(terms[1:]):
        lines.append(f"  %__l{j} = tfc.add {total}, {term} : tensor<f64>, tensor<f64>")
        total = f"%__l{j}"
    lines.append(f"  return {total} : tensor<f64>")
    text = f"func.func @loss({', '.join(sig)}) -> tensor<f64> {{\n" + "\n".join(lines) + "\n}\n"
    return text, inputs, params


def run_tfc(tfc_run, model, inputs, workdir, tag, grad):
    feed = os.path.join(workdir, f"{tag}-in.safetensors")
    out = os.path.join(workdir, f"{tag}-out.safetensors")
    safetensors_io.save(inputs, feed)
    cmd = [tfc_run, model, "--inputs", feed, "--outputs", out, "--device", "host", "--quiet"]
    if grad:
        cmd.append("--grad")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tfc-run failed: {proc.stderr.strip()[-2000:]}")
    return safetensors_io.load(out)


def check(tfc_run, case, seed, workdir):
    g = torch.Generator().manual_seed(seed)
    text, inputs, params = build(case, g)
    model = os.path.join(workdir, f"{case.name}.mlir")
    with open(model, "w") as f:
        f.write(text)
    got = run_tfc(tfc_run, model, inputs, workdir, case.name, grad=True)
    grads = {p: got[f"grad.{p}"] for p in params}
    errors = []
    if case.ref is not None:
        leaves = {k: (v.clone().requires_grad_(True) if k in params else v)
                  for k, v in inputs.items()}
        outs = case.ref(*[leaves[chr(ord("a") + i)] for i in range(len(case.args))])
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        loss = sum((o * leaves[f"w{j}"]).sum() for j, o in enumerate(outs))
        want = torch.autograd.grad(loss, [leaves[p] for p in params], allow_unused=True)
        try:
            torch.testing.assert_close(got["loss"], loss.detach(), rtol=max(1e-9, case.rtol), atol=1e-9)
        except AssertionError as e:
            errors.append(f"loss: {e}")
        for p, w in zip(params, want):
            w = torch.zeros_like(inputs[p]) if w is None else w
            try:
                torch.testing.assert_close(grads[p], w, rtol=case.rtol, atol=1e-9)
            except AssertionError as e:
                errors.append(f"d{p} vs torch.autograd: {e}")
    if not case.fd:
        return errors
    # Central difference of tfc's own forward along a random direction.
    u = {p: torch.randn(inputs[p].shape, generator=g, dtype=torch.float64) for p in params}
    plus = {**inputs, **{p: inputs[p] + H * u[p] for p in params}}
    minus = {**inputs, **{p: inputs[p] - H * u[p] for p in params}}
    lp = run_tfc(tfc_run, model, plus, workdir, case.name + "-p", grad=False)["loss"].item()
    lm = run_tfc(tfc_run, model, minus, workdir, case.name + "-m", grad=False)["loss"].item()
    fd = (lp - lm) / (2 * H)
    an = sum((grads[p] * u[p]).sum().item() for p in params)
    if abs(fd - an) > 1e-6 * max(1.0, abs(an)):
        errors.append(f"central difference {fd:.10g} != analytic {an:.10g}")
    return errors


def unary(op, fn, kind="float", attrs="", name=None, gen=None):
    t = ttype([4, 7])
    return Case(name or op, [([4, 7], kind)], [("y", [4, 7])],
                f"  %y = tfc.{op} %a{attrs} : {t}", fn, gen=gen)


def binary(op, fn, kind="float", gen=None):
    a, b = ttype([4, 1, 6]), ttype([5, 1])
    return Case(op, [([4, 1, 6], "float"), ([5, 1], kind)], [("y", [4, 5, 6])],
                f"  %y = tfc.{op} %a, %b : {a}, {b}", fn, gen=gen)


def _spread(i, t):
    """The input's values replaced, in their order, by distinct points 0.3
    apart and at least 0.15 off zero (a second operand's shifted 0.05 off
    the first's): no kink (abs and relu at 0, ties of maximum, minimum and
    a max reduction) lies within a central difference's step (1e-5 times
    a normal direction), where the difference is meaningless, and a tie's
    split gradient never meets a one-sided difference."""
    ranks = t.flatten().argsort().argsort().double()
    return ((ranks - t.numel() / 2 + 0.5) * 0.3 + 0.05 * i).view(t.shape)


def _fmod_operands(i, t):
    """fmod jumps where a / b crosses an integer, and a central difference
    across a jump is meaningless (a random draw put one within 1e-5 of it:
    3631 vs -148). Divisors +-1, +-2, +-4 and dividends m + 0.3 keep every
    |a / b| at least 0.075 from an integer, far beyond the difference's
    reach (|a| u / b^2 * 1e-5)."""
    if i == 0:
        return torch.round(3 * t) + 0.3
    return torch.where(t < 0, -1.0, 1.0).double() * 2.0 ** (t.abs() * 2).floor().clamp(max=2)


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def sdpa(q, k, v, causal, mask=None):
    """torch 2.x's scaled_dot_product_attention (not in torch 1.13): an i1
    mask keeps scores where true, a float one is added."""
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        t, n = s.shape[-2], s.shape[-1]
        s = s.masked_fill(~torch.ones(t, n, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None and mask.dtype == torch.bool:
        s = s.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        s = s + mask
    return torch.softmax(s, -1) @ v


def dropout_ref(a, seed, offset):
    keep = torch.tensor(philox.dropout_keep(int(seed), int(offset), a.numel(), 0.25)).reshape(a.shape)
    return torch.where(keep, a / 0.75, torch.zeros_like(a))


def ce_labels(i, t):
    # Every fourth label is the ignore_index 3 of the second loss.
    return t if i == 0 else torch.where(torch.arange(t.numel()) % 4 == 0, torch.full_like(t, 3), t)


T = ttype
CASES = [
    unary("neg", lambda a: -a), unary("abs", torch.abs, gen=_spread), unary("exp", torch.exp),
    unary("log", torch.log, "positive"), unary("sqrt", torch.sqrt, "positive"),
    unary("rsqrt", torch.rsqrt, "positive"), unary("tanh", torch.tanh),
    unary("cos", torch.cos), unary("sin", torch.sin), unary("erf", torch.erf),
    unary("sigmoid", torch.sigmoid), unary("relu", torch.relu, gen=_spread), unary("silu", F.silu),
    unary("gelu", F.gelu), unary("gelu", gelu_tanh, attrs=" approximate tanh", name="gelu_tanh"),
    unary("pow", lambda a: a ** 3, attrs=", 3.0"),
    binary("add", torch.add), binary("sub", torch.sub), binary("mul", torch.mul),
    binary("div", torch.div, "positive"), binary("maximum", torch.maximum, gen=_spread),
    binary("minimum", torch.minimum, gen=_spread), binary("atan2", torch.atan2),
    binary("fmod", torch.fmod, gen=_fmod_operands),
    Case("select", [([4, 6], "bool"), ([4, 6], "float"), ([6], "float")], [("y", [4, 6])],
         f"  %y = tfc.select %a, %b, %c : tensor<4x6xi1>, {T([4, 6])}, {T([6])}",
         lambda a, b, c: torch.where(a, b, c)),
    Case("convert", [([4, 6], "float")], [("y", [4, 6])],
         f"  %h = tfc.convert %a : {T([4, 6])} -> tensor<4x6xf32>\n"
         f"  %e = tfc.exp %h : tensor<4x6xf32>\n"
         f"  %y = tfc.convert %e : tensor<4x6xf32> -> {T([4, 6])}",
         lambda a: torch.exp(a.float()).double(), rtol=1e-6, fd=False),
    Case("reshape_transpose", [([2, 3, 4], "float")], [("y", [4, 6])],
         f"  %t = tfc.transpose %a, [2, 0, 1] : {T([2, 3, 4])} -> {T([4, 2, 3])}\n"
         f"  %y = tfc.reshape %t : {T([4, 2, 3])} -> {T([4, 6])}",
         lambda a: a.permute(2, 0, 1).reshape(4, 6)),
    Case("broadcast_to", [([3, 1], "float")], [("y", [2, 3, 5])],
         f"  %y = tfc.broadcast_to %a : {T([3, 1])} -> {T([2, 3, 5])}",
         lambda a: a.expand(2, 3, 5)),
    Case("slice", [([7, 9], "float")], [("y", [2, 3]), ("z", [3, 9])],
         f"  %y = tfc.slice %a [1, 2] to [5, 9] step [2, 3] : {T([7, 9])} -> {T([2, 3])}\n"
         f"  %z = tfc.slice %a [4, 0] to [7, 9] : {T([7, 9])} -> {T([3, 9])}",
         lambda a: [a[1:5:2, 2:9:3], a[4:7]]),
    Case("concat", [([2, 3], "float"), ([2, 4], "float")], [("y", [2, 7])],
         f"  %y = tfc.concat %a, %b dim 1 : {T([2, 3])}, {T([2, 4])} -> {T([2, 7])}",
         lambda a, b: torch.cat([a, b], 1)),
    Case("pad", [([3, 4], "float")], [("y", [5, 5])],
         f"  %y = tfc.pad %a low [1, 0] high [1, 1] value 2.0 : {T([3, 4])} -> {T([5, 5])}",
         lambda a: F.pad(a, (0, 1, 1, 1), value=2.0)),
    Case("reduce_sum", [([3, 4, 5], "float")], [("y", [4]), ("z", [3, 4, 1])],
         f"  %y = tfc.reduce_sum %a dims [0, 2] : {T([3, 4, 5])} -> {T([4])}\n"
         f"  %z = tfc.reduce_sum %a dims [-1] keepdim : {T([3, 4, 5])} -> {T([3, 4, 1])}",
         lambda a: [a.sum((0, 2)), a.sum(-1, keepdim=True)]),
    Case("reduce_mean", [([3, 4, 5], "float")], [("y", [3, 1, 5])],
         f"  %y = tfc.reduce_mean %a dims [1] keepdim : {T([3, 4, 5])} -> {T([3, 1, 5])}",
         lambda a: a.mean(1, keepdim=True)),
    Case("reduce_max", [([3, 8], "float")], [("y", [3]), ("z", [8])],
         f"  %y = tfc.reduce_max %a dims [1] : {T([3, 8])} -> {T([3])}\n"
         f"  %z = tfc.reduce_max %a dims [0] : {T([3, 8])} -> {T([8])}",
         lambda a: [a.amax(1), a.amax(0)], gen=_spread),
    Case("matmul_linear", [([2, 3, 5], "float"), ([4, 5], "float"), ([5, 6], "float")],
         [("y", [2, 3, 4]), ("z", [2, 3, 6])],
         f"  %y = tfc.matmul %a, %b transpose_b : {T([2, 3, 5])}, {T([4, 5])} -> {T([2, 3, 4])}\n"
         f"  %z = tfc.matmul %a, %c : {T([2, 3, 5])}, {T([5, 6])} -> {T([2, 3, 6])}",
         lambda a, b, c: [a @ b.T, a @ c]),
    Case("matmul_transposed", [([2, 5, 3], "float"), ([2, 4, 5], "float")], [("y", [2, 3, 4])],
         f"  %y = tfc.matmul %a, %b transpose_a transpose_b : {T([2, 5, 3])}, {T([2, 4, 5])} -> {T([2, 3, 4])}",
         lambda a, b: a.transpose(-1, -2) @ b.transpose(-1, -2)),
    Case("matmul_broadcast", [([2, 1, 4, 5], "float"), ([3, 5, 6], "float"), ([6, 4], "float")],
         [("y", [2, 3, 4, 6]), ("z", [3, 4, 5])],
         f"  %y = tfc.matmul %a, %b : {T([2, 1, 4, 5])}, {T([3, 5, 6])} -> {T([2, 3, 4, 6])}\n"
         f"  %z = tfc.matmul %c, %b transpose_a transpose_b : {T([6, 4])}, {T([3, 5, 6])} -> {T([3, 4, 5])}",
         lambda a, b, c: [a @ b, c.T @ b.transpose(-1, -2)]),
    Case("embedding", [([10, 4], "float"), ([3, 5], "index10")], [("y", [3, 5, 4])],
         f"  %y = tfc.embedding %a, %b : {T([10, 4])}, tensor<3x5xi64> -> {T([3, 5, 4])}",
         lambda a, b: F.embedding(b, a)),
    Case("layer_norm", [([3, 4, 8], "float"), ([8], "float"), ([8], "float")], [("y", [3, 4, 8])],
         f"  %y, %m, %r = tfc.layer_norm %a weight %b bias %c : ({T([3, 4, 8])}, {T([8])}, {T([8])}) -> ({T([3, 4, 8])}, {T([3, 4, 1])}, {T([3, 4, 1])})",
         lambda a, b, c: F.layer_norm(a, (8,), b, c, 1e-5)),
    Case("layer_norm_bias_only", [([5, 8], "float"), ([8], "float")], [("y", [5, 8])],
         f"  %y, %m, %r = tfc.layer_norm %a bias %b eps 1.0e-3 : ({T([5, 8])}, {T([8])}) -> ({T([5, 8])}, {T([5, 1])}, {T([5, 1])})",
         lambda a, b: F.layer_norm(a, (8,), None, b, 1e-3)),
    Case("layer_norm_rank2", [([3, 2, 6], "float")], [("y", [3, 2, 6])],
         f"  %y, %m, %r = tfc.layer_norm %a normalized_rank 2 : ({T([3, 2, 6])}) -> ({T([3, 2, 6])}, {T([3, 1, 1])}, {T([3, 1, 1])})",
         lambda a: F.layer_norm(a, (2, 6), None, None, 1e-5)),
    Case("rms_norm", [([5, 8], "float"), ([8], "float")], [("y", [5, 8])],
         f"  %y, %r = tfc.rms_norm %a weight %b eps 1.0e-6 : ({T([5, 8])}, {T([8])}) -> ({T([5, 8])}, {T([5, 1])})",
         lambda a, b: a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * b),
    Case("softmax", [([3, 4, 9], "float")], [("y", [3, 4, 9]), ("z", [3, 4, 9])],
         f"  %y = tfc.softmax %a dim -1 : {T([3, 4, 9])}\n"
         f"  %z = tfc.softmax %a dim 1 : {T([3, 4, 9])}",
         lambda a: [torch.softmax(a, -1), torch.softmax(a, 1)]),
    Case("log_softmax", [([3, 9], "float")], [("y", [3, 9])],
         f"  %y = tfc.log_softmax %a dim -1 : {T([3, 9])}",
         lambda a: torch.log_softmax(a, -1)),
    Case("cross_entropy", [([12, 7], "float"), ([12], "index7")], [("y", []), ("z", [])],
         f"  %y = tfc.cross_entropy %a, %b : {T([12, 7])}, tensor<12xi64> -> tensor<f64>\n"
         f"  %z = tfc.cross_entropy %a, %b ignore_index 3 label_smoothing 1.0e-01 reduction sum : {T([12, 7])}, tensor<12xi64> -> tensor<f64>",
         lambda a, b: [F.cross_entropy(a, b),
                       F.cross_entropy(a, b, ignore_index=3, label_smoothing=0.1, reduction="sum")],
         gen=ce_labels),
    Case("dropout", [([6, 10], "float"), ([], "seed"), ([], "offset")], [("y", [6, 10])],
         f"  %y = tfc.dropout %a, %b, %c p 2.5e-01 : {T([6, 10])}", dropout_ref),
    Case("attention", [([2, 2, 5, 4], "float"), ([2, 2, 6, 4], "float"), ([2, 2, 6, 3], "float")],
         [("y", [2, 2, 5, 3]), ("z", [2, 2, 5, 3])],
         f"  %y = tfc.attention %a, %b, %c : {T([2, 2, 5, 4])}, {T([2, 2, 6, 4])}, {T([2, 2, 6, 3])} -> {T([2, 2, 5, 3])}\n"
         f"  %z = tfc.attention %a, %b, %c causal scale 0.3 : {T([2, 2, 5, 4])}, {T([2, 2, 6, 4])}, {T([2, 2, 6, 3])} -> {T([2, 2, 5, 3])}",
         lambda a, b, c: [sdpa(a, b, c, False), sdpa(a * math.sqrt(4) * 0.3, b, c, True)]),
    # attn_mask: an additive [2, 1, 6] mask (a parameter: its gradient is
    # the scores' gradient summed over heads and queries) with causal, and an
    # i1 padding mask [2, 1, 1, 6] (key 0 always visible, so no row is empty).
    Case("attention_mask", [([2, 2, 5, 4], "float"), ([2, 2, 6, 4], "float"), ([2, 2, 6, 3], "float"),
                            ([2, 1, 6], "float"), ([2, 1, 1, 6], "bool")],
         [("y", [2, 2, 5, 3]), ("z", [2, 2, 5, 3])],
         f"  %y = tfc.attention %a, %b, %c causal mask %d : {T([2, 2, 5, 4])}, {T([2, 2, 6, 4])}, {T([2, 2, 6, 3])}, {T([2, 1, 6])} -> {T([2, 2, 5, 3])}\n"
         f"  %z = tfc.attention %a, %b, %c mask %e : {T([2, 2, 5, 4])}, {T([2, 2, 6, 4])}, {T([2, 2, 6, 3])}, tensor<2x1x1x6xi1> -> {T([2, 2, 5, 3])}",
         lambda a, b, c, d, e: [sdpa(a, b, c, True, mask=d), sdpa(a, b, c, False, mask=e)],
         gen=lambda i, t: torch.cat([torch.ones_like(t[..., :1]), t[..., 1:]], -1) if i == 4 else t),
    Case("attention_dropout", [([1, 2, 4, 4], "float"), ([1, 2, 4, 4], "float"), ([1, 2, 4, 4], "float"),
                               ([], "seed"), ([], "offset")],
         [("y", [1, 2, 4, 4])],
         f"  %y = tfc.attention %a, %b, %c causal dropout 2.0e-01 seed %d offset %e : {T([1, 2, 4, 4])}, {T([1, 2, 4, 4])}, {T([1, 2, 4, 4])} -> {T([1, 2, 4, 4])}",
         None),
    # The backward ops differentiated again (TfcGradVjps.cpp: a gradient
    # taken inside a forward), against torch's double backward of aten's
    # backward ops. y of softmax_grad / log_softmax_grad is any tensor: the
    # formulas hold for any y, not only for a forward's result.
    Case("gelu_grad", [([4, 7], "float"), ([4, 7], "float")], [("y", [4, 7]), ("z", [4, 7])],
         f"  %y = tfc.gelu_grad %a, %b : {T([4, 7])}\n"
         f"  %z = tfc.gelu_grad %a, %b approximate tanh : {T([4, 7])}",
         lambda a, b: [torch.ops.aten.gelu_backward(a, b),
                       torch.ops.aten.gelu_backward(a, b, approximate="tanh")]),
    Case("silu_grad", [([4, 7], "float"), ([4, 7], "float")], [("y", [4, 7])],
         f"  %y = tfc.silu_grad %a, %b : {T([4, 7])}",
         # torch 1.13 has no double backward of silu_backward: its formula.
         lambda a, b: a * torch.sigmoid(b) * (1 + b * (1 - torch.sigmoid(b)))),
    Case("softmax_grad", [([3, 4, 9], "float"), ([3, 4, 9], "float")],
         [("y", [3, 4, 9]), ("z", [3, 4, 9])],
         f"  %y = tfc.softmax_grad %a, %b dim -1 : {T([3, 4, 9])}\n"
         f"  %z = tfc.softmax_grad %a, %b dim 1 : {T([3, 4, 9])}",
         lambda a, b: [torch.ops.aten._softmax_backward_data(a, b, -1, torch.float64),
                       torch.ops.aten._softmax_backward_data(a, b, 1, torch.float64)]),
    Case("log_softmax_grad", [([3, 9], "float"), ([3, 9], "float")], [("y", [3, 9])],
         f"  %y = tfc.log_softmax_grad %a, %b dim 0 : {T([3, 9])}",
         lambda a, b: torch.ops.aten._log_softmax_backward_data(a, b, 0, torch.float64)),
    # Statistics read by a derivative taken inside the forward carry
    # gradients too: d mean / dx = 1 / N, d rstd / dx = -rstd^3 (x - mean) / N.
    Case("layer_norm_statistics", [([3, 2, 6], "float"), ([2, 6], "float")],
         [("y", [3, 2, 6]), ("m", [3, 1, 1]), ("r", [3, 1, 1])],
         f"  %y, %m, %r = tfc.layer_norm %a weight %b normalized_rank 2 : ({T([3, 2, 6])}, {T([2, 6])}) -> ({T([3, 2, 6])}, {T([3, 1, 1])}, {T([3, 1, 1])})",
         lambda a, b: [F.layer_norm(a, (2, 6), b, None, 1e-5), a.mean((1, 2), keepdim=True),
                       (a.var((1, 2), unbiased=False, keepdim=True) + 1e-5).rsqrt()]),
    Case("rms_norm_statistics", [([5, 8], "float")], [("y", [5, 8]), ("r", [5, 1])],
         f"  %y, %r = tfc.rms_norm %a eps 1.0e-6 : ({T([5, 8])}) -> ({T([5, 8])}, {T([5, 1])})",
         lambda a: [a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6),
                    torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6)]),
    # layer_norm_grad of a layer_norm's statistics, as functorch records
    # native_layer_norm_backward, against torch's double backward.
    Case("layer_norm_grad", [([3, 4, 8], "float"), ([8], "float"), ([8], "float"),
                             ([3, 4, 8], "float")],
         [("y", [3, 4, 8]), ("dx", [3, 4, 8]), ("dw", [8]), ("db", [8])],
         f"  %y, %m, %r = tfc.layer_norm %a weight %b bias %c : ({T([3, 4, 8])}, {T([8])}, {T([8])}) -> ({T([3, 4, 8])}, {T([3, 4, 1])}, {T([3, 4, 1])})\n"
         f"  %dx, %dw, %db = tfc.layer_norm_grad %d, %a, %m, %r weight %b : ({T([3, 4, 8])}, {T([3, 4, 8])}, {T([3, 4, 1])}, {T([3, 4, 1])}, {T([8])}) -> ({T([3, 4, 8])}, {T([8])}, {T([8])})",
         lambda a, b, c, d: [
             F.layer_norm(a, (8,), b, c, 1e-5),
             *torch.ops.aten.native_layer_norm_backward(
                 d, a, [8], *torch.ops.aten.native_layer_norm(a, [8], b, c, 1e-5)[1:], b, c,
                 [True, True, True])]),
    # Its partial derivatives alone: mean and rstd free parameters (rstd
    # positive), no weight, two normalized dims; central differences only
    # (torch's double backward has none for mean and rstd).
    Case("layer_norm_grad_partials", [([3, 2, 6], "float"), ([3, 2, 6], "float"),
                                      ([3, 1, 1], "float"), ([3, 1, 1], "positive")],
         [("dx", [3, 2, 6])],
         f"  %dx = tfc.layer_norm_grad %a, %b, %c, %d normalized_rank 2 : ({T([3, 2, 6])}, {T([3, 2, 6])}, {T([3, 1, 1])}, {T([3, 1, 1])}) -> {T([3, 2, 6])}",
         None),
    Case("embedding_grad", [([3, 5, 4], "float"), ([3, 5], "index10")], [("y", [10, 4])],
         f"  %y = tfc.embedding_grad %a, %b : {T([3, 5, 4])}, tensor<3x5xi64> -> {T([10, 4])}",
         lambda a, b: torch.zeros(10, 4, dtype=torch.float64).index_add(
             0, b.flatten(), a.reshape(-1, 4))),
    Case("tied_weight", [([6, 4], "float"), ([3], "index6")], [("y", [3, 6])],
         f"  %e = tfc.embedding %a, %b : {T([6, 4])}, tensor<3xi64> -> {T([3, 4])}\n"
         f"  %y = tfc.matmul %e, %a transpose_b : {T([3, 4])}, {T([6, 4])} -> {T([3, 6])}",
         lambda a, b: F.embedding(b, a) @ a.T),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"gradcheck seed {seed} (rerun with --seed {seed})")
    cases = [c for c in CASES if not args.case or c.name in args.case]
    if not cases:
        print(f"no case named {args.case}", file=sys.stderr)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tfc-gradcheck-") as workdir:
        for case in cases:
            try:
                errors = check(args.tfc_run, case, seed, workdir)
            except RuntimeError as e:
                errors = [str(e)]
            print(("ok   " if not errors else "FAIL ") + case.name +
                  "".join(f"\n     {e}" for e in errors))
            failures += bool(errors)
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
