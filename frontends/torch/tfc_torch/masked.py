"""Masked selections flowing through the ops that keep their rows apart.

x[mask] (a boolean mask over x's leading dims), x.masked_select(mask) and
the coordinates of nonzero / argwhere / torch.where(mask) have a number of
rows k that depends on the data. The import keeps such a selection as
importer.Masked: all N candidate rows (`values`, the mask's dims flattened
into dim 0) and which of them are selected (`rows`, N booleans). The traced
selection's dim 0 (k rows) and the full values' dim 0 (N rows) are the same
dim, so every other dim and every dim argument means the same in both.

An op that treats dim 0 as a batch dim, computing each output row from the
same row of its masked operands only, gives on the N rows the selected
rows' results and some results for the unselected rows, which nothing
reads: its lowering runs unchanged on the full values and its results are
selections under the same rows. This module decides which ops do
(`lower`):

- elementwise ops (the lowerings of ops/elementwise.py, transcendental.py, power.py,
  activation.py, special.py, rounding.py), their other operands broadcasting along dim 0;
- ops whose dim arguments do not name dim 0 (softmax, log_softmax, select,
  slice, cat, transpose, unsqueeze, the reductions over other dims, ...),
  permute keeping dim 0 first, views that keep each row a row, and views
  that merge the rows with the dims after them (each row's flag repeated)
  or split such merged rows back;
- per-row ops of the masked operand: linear, mm / addmm / matmul / bmm on
  its rows, layer_norm over the trailing dims, convolution (dim 0 is its
  batch), embedding of selected ids, x[ids] / x[i, :, j] / index_select by
  selected ids (x[None, ids] too, a Behind that a view dropping the dim of
  1 reads: HF Mixtral's x[None, top_x].reshape(-1, d));
- writes at selected ids into a plain tensor (scatter_rows: index_add /
  scatter_add with the unselected rows' values zeroed; index_put, as
  x[i, labels[i]] = v or x[i] += v, with their writes sent to a scratch
  slice cut off after);
- reductions over the selected rows and losses with a `reduction`
  (masked_reductions.py).

The lowerings that take selections themselves (ops/indexing.py's index_put:
x[mask] = f(y[mask]); masked_select of a selection; gather by selected
ids) are marked with registry.takes_masked. Operands selected by different
masks, and any other op, are refused with the DataDependentError of
Context.masked. selection_sizes.py keeps the trace from reading k as a
number.
"""
import dataclasses
import math
import sys
from typing import List, Optional

import torch

from . import dtypes, masked_reductions
from .importer import Masked, Missing
from .ir import Value
from .ops.common import index_ids, norm_dim

# Ops whose named dim arguments must not name dim 0 (then each row stays a
# row). A reduction that names dim 0 is handled by _reduce_rows when it is
# one of _ROW_REDUCTIONS.
_DIM_ARGS = {
    "aten._softmax.default": ("dim",), "aten._log_softmax.default": ("dim",),
    "aten.softmax.int": ("dim",), "aten.log_softmax.int": ("dim",),
    "aten.select.int": ("dim",), "aten.slice.Tensor": ("dim",),
    "aten.transpose.int": ("dim0", "dim1"), "aten.squeeze.dim": ("dim",),
    "aten.squeeze.dims": ("dim",), "aten.cat.default": ("dim",),
    "aten.split.Tensor": ("dim",), "aten.split_with_sizes.default": ("dim",),
    "aten.unbind.int": ("dim",), "aten.chunk.default": ("dim",),
    "aten.cumsum.default": ("dim",), "aten.cumprod.default": ("dim",),
    "aten.logcumsumexp.default": ("dim",), "aten.flip.default": ("dims",),
    "aten.roll.default": ("dims",), "aten.index_select.default": ("dim",),
    "aten.gather.default": ("dim",), "aten.glu.default": ("dim",),
    "aten.sum.dim_IntList": ("dim",), "aten.mean.dim": ("dim",),
    "aten.amax.default": ("dim",), "aten.amin.default": ("dim",),
    "aten.max.dim": ("dim",), "aten.min.dim": ("dim",),
    "aten.argmax.default": ("dim",), "aten.argmin.default": ("dim",),
    "aten.logsumexp.default": ("dim",), "aten.prod.dim_int": ("dim",),
    "aten.any.dim": ("dim",), "aten.all.dim": ("dim",),
    "aten.var.correction": ("dim",), "aten.std.correction": ("dim",),
    "aten.var_mean.correction": ("dim",), "aten.std_mean.correction": ("dim",),
    "aten.var.dim": ("dim",), "aten.std.dim": ("dim",),
    "aten.topk.default": ("dim",), "aten.sort.default": ("dim",),
    "aten.linalg_vector_norm.default": ("dim",), "aten.norm.ScalarOpt_dim": ("dim",),
    "aten.select_scatter.default": ("dim",), "aten.slice_scatter.default": ("dim",),
}
# Dim arguments that count positions of the result (one more dim).
_NEW_DIM_ARGS = {"aten.unsqueeze.default": ("dim",), "aten.stack.default": ("dim",)}
# Views whose sizes name dim 0's extent (k, or -1): each row stays a row
# when the result has k rows and the same elements per row.
_VIEWS = ("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default",
          "aten._reshape_alias.default", "aten.view_copy.default",
          "aten._reshape_alias_copy.default", "aten.expand.default")
