"""Reductions over a masked selection's rows (masked.py): sum / mean /
max / min over dims that include dim 0 (the unselected rows replaced by the
reduction's identity first), var / std and logsumexp over them, max(0) /
min(0) with indices and argmax / argmin (positions among the selected
rows), vector norms and prod over them, and losses with a `reduction`, run
per element (reduction none) and then summed or averaged over the selected
rows (nll_loss's mean divides by the selected rows' target weights, as
torch's)."""
import dataclasses
import math

from . import dtypes, masked
from .importer import Masked

# Reductions over dim 0 computed on the selected rows: the tfc reduction
# and the identity that stands in for the unselected rows (the .default
# forms reduce every dim).
ROW_REDUCTIONS = {"aten.sum.dim_IntList": ("sum", 0.0), "aten.sum.default": ("sum", 0.0),
                  "aten.mean.dim": ("mean", 0.0), "aten.mean.default": ("mean", 0.0),
                  "aten.amax.default": ("max", -math.inf), "aten.max.default": ("max", -math.inf),
                  "aten.amin.default": ("min", math.inf), "aten.min.default": ("min", math.inf)}
# Variance and standard deviation (and with the mean) over dims that
# include dim 0: computed over the selected rows (_moments_rows).
ROW_MOMENTS = ("aten.var.correction", "aten.std.correction", "aten.var_mean.correction",
               "aten.std_mean.correction")
# Losses with a `reduction` argument, computed per element on the rows.
_LOSSES = ("aten.mse_loss.default", "aten.l1_loss.default", "aten.smooth_l1_loss.default",
           "aten.huber_loss.default", "aten.binary_cross_entropy.default",
           "aten.binary_cross_entropy_with_logits.default", "aten.soft_margin_loss.default",
           "aten.nll_loss_forward.default", "aten.nll_loss.default",
           "aten.nll_loss2d_forward.default")


def _reduce_rows(ctx, named, first, dims):
    """sum / mean / max / min over dims that include dim 0: the unselected
    rows replaced by the reduction's identity (mean: the sum over the
    number of selected elements)."""
    b = ctx.b
    v = first.values
    if named.get("self") is not first:
        ctx.masked(first)
    kind, identity = ROW_REDUCTIONS[ctx.name]
    dtype = ctx.out().dtype
    if math.isinf(identity) and not dtypes.is_float(v.dtype):
        ctx.masked(first)
    filled = b.select(first.broadcast_rows(b), b.convert(v, dtype), ctx.tensor(identity, dtype))
    keepdim = bool(named.get("keepdim", False))
    if kind == "min":  # -max(-x)
        reduced = b.unary("neg", b.reduce("max", b.unary("neg", filled), dims, keepdim))
    elif kind == "mean":
        reduced = b.div(b.reduce("sum", filled, dims, keepdim),
                        _elements(ctx, first, dims, dtype))
    else:
        reduced = b.reduce(kind, filled, dims, keepdim)
    return b.reshape(reduced, ctx.out().shape)


def _first_extreme_rows(ctx, first, largest):
    """(values, positions) of the largest (smallest) selected element over
    dim 0 of a selection, keepdim: the first row holding it among the
    selected ones (the others filled with -inf), and its position among
    the selected rows (the number of selected rows before it), as torch's
    max(0) / argmax(0) of the selection."""
    from .ops import reduction  # ops import this module
    b = ctx.b
    v = first.values
    if not dtypes.is_float(v.dtype):
        ctx.masked(first)
    key = v if largest else b.unary("neg", v)
    filled = b.select(first.broadcast_rows(b), key, ctx.tensor(float("-inf"), v.dtype))
    index = reduction.first_extreme_index(ctx, filled, 0, "i64")     # [1, rest]
    values = reduction.picked_along(ctx, v, 0, index)
    # Selected rows before each row: the exclusive running count.
    selected = b.convert(first.rows, "i64")
    before = b.sub(reduction.scan_one(ctx, selected, 0, b.add, 0), selected)
    before = b.broadcast_to(b.reshape(before, before.shape + (1,) * (v.rank - 1)), v.shape)
    positions = reduction.picked_along(ctx, before, 0, index)
    return values, positions


def _extreme_rows(ctx, named, first, dims):
    """max(0) / min(0) of a selection: values and indices (_first_extreme_rows;
    the results' shapes say whether dim 0 stays)."""
    b = ctx.b
    values, positions = _first_extreme_rows(ctx, first, ctx.name == "aten.max.dim")
    return (b.reshape(values, ctx.out(0).shape),
            b.reshape(b.convert(positions, ctx.out(1).dtype), ctx.out(1).shape))


