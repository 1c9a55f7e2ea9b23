"""Forward-op numerics cases: each tfc op as a one-op function, with the
PyTorch computation it must equal. Used by run_numerics.py.

A case is built per dtype: `mlir` is the function text (arguments marked
tfc.input "a", "b", ...; results are the outputs out0, out1, ...), `inputs`
the tensors to feed, `reference` computes the expected outputs in torch.
"""
import math

import torch
import torch.nn.functional as F

import philox

TORCH_DTYPE = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16,
               "i32": torch.int32, "i64": torch.int64}


def ttype(shape, dtype):
    dims = "x".join(str(s) for s in shape)
    return f"tensor<{dims}x{dtype}>" if shape else f"tensor<{dtype}>"


class Case:
    def __init__(self, name, args, results, body, reference, dtypes=("f32", "f64", "bf16"),
                 gen=None, tol=1.0):
        self.name, self.args, self.results, self.body = name, args, results, body
        self.reference, self.dtypes, self.gen, self.tol = reference, dtypes, gen, tol

    def build(self, dtype, g: torch.Generator):
        """Returns (mlir text, {name: tensor}, reference outputs list)."""
        td = TORCH_DTYPE[dtype]
        inputs, sig = {}, []
        for i, (shape, kind) in enumerate(self.args):
            name = chr(ord("a") + i)
            if kind == "float":
                t = torch.randn(shape, generator=g, dtype=torch.float64).to(td)
                ty = ttype(shape, dtype)
            elif kind == "positive":
                t = (torch.rand(shape, generator=g, dtype=torch.float64) + 0.1).to(td)
                ty = ttype(shape, dtype)
            elif kind.startswith("index"):  # index<N>: int64 in [0, N)
                t = torch.randint(0, int(kind[5:]), shape, generator=g, dtype=torch.int64)
                ty = ttype(shape, "i64")
            elif kind in ("seed", "offset"):  # Philox seed / counter offset
                t = torch.tensor(0x1234ABCD5678 if kind == "seed" else 1000 + 7 * i, dtype=torch.int64)
                ty = ttype(shape, "i64")
            elif kind == "int":  # the case's integer dtype, over its whole range
                info = torch.iinfo(td)
                t = torch.randint(info.min, info.max, shape, generator=g, dtype=td)
                t.view(-1)[:4] = torch.tensor([0, -1, info.min, info.max], dtype=td)
                ty = ttype(shape, dtype)
            elif kind == "amount":  # shift amounts in and around [0, bits)
                bits = torch.iinfo(td).bits
                t = torch.randint(-4, bits + 5, shape, generator=g, dtype=td)
                t.view(-1)[:5] = torch.tensor([0, bits - 1, bits, -1, bits + 1], dtype=td)
                ty = ttype(shape, dtype)
            elif kind == "bool":
                t = torch.rand(shape, generator=g) < 0.5
                ty = ttype(shape, "i1")
            elif kind == "f32":
                t = torch.randn(shape, generator=g, dtype=torch.float32)
                ty = ttype(shape, "f32")
            else:
                raise ValueError(kind)
            if self.gen:
                t = self.gen(i, t)
            inputs[name] = t
            sig.append(f"%{name}: {ty} {{tfc.input = \"{name}\"}}")
        acc = "f64" if dtype == "f64" else "f32"
        res_dtypes = [dtype if d is None else (acc if d == "acc" else d) for _, d in self.results]
        res_types = [ttype(s, d) for (s, _), d in zip(self.results, res_dtypes)]
        body = self.body(dtype)
        text = (f"func.func @f({', '.join(sig)}) -> ({', '.join(res_types)}) {{\n"
                f"{body}\n}}\n")
        # References compute in float64 from the (already rounded) inputs and
        # round once to the result dtype, as tfc's kernels do in fp32/f64.
        wide = {k: (v.double() if v.is_floating_point() else v) for k, v in inputs.items()}
        # References that take `rnd` round their intermediates to the dtype,
        # mirroring a decomposition into several kernels (each op rounds its
        # 16-bit result, as PyTorch does per op).
        kwargs = {}
        code = getattr(self.reference, "__code__", None)
        if code is not None and "rnd" in code.co_varnames[:code.co_argcount]:
            kwargs["rnd"] = lambda t: t.to(td).double()
        refs = self.reference(*wide.values(), **kwargs)
        if not isinstance(refs, (list, tuple)):
            refs = [refs]
        outs = []
        for r, d in zip(refs, res_dtypes):
            want = {"i1": torch.bool, "i64": torch.int64, "i32": torch.int32,
                                         "f32": torch.float32, "bf16": torch.bfloat16,
                                         "f64": torch.float64}[d]
            outs.append(r.to(want))
        return text, inputs, outs


