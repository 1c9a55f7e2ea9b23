"""Indexing aten ops: x[indices] and x[indices] = v (advanced indexing
with integer index tensors, boolean masks known at trace time at any
position, traced masks as masked selections: importer.Masked and
masked.py), masked_select, masked_scatter and nonzero / argwhere (the
coordinates of a mask, a masked selection); the ops whose result shape
depends on values (unique, repeat_interleave by a tensor) are refused."""
import math
from typing import Optional

import torch

from ..builder import broadcast_shapes
from ..constants import Known
from ..errors import DataDependentError
from ..importer import Masked
from ..ir import Value
from .. import dtypes, masked
from ..registry import lowers, refuse, takes_masked
from . import reduction, scatter
from .common import index_ids, range_checked
from .shape import gather_rows


def _masked(ctx, v, mask):
    """v[mask] for a mask over v's leading dims: the mask's dims flattened
    into the rows of a Masked selection. A mask broadcast along its
    trailing dims (SSD's pos.unsqueeze(2).expand_as(loc)) selects whole
    groups of elements: the selection of those groups' rows, its rows
    merged with the group (masked.py's merged rows), so that a view back
    into groups (`.view(-1, 4)`) is that row selection."""
    b = ctx.b
    lead = math.prod(mask.shape)
    grouped = _expanded_rows(mask)
    if grouped is not None:
        inner, j = grouped
        n = math.prod(mask.shape[:j])
        group = tuple(mask.shape[j:])
        outer = _selection(ctx, b.reshape(v, (n,) + v.shape[:mask.rank][j:] + v.shape[mask.rank:]),
                           b.reshape(inner, (n,)), mask)
        rows = b.broadcast_to(b.reshape(outer.rows, (n,) + (1,) * len(group)), (n,) + group)
        return Masked(b.reshape(outer.values, (lead,) + v.shape[mask.rank:]),
                      b.reshape(rows, (lead,)), outer.op, source=mask, merged=(outer, group))
    return _selection(ctx, b.reshape(v, (lead,) + v.shape[mask.rank:]),
                      b.reshape(mask, (lead,)), mask)


def _expanded_rows(mask):
    """(the mask before its broadcast, j) when `mask` is a broadcast of a
    mask whose dims from j on are 1 (an unsqueeze + expand_as), else None."""
    op = mask.op
    if op is None or op.name != "tfc.broadcast_to":
        return None
    src = op.operands[0]
    shape = tuple(src.shape)
    if len(shape) != mask.rank:
        return None
    j = len(shape)
    while j > 0 and shape[j - 1] == 1 and mask.shape[j - 1] != 1:
        j -= 1
    if j == len(shape) or j == 0 or shape[:j] != tuple(mask.shape[:j]):
        return None
    return src, j


def _selection(ctx, rows_of, rows, source=None):
    """The Masked selection of the rows of `rows_of` where `rows` holds.
    Its unselected rows are replaced by a copy of the first selected row:
    the ops that run on all rows (masked.py) then see only values of the
    selection, so none computes inf or NaN there that would turn their
    zero gradients into NaN (x[x > 0].log(), y[m] = y[m].sqrt())."""
    b = ctx.b
    n = rows.shape[0]
    # The first selected row: n - max(n - i over selected rows i) (row 0
    # when none is selected; then every row is discarded anyway).
    position = b.iota((n,), 0, "i64")
    score = b.select(rows, b.sub(b.splat(n, "i64"), position), b.splat(0, "i64"))
    first = b.sub(b.splat(n, "i64"), b.reduce("max", score, [0]))
    some = b.compare("lt", first, b.splat(n, "i64"))
    first = b.select(some, first, b.splat(0, "i64"))
    fill = gather_rows(ctx, rows_of, b.reshape(first, (1,)))
    if dtypes.is_float(fill.dtype):
        # With no row selected the fill is row 0, not a value of the
        # selection: no gradient through it (0 * NaN of a function defined
        # on the selection only would reach row 0).
        fill = b.select(b.reshape(some, (1,) * fill.rank), fill, b.stop_gradient(fill))
    wide = b.broadcast_to(b.reshape(rows, (n,) + (1,) * (rows_of.rank - 1)), rows_of.shape)
    return Masked(b.select(wide, rows_of, b.broadcast_to(fill, rows_of.shape)), rows,
                  source=source)