# Views that may also merge the rows with the dims after them, or split
# merged rows again (_regroup_rows).
_RESHAPES = ("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default",
             "aten._reshape_alias.default", "aten.view_copy.default",
             "aten._reshape_alias_copy.default")
# Per-row ops: the arguments that may be selections (the others are
# weights, applied to each row alike).
_ROW_OPS = {
    "aten.mm.default": ("self",), "aten.addmm.default": ("mat1",),
    "aten.linear.default": ("input",), "aten.matmul.default": ("self", "other"),
    "aten.bmm.default": ("self", "mat2"), "aten.embedding.default": ("indices",),
    "aten.convolution.default": ("input",), "aten.native_layer_norm.default": ("input",),
    "aten.layer_norm.default": ("input",), "aten.permute.default": ("self",),
    "aten.repeat.default": ("self",), "aten.nll_loss_forward.default": ("self", "target"),
    "aten.nll_loss.default": ("self", "target"),
    "aten.nll_loss2d_forward.default": ("self", "target"),
    "aten.index_put.default": ("self", "indices", "values"),
}
_ELEMENTWISE_MODULES = ("elementwise", "transcendental", "power", "activation", "special",
                        "rounding")
# Lowerings of those modules that are not elementwise in all their operands.
_NOT_ELEMENTWISE = ("aten.glu.default", "aten.new_zeros.default", "aten.new_ones.default",
                    "aten.new_full.default", "aten.new_empty.default",
                    "aten.isin.Tensor_Tensor", "aten.isin.Scalar_Tensor")


def selections(tree) -> List[Masked]:
    """The Masked values in a node's (nested) arguments."""
    if isinstance(tree, Masked):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [m for t in tree for m in selections(t)]
    if isinstance(tree, dict):
        return [m for t in tree.values() for m in selections(t)]
    return []


def lower(ctx, lowering, args, kwargs):
    """The lowering of ctx's node, one of whose arguments is a selection:
    run on the full rows when the op keeps rows apart (module doc), else
    the DataDependentError of the first selection."""
    found = selections((args, kwargs))
    first = found[0]
    if not all(same_value(m.rows, first.rows) for m in found[1:]):
        ctx.refuse_masked(first, "operands selected by different masks (tfc matches the "
                                 "rows of selections by the same mask only)")
    named = _named(ctx, args, kwargs)
    name = ctx.name
    behind = [m for m in found if isinstance(m, Behind)]
    if behind:
        return _unlead(ctx, named, behind[0])
    columns = [m for m in found if isinstance(m, Columns)]
    if columns:
        return _column_use(ctx, named, columns[0])
    laid = _as_columns(ctx, named, found)
    if laid is not None:
        return laid
    if name == "aten.index.Tensor" and not isinstance(named["self"], Masked):
        lead = _leading_none(named)
        if lead:
            return _index_behind(ctx, lowering, named, lead)
    dims = _dims(ctx, named, first)
    reduced = masked_reductions.over_rows(ctx, lowering, named, first, dims)
    if reduced is not None:
        return reduced
    scattered = scatter_rows(ctx, lowering, args, kwargs)
    if scattered is not None:
        return scattered
    k = _selected_count(ctx, args)
    if name == "aten.slice.Tensor" and dims == [0] and _whole(named):
        return named["self"]  # sel[:, ...]: every row
    if name == "aten.squeeze.default" and named.get("self") is first and k is not None \
            and k != 1 and ctx.out().shape[:1] == (k,):
        # sel.squeeze() (nonzero's [k, 1] ids): the other dims of 1 go, the
        # rows stay (with one row selected torch would drop them too, which
        # no later op of a selection tells apart).
        v = first.values
        return first.like(ctx.b.reshape(v, v.shape[:1] + tuple(d for d in v.shape[1:]
                                                                if d != 1)))
    if name in _RESHAPES and k is not None:
        regrouped = _regroup_rows(ctx, first, k)
        if regrouped is not None:
            return regrouped
    if k is None or not _keeps_rows(ctx, lowering, named, dims, found, k):
        compacted = _compacted_against(ctx, lowering, args, kwargs, named, found, k)
        if compacted is not None:
            return compacted
        ctx.masked(first)
    return _on_rows(ctx, lowering, args, kwargs, first, k)


