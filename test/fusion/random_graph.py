"""Seeded random training graphs in the tfc dialect, for differential testing
of kernel fusion (test/fusion/fuzz_fusion.py).

`generate(seed)` returns a `@loss` function: parameters and inputs with
broadcasting-compatible shapes of odd sizes (1, 3, 127, 1000, ...), a random
forward graph over most of the dialect's ops (elementwise math, compare and
select, converts between f32/f64/bf16, constants and iota, views and data
movement, row and column reductions, norms, softmax, dropout, random
noise, embedding, matmul, cross-entropy) and a scalar f32 loss, so that --tfc-autodiff adds
the backward graph. The same seed always gives the same text.

Values stay finite by construction where it is cheap (logs and roots of
positive values, divisions by values >= 1, exps of tanh-bounded values);
NaNs are compared as equal anyway.

usage: random_graph.py SEED   (prints the graph)
"""
import random
import sys

FLOATS = ("f32", "f64", "bf16")
BYTES = {"f32": 4, "f64": 8, "bf16": 2, "f16": 2, "i1": 1, "i32": 4, "i64": 8}
# Sizes the kernels must get right: 1 (broadcast and degenerate rows), odd
# primes (no vector path), 127 and 1000 (partial warps, rows of a warp),
# 2500 (a block per row, held in registers) and 20000 (a block per row
# re-read in chunks loaded ahead: the schedule's unroll).
SIZES = (1, 1, 2, 3, 3, 4, 5, 7, 8, 16, 127, 1000, 2500, 20000)
MAX_ELEMENTS = 1 << 16


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Value:
    def __init__(self, name, shape, dtype, grad=True):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype
        # Whether a gradient may flow through it (integer values, masks and
        # layer_norm statistics have none).
        self.grad = grad

    @property
    def type(self):
        return ttype(self.shape, self.dtype)