def _known_selection(ctx, v, mask):
    """v[mask] for a mask known at trace time (its count, and so the
    result's shape, is static): the flattened elements at the mask's true
    positions, in row-major order, gathered as rows (torch.combinations
    selects its index grids so). v's dims after the mask's are kept."""
    b = ctx.b
    where = torch.nonzero(mask.reshape(-1)).reshape(-1)
    if where.numel() == 0:
        ctx.unsupported("the mask selects no element; tfc tensors have no zero-sized dimensions")
    lead = math.prod(mask.shape)
    rows = b.reshape(v, (lead,) + v.shape[mask.dim():])
    return gather_rows(ctx, rows, ctx.tensor(Known(where), "i64"))


@lowers("aten.masked_select.default")
@takes_masked
def masked_select(ctx, x, mask):
    """x.masked_select(mask): with a known mask the selected elements
    (a static shape), else a Masked selection of the elements. Of a
    selection (x and mask selections of the same rows, or one of them
    broadcasting along the rows): the elements of its selected rows where
    the mask holds."""
    b = ctx.b
    outer = masked.selections([x, mask])
    if outer:
        if not masked.keeps_rows_apart(outer, [x, mask]):
            ctx.masked(outer[0])
        rows = outer[0]
        x, mask = [t.values if isinstance(t, Masked) else t for t in (x, mask)]
    v = ctx.tensor(x)
    if not outer and ctx.is_static(mask):
        known = ctx.static(mask, "the mask").to(torch.bool)
        shape = tuple(torch.broadcast_shapes(tuple(v.shape), tuple(known.shape)))
        return _known_selection(ctx, b.broadcast_to(v, shape), known.expand(shape))
    m = ctx.tensor(mask, "i1")
    shape = broadcast_shapes(v.shape, m.shape)
    m = b.broadcast_to(m, shape)
    if outer:
        m = b.select(rows.broadcast_rows(b, shape), m, b.splat(False, "i1"))
    n = math.prod(shape)
    return _selection(ctx, b.reshape(b.broadcast_to(v, shape), (n,)), b.reshape(m, (n,)))


def _advanced(ctx, v, indices):
    """The integer index tensors of x[indices] (None entries take their
    dim whole): (the indexed dims, their broadcast shape B, one index of
    shape B into those dims flattened in row-major order: a Known when
    every index is known, else an i64 Value, whether the indexed dims are
    adjacent). Negative indices count from the back of their dim, known
    or traced."""
    b = ctx.b
    present = [(d, i) for d, i in enumerate(indices) if i is not None]
    dims = [d for d, _ in present]
    sizes = [v.shape[d] for d in dims]
    strides = [math.prod(sizes[k + 1:]) for k in range(len(sizes))]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if all(ctx.is_static(i) for _, i in present):
        known = [ctx.static(i, "the index") for _, i in present]
        shape = tuple(torch.broadcast_shapes(*(t.shape for t in known)))
        flat = sum(t.to(torch.int64).remainder(s).expand(shape) * st
                   for t, s, st in zip(known, sizes, strides))
        return dims, shape, Known(flat), adjacent
    ids = [index_ids(ctx, i, s, "i64", wrap_traced=True) for (_, i), s in zip(present, sizes)]
    if len(ids) > 1:
        # Each index is checked against its own dim: one out of range can
        # still give a flat index in range (another element, silently).
        ids = [range_checked(ctx, x, s) for x, s in zip(ids, sizes)]
    shape = broadcast_shapes(*(x.shape for x in ids))
    flat = None
    for x, st in zip(ids, strides):
        term = b.broadcast_to(x if st == 1 else b.mul(x, ctx.tensor(st, "i64")), shape)
        flat = term if flat is None else b.add(flat, term)
    return dims, tuple(shape), flat, adjacent


def _indexed_first(ctx, v, dims):
    """v with the indexed `dims` flattened into one leading dim and the
    others after it in order: [N, rest...]."""
    rest = [d for d in range(v.rank) if d not in dims]
    moved = ctx.b.transpose(v, dims + rest)
    return ctx.b.reshape(moved, (math.prod(v.shape[d] for d in dims),)
                         + tuple(v.shape[d] for d in rest))


def _known_mask(ctx, i) -> Optional[torch.Tensor]:
    """An index that is a boolean (or uint8) mask known at trace time, as a
    torch bool tensor; None for any other index."""
    if isinstance(i, Known) and i.tensor.dtype in (torch.bool, torch.uint8):
        return i.tensor.to(torch.bool)
    if isinstance(i, Value) and i.dtype in ("i1", "u8") and getattr(i, "known", None) is not None:
        return i.known.to(torch.bool)
    return None