def _compacted_against(ctx, lowering, args, kwargs, named, found, k):
    """An elementwise op of a selection with a plain tensor of as many rows
    as the example selected (GraphGPS: x + attn(dense)[mask], the mask
    holding exactly x's nodes): the selection compacted to those rows (row
    i of the selection at position i, one scatter of its values) and the
    op run on plain tensors. The selection must hold as many rows as the
    plain tensor on every batch: the result is NaN where it does not
    (never a silently shifted row). None for any other op."""
    module = getattr(lowering, "__module__", "").rsplit(".", 1)[-1]
    rank = max(m.values.rank for m in found)
    plain = [x for x in _tensors(named) if not isinstance(x, Masked)]
    if k is None or k < 2 or module not in _ELEMENTWISE_MODULES or \
            ctx.name in _NOT_ELEMENTWISE or \
            not any(len(_shape(x)) == rank and _shape(x)[0] == k for x in plain):
        return None
    from .ops import reduction  # ops import this module
    from .ops.scatter import _table
    b = ctx.b
    rows = found[0].rows
    taken = b.convert(rows, "i64")
    position = b.sub(reduction.scan_one(ctx, taken, 0, b.add, 0), ctx.tensor(1, "i64"))
    ids = b.select(rows, position, ctx.tensor(k, "i64"))   # the others: a dropped row
    count = b.reduce("sum", taken, [0])

    def compact(m):
        if not isinstance(m, Masked):
            return m
        v = m.values if dtypes.is_float(m.values.dtype) else b.convert(m.values, "f64")
        table = b.slice_dim(_table(ctx, v, ids, k + 1), 0, 0, k)
        guard = b.select(b.compare("eq", count, ctx.tensor(k, "i64")),
                         ctx.tensor(1.0, table.dtype), ctx.tensor(float("nan"), table.dtype))
        table = b.mul(table, guard)
        return table if table.dtype == m.values.dtype else b.convert(table, m.values.dtype)

    def swap(tree):
        if isinstance(tree, Masked):
            return compact(tree)
        if isinstance(tree, (list, tuple)):
            return type(tree)(swap(t) for t in tree)
        if isinstance(tree, dict):
            return {key: swap(t) for key, t in tree.items()}
        return tree
    return lowering(ctx, *swap(list(args)), **swap(dict(kwargs)))


class Behind(Masked):
    """A selection behind `lead` dims of extent 1: x[None, ids] (HF
    Mixtral's expert dispatch, h[None, top_x].reshape(-1, d)) traces as
    (1, k, ...). It holds the selection x[ids] (its rows first, `inner`);
    only a view that drops the leading dims reads it (_unlead), and it
    matches no mask (no source)."""

    def __init__(self, inner: Masked, lead: int):
        super().__init__(inner.values, inner.rows, inner.op)
        self.inner = inner
        self.lead = lead


def _leading_none(named) -> int:
    """The number of whole dims of extent 1 (None) before the first index
    of x[None, ids] (x unsqueezed in front, then indexed behind it)."""
    indices = named["indices"]
    lead = 0
    while lead < len(indices) and indices[lead] is None:
        lead += 1
    if lead == len(indices) or any(s != 1 for s in _shape(named["self"])[:lead]):
        return 0
    return lead