class Graph:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.args = []      # (Value, attribute)
        self.lines = []
        self.count = 0
        self.values = []    # float values of the forward, candidates for ops
        self.int_range = 1 << 30  # ids and labels are drawn in [0, int_range)
        self.dtype = self.rng.choice(FLOATS)
        self.ops = []       # names of the ops used, for the summary

    # -- plumbing -------------------------------------------------------------

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def emit(self, text, shape, dtype, op, grad=True):
        name = self.fresh()
        self.lines.append(f"  {name} = {text}")
        self.ops.append(op)
        return Value(name, shape, dtype, grad)

    def arg(self, shape, dtype, kind):
        name = f"%a{len(self.args)}"
        v = Value(name, shape, dtype, grad=(kind == "param"))
        attr = f'{{tfc.{kind} = "{kind[0]}{len(self.args)}"}}'
        self.args.append((v, attr))
        return v

    def shape(self, rank=None, limit=MAX_ELEMENTS):
        rank = rank if rank is not None else self.rng.choice((1, 2, 2, 3, 3, 4))
        while True:
            s = tuple(self.rng.choice(SIZES) for _ in range(rank))
            if numel(s) <= limit:
                return s

    def pick(self, pred=lambda v: True):
        choices = [v for v in self.values if pred(v)]
        if not choices:
            return None
        # Prefer recent values: deeper chains, more fusion.
        weights = [1 + i for i in range(len(choices))]
        return self.rng.choices(choices, weights)[0]

    def const(self, value, dtype, shape=()):
        text = f"tfc.constant dense<{value}> : {ttype(shape, dtype)}"
        return self.emit(text, shape, dtype, "constant", grad=False)

    # -- shapes ---------------------------------------------------------------

    def broadcast_operand_shape(self, shape):
        """A shape that broadcasts numpy-style to `shape`."""
        r = self.rng.random()
        if r < 0.25 or not shape:
            return shape
        if r < 0.4:
            return ()
        k = self.rng.randint(0, len(shape))
        suffix = list(shape[k:])
        for i in range(len(suffix)):
            if self.rng.random() < 0.3:
                suffix[i] = 1
        return tuple(suffix)

    # -- ops ------------------------------------------------------------------

    def positive(self, x):
        """x * x + 1 (>= 1): a safe argument of log, sqrt, rsqrt, div."""
        sq = self.emit(f"tfc.mul {x.name}, {x.name} : {x.type}, {x.type}",
                       x.shape, x.dtype, "mul", x.grad)
        one = self.const("1.0", x.dtype)
        return self.emit(f"tfc.add {sq.name}, {one.name} : {sq.type}, {one.type}",
                         x.shape, x.dtype, "add", x.grad)

    def unary(self, x):
        op = self.rng.choice(("neg", "abs", "exp", "log", "sqrt", "rsqrt", "cos",
                              "sin", "tanh", "sigmoid", "relu", "silu", "gelu",
                              "gelu_tanh", "pow"))
        if op in ("log", "sqrt", "rsqrt"):
            x = self.positive(x)
        if op == "exp":
            x = self.emit(f"tfc.tanh {x.name} : {x.type}", x.shape, x.dtype,
                          "tanh", x.grad)
        if op == "gelu_tanh":
            return self.emit(f"tfc.gelu {x.name} approximate tanh : {x.type}",
                             x.shape, x.dtype, "gelu", x.grad)
        if op == "pow":
            e = self.rng.choice(("2.0", "3.0", "0.5", "-1.0", "1.5", "-0.5"))
            if e in ("0.5", "-1.0", "1.5", "-0.5"):
                x = self.positive(x)
            return self.emit(f"tfc.pow {x.name}, {e} : {x.type}", x.shape,
                             x.dtype, "pow", x.grad)
        return self.emit(f"tfc.{op} {x.name} : {x.type}", x.shape, x.dtype, op,
                         x.grad)

    def operand_like(self, x, shape):
        """A float value of `shape` and x's dtype: an existing one, a new
        parameter or input, or a constant."""
        same = self.pick(lambda v: v.shape == shape and v.dtype == x.dtype
                         and v is not x)
        r = self.rng.random()
        if same is not None and r < 0.4:
            return same
        if r < 0.8:
            return self.arg(shape, x.dtype, self.rng.choice(("param", "input")))
        return self.const(self.rng.choice(("0.5", "-2.0", "3.0")), x.dtype, shape)

    def binary(self, x):
        op = self.rng.choice(("add", "sub", "mul", "div", "maximum", "minimum"))
        other = self.operand_like(x, self.broadcast_operand_shape(x.shape))
        if op == "div":
            other = self.positive(other)
        a, b = (x, other) if self.rng.random() < 0.7 else (other, x)
        out = a.shape if len(a.shape) >= len(b.shape) else b.shape
        out = tuple(max(p, q) for p, q in zip((1,) * (len(out) - len(a.shape)) + a.shape,
                                             (1,) * (len(out) - len(b.shape)) + b.shape))
        return self.emit(f"tfc.{op} {a.name}, {b.name} : {a.type}, {b.type}",
                         out, x.dtype, op, a.grad or b.grad)

    def select(self, x):
        other = self.operand_like(x, self.broadcast_operand_shape(x.shape))
        direction = self.rng.choice(("eq", "ne", "lt", "le", "gt", "ge"))
        if self.rng.random() < 0.5 and x.shape:
            # A mask from iota (causal-mask style), of x's last dims.
            mshape = x.shape[-2:]
            i = self.emit(f"tfc.iota dim {len(mshape) - 1} : {ttype(mshape, 'i32')}",
                          mshape, "i32", "iota", False)
            j = self.emit(f"tfc.iota dim 0 : {i.type}", i.shape, "i32", "iota", False)
            m = self.emit(f"tfc.compare {direction}, {i.name}, {j.name} : {i.type}, {j.type}",
                          i.shape, "i1", "compare", False)
        else:
            m = self.emit(f"tfc.compare {direction}, {x.name}, {other.name} : {x.type}, {other.type}",
                          x.shape, "i1", "compare", False)
        fill = self.const(self.rng.choice(("0.0", "-1.0e+04", "2.5")), x.dtype)
        t, f = (x, fill) if self.rng.random() < 0.5 else (x, other)
        return self.emit(f"tfc.select {m.name}, {t.name}, {f.name} : {m.type}, {t.type}, {f.type}",
                         x.shape, x.dtype, "select", True)

    def convert(self, x):
        to = self.rng.choice([d for d in FLOATS if d != x.dtype])
        y = self.emit(f"tfc.convert {x.name} : {x.type} -> {ttype(x.shape, to)}",
                      x.shape, to, "convert", x.grad)
        if self.rng.random() < 0.6:  # and back, so the graph keeps its dtype
            y = self.emit(f"tfc.convert {y.name} : {y.type} -> {x.type}",
                          x.shape, x.dtype, "convert", x.grad)
        return y

    def iota_float(self, x):
        if not x.shape:
            return self.unary(x)
        d = self.rng.randrange(len(x.shape))
        i = self.emit(f"tfc.iota dim {d} : {ttype(x.shape, 'i32')}", x.shape, "i32",
                      "iota", False)
        f = self.emit(f"tfc.convert {i.name} : {i.type} -> {ttype(x.shape, x.dtype)}",
                      x.shape, x.dtype, "convert", False)
        return self.emit(f"tfc.mul {x.name}, {f.name} : {x.type}, {f.type}",
                         x.shape, x.dtype, "mul", x.grad)

    def reshape(self, x):
        n = numel(x.shape)
        options = [(n,), (1, n)]
        if len(x.shape) >= 2:
            options.append(x.shape[:-2] + (x.shape[-2] * x.shape[-1],))
            options.append((numel(x.shape[:-1]), x.shape[-1]))
        if x.shape:
            options.append(x.shape + (1,))
            options.append((1,) + x.shape)
        shape = self.rng.choice(options)
        return self.emit(f"tfc.reshape {x.name} : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "reshape", x.grad)

    def transpose(self, x):
        if len(x.shape) < 2:
            return self.reshape(x)
        perm = list(range(len(x.shape)))
        self.rng.shuffle(perm)
        shape = tuple(x.shape[p] for p in perm)
        return self.emit(f"tfc.transpose {x.name}, [{', '.join(map(str, perm))}] : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "transpose", x.grad)

    def slice(self, x):
        if not x.shape:
            return self.unary(x)
        start, limit, step = [], [], []
        for d in x.shape:
            a = self.rng.randint(0, d - 1)
            b = self.rng.randint(a + 1, d)
            s = self.rng.choice((1, 1, 2, 3))
            start.append(a), limit.append(b), step.append(s)
        shape = tuple((b - a + s - 1) // s for a, b, s in zip(start, limit, step))
        steps = "" if all(s == 1 for s in step) else f" step [{', '.join(map(str, step))}]"
        return self.emit(f"tfc.slice {x.name} [{', '.join(map(str, start))}] to [{', '.join(map(str, limit))}]{steps} : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "slice", x.grad)

    def concat(self, x):
        if not x.shape or numel(x.shape) * 2 > MAX_ELEMENTS:
            return self.unary(x)
        d = self.rng.randrange(len(x.shape))
        other = list(x.shape)
        other[d] = self.rng.choice((1, 2, 3))
        o = self.operand_like(x, tuple(other))
        shape = list(x.shape)
        shape[d] += other[d]
        return self.emit(f"tfc.concat {x.name}, {o.name} dim {d} : {x.type}, {o.type} -> {ttype(shape, x.dtype)}",
                         tuple(shape), x.dtype, "concat", True)

    def pad(self, x):
        if not x.shape or numel(x.shape) * 4 > MAX_ELEMENTS:
            return self.unary(x)
        low = [self.rng.choice((0, 0, 1, 2)) for _ in x.shape]
        high = [self.rng.choice((0, 0, 1, 3)) for _ in x.shape]
        shape = tuple(d + a + b for d, a, b in zip(x.shape, low, high))
        value = self.rng.choice(("0.000000e+00", "-1.500000e+00"))
        return self.emit(f"tfc.pad {x.name} low [{', '.join(map(str, low))}] high [{', '.join(map(str, high))}] value {value} : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "pad", x.grad)

    def broadcast_to(self, x):
        lead = self.rng.choice((1, 2, 3))
        if numel(x.shape) * lead > MAX_ELEMENTS:
            return self.unary(x)
        shape = (lead,) + tuple(x.shape)
        return self.emit(f"tfc.broadcast_to {x.name} : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "broadcast_to", x.grad)

    def reduce(self, x):
        if not x.shape:
            return self.unary(x)
        op = self.rng.choice(("reduce_sum", "reduce_sum", "reduce_mean", "reduce_max"))
        rank = len(x.shape)
        kind = self.rng.random()
        if kind < 0.45:
            dims = [rank - 1]                                  # a row reduction
        elif kind < 0.8 and rank >= 2:
            dims = list(range(self.rng.randint(1, rank - 1)))  # a column reduction
        else:
            dims = sorted(self.rng.sample(range(rank), self.rng.randint(1, rank)))
        keep = self.rng.random() < 0.5
        shape = tuple((1 if d in dims else s) for d, s in enumerate(x.shape) if keep or d not in dims)
        kd = " keepdim" if keep else ""
        return self.emit(f"tfc.{op} {x.name} dims [{', '.join(map(str, dims))}]{kd} : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, op, x.grad)

    def norm(self, x):
        if not x.shape:
            return self.unary(x)
        rank = 2 if len(x.shape) >= 2 and self.rng.random() < 0.25 else 1
        wshape = x.shape[-rank:]
        stats = x.shape[:-rank] + (1,) * rank
        st = "f32" if x.dtype == "bf16" else x.dtype
        nr = f" normalized_rank {rank}" if rank != 1 else ""
        if self.rng.random() < 0.5:
            w = self.arg(wshape, x.dtype, "param") if self.rng.random() < 0.8 else None
            b = self.arg(wshape, x.dtype, "param") if w is not None and self.rng.random() < 0.7 else None
            operands = [x] + ([w] if w else []) + ([b] if b else [])
            text = f"tfc.layer_norm {x.name}" + (f" weight {w.name}" if w else "") + \
                (f" bias {b.name}" if b else "") + nr
            types = ", ".join(v.type for v in operands)
            y, m, r = self.fresh(), self.fresh(), self.fresh()
            self.lines.append(f"  {y}, {m}, {r} = {text} : ({types}) -> ({x.type}, {ttype(stats, st)}, {ttype(stats, st)})")
            self.ops.append("layer_norm")
            return Value(y, x.shape, x.dtype)
        w = self.arg(wshape, x.dtype, "param") if self.rng.random() < 0.7 else None
        text = f"tfc.rms_norm {x.name}" + (f" weight {w.name}" if w else "") + nr
        types = ", ".join(v.type for v in ([x] + ([w] if w else [])))
        y, r = self.fresh(), self.fresh()
        self.lines.append(f"  {y}, {r} = {text} : ({types}) -> ({x.type}, {ttype(stats, st)})")
        self.ops.append("rms_norm")
        return Value(y, x.shape, x.dtype)

    def softmax(self, x):
        if not x.shape:
            return self.unary(x)
        op = self.rng.choice(("softmax", "log_softmax"))
        dim = -1 if self.rng.random() < 0.75 else self.rng.randrange(len(x.shape))
        return self.emit(f"tfc.{op} {x.name} dim {dim} : {x.type}", x.shape, x.dtype,
                         op, x.grad)

    def dropout(self, x):
        seed = self.arg((), "i64", "input")
        offset = self.arg((), "i64", "input")
        p = self.rng.choice(("1.000000e-01", "5.000000e-01", "0.000000e+00"))
        return self.emit(f"tfc.dropout {x.name}, {seed.name}, {offset.name} p {p} : {x.type}",
                         x.shape, x.dtype, "dropout", x.grad)

    def noise(self, x):
        """x plus or times random numbers of its shape and type (diffusion's
        noise, a VAE's eps): tfc.random, keyed by inputs as dropout is."""
        seed = self.arg((), "i64", "input")
        offset = self.arg((), "i64", "input")
        dist = self.rng.choice(("uniform", "normal"))
        r = self.emit(f"tfc.random {seed.name}, {offset.name} {dist} : {x.type}",
                      x.shape, x.dtype, "random", False)
        op = self.rng.choice(("add", "mul"))
        return self.emit(f"tfc.{op} {x.name}, {r.name} : {x.type}, {r.type}",
                         x.shape, x.dtype, op, x.grad)

    def embedding(self, x):
        vocab = self.rng.choice((3, 7, 16, 127))
        width = self.rng.choice((1, 3, 8, 16))
        ids_shape = self.shape(self.rng.choice((1, 2)), limit=MAX_ELEMENTS // (width * 2))
        table = self.arg((vocab, width), x.dtype, "param")
        ids = self.arg(ids_shape, self.rng.choice(("i32", "i64")), "input")
        self.int_range = min(self.int_range, vocab)
        shape = ids_shape + (width,)
        return self.emit(f"tfc.embedding {table.name}, {ids.name} : {table.type}, {ids.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "embedding")

    def matmul(self, x):
        if len(x.shape) < 1:
            return self.unary(x)
        k = x.shape[-1]
        n = self.rng.choice((1, 3, 8, 16))
        lhs = x if len(x.shape) >= 2 else self.reshape_to(x, (1, k))
        out = lhs.shape[:-1] + (n,)
        if numel(out) > MAX_ELEMENTS:
            return self.unary(x)
        if self.rng.random() < 0.5:
            w = self.arg((n, k), x.dtype, "param")
            tb = " transpose_b"
        else:
            w = self.arg((k, n), x.dtype, "param")
            tb = ""
        return self.emit(f"tfc.matmul {lhs.name}, {w.name}{tb} : {lhs.type}, {w.type} -> {ttype(out, x.dtype)}",
                         out, x.dtype, "matmul", True)

    def linear(self, x):
        """A linear layer: a matmul, usually plus a bias row, often then a
        ReLU or GELU's tanh form (forward and, through autodiff, backward):
        what --tfc-fuse makes a GEMM epilogue, with the GELU input stored
        when the backward reads it."""
        y = self.matmul(x)
        if self.ops[-1] != "matmul":
            return y
        if self.rng.random() < 0.7:
            bias = self.arg(y.shape[-1:], y.dtype, "param")
            a, b = (y, bias) if self.rng.random() < 0.8 else (bias, y)
            y = self.emit(f"tfc.add {a.name}, {b.name} : {a.type}, {b.type}",
                          y.shape, y.dtype, "add", True)
        activation = self.rng.random()
        if activation < 0.45:
            y = self.emit(f"tfc.gelu {y.name} approximate tanh : {y.type}",
                          y.shape, y.dtype, "gelu", True)
        elif activation < 0.75:
            y = self.emit(f"tfc.relu {y.name} : {y.type}",
                          y.shape, y.dtype, "relu", True)
        return y

    def reshape_to(self, x, shape):
        return self.emit(f"tfc.reshape {x.name} : {x.type} -> {ttype(shape, x.dtype)}",
                         shape, x.dtype, "reshape", x.grad)

    # -- the graph ------------------------------------------------------------

    def step(self):
        x = self.pick(lambda v: v.dtype in FLOATS)
        rules = [(self.unary, 6), (self.binary, 8), (self.select, 2), (self.convert, 1),
                 (self.iota_float, 1), (self.reshape, 2), (self.transpose, 2),
                 (self.slice, 2), (self.concat, 1), (self.pad, 1), (self.broadcast_to, 1),
                 (self.reduce, 4), (self.norm, 3), (self.softmax, 3), (self.dropout, 1),
                 (self.noise, 1), (self.embedding, 1), (self.matmul, 2), (self.linear, 2)]
        rule = self.rng.choices([r for r, _ in rules], [w for _, w in rules])[0]
        y = rule(x)
        if y.dtype in FLOATS:
            self.values.append(y)

    def loss(self):
        """Sums a few values (all dims, so a row and a column reduction),
        plus a cross-entropy of one of them when it is 2-D: one scalar."""
        terms = []
        grads = [v for v in self.values if v.grad]
        chosen = self.rng.sample(grads, min(len(grads), self.rng.randint(1, 3)))
        for v in chosen:
            if v.dtype != "f32":
                v = self.emit(f"tfc.convert {v.name} : {v.type} -> {ttype(v.shape, 'f32')}",
                              v.shape, "f32", "convert")
            if v.shape:
                dims = ", ".join(str(d) for d in range(len(v.shape)))
                op = self.rng.choice(("reduce_sum", "reduce_mean"))
                v = self.emit(f"tfc.{op} {v.name} dims [{dims}] : {v.type} -> tensor<f32>",
                              (), "f32", op)
            terms.append(v)
        two_d = [v for v in self.values if v.grad and len(v.shape) == 2 and v.shape[1] >= 2]
        if two_d and self.rng.random() < 0.5:
            logits = self.rng.choice(two_d)
            classes = logits.shape[1]
            labels = self.arg((logits.shape[0],), "i64", "input")
            self.int_range = min(self.int_range, classes)
            smoothing = self.rng.choice(("", "", " label_smoothing 1.000000e-01"))
            red = self.rng.choice(("", " reduction sum"))
            ce_type = "tensor<f32>" if logits.dtype != "f64" else "tensor<f64>"
            ce = self.emit(f"tfc.cross_entropy {logits.name}, {labels.name}{smoothing}{red} : {logits.type}, {labels.type} -> {ce_type}",
                           (), "f32" if logits.dtype != "f64" else "f64", "cross_entropy")
            if ce.dtype != "f32":
                ce = self.emit(f"tfc.convert {ce.name} : {ce.type} -> tensor<f32>", (), "f32",
                               "convert")
            terms.append(ce)
        total = terms[0]
        for t in terms[1:]:
            total = self.emit(f"tfc.add {total.name}, {t.name} : tensor<f32>, tensor<f32>",
                              (), "f32", "add")
        return total

    def build(self):
        x = self.arg(self.shape(), self.dtype, "param")
        self.values.append(x)
        if self.rng.random() < 0.5:
            self.values.append(self.arg(self.shape(), self.dtype, "input"))
        for _ in range(self.rng.randint(4, 24)):
            self.step()
        loss = self.loss()
        if self.int_range == 1 << 30:
            self.int_range = 2
        args = ",\n    ".join(f"{v.name}: {v.type} {attr}" for v, attr in self.args)
        header = (f"// random graph, seed {self.seed}, dtype {self.dtype}, "
                  f"int-range {self.int_range}\n"
                  f"func.func @loss(\n    {args}) -> tensor<f32> {{")
        return "\n".join([header] + self.lines + [f"  return {loss.name} : tensor<f32>", "}", ""])


def generate(seed):
    """(mlir text, int_range) of the graph of `seed`."""
    g = Graph(seed)
    text = g.build()
    return text, g.int_range


if __name__ == "__main__":
    text, _ = generate(int(sys.argv[1]))
    sys.stdout.write(text)