def _known_masks_as_ids(ctx, v, indices):
    """x[..., mask, ...] with masks known at trace time: each mask
    replaced by the coordinates of its true elements, one integer index
    per dim it covers (torch's own meaning of a boolean index), so the
    result's shape is static wherever the mask stands. `indices` as given
    when it holds no known mask."""
    if not any(_known_mask(ctx, i) is not None for i in indices if i is not None):
        return indices
    out, dim = [], 0
    for i in indices:
        known = _known_mask(ctx, i) if i is not None else None
        if known is None:
            out.append(i)
            dim += 1
            continue
        if tuple(known.shape) != tuple(v.shape[dim:dim + known.dim()]):
            ctx.unsupported(f"a boolean mask of shape {tuple(known.shape)} indexes dims of "
                            f"sizes {tuple(v.shape[dim:dim + known.dim()])}")
        coords = torch.nonzero(known)
        if coords.shape[0] == 0:
            ctx.unsupported("the mask selects no element; tfc tensors have no zero-sized "
                            "dimensions")
        out.extend(Known(coords[:, j].contiguous()) for j in range(known.dim()))
        dim += known.dim()
    return out


def _mask_at(ctx, v, indices):
    """(d, mask) for x[:, ..., mask] (one boolean mask over x's dims d..,
    every other index a whole dim), None for integer indices; any other
    use of a boolean mask is refused."""
    present = [(d, i) for d, i in enumerate(indices) if i is not None]
    masks = [i for _, i in present if ctx.tensor(i).dtype == "i1"]
    if not masks:
        return None
    mask = ctx.tensor(masks[0])
    d = present[0][0]
    if len(present) != 1 or mask.shape != v.shape[d:d + mask.rank]:
        ctx.unsupported("boolean-mask indexing other than x[mask] or x[:, ..., mask] with one "
                        "mask over as many of x's dims",
                        "keep the shape static: torch.where(mask, x, 0) or masked_fill, "
                        "and reduce with a mask-weighted sum")
    return d, mask


def _leading_mask(ctx, v, indices):
    """The boolean mask of x[mask] (one mask over x's leading dims), or
    None for integer indices; other uses of boolean masks are refused."""
    at = _mask_at(ctx, v, indices)
    if at is None:
        return None
    if at[0] != 0:
        ctx.unsupported("a boolean mask over a dim other than the first (x[:, mask]) selects "
                        "a data-dependent number of elements there; tfc keeps masked "
                        "selections of leading dims only",
                        "keep the shape static: torch.where(mask, x, 0) or masked_fill, "
                        "or move the dim first (x.t()[mask])")
    return at[1]


def _nested_selection(ctx, x, indices):
    """sel[m] (sel a selection, m a boolean selection of its rows over its
    leading dims, e.g. l[l != 0] of l = y[mask]): the elements where both
    the rows and m hold, a selection whose source is m's full mask (for
    sel[m] = f(sel[m])). None for any other indexing (masked.py's)."""
    present = [i for i in indices if i is not None]
    m = present[0] if len(present) == 1 and indices[0] is not None else None
    if not (isinstance(x, Masked) and isinstance(m, Masked) and m.values.dtype == "i1"):
        return None
    if not (masked.same_value(m.rows, x.rows)
            and m.values.shape == x.values.shape[:m.values.rank]):
        ctx.refuse_masked(x, "its rows are indexed by a mask of other rows")
    b = ctx.b
    keep = b.select(x.broadcast_rows(b, m.values.shape), m.values, b.splat(False, "i1"))
    lead = math.prod(m.values.shape)
    return _selection(ctx, b.reshape(x.values, (lead,) + x.values.shape[m.values.rank:]),
                      b.reshape(keep, (lead,)), m.values)


@lowers("aten.index.Tensor")
@takes_masked
def index(ctx, x, indices):
    """x[i0, i1, ...] with integer index tensors (None: a dim taken whole,
    x[:, i]): the indices broadcast together to a shape B and flattened
    into one index over the indexed dims, whose rows one lookup gathers
    (its gradient sums repeated indices, as torch's). As in torch, B
    replaces the indexed dims where they are adjacent and goes in front
    where they are not (x[i, :, j]). x[mask] with one boolean mask over
    the leading dims is a masked selection; sel[m] with m a boolean
    selection of sel's rows, the selection of both."""
    if masked.selections([x, indices]):
        nested = _nested_selection(ctx, x, indices)
        return nested if nested is not None else masked.lower(ctx, index, (x, indices), {})
    v = ctx.tensor(x)
    indices = _known_masks_as_ids(ctx, v, indices)
    mask = _leading_mask(ctx, v, indices)
    if mask is not None:
        return _masked(ctx, v, mask)
    dims, shape, flat, adjacent = _advanced(ctx, v, indices)
    picked = gather_rows(ctx, _indexed_first(ctx, v, dims), ctx.tensor(flat, "i64"))
    if not adjacent:
        return picked  # B + other dims
    k, d = len(shape), dims[0]
    order = list(range(k, k + d)) + list(range(k)) + list(range(k + d, picked.rank))
    return ctx.b.transpose(picked, order)