def _index_behind(ctx, lowering, named, lead):
    """x[None, ids] with selected ids: x[ids] of x without its leading dims
    of extent 1 (lowered as such), behind them."""
    x = ctx.tensor(named["self"])
    real_x, real_indices = ctx.real_args[0], ctx.real_args[1]
    saved = ctx.real_args, ctx.out_types
    ctx.real_args = (real_x.reshape(real_x.shape[lead:]), list(real_indices)[lead:])
    ctx.out_types = [dataclasses.replace(t, shape=t.shape[lead:]) for t in saved[1]]
    try:
        inner = lower(ctx, lowering, (ctx.b.reshape(x, x.shape[lead:]),
                                      list(named["indices"])[lead:]), {})
    finally:
        ctx.real_args, ctx.out_types = saved
    return Behind(inner, lead)


def _unlead(ctx, named, sel: Behind):
    """A view of x[None, ids] (a Behind) that drops the leading dims: the
    selection x[ids] viewed (its rows kept, or merged with the dims after
    them); any other use of it is refused."""
    if ctx.name not in _RESHAPES or named.get("self") is not sel:
        ctx.masked(sel)
    src = tuple(ctx.real_args[0].shape)[sel.lead:]
    out = ctx.out().shape
    k = src[0]
    inner = sel.inner
    if out[:1] == (k,) and math.prod(out[1:]) == math.prod(src[1:]):
        return inner.like(ctx.b.reshape(inner.values, inner.values.shape[:1] + tuple(out[1:])))
    regrouped = _regroup_rows(ctx, inner, k, src)
    if regrouped is None:
        ctx.masked(sel)
    return regrouped


class Columns(Masked):
    """A selection laid out along dim 1: sel.t() of a 2-d selection, or
    torch.stack of 1-d selections (PyG's edge_index = adj.nonzero().t(),
    torch.stack(torch.where(adj))). It holds the selection (rows first,
    `inner`); only taking its rows apart reads it (_column_use)."""

    columns = True  # the traced result is [c, k] (importer's type check)

    def __init__(self, inner: Masked):
        super().__init__(inner.values, inner.rows, inner.op)
        self.inner = inner


_TRANSPOSES = ("aten.t.default", "aten.transpose.int", "aten.permute.default",
               "aten.numpy_T.default")


def _swaps_two_dims(ctx, named) -> bool:
    """Whether ctx's op (one of _TRANSPOSES) swaps the two dims of a 2-d
    tensor."""
    if ctx.name == "aten.transpose.int":
        return {norm_dim(int(named["dim0"]), 2), norm_dim(int(named["dim1"]), 2)} == {0, 1}
    if ctx.name == "aten.permute.default":
        return [norm_dim(int(d), 2) for d in named["dims"]] == [1, 0]
    return True


def _as_columns(ctx, named, found):
    """sel.t() of a 2-d selection, or torch.stack(sels) of 1-d ones along
    dim 0: a Columns; None for any other op."""
    b = ctx.b
    if ctx.name in _TRANSPOSES and isinstance(named.get("self"), Masked) \
            and _rank(named["self"]) == 2 and _swaps_two_dims(ctx, named):
        return Columns(named["self"])
    if ctx.name == "aten.stack.default" and norm_dim(int(named.get("dim", 0)), 2) == 0:
        parts = named["tensors"]
        if all(isinstance(t, Masked) and _rank(t) == 1 for t in parts):
            values = b.concat([b.reshape(t.values, t.values.shape + (1,)) for t in parts], 1)
            return Columns(parts[0].like(values))
    return None


def _column_use(ctx, named, sel: Columns):
    """What reads a Columns: its rows taken apart (select / unbind along
    dim 0: `row, col = edge_index`, edge_index[0]), flipped (flip(0)) or
    transposed back; any other use is refused."""
    b = ctx.b
    inner = sel.inner
    width = inner.values.shape[1]

    def column(i):
        v = b.slice_dim(inner.values, 1, i, i + 1)
        return inner.like(b.reshape(v, v.shape[:1]))

    if named.get("self") is sel:
        if ctx.name == "aten.select.int" and norm_dim(int(named["dim"]), 2) == 0:
            return column(norm_dim(int(named["index"]), width))
        if ctx.name == "aten.unbind.int" and norm_dim(int(named.get("dim", 0)), 2) == 0:
            return tuple(column(i) for i in range(width))
        if ctx.name in _TRANSPOSES and _swaps_two_dims(ctx, named):
            return inner
        if ctx.name == "aten.flip.default" and [norm_dim(int(d), 2) for d in named["dims"]] == [0]:
            parts = [b.slice_dim(inner.values, 1, i, i + 1) for i in reversed(range(width))]
            return Columns(inner.like(b.concat(parts, 1)))
    ctx.masked(sel)