def _arg_extreme_rows(ctx, named, first, dims):
    """argmax(0) / argmin(0) of a selection (_first_extreme_rows)."""
    b = ctx.b
    _, positions = _first_extreme_rows(ctx, first, ctx.name == "aten.argmax.default")
    return b.reshape(b.convert(positions, ctx.out().dtype), ctx.out().shape)


def _norm_rows(ctx, named, first, dims):
    """A vector norm over dims including dim 0: |x|^p summed over the
    selected elements (the others 0), then the p-th root; inf / -inf:
    the largest / smallest |x| over them."""
    b = ctx.b
    dtype = ctx.out().dtype
    p = named.get("ord", named.get("p", 2))
    p = 2.0 if p is None else float(p)
    keepdim = bool(named.get("keepdim", False))
    magnitude = b.unary("abs", b.convert(first.values, dtype))
    rows = first.broadcast_rows(b)
    if math.isinf(p):
        if p > 0:
            reduced = b.reduce("max", b.select(rows, magnitude, ctx.tensor(0.0, dtype)),
                               dims, keepdim)
        else:
            reduced = b.unary("neg", b.reduce(
                "max", b.select(rows, b.unary("neg", magnitude),
                                ctx.tensor(float("-inf"), dtype)), dims, keepdim))
    elif p == 0:
        nonzero = b.convert(b.compare("ne", magnitude, ctx.tensor(0.0, dtype)), dtype)
        reduced = b.reduce("sum", b.select(rows, nonzero, ctx.tensor(0.0, dtype)), dims, keepdim)
    else:
        powered = magnitude if p == 1 else b.pow(magnitude, p)
        summed = b.reduce("sum", b.select(rows, powered, ctx.tensor(0.0, dtype)), dims, keepdim)
        reduced = summed if p == 1 else (b.unary("sqrt", summed) if p == 2
                                         else b.pow(summed, 1.0 / p))
    return b.reshape(reduced, ctx.out().shape)


def _prod_rows(ctx, named, first, dims):
    """prod over dim 0 of a selection: the unselected rows as 1 (the
    lowering of prod then runs on the filled rows)."""
    b = ctx.b
    v = first.values
    filled = b.select(first.broadcast_rows(b), v, ctx.tensor(1 if not dtypes.is_float(v.dtype)
                                                             else 1.0, v.dtype))
    from .ops import reduction  # ops import this module
    return reduction.prod(ctx, filled, named.get("dim"), bool(named.get("keepdim", False)),
                          dtype=named.get("dtype"))


# Reductions over dim 0 with their own handling of the unselected rows.
_ROW_EXTRA_REDUCTIONS = {"aten.max.dim": _extreme_rows, "aten.min.dim": _extreme_rows,
                         "aten.argmax.default": _arg_extreme_rows,
                         "aten.argmin.default": _arg_extreme_rows,
                         "aten.linalg_vector_norm.default": _norm_rows,
                         "aten.norm.ScalarOpt_dim": _norm_rows,
                         "aten.prod.dim_int": _prod_rows}


def _elements(ctx, first, dims, dtype):
    """The number of selected elements over `dims` (dim 0 among them)."""
    per_row = math.prod(first.values.shape[d] for d in dims if d != 0)
    return ctx.b.mul(first.count(ctx.b, dtype), ctx.tensor(float(per_row), dtype))


def _moments_rows(ctx, named, first, dims):
    """var / std (and var_mean / std_mean) over dims including dim 0: the
    selected elements' squared deviations from their mean, summed and
    divided by their number minus the correction (torch's default 1)."""
    b = ctx.b
    dtype = ctx.out(0).dtype
    correction = named.get("correction")
    correction = 1.0 if correction is None else float(correction)
    keepdim = bool(named.get("keepdim", False))
    values = b.convert(first.values, dtype)
    zero = ctx.tensor(0.0, dtype)
    count = _elements(ctx, first, dims, dtype)
    mean = b.div(b.reduce("sum", b.select(first.broadcast_rows(b), values, zero), dims, True),
                 count)
    centered = b.sub(values, mean)
    squares = b.select(first.broadcast_rows(b), b.mul(centered, centered), zero)
    var = b.div(b.reduce("sum", squares, dims, keepdim),
                b.sub(count, ctx.tensor(correction, dtype)))
    result = b.unary("sqrt", var) if ctx.name.startswith("aten.std") else var
    result = b.reshape(result, ctx.out(0).shape)
    if ctx.name.endswith("_mean.correction"):
        return result, b.reshape(mean, ctx.out(1).shape)
    return result