@lowers("aten.index_put.default")
@takes_masked
def index_put(ctx, x, indices, values, accumulate=False):
    """x[mask] = values (or += with accumulate) for one boolean mask over
    the leading dims: a select. x[i0, i1, ...] = values with integer index
    tensors: values broadcast to x[i0, i1, ...]'s shape and laid out as
    rows (B first), scattered into x with its indexed dims flattened
    (scatter.index_put_rows: accumulate sums repeated indices; without
    it the last write wins)."""
    b = ctx.b
    if isinstance(x, Masked):
        # sel[m] = value with m a boolean selection of the same rows (torch's
        # cross_entropy zeroes the ignored rows of its smoothing term so).
        if not all(i is None or isinstance(i, Masked) and i.values.dtype == "i1"
                   for i in indices):
            ctx.masked(x)
        full = [i.values if isinstance(i, Masked) else i for i in indices]
        if isinstance(values, Masked) and any(
                masked.same_value(values.source, i) for i in full if i is not None):
            # sel[m] = f(sel[m]): on the full rows, m's full mask selects the
            # same elements (sel's unselected rows are never read).
            return x.like(index_put(ctx, x.values, full, values, accumulate))
        return masked.lower(ctx, index_put, (x, indices, values, accumulate), {})
    if masked.selections(indices):  # x[ids] = v at selected ids
        return masked.lower(ctx, index_put, (x, indices, values, accumulate), {})
    v = ctx.tensor(x)
    at = _mask_at(ctx, v, indices)
    if isinstance(values, Masked):
        # x[mask] = f(y[mask]): the rows selected by the same mask, in place.
        if at is None or at[0] != 0 or not masked.same_value(values.source, at[1]):
            ctx.refuse_masked(values, "x[index] = selection needs the same mask as index")
        rows = values.values.shape[0]
        values = b.reshape(b.broadcast_to(b.convert(values.values, v.dtype),
                                          (rows,) + v.shape[at[1].rank:]), v.shape)
    elif at is not None:
        # x[..., mask] = value: a select where the mask holds (a mask known
        # at trace time, too: values of the selection's shape need its
        # count, which then is static).
        d, mask = at
        new = _over_mask(ctx, values, v, d, mask)
        if new is None:
            indices = _known_masks_as_ids(ctx, v, indices)
            at = None
        else:
            values = new
    if at is not None:
        d, mask = at
        mask = b.reshape(mask, (1,) * d + mask.shape + (1,) * (v.rank - d - mask.rank))
        new = ctx.tensor(values, v.dtype)
        if accumulate:
            new = b.add(v, new)
        return b.broadcast_to(b.select(mask, new, v), ctx.out().shape)
    dims, shape, flat, adjacent = _advanced(ctx, v, indices)
    rest = [d for d in range(v.rank) if d not in dims]
    rest_shape = tuple(v.shape[d] for d in rest)
    k = len(shape)
    if adjacent:  # x[indices]'s shape has B in place of the indexed dims
        d = dims[0]
        view = rest_shape[:d] + shape + rest_shape[d:]
        to_rows = list(range(d, d + k)) + list(range(d)) + list(range(d + k, len(view)))
    else:
        view, to_rows = shape + rest_shape, list(range(k + len(rest)))
    rows = b.transpose(b.broadcast_to(ctx.tensor(values, v.dtype), view), to_rows)
    n = math.prod(shape)
    rows = b.reshape(rows, (n,) + rest_shape)
    flat = Known(flat.tensor.reshape(n)) if isinstance(flat, Known) else b.reshape(flat, (n,))
    put = scatter.index_put_rows(ctx, _indexed_first(ctx, v, dims), flat, rows, accumulate)
    order = dims + rest
    put = b.reshape(put, tuple(v.shape[d] for d in dims) + rest_shape)
    return b.transpose(put, [order.index(d) for d in range(v.rank)])