# Writes into a plain tensor at selected ids: op -> (its index argument, its
# values argument).
_SCATTERS = {"aten.index_put.default": ("indices", "values"),
             "aten.index_add.default": ("index", "source"),
             "aten.scatter_add.default": ("index", "src")}


def scatter_rows(ctx, lowering, args, kwargs):
    """Writes at selected ids into a tensor that is not a selection:
    x[ids] = v, x[i, j] = v, x[i, :, j] += v (index_put with selected ids
    of one mask, plain index tensors among them, _put_rows), index_add /
    scatter_add along dim 0 (MoE routing: out[i] += expert(x[i]) with i
    from torch.where) at ids and of values that are selections of the same
    rows, those of every row with the unselected rows' values zeroed. None
    when the call is not of that form."""
    if ctx.name not in _SCATTERS:
        return None
    named = _named(ctx, args, kwargs)
    index_key, values_key = _SCATTERS[ctx.name]
    if isinstance(named.get("self"), Masked) or (
            "dim" in named and norm_dim(int(named["dim"]), len(_shape(named["self"]))) != 0):
        return None
    if ctx.name == "aten.index_put.default":
        return _put_rows(ctx, lowering, named)
    ids, values = named[index_key], named[values_key]
    if not (isinstance(ids, Masked) and ids.values.dtype != "i1"):
        return None
    if not all(same_value(m.rows, ids.rows) for m in selections(values)):
        ctx.refuse_masked(ids, "its ids and the values written at them are selected by "
                               "different masks")
    if not isinstance(values, Masked):
        return None  # a plain value written once per row: the row count
    b = ctx.b
    zero = ctx.tensor(0, values.values.dtype)
    named[values_key] = values.like(b.select(values.broadcast_rows(b), values.values, zero))
    return call_named(ctx, lowering, named)


def _put_rows(ctx, lowering, named):
    """index_put into a plain x at indices some of which are selected ids
    of one mask (insightface's margin y[i, labels[i]] = f(y[i, labels[i]])
    with i = torch.where(labels != -1)[0], MoE's out[i] += h, x[i, :, j] =
    v), accumulating or not: the unselected rows' writes (they repeat the
    first selected row's ids and values, and as writes would add to it, or
    take its gradient as duplicates) go to a scratch slice past x's end
    along the first selected index's dim, cut off after. The indices
    broadcast along the rows (plain ones of lower rank or extent 1 there),
    and so do plain values; selected values have their rows first. None
    for boolean selections as indices."""
    indices = list(named["indices"])
    at = [d for d, i in enumerate(indices) if isinstance(i, Masked)]
    if not at or any(indices[d].values.dtype == "i1" for d in at):
        return None
    first = indices[at[0]]
    values = named["values"]
    if not all(same_value(m.rows, first.rows) for m in [indices[d] for d in at]
               + selections(values)):
        ctx.refuse_masked(first, "its ids and the values written at them are selected by "
                                 "different masks")
    x = ctx.tensor(named["self"])
    r = first.values.rank
    present = [d for d, i in enumerate(indices) if i is not None]
    adjacent = present == list(range(present[0], present[-1] + 1))
    rows_at = present[0] if adjacent else 0  # B's dims in x[indices]
    view_rank = x.rank - len(present) + r
    plain = [i for i in indices if i is not None and not isinstance(i, Masked)]
    along = all(indices[d].values.rank == r for d in at) and all(
        len(_shape(i)) < r or _shape(i)[0] == 1 for i in plain)
    if isinstance(values, Masked):
        along = along and rows_at == 0 and values.values.rank == view_rank
    elif _is_tensor(values):
        shape = _shape(values)
        pos = rows_at - (view_rank - len(shape))
        along = along and (pos < 0 or shape[pos] == 1)
    if not along:
        ctx.masked(first)
    b = ctx.b
    d = at[0]
    n = x.shape[d]
    pad = x.shape[:d] + (1,) + x.shape[d + 1:]
    scratch = b.concat([x, b.broadcast_to(ctx.tensor(0, x.dtype), pad)], d)
    ids = index_ids(ctx, first.values, n, wrap_traced=True)
    indices[d] = b.select(first.broadcast_rows(b, ids.shape), ids, ctx.tensor(n, ids.dtype))
    saved = ctx.out_types
    ctx.out_types = [dataclasses.replace(saved[0], shape=scratch.shape)]
    try:
        written = call_named(ctx, lowering, named, self=scratch, indices=indices)
    finally:
        ctx.out_types = saved
    return b.slice(written, [0] * x.rank, x.shape)