def _logsumexp_rows(ctx, named, first, dims):
    """logsumexp over dims including dim 0: the unselected rows -inf (and
    a max of -inf, all rows unselected or -inf, shifted by 0)."""
    b = ctx.b
    dtype = ctx.out().dtype
    ninf = ctx.tensor(float("-inf"), dtype)
    filled = b.select(first.broadcast_rows(b), b.convert(first.values, dtype), ninf)
    peak = b.reduce("max", filled, dims, True)
    shift = b.select(b.compare("eq", peak, ninf), ctx.tensor(0.0, dtype), peak)
    total = b.reduce("sum", b.unary("exp", b.sub(filled, shift)), dims, True)
    result = b.add(b.unary("log", total), shift)
    if not named.get("keepdim", False):
        result = b.reduce("sum", result, dims, False)  # drops the size-1 dims
    return b.reshape(result, ctx.out().shape)


def _reduced_loss(ctx, lowering, named, first):
    """A loss with reduction mean or sum over selections: its per-element
    losses (reduction none) on the rows, summed over the selected rows;
    the mean divides by their count (nll_loss: by the selected rows' target
    weights, the per-row loss of an input of -1s)."""
    b = ctx.b
    name = ctx.name
    for key, value in named.items():
        if key not in ("self", "target", "weight", "pos_weight") and masked.selections(value):
            ctx.masked(first)
    if not (isinstance(named.get("self"), Masked) and isinstance(named.get("target"), Masked)):
        ctx.masked(first)
    reduction = named["reduction"]
    n = first.values.shape[0]
    t_in = first.values.type

    def per_element(inputs):
        saved = ctx.out_types
        elem = t_in if "nll_loss" not in name else \
            dataclasses.replace(saved[0], shape=(n,) + t_in.shape[2:])
        ctx.out_types = [elem] + [saved[i] for i in range(1, len(saved))]
        try:
            out = masked.call_named(ctx, lowering, named, self=inputs, reduction=0)
        finally:
            ctx.out_types = saved
        return out[0] if isinstance(out, (list, tuple)) else out

    losses = per_element(named["self"])
    dtype = ctx.out(0).dtype
    rows = first.broadcast_rows(b, losses.shape)
    zero = ctx.tensor(0.0, dtype)
    total = b.reduce("sum", b.select(rows, b.convert(losses, dtype), zero),
                     list(range(losses.rank)))
    weight_total = None
    if "nll_loss" in name:
        ones = b.broadcast_to(ctx.tensor(-1.0, t_in.dtype), t_in.shape)
        weights = per_element(ones)
        weight_total = b.reduce("sum", b.select(rows, b.convert(weights, dtype), zero),
                                list(range(weights.rank)))
    if reduction == 1:  # mean
        if weight_total is not None:
            result = b.div(total, weight_total)
        else:
            result = b.div(total, _elements(ctx, first.like(losses), range(losses.rank), dtype))
    else:
        result = total
    result = b.reshape(result, ctx.out(0).shape)
    if len(ctx.out_types) > 1:  # nll_loss_forward's total_weight
        tw = weight_total if weight_total is not None else zero
        return result, b.reshape(b.convert(tw, ctx.out(1).dtype), ctx.out(1).shape)
    return result


def over_rows(ctx, lowering, named, first, dims):
    """The reduction of ctx's node over the selected rows (`dims` its dim
    arguments, None for every dim), or None when the node is no reduction
    over dim 0."""
    name = ctx.name
    rank = first.values.rank
    if name in ROW_REDUCTIONS:
        dims = list(range(rank)) if dims is None else dims
        if 0 in dims:
            return _reduce_rows(ctx, named, first, dims)
    if name in ROW_MOMENTS or name == "aten.logsumexp.default":
        dims = list(range(rank)) if dims is None else dims
        if 0 in dims:
            if named.get("self") is not first:
                ctx.masked(first)
            if name == "aten.logsumexp.default":
                return _logsumexp_rows(ctx, named, first, dims)
            return _moments_rows(ctx, named, first, dims)
    if name in _ROW_EXTRA_REDUCTIONS and dims is not None and 0 in dims:
        if named.get("self") is not first:
            ctx.masked(first)
        return _ROW_EXTRA_REDUCTIONS[name](ctx, named, first, dims)
    if name in _LOSSES and named.get("reduction", 1) != 0:
        return _reduced_loss(ctx, lowering, named, first)
    return None