def _over_mask(ctx, values, v, d, mask):
    """The values of x[..., mask] = values (the mask over v's dims d..)
    broadcast against v itself, when they do not vary along the selected
    elements (that dim of theirs is 1 or absent); None when they do and
    the mask is known at trace time (the caller indexes by its
    coordinates); else the write needs the mask's count: refused."""
    if ctx.is_static(values) and not isinstance(values, (torch.Tensor, Known)):
        return values  # a Python scalar
    value = ctx.tensor(values, v.dtype)
    selected_rank = d + 1 + v.rank - d - mask.rank
    shape = (1,) * (selected_rank - value.rank) + tuple(value.shape)
    if len(shape) > selected_rank or shape[d] != 1:
        if getattr(mask, "known", None) is not None:
            return None
        ctx.unsupported("x[..., mask] = values with one value per selected element needs "
                        "the mask's (data-dependent) count",
                        "write with torch.where(mask, new_values, x) over x's full shape")
    return ctx.b.reshape(value, shape[:d] + (1,) * mask.rank + shape[d + 1:])


@lowers("aten.masked_scatter.default")
def masked_scatter(ctx, x, mask, source):
    """x.masked_scatter(mask, source): x and mask broadcast to one shape
    (the result's: static, only where the values land depends on the
    mask); its k-th true position in row-major order takes
    source.flatten()[k], the others keep x's. k is the flattened mask's
    inclusive prefix count less one (an integer scan, exact), the source
    element gathered as a row, so the source's gradient is the masked
    gradient at its first positions and zeros after, x's the gradient
    where the mask is false, as torch's. A source with fewer elements
    than true positions (torch raises) repeats its last element."""
    b = ctx.b
    v = ctx.tensor(x)
    m = ctx.tensor(mask, "i1")
    shape = broadcast_shapes(v.shape, m.shape)
    count = math.prod(shape)
    flat_x = b.reshape(b.broadcast_to(v, shape), (count,))
    flat_m = b.reshape(b.broadcast_to(m, shape), (count,))
    src = ctx.tensor(source, v.dtype)
    src = b.reshape(src, (src.type.numel,))
    taken = reduction.scan_one(ctx, b.convert(flat_m, "i64"), 0, b.add, 0)
    k = b.sub(taken, ctx.tensor(1, "i64"))
    k = b.binary("maximum", k, ctx.tensor(0, "i64"))
    k = b.binary("minimum", k, ctx.tensor(src.shape[0] - 1, "i64"))
    picked = gather_rows(ctx, src, k)
    return b.reshape(b.select(flat_m, picked, flat_x), shape)

@lowers("aten.nonzero.default", "aten.argwhere.default")
def nonzero(ctx, x):
    """The coordinates of x's nonzero elements, [k, rank] in row-major
    order: a Masked selection of the coordinates of every element (rows
    where x != 0), which indexes as torch.where(mask) / mask.nonzero()
    idioms do (x[i], x[i, j], index_select; masked.py)."""
    b = ctx.b
    v = ctx.tensor(x)
    if v.rank == 0:
        ctx.unsupported("nonzero of a 0-d tensor (its coordinates have no columns)")
    n = math.prod(v.shape)
    coords = b.concat([b.reshape(b.iota(v.shape, d, "i64"), (n, 1)) for d in range(v.rank)], 1)
    zero = ctx.tensor(0, v.dtype) if v.dtype != "i1" else ctx.tensor(False, "i1")
    return _selection(ctx, coords, b.reshape(b.compare("ne", v, zero), (n,)))


_VALUE_SHAPED = ("its output shape depends on tensor values",
                 "tfc compiles static shapes: keep every tensor's shape independent of the data "
                 "(torch.where / masked_fill instead of boolean indexing or nonzero)")
refuse(["aten.unique.default",
        "aten._unique2.default", "aten.unique_dim.default", "aten.unique_consecutive.default"],
       *_VALUE_SHAPED)


@lowers("aten.repeat_interleave.Tensor")
def repeat_interleave(ctx, repeats, output_size=None):
    """The index form torch.repeat_interleave(counts) traces to (x's rows
    repeated, a graph batch's node-to-graph ids): with output_size given,
    output j is the number of cumulative counts <= j. Without output_size the
    length is sum(counts), read from the data: refused."""
    if output_size is None:
        raise DataDependentError(f"{ctx.name}: {_VALUE_SHAPED[0]} (the sum of the repeats)",
                                 ctx.frame, "give output_size= (the total, e.g. the number of "
                                 "nodes of the batch): the result then has a static length")
    b = ctx.b
    counts = ctx.tensor(repeats, "i64")
    n = counts.shape[0]
    ends = reduction.scan_one(ctx, counts, 0, b.add, 0)   # cumsum
    positions = b.iota((int(output_size), 1), 0, "i64")
    done = b.convert(b.compare("le", b.reshape(ends, (1, n)), positions), "i64")
    return ctx.b.convert(b.reduce("sum", done, [1]), ctx.out().dtype)
