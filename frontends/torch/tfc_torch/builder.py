"""Typed constructors of tfc ops: each computes its result types with the
dialect's rules (numpy broadcasting, reduction and matmul shapes,
accumulation types for statistics and losses) and appends the op to a
function, or collects it into a list a pass splices in.

Every op built while `source` is set records that source frame, so the
printed IR points at the user's line.
"""
from typing import List, Optional, Sequence

import torch

from . import dtypes
from .ir import Function, Op, TensorType, Value


def broadcast_shapes(*shapes: Sequence[int]) -> tuple:
    """numpy/torch broadcasting of shapes; ValueError when incompatible."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        size = 1
        for s in shapes:
            d = s[i - rank + len(s)] if i - rank + len(s) >= 0 else 1
            if d != 1:
                if size not in (1, d):
                    raise ValueError(f"shapes {[tuple(s) for s in shapes]} do not broadcast")
                size = d
        out.append(size)
    return tuple(out)


def _norm_dim(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


class Builder:
    """Appends ops to `fn` (or to `self.collected` when collecting)."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.source = None
        self.hint = "v"
        self.collected: Optional[List[Op]] = None

    def collect(self) -> "Builder":
        """A builder that gathers new ops in `.collected` instead of
        appending them (for rewrites that insert before an anchor)."""
        b = Builder(self.fn)
        b.source, b.hint, b.collected = self.source, self.hint, []
        return b

    def create(self, name: str, operands, attrs, result_types) -> Op:
        for v in operands:
            assert isinstance(v, Value), f"{name}: operand {v!r} is not a Value"
        op = Op(name, operands, attrs, result_types, self.hint, self.source)
        (self.collected if self.collected is not None else self.fn.ops).append(op)
        return op

    # -- constants and conversions -------------------------------------------------

    def splat(self, value, dtype: str, shape=()) -> Value:
        """A constant whose elements all equal `value`."""
        text = f"dense<{dtypes.element_text(value, dtype)}>"
        return self.create("tfc.constant", [], {"value": text, "splat": value},
                           [TensorType(shape, dtype)]).result

    def dense(self, text: str, type: TensorType) -> Value:
        return self.create("tfc.constant", [], {"value": text}, [type]).result

    def convert(self, x: Value, dtype: str) -> Value:
        if x.dtype == dtype:
            return x
        return self.create("tfc.convert", [x], {}, [x.type.with_dtype(dtype)]).result

    def iota(self, shape, dim: int, dtype: str = "i64") -> Value:
        return self.create("tfc.iota", [], {"dim": _norm_dim(dim, len(shape))},
                           [TensorType(shape, dtype)]).result

    # -- elementwise -----------------------------------------------------------------

    def unary(self, name: str, x: Value) -> Value:
        return self.create(f"tfc.{name}", [x], {}, [x.type]).result

    def stop_gradient(self, x: Value) -> Value:
        """x, through which tfc's autodiff passes no gradient (detach)."""
        return self.create("tfc.stop_gradient", [x], {}, [x.type]).result

    def straight_through(self, value: Value, source: Value) -> Value:
        """`value`, whose gradient tfc's autodiff passes to `source` as
        through the identity (an in-place op under no_grad)."""
        assert value.type == source.type, (value.type, source.type)
        return self.create("tfc.straight_through", [value, source], {}, [value.type]).result

    def gelu(self, x: Value, approximate: str = "none") -> Value:
        return self.create("tfc.gelu", [x], {"approximate": approximate}, [x.type]).result

    def gelu_grad(self, dy: Value, x: Value, approximate: str = "none") -> Value:
        """dy * gelu'(x) (tfc.gelu_grad; dy and x of one type)."""
        assert dy.type == x.type, (dy.type, x.type)
        return self.create("tfc.gelu_grad", [dy, x], {"approximate": approximate},
                           [x.type]).result

    def pow(self, x: Value, exponent: float) -> Value:
        return self.create("tfc.pow", [x], {"exponent": float(exponent)}, [x.type]).result

    def binary(self, name: str, a: Value, b: Value) -> Value:
        assert a.dtype == b.dtype, f"tfc.{name} of {a.type} and {b.type}"
        shape = broadcast_shapes(a.shape, b.shape)
        return self.create(f"tfc.{name}", [a, b], {}, [TensorType(shape, a.dtype)]).result

    def add(self, a, b):
        return self.binary("add", a, b)

    def sub(self, a, b):
        return self.binary("sub", a, b)

    def mul(self, a, b):
        return self.binary("mul", a, b)

    def div(self, a, b):
        return self.binary("div", a, b)

    def compare(self, direction: str, a: Value, b: Value) -> Value:
        assert a.dtype == b.dtype, f"tfc.compare of {a.type} and {b.type}"
        shape = broadcast_shapes(a.shape, b.shape)
        return self.create("tfc.compare", [a, b], {"direction": direction},
                           [TensorType(shape, "i1")]).result

    def select(self, cond: Value, on_true: Value, on_false: Value) -> Value:
        assert cond.dtype == "i1" and on_true.dtype == on_false.dtype
        shape = broadcast_shapes(cond.shape, on_true.shape, on_false.shape)
        return self.create("tfc.select", [cond, on_true, on_false], {},
                           [TensorType(shape, on_true.dtype)]).result

    # -- shapes ------------------------------------------------------------------------

    def reshape(self, x: Value, shape) -> Value:
        shape = tuple(shape)
        if x.shape == shape:
            return x
        return self.create("tfc.reshape", [x], {}, [x.type.with_shape(shape)]).result

    def broadcast_to(self, x: Value, shape) -> Value:
        shape = tuple(shape)
        if x.shape == shape:
            return x
        broadcast_shapes(x.shape, shape)
        return self.create("tfc.broadcast_to", [x], {}, [x.type.with_shape(shape)]).result

    def transpose(self, x: Value, perm) -> Value:
        perm = [_norm_dim(p, x.rank) for p in perm]
        if perm == list(range(x.rank)):
            return x
        shape = [x.shape[p] for p in perm]
        return self.create("tfc.transpose", [x], {"permutation": perm},
                           [x.type.with_shape(shape)]).result

    def swap(self, x: Value, d0: int, d1: int) -> Value:
        perm = list(range(x.rank))
        d0, d1 = _norm_dim(d0, x.rank), _norm_dim(d1, x.rank)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return self.transpose(x, perm)

    def slice(self, x: Value, start, limit, step=None) -> Value:
        step = list(step) if step is not None else [1] * x.rank
        if list(start) == [0] * x.rank and list(limit) == list(x.shape) and step == [1] * x.rank:
            return x
        shape = [-(-(l - s) // st) for s, l, st in zip(start, limit, step)]
        return self.create("tfc.slice", [x], {"start": list(start), "limit": list(limit),
                                              "step": step}, [x.type.with_shape(shape)]).result

    def slice_dim(self, x: Value, dim: int, start: int, limit: int, step: int = 1) -> Value:
        dim = _norm_dim(dim, x.rank)
        starts, limits, steps = [0] * x.rank, list(x.shape), [1] * x.rank
        starts[dim], limits[dim], steps[dim] = start, limit, step
        return self.slice(x, starts, limits, steps)

    def concat(self, xs: Sequence[Value], dim: int) -> Value:
        if len(xs) == 1:
            return xs[0]
        dim = _norm_dim(dim, xs[0].rank)
        shape = list(xs[0].shape)
        shape[dim] = sum(x.shape[dim] for x in xs)
        return self.create("tfc.concat", list(xs), {"dim": dim},
                           [xs[0].type.with_shape(shape)]).result

    def pad(self, x: Value, low, high, value: float) -> Value:
        shape = [s + l + h for s, l, h in zip(x.shape, low, high)]
        return self.create("tfc.pad", [x], {"low": list(low), "high": list(high),
                                            "value": float(value)},
                           [x.type.with_shape(shape)]).result

    # -- reductions ----------------------------------------------------------------------

    def reduce(self, name: str, x: Value, dims, keepdim: bool = False) -> Value:
        dims = sorted({_norm_dim(d, x.rank) for d in dims})
        if not dims:
            return x
        shape = [1 if i in dims else s for i, s in enumerate(x.shape) if keepdim or i not in dims]
        return self.create(f"tfc.reduce_{name}", [x], {"dims": dims, "keepdim": keepdim},
                           [x.type.with_shape(shape)]).result

    def sort(self, x: Value, descending: bool = False):
        """(values, i64 indices) of x's rows (last dim) stably sorted, NaN
        last ascending and first descending (tfc.sort, torch's stable sort)."""
        op = self.create("tfc.sort", [x], {"descending": bool(descending)},
                         [x.type, TensorType(x.shape, "i64")])
        return tuple(op.results)

    # -- linear algebra and nn ------------------------------------------------------------

    def matmul(self, a: Value, b: Value, transpose_a=False, transpose_b=False) -> Value:
        assert a.rank >= 2 and b.rank >= 2 and a.dtype == b.dtype, (a.type, b.type)
        m = a.shape[-1] if transpose_a else a.shape[-2]
        n = b.shape[-2] if transpose_b else b.shape[-1]
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        dtype = "f32" if a.dtype in ("f16", "bf16") else a.dtype
        attrs = {"transpose_a": transpose_a, "transpose_b": transpose_b}
        return self.create("tfc.matmul", [a, b], attrs,
                           [TensorType(batch + (m, n), dtype)]).result

    def softmax(self, x: Value, dim: int, log: bool = False) -> Value:
        name = "tfc.log_softmax" if log else "tfc.softmax"
        dim = _norm_dim(dim, x.rank)
        return self.create(name, [x], {"dim": -1 if dim == x.rank - 1 else dim}, [x.type]).result

    def softmax_grad(self, dy: Value, y: Value, dim: int, log: bool = False) -> Value:
        """The backward of softmax (or log_softmax) along `dim` from its
        result y (tfc.softmax_grad / tfc.log_softmax_grad)."""
        assert dy.type == y.type, (dy.type, y.type)
        name = "tfc.log_softmax_grad" if log else "tfc.softmax_grad"
        dim = _norm_dim(dim, y.rank)
        return self.create(name, [dy, y], {"dim": -1 if dim == y.rank - 1 else dim},
                           [y.type]).result

    def layer_norm(self, x: Value, weight: Optional[Value], bias: Optional[Value],
                   normalized_rank: int, eps: float):
        stats = TensorType(x.shape[:x.rank - normalized_rank] + (1,) * normalized_rank,
                           dtypes.accumulation_type(x.dtype))
        operands = [x] + [v for v in (weight, bias) if v is not None]
        op = self.create("tfc.layer_norm", operands,
                         {"has_weight": weight is not None, "has_bias": bias is not None,
                          "normalized_rank": normalized_rank, "eps": float(eps)},
                         [x.type, stats, stats])
        return tuple(op.results)

    def layer_norm_grad(self, dy: Value, x: Value, mean: Value, rstd: Value,
                        weight: Optional[Value], normalized_rank: int):
        """(dx,) or, with a weight, (dx, dweight, dbias) of a layer norm
        from its statistics (tfc.layer_norm_grad)."""
        operands = [dy, x, mean, rstd] + ([weight] if weight is not None else [])
        types = [x.type] + ([weight.type, weight.type] if weight is not None else [])
        op = self.create("tfc.layer_norm_grad", operands,
                         {"has_weight": weight is not None,
                          "normalized_rank": normalized_rank}, types)
        return tuple(op.results)

    def rms_norm(self, x: Value, weight: Optional[Value], normalized_rank: int, eps: float):
        stats = TensorType(x.shape[:x.rank - normalized_rank] + (1,) * normalized_rank,
                           dtypes.accumulation_type(x.dtype))
        operands = [x] + ([weight] if weight is not None else [])
        op = self.create("tfc.rms_norm", operands,
                         {"has_weight": weight is not None, "normalized_rank": normalized_rank,
                          "eps": float(eps)}, [x.type, stats])
        return tuple(op.results)

    def embedding(self, table: Value, ids: Value) -> Value:
        return self.create("tfc.embedding", [table, ids], {},
                           [TensorType(ids.shape + table.shape[1:], table.dtype)]).result

    def embedding_grad(self, rows: Value, ids: Value, count: int) -> Value:
        """A [count, ...] table whose row r sums the rows of `rows` (shape
        ids.shape + row shape) at the positions where ids == r."""
        return self.create("tfc.embedding_grad", [rows, ids], {},
                           [TensorType((count,) + rows.shape[ids.rank:], rows.dtype)]).result

    def cross_entropy(self, logits: Value, labels: Value, ignore_index: int = -100,
                      label_smoothing: float = 0.0, reduction: str = "mean") -> Value:
        return self.create("tfc.cross_entropy", [logits, labels],
                           {"ignore_index": int(ignore_index),
                            "label_smoothing": float(label_smoothing), "reduction": reduction},
                           [TensorType((), dtypes.accumulation_type(logits.dtype))]).result

    def attention(self, q: Value, k: Value, v: Value, causal: bool, scale: Optional[float],
                  dropout: float = 0.0, seed: Optional[Value] = None,
                  offset: Optional[Value] = None, mask: Optional[Value] = None) -> Value:
        operands = [q, k, v] + ([mask] if mask is not None else []) \
            + ([seed, offset] if dropout else [])
        return self.create("tfc.attention", operands,
                           {"causal": causal, "scale": scale, "dropout": float(dropout),
                            "has_mask": mask is not None},
                           [q.type.with_shape(q.shape[:-1] + v.shape[-1:])]).result

    def dropout(self, x: Value, seed: Value, offset: Value, p: float) -> Value:
        return self.create("tfc.dropout", [x, seed, offset], {"p": float(p)}, [x.type]).result

    def random(self, seed: Value, offset: Value, distribution: str, type: TensorType) -> Value:
        """Samples of `distribution` ("uniform" in [0, 1), "normal" N(0, 1))
        of a static float `type`: element i from Philox counter offset + i."""
        assert distribution in ("uniform", "normal"), distribution
        return self.create("tfc.random", [seed, offset], {"distribution": distribution},
                           [type]).result

    # -- frontend-internal ops (see ir.py) ---------------------------------------------

    def frontend(self, name: str, operands, attrs, result_types) -> Op:
        return self.create(f"torch.{name}", operands, attrs, result_types)


def scalar_like(value, dtype: str):
    """A Python scalar as torch would use it with a tensor of `dtype`."""
    return dtypes.round_to(value, dtype) if dtypes.is_float(dtype) else value


def torch_result_type(*operands) -> torch.dtype:
    """torch's type promotion over tensors (given as Values) and scalars."""
    reps = []
    for x in operands:
        if isinstance(x, Value):
            reps.append(torch.empty((1,) * x.rank if x.rank else (), dtype=dtypes.torch_dtype(x.dtype)))
        else:
            reps.append(x)
    if len(reps) == 1:
        r = reps[0]
        return r.dtype if isinstance(r, torch.Tensor) else torch.tensor(r).dtype
    result = torch.result_type(reps[0], reps[1])
    for r in reps[2:]:
        result = torch.promote_types(result, r.dtype if isinstance(r, torch.Tensor) else torch.tensor(r).dtype)
    return result