def unary(op, fn, kind="float", attrs=""):
    def body(d):
        t = ttype([4, 33], d)
        return f"  %0 = tfc.{op} %a{attrs} : {t}\n  return %0 : {t}"
    return Case(op + attrs.replace(",", "").split(".")[0].replace(" ", "_"), [([4, 33], kind)], [([4, 33], None)], body,
                lambda a: fn(a))


def binary(op, fn, kind="float"):
    def body(d):
        a, b = ttype([4, 1, 33], d), ttype([5, 1], d)
        return f"  %0 = tfc.{op} %a, %b : {a}, {b}\n  return %0 : {ttype([4, 5, 33], d)}"
    return Case(op, [([4, 1, 33], kind), ([5, 1], kind)], [([4, 5, 33], None)], body, fn)


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def simple(name, args, results, text, ref, **kw):
    """A case whose body text uses {d} for the dtype and {T(shape)} helpers."""
    def body(d):
        return text.format(d=d, acc="f64" if d == "f64" else "f32")
    return Case(name, args, results, body, ref, **kw)


def shift_ref(a, k, left):
    """torch >= 2.1's bitwise_left_shift / bitwise_right_shift: outside
    [0, bits) << gives 0 and >> the sign fill."""
    bits = torch.iinfo(a.dtype).bits
    a, k = torch.broadcast_tensors(a, k)
    out = (k < 0) | (k >= bits)
    kk = torch.where(out, torch.zeros_like(k), k)
    if left:
        return torch.where(out, torch.zeros_like(a), a << kk)
    return torch.where(out, a >> (bits - 1), a >> kk)


def dropout_ref(a, b, c):
    p = 0.25
    keep = torch.tensor(philox.dropout_keep(int(b), int(c), a.numel(), p)).reshape(a.shape)
    return torch.where(keep, a / (1 - p), torch.zeros_like(a))


def random_case(dtype):
    """tfc.random uniform and normal of one dtype against philox.py: the
    uniforms exact, the normals within the dtype's tolerance (tfc's log,
    sqrt and cos in f32 / f64)."""
    def ref(b, c):
        return [torch.tensor(philox.random_values(int(b), int(c), 6400, dist, dtype),
                             dtype=torch.float64).reshape(64, 100)
                for dist in ("uniform", "normal")]
    return simple(f"random_{dtype}", [([], "seed"), ([], "offset")],
                  [([64, 100], None), ([64, 100], None)],
                  "  %0 = tfc.random %a, %b uniform : tensor<64x100x{d}>\n"
                  "  %1 = tfc.random %a, %b normal : tensor<64x100x{d}>\n"
                  "  return %0, %1 : tensor<64x100x{d}>, tensor<64x100x{d}>",
                  ref, dtypes=(dtype,))


def _sort_specials(t):
    """NaN, infinities, signed zeros and ties among the values of a row."""
    t = t.clone()
    t[:, ::5] = t[:, ::5].double().mul(2).round().to(t.dtype)  # ties
    t[0, :10] = torch.tensor([float("nan"), 0.0, -0.0, float("inf"), 1.0, float("-inf"),
                              -0.0, float("nan"), 0.0, 1.0], dtype=t.dtype)
    t[2, 9990:] = torch.tensor([-0.0, 0.0] * 5, dtype=t.dtype)
    return t


def _sort_ref(a, b):
    down = torch.sort(a, dim=-1, descending=True, stable=True)
    up = torch.sort(a, dim=-1, stable=True)
    shown = [torch.atan2(torch.nan_to_num(s.values, nan=7.0, posinf=math.inf, neginf=-math.inf),
                         torch.tensor(-1.0, dtype=a.dtype)) for s in (down, up)]
    single = torch.sort(b, dim=-1, stable=True)
    return [down.indices, shown[0], up.indices, shown[1], single.indices, single.values]