def _regroup_rows(ctx, first, k, src=None):
    """A view that merges the rows with the dims after them, (k, d1..dj,
    rest) -> (k * d1..dj, rest) (F.linear of a 3-d selection, a loss over
    tokens of selected sequences): a selection of N * d1..dj rows, each
    row's flag repeated; or that splits such merged rows back. None for
    any other view. `src`: the traced source's shape (its rows first)."""
    b = ctx.b
    src, out = tuple(src or ctx.real_args[0].shape), ctx.out().shape
    v = first.values
    for j in range(1, len(src)):
        if out[0] == math.prod(src[:j + 1]) and out[1:] == src[j + 1:]:
            group = src[1:j + 1]
            n = v.shape[0] * math.prod(group)
            rows = b.broadcast_to(b.reshape(first.rows, (v.shape[0],) + (1,) * len(group)),
                                  (v.shape[0],) + group)
            return Masked(b.reshape(v, (n,) + out[1:]), b.reshape(rows, (n,)), first.op,
                          merged=(first, group))
    if first.merged is not None:
        outer, group = first.merged
        lead = (outer.values.shape[0],) + group
        if out[1:] == group + src[1:] and out[0] * math.prod(group) == k:
            return outer.like(b.reshape(v, lead + src[1:]))
    return None


def _whole(named) -> bool:
    """Whether a slice takes every row in order whatever their number
    (`sel[:, j]` traces as a slice from 0 to the largest int64): a literal
    end or a negative start counts rows, refused."""
    start, end, step = named.get("start"), named.get("end"), named.get("step", 1)
    return start in (None, 0) and (end is None or end >= sys.maxsize) and step == 1


def call_named(ctx, lowering, named, **changes):
    """The lowering called with the node's arguments by schema name
    (`named`, some replaced by `changes`), selections as their full rows."""
    both = dict(named, **changes)
    return lowering(ctx, *[_unwrap(both[a.name]) for a in ctx.node.target._schema.arguments
                           if a.name in both])


def _named(ctx, args, kwargs) -> dict:
    """The node's arguments by schema name (defaults filled in)."""
    schema = getattr(ctx.node.target, "_schema", None)
    if schema is None:
        return dict(kwargs)
    named = {}
    for i, a in enumerate(schema.arguments):
        if i < len(args):
            named[a.name] = args[i]
        elif a.name in kwargs:
            named[a.name] = kwargs[a.name]
        elif a.has_default_value():
            named[a.name] = a.default_value
    return named


def _rank(first: Masked) -> int:
    return first.values.rank


def _dims(ctx, named, first) -> Optional[List[int]]:
    """The dims the op's dim arguments name (normalized), [] for ops with
    none, None for 'every dim' (a dim argument left out)."""
    table, extra = (_NEW_DIM_ARGS, 1) if ctx.name in _NEW_DIM_ARGS else (_DIM_ARGS, 0)
    if ctx.name in masked_reductions.ROW_REDUCTIONS and ctx.name not in table:
        return None
    dims = []
    for arg in table.get(ctx.name, ()):
        value = named.get(arg)
        if value is None or (isinstance(value, (list, tuple)) and not value):
            return None
        values = value if isinstance(value, (list, tuple)) else [value]
        dims += [norm_dim(int(d), _rank(first) + extra) for d in values]
    return dims


def _is_tensor(x) -> bool:
    return isinstance(x, (Value, Masked)) or isinstance(getattr(x, "tensor", None), torch.Tensor)


def _shape(x):
    return tuple(x.values.shape if isinstance(x, Masked) else
                 x.shape if isinstance(x, Value) else x.tensor.shape)


def _keeps_rows(ctx, lowering, named, dims, found, k) -> bool:
    name = ctx.name
    out = [t for t in ctx.out_types if t is not None]
    if name in ("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default"):
        out = out[:1]  # and total_weight, unused with reduction none
    if not out or any(t.rank == 0 for t in out):
        return False

    if name in _VIEWS:
        src = _shape(found[0])
        if name == "aten.expand.default":
            return out[0].rank == len(src) and out[0].shape[0] == k
        return out[0].shape[0] == k and math.prod(out[0].shape[1:]) == math.prod(src[1:])
    if name == "aten.index.Tensor":
        indices = named["indices"]
        at = [i for i, x in enumerate(indices) if x is not None]
        adjacent = bool(at) and at == list(range(at[0], at[-1] + 1))
        if isinstance(named["self"], Masked):
            # sel[:, i, j]: integer indices into other dims, next to each
            # other (their broadcast shape takes their place, after dim 0).
            return adjacent and at[0] > 0 and not selections(indices)
        # x[i, j] or x[i, :, j] with i, j selected ids (torch.where(mask)):
        # the indices' broadcast shape, their rows, comes first (indices
        # apart put it in front).
        return (not adjacent or at[0] == 0) and _broadcast_along_rows({"i": indices}, found)
    if name == "aten.index_select.default" and dims == [0]:
        return isinstance(named["index"], Masked) and not isinstance(named["self"], Masked)
    if name in ("aten.cat.default", "aten.stack.default"):
        # Every operand a selection (a plain one with k rows is not).
        return dims is not None and 0 not in dims and all(
            isinstance(t, Masked) for t in named["tensors"])
    if name in _DIM_ARGS or name in _NEW_DIM_ARGS:
        # The operand the dims index is the selection (an index into its
        # other dims may be one too); the others broadcast along its rows.
        return (dims is not None and 0 not in dims and isinstance(named.get("self"), Masked)
                and _broadcast_along_rows(named, found))
    if name == "aten.constant_pad_nd.default":
        # Padding the dims after the rows (F.pad pads from the last dim).
        pad, rank = list(named["pad"]), _rank(found[0])
        return isinstance(named["self"], Masked) and (
            len(pad) < 2 * rank or not any(pad[2 * rank - 2:2 * rank]))
    if name == "aten.permute.default":
        return norm_dim(int(named["dims"][0]), _rank(found[0])) == 0
    if name == "aten.repeat.default":
        return int(named["repeats"][0]) == 1 and len(named["repeats"]) == _rank(found[0])
    if name in ("aten.native_layer_norm.default", "aten.layer_norm.default"):
        return len(named["normalized_shape"]) < _rank(found[0])
    if name == "aten.embedding.default" and named.get("scale_grad_by_freq"):
        return False  # counts the ids of every row, not the selected ones
    if name == "aten.index_put.default" and not isinstance(named["self"], Masked):
        return False  # writes into a plain tensor: scatter_rows or refused
    if name in _ROW_OPS:
        allowed = _ROW_OPS[name]
        if name in ("aten.matmul.default", "aten.bmm.default"):
            # Row i of a @ b is row i of a times b (a weight), or, batched,
            # matrix i of a times matrix i of b (both selections of the
            # same rank: b's dim 0 is then its batch, not a contracted dim).
            a, other = named.get("self"), named.get("other", named.get("mat2"))
            if not isinstance(a, Masked) or a.values.rank < 2:
                return False
            if isinstance(other, Masked):
                return other.values.rank == a.values.rank >= 3
            return name == "aten.matmul.default" and len(_shape(other)) <= 2
        return _only_selected(named, allowed)
    module = getattr(lowering, "__module__", "").rsplit(".", 1)[-1]
    return (module in _ELEMENTWISE_MODULES and name not in _NOT_ELEMENTWISE
            and all(m.values.rank == max(t.rank for t in out) for m in found)
            and _broadcast_along_rows(named, found))


def _broadcast_along_rows(named, found) -> bool:
    """Whether every operand that is not a selection broadcasts along the
    rows: a rank below the selections', or extent 1 in dim 0."""
    rank = max(m.values.rank for m in found)
    return all(isinstance(x, Masked) or len(_shape(x)) < rank or _shape(x)[0] == 1
               for x in _tensors(named))


def keeps_rows_apart(found, operands) -> bool:
    """For lowerings that take selections (registry.takes_masked) and act
    elementwise: the selections share their rows and every other operand
    broadcasts along them."""
    return not any(isinstance(m, Behind) for m in found) and \
        all(same_value(m.rows, found[0].rows) for m in found) and \
        _broadcast_along_rows({"operands": list(operands)}, found)