def attention_ref(q, k, v, causal, rnd=lambda t: t):
    """scaled_dot_product_attention (torch 2.x semantics, top-left causal
    mask), with `rnd` applied where tfc's decomposition stores a 16-bit
    result: scores and softmax stay fp32 (as fused attention kernels keep
    them), the probabilities are rounded before the second GEMM."""
    s = q @ k.transpose(-1, -2) * (1 / math.sqrt(q.shape[-1]))
    if causal:
        t, n = s.shape[-2], s.shape[-1]
        s = s.masked_fill(~torch.ones(t, n, dtype=torch.bool).tril(), float("-inf"))
    return rnd(rnd(torch.softmax(s, -1)) @ v)


CASES = [
    unary("neg", lambda a: -a), unary("abs", torch.abs), unary("exp", torch.exp),
    unary("log", torch.log, "positive"), unary("sqrt", torch.sqrt, "positive"),
    unary("rsqrt", torch.rsqrt, "positive"), unary("tanh", torch.tanh),
    unary("cos", torch.cos), unary("sin", torch.sin), unary("erf", torch.erf),
    unary("sigmoid", torch.sigmoid), unary("relu", torch.relu), unary("silu", F.silu),
    unary("gelu", F.gelu), unary("gelu", gelu_tanh, attrs=" approximate tanh"),
    unary("pow", lambda a: a ** 3, attrs=", 3.0"),
    binary("add", torch.add), binary("sub", torch.sub), binary("mul", torch.mul),
    binary("div", torch.div, "positive"), binary("maximum", torch.maximum),
    binary("minimum", torch.minimum), binary("atan2", torch.atan2), binary("fmod", torch.fmod),
    simple("compare_select", [([4, 33], "float"), ([33], "float")], [([4, 33], "i1"), ([4, 33], None)],
           "  %m = tfc.compare lt, %a, %b : tensor<4x33x{d}>, tensor<33x{d}>\n"
           "  %s = tfc.select %m, %a, %b : tensor<4x33xi1>, tensor<4x33x{d}>, tensor<33x{d}>\n"
           "  return %m, %s : tensor<4x33xi1>, tensor<4x33x{d}>",
           lambda a, b: [a < b, torch.where(a < b, a, b)]),
    # Two's-complement bits of i32 / i64 over their whole range (0, -1 and
    # the extremes included), broadcast; and, or, xor and not of i1.
    simple("bitwise", [([4, 1, 33], "int"), ([5, 1], "int"), ([4, 33], "bool"), ([33], "bool")],
           [([4, 5, 33], None)] * 3 + [([4, 1, 33], None)] + [([4, 33], "i1")] * 4,
           "  %0 = tfc.bitwise_and %a, %b : tensor<4x1x33x{d}>, tensor<5x1x{d}>\n"
           "  %1 = tfc.bitwise_or %a, %b : tensor<4x1x33x{d}>, tensor<5x1x{d}>\n"
           "  %2 = tfc.bitwise_xor %b, %a : tensor<5x1x{d}>, tensor<4x1x33x{d}>\n"
           "  %3 = tfc.bitwise_not %a : tensor<4x1x33x{d}>\n"
           "  %4 = tfc.bitwise_and %c, %d : tensor<4x33xi1>, tensor<33xi1>\n"
           "  %5 = tfc.bitwise_or %c, %d : tensor<4x33xi1>, tensor<33xi1>\n"
           "  %6 = tfc.bitwise_xor %c, %d : tensor<4x33xi1>, tensor<33xi1>\n"
           "  %7 = tfc.bitwise_not %c : tensor<4x33xi1>\n"
           "  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x5x33x{d}>, tensor<4x5x33x{d}>, "
           "tensor<4x5x33x{d}>, tensor<4x1x33x{d}>, tensor<4x33xi1>, tensor<4x33xi1>, "
           "tensor<4x33xi1>, tensor<4x33xi1>",
           lambda a, b, c, d: [a & b, a | b, b ^ a, ~a, c & d, c | d, c ^ d, ~c],
           dtypes=("i32", "i64")),
    # Shifts at the dtype's width over the whole range, amounts in and out of
    # [0, bits) (broadcast): torch >= 2.1's rule, written out (torch 1.13
    # takes out-of-range amounts modulo the width).
    simple("shifts", [([4, 1, 33], "int"), ([6, 1], "amount")], [([4, 6, 33], None)] * 2,
           "  %0 = tfc.shift_left %a, %b : tensor<4x1x33x{d}>, tensor<6x1x{d}>\n"
           "  %1 = tfc.shift_right %a, %b : tensor<4x1x33x{d}>, tensor<6x1x{d}>\n"
           "  return %0, %1 : tensor<4x6x33x{d}>, tensor<4x6x33x{d}>",
           lambda a, b: [shift_ref(a, b, True), shift_ref(a, b, False)],
           dtypes=("i32", "i64")),
    simple("convert", [([4, 33], "f32")], [([4, 33], None), ([4, 33], "i32")],
           "  %0 = tfc.convert %a : tensor<4x33xf32> -> tensor<4x33x{d}>\n"
           "  %s = tfc.constant dense<4.0> : tensor<f32>\n"
           "  %1 = tfc.mul %a, %s : tensor<4x33xf32>, tensor<f32>\n"
           "  %2 = tfc.convert %1 : tensor<4x33xf32> -> tensor<4x33xi32>\n"
           "  return %0, %2 : tensor<4x33x{d}>, tensor<4x33xi32>",
           lambda a: [a, torch.trunc(a.float() * 4).to(torch.int32)]),
    simple("transpose_reshape", [([2, 3, 4, 5], "float")], [([2, 4, 15], None)],
           "  %0 = tfc.transpose %a, [0, 2, 1, 3] : tensor<2x3x4x5x{d}> -> tensor<2x4x3x5x{d}>\n"
           "  %1 = tfc.reshape %0 : tensor<2x4x3x5x{d}> -> tensor<2x4x15x{d}>\n"
           "  %2 = tfc.exp %1 : tensor<2x4x15x{d}>\n"
           "  return %2 : tensor<2x4x15x{d}>",
           lambda a: torch.exp(a.permute(0, 2, 1, 3).reshape(2, 4, 15))),
    simple("broadcast_slice_concat_pad", [([7], "float"), ([3, 7], "float")], [([5, 9], None)],
           "  %0 = tfc.broadcast_to %a : tensor<7x{d}> -> tensor<2x7x{d}>\n"
           "  %1 = tfc.slice %b [0, 0] to [3, 7] step [2, 1] : tensor<3x7x{d}> -> tensor<2x7x{d}>\n"
           "  %2 = tfc.concat %0, %1 dim 0 : tensor<2x7x{d}>, tensor<2x7x{d}> -> tensor<4x7x{d}>\n"
           "  %3 = tfc.pad %2 low [1, 0] high [0, 2] value 5.0e-01 : tensor<4x7x{d}> -> tensor<5x9x{d}>\n"
           "  return %3 : tensor<5x9x{d}>",
           lambda a, b: F.pad(torch.cat([a.expand(2, 7), b[0:3:2]], 0), (0, 2, 1, 0), value=0.5)),
    simple("iota", [([3, 4], "float")], [([3, 4], None)],
           "  %0 = tfc.iota dim 1 : tensor<3x4x{d}>\n"
           "  %1 = tfc.add %a, %0 : tensor<3x4x{d}>, tensor<3x4x{d}>\n"
           "  return %1 : tensor<3x4x{d}>",
           lambda a: a + torch.arange(4, dtype=a.dtype)),
    simple("reduce_row", [([6, 70], "float")], [([6], None), ([6, 1], None), ([6], None)],
           "  %0 = tfc.reduce_sum %a dims [1] : tensor<6x70x{d}> -> tensor<6x{d}>\n"
           "  %1 = tfc.reduce_mean %a dims [-1] keepdim : tensor<6x70x{d}> -> tensor<6x1x{d}>\n"
           "  %2 = tfc.reduce_max %a dims [1] : tensor<6x70x{d}> -> tensor<6x{d}>\n"
           "  return %0, %1, %2 : tensor<6x{d}>, tensor<6x1x{d}>, tensor<6x{d}>",
           lambda a: [a.sum(1), a.mean(1, keepdim=True), a.amax(1)], tol=4.0),
    simple("reduce_column", [([70, 6], "float")], [([6], None), ([1, 6], None)],
           "  %0 = tfc.reduce_sum %a dims [0] : tensor<70x6x{d}> -> tensor<6x{d}>\n"
           "  %1 = tfc.reduce_max %a dims [0] keepdim : tensor<70x6x{d}> -> tensor<1x6x{d}>\n"
           "  return %0, %1 : tensor<6x{d}>, tensor<1x6x{d}>",
           lambda a: [a.sum(0), a.amax(0, keepdim=True)], tol=4.0),
    simple("matmul", [([3, 8, 16], "float"), ([24, 16], "float"), ([16, 5], "float")],
           [([3, 8, 24], None), ([3, 8, 5], None)],
           "  %0 = tfc.matmul %a, %b transpose_b : tensor<3x8x16x{d}>, tensor<24x16x{d}> -> tensor<3x8x24x{d}>\n"
           "  %1 = tfc.matmul %a, %c : tensor<3x8x16x{d}>, tensor<16x5x{d}> -> tensor<3x8x5x{d}>\n"
           "  return %0, %1 : tensor<3x8x24x{d}>, tensor<3x8x5x{d}>",
           lambda a, b, c: [a @ b.T, a @ c], tol=4.0),
    simple("batched_matmul", [([2, 3, 8, 16], "float"), ([2, 3, 16, 8], "float")], [([2, 3, 16, 16], None)],
           "  %0 = tfc.matmul %a, %b transpose_a transpose_b : tensor<2x3x8x16x{d}>, tensor<2x3x16x8x{d}> -> tensor<2x3x16x16x{d}>\n"
           "  return %0 : tensor<2x3x16x16x{d}>",
           lambda a, b: a.transpose(-1, -2) @ b.transpose(-1, -2), tol=4.0),
    simple("embedding", [([50, 16], "float"), ([4, 9], "index50")], [([4, 9, 16], None)],
           "  %0 = tfc.embedding %a, %b : tensor<50x16x{d}>, tensor<4x9xi64> -> tensor<4x9x16x{d}>\n"
           "  return %0 : tensor<4x9x16x{d}>",
           lambda a, b: F.embedding(b, a)),
    simple("layer_norm", [([4, 6, 96], "float"), ([96], "float"), ([96], "float")],
           [([4, 6, 96], None), ([4, 6, 1], "f32"), ([4, 6, 1], "f32")],
           "  %y, %m, %r = tfc.layer_norm %a weight %b bias %c eps 1.0e-05 : (tensor<4x6x96x{d}>, tensor<96x{d}>, tensor<96x{d}>) -> (tensor<4x6x96x{d}>, tensor<4x6x1xf32>, tensor<4x6x1xf32>)\n"
           "  return %y, %m, %r : tensor<4x6x96x{d}>, tensor<4x6x1xf32>, tensor<4x6x1xf32>",
           lambda a, b, c: [F.layer_norm(a, (96,), b, c, 1e-5), a.mean(-1, keepdim=True),
                            torch.rsqrt(a.var(-1, unbiased=False, keepdim=True) + 1e-5)],
           dtypes=("f32", "bf16"), tol=4.0),
    simple("rms_norm", [([5, 40], "float"), ([40], "float")], [([5, 40], None)],
           "  %y, %r = tfc.rms_norm %a weight %b eps 1.0e-06 : (tensor<5x40x{d}>, tensor<40x{d}>) -> (tensor<5x40x{d}>, tensor<5x1x{acc}>)\n"
           "  return %y : tensor<5x40x{d}>",
           lambda a, b: a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * b, tol=4.0),
    simple("softmax", [([3, 5, 77], "float")], [([3, 5, 77], None), ([3, 5, 77], None)],
           "  %0 = tfc.softmax %a dim -1 : tensor<3x5x77x{d}>\n"
           "  %1 = tfc.log_softmax %a dim 2 : tensor<3x5x77x{d}>\n"
           "  return %0, %1 : tensor<3x5x77x{d}>, tensor<3x5x77x{d}>",
           lambda a: [torch.softmax(a, -1), torch.log_softmax(a, -1)], tol=4.0),
    simple("softmax_dim0", [([6, 4], "float")], [([6, 4], None)],
           "  %0 = tfc.softmax %a dim 0 : tensor<6x4x{d}>\n"
           "  return %0 : tensor<6x4x{d}>",
           lambda a: torch.softmax(a, 0), tol=4.0),
    simple("cross_entropy", [([12, 37], "float"), ([12], "index37")], [([], "acc"), ([], "acc")],
           "  %0 = tfc.cross_entropy %a, %b : tensor<12x37x{d}>, tensor<12xi64> -> tensor<{acc}>\n"
           "  %1 = tfc.cross_entropy %a, %b ignore_index 3 label_smoothing 1.0e-01 reduction sum : tensor<12x37x{d}>, tensor<12xi64> -> tensor<{acc}>\n"
           "  return %0, %1 : tensor<{acc}>, tensor<{acc}>",
           lambda a, b: [F.cross_entropy(a, b), F.cross_entropy(a, b, ignore_index=3, label_smoothing=0.1, reduction="sum")],
           gen=lambda i, t: t if i == 0 else torch.where(torch.arange(12) % 4 == 0, torch.full_like(t, 3), t),
           tol=4.0),
    simple("dropout", [([8, 50], "float"), ([], "seed"), ([], "offset")], [([8, 50], None)],
           "  %0 = tfc.dropout %a, %b, %c p 2.5e-01 : tensor<8x50x{d}>\n"
           "  return %0 : tensor<8x50x{d}>", dropout_ref),
    random_case("f32"), random_case("f64"), random_case("bf16"),
    simple("attention", [([2, 3, 10, 8], "float"), ([2, 3, 12, 8], "float"), ([2, 3, 12, 8], "float")],
           [([2, 3, 10, 8], None), ([2, 3, 10, 8], None)],
           "  %0 = tfc.attention %a, %b, %c : tensor<2x3x10x8x{d}>, tensor<2x3x12x8x{d}>, tensor<2x3x12x8x{d}> -> tensor<2x3x10x8x{d}>\n"
           "  %1 = tfc.attention %a, %b, %c causal : tensor<2x3x10x8x{d}>, tensor<2x3x12x8x{d}>, tensor<2x3x12x8x{d}> -> tensor<2x3x10x8x{d}>\n"
           "  return %0, %1 : tensor<2x3x10x8x{d}>, tensor<2x3x10x8x{d}>",
           lambda a, b, c, rnd: [attention_ref(a, b, c, False, rnd), attention_ref(a, b, c, True, rnd)],
           tol=8.0),
    # Stable sorts of rows of 10000 both ways and rows of 1: indices exact
    # (NaN last ascending and first descending, ties and -0.0/+0.0 in index
    # order), values with NaN as 7 and through atan2(v, -1), which is +-pi
    # for +-0.0 (the sign each zero kept).
    simple("sort", [([3, 10000], "float"), ([4, 1], "float")],
           [([3, 10000], "i64"), ([3, 10000], None), ([3, 10000], "i64"), ([3, 10000], None),
            ([4, 1], "i64"), ([4, 1], None)],
           "  %v, %i = tfc.sort %a descending : tensor<3x10000x{d}> -> tensor<3x10000x{d}>, tensor<3x10000xi64>\n"
           "  %w, %j = tfc.sort %a : tensor<3x10000x{d}> -> tensor<3x10000x{d}>, tensor<3x10000xi64>\n"
           "  %s, %k = tfc.sort %b : tensor<4x1x{d}> -> tensor<4x1x{d}>, tensor<4x1xi64>\n"
           "  %seven = tfc.constant dense<7.0> : tensor<{d}>\n"
           "  %m1 = tfc.constant dense<-1.0> : tensor<{d}>\n"
           "  %vn = tfc.compare ne, %v, %v : tensor<3x10000x{d}>, tensor<3x10000x{d}>\n"
           "  %vs = tfc.select %vn, %seven, %v : tensor<3x10000xi1>, tensor<{d}>, tensor<3x10000x{d}>\n"
           "  %vz = tfc.atan2 %vs, %m1 : tensor<3x10000x{d}>, tensor<{d}>\n"
           "  %wn = tfc.compare ne, %w, %w : tensor<3x10000x{d}>, tensor<3x10000x{d}>\n"
           "  %ws = tfc.select %wn, %seven, %w : tensor<3x10000xi1>, tensor<{d}>, tensor<3x10000x{d}>\n"
           "  %wz = tfc.atan2 %ws, %m1 : tensor<3x10000x{d}>, tensor<{d}>\n"
           "  return %i, %vz, %j, %wz, %k, %s : tensor<3x10000xi64>, tensor<3x10000x{d}>, "
           "tensor<3x10000xi64>, tensor<3x10000x{d}>, tensor<4x1xi64>, tensor<4x1x{d}>",
           lambda a, b: _sort_ref(a, b), gen=lambda i, t: _sort_specials(t) if i == 0 else t),
]

# Backward ops live in their own module; it imports this one's helpers.
import backward_ops  # noqa: E402

CASES += backward_ops.BACKWARD_CASES