def _tensors(tree):
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in _tensors(t)]
    return [tree] if _is_tensor(tree) else []


def _only_selected(named, allowed) -> bool:
    """Whether the selections are among the `allowed` arguments (every
    other tensor argument is a weight applied to each row alike)."""
    return all(key in allowed or not selections(value) for key, value in named.items())


def _full_types(ctx, first, k):
    """The node's traced result types with dim 0's k rows as the N full
    rows (results that hold rows); others unchanged."""
    n = first.values.shape[0]
    return [dataclasses.replace(t, shape=(n,) + t.shape[1:])
            if t is not None and t.rank >= 1 and t.shape[0] == k else t
            for t in ctx.out_types]


def _selected_count(ctx, args) -> Optional[int]:
    """k: dim 0 of the example value of the node's first selection."""
    def find(tree, real):
        if isinstance(tree, Masked):
            return real.shape[0] if isinstance(real, torch.Tensor) else None
        if isinstance(tree, (list, tuple)) and isinstance(real, (list, tuple)):
            for t, r in zip(tree, real):
                k = find(t, r)
                if k is not None:
                    return k
        return None
    return find(list(args), list(ctx.real_args))


def same_value(a, b, depth: int = 8) -> bool:
    """Whether two Values are one value: the same Value, or results of the
    same op on the same operands (a mask written twice, `x[h > 0] =
    f(h[h > 0])`), `depth` ops deep."""
    if a is b:
        return True
    if depth == 0 or not isinstance(a, Value) or not isinstance(b, Value):
        return False
    # Reshapes keep the elements in order: one value under views of the
    # same type (pos and pos.unsqueeze(2) flattened alike).
    ra, rb = _unreshaped(a), _unreshaped(b)
    if a.type == b.type and (ra is not a or rb is not b) and same_value(ra, rb, depth - 1):
        return True
    if a.op is None or b.op is None or a.type != b.type or a.index != b.index:
        return False
    x, y = a.op, b.op
    try:
        same_attrs = x.name == y.name and x.attrs == y.attrs
    except (TypeError, ValueError, RuntimeError):  # attributes holding arrays
        same_attrs = False
    return same_attrs and len(x.operands) == len(y.operands) and all(
        same_value(p, q, depth - 1) for p, q in zip(x.operands, y.operands))


def _unreshaped(v):
    """`v` before the reshapes that made it."""
    while isinstance(v, Value) and v.op is not None and v.op.name == "tfc.reshape":
        v = v.op.operands[0]
    return v


def _unwrap(tree):
    """The arguments with each selection replaced by its full rows."""
    if isinstance(tree, Masked):
        return tree.values
    if isinstance(tree, (list, tuple)):
        return type(tree)(_unwrap(t) for t in tree)
    if isinstance(tree, dict):
        return {key: _unwrap(t) for key, t in tree.items()}
    return tree


def _sizes_on_rows(args, n):
    """A view's sizes with dim 0's extent (k or -1) replaced by N."""
    args = list(args)
    args[1] = [n] + list(args[1])[1:]
    return tuple(args)


def _on_rows(ctx, lowering, args, kwargs, first, k):
    """The lowering on the full rows; results with dim 0 as rows are
    selections by the same rows."""
    saved = ctx.out_types
    ctx.out_types = _full_types(ctx, first, k)
    n = first.values.shape[0]
    full_args, full_kwargs = _unwrap(args), _unwrap(kwargs)
    if ctx.name in _VIEWS:
        full_args = _sizes_on_rows(full_args, n)
    try:
        lowered = lowering(ctx, *full_args, **full_kwargs)
    finally:
        ctx.out_types = saved

    def wrap(v, t):
        if isinstance(v, Value) and t is not None and t.rank >= 1 and t.shape[0] == k \
                and v.rank >= 1 and v.shape[0] == n:
            return first.like(v)
        if isinstance(v, Value) and v.rank == 0:  # over every row: nll_loss' total_weight
            return Missing("a total over the unselected rows too")
        return v
    if isinstance(lowered, (list, tuple)):
        types = saved if len(saved) == len(lowered) else [saved[0]] * len(lowered)
        return type(lowered)(wrap(v, t) for v, t in zip(lowered, types))
    return wrap(lowered, saved[0] if saved else None)
