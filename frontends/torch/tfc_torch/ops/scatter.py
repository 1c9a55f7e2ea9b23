"""Scatters by index: scatter_add, scatter (src / value), index_add,
integer-indexed assignment (x[idx] = v, x[idx] += v, put, index_copy),
index_fill and scatter_reduce.
Each sum is one tfc.embedding_grad, the deterministic scatter-add kernel
(its VJP is an embedding lookup, so the gradient of the scattered values
is torch's gather): the written positions are flattened into rows of a
table, the values summed into them in increasing position order.
scatter_reduce's prod, amax and amin reduce a one-hot layout instead.

Where several positions write one element, torch's scatter and assignment
leave which write wins undefined. For scatter with traced indices the last
write along its dim wins, as torch's CPU loop (known indices with such
duplicates are refused); for assignment (index_put) the last write wins
too, as torch's CPU loop and deterministic mode. embedding_grad's rows
are float: integer and boolean tensors are scattered in f64 and converted
back (_exact_integers), exact below 2^53."""
import functools
import math

import torch

from ..constants import Known
from ..importer import Masked
from ..registry import lowers, takes_masked
from .common import index_ids, norm_dim, range_checked
from .reduction import product_along


_FLOATS = ("f16", "bf16", "f32", "f64")
_INTEGERS = ("i1", "i8", "i16", "i32", "i64", "u8")


def _float_values(ctx, what, integers=False):
    """The type `what` scatters in: the result's float type, or with
    `integers` f64 for an integer or boolean result (exact below 2^53;
    the lowering is wrapped in _exact_integers, which converts back)."""
    dt = ctx.out().dtype
    if dt in _FLOATS:
        return dt
    if integers and dt in _INTEGERS:
        return "f64"
    ctx.unsupported(f"{what} of {dt} values has no tfc form (tfc scatters float values)",
                    "scatter floats and convert, or use one-hot arithmetic")


def _exact_integers(lowering):
    """A scatter lowering that computes an integer or boolean result in f64
    (_float_values(..., integers=True)): its result converted back (a
    boolean: nonzero). EViT's index bookkeeping, PyG's degree counts."""
    @functools.wraps(lowering)
    def wrapped(ctx, *args, **kwargs):
        out = lowering(ctx, *args, **kwargs)
        dt = ctx.out().dtype
        if dt in _FLOATS:
            return out
        if dt == "i1":
            return ctx.b.compare("ne", out, ctx.tensor(0.0, out.dtype))
        return ctx.b.convert(out, dt)
    return wrapped


def _index_value(ctx, index):
    """The index as an i64 Value (negative known entries are invalid for
    scatters in torch, so they are not wrapped)."""
    ids = ctx.tensor(index)
    if ids.dtype not in ("i32", "i64"):
        ctx.unsupported(f"a {ids.dtype} index", "index with integer tensors")
    return ids if ids.dtype == "i64" else ctx.b.convert(ids, "i64")


def _checked(ctx, ids, v, dim):
    """ids (along `dim` of v) checked against v's size there at run time:
    the scatters select targets by comparing ids with an iota, which an id
    out of range would silently miss (torch raises)."""
    return range_checked(ctx, ids, v.shape[norm_dim(dim, v.rank)] if v.rank else 1)


def _refuse_duplicates(ctx, index, dim=None, size=None):
    """Known indices that write one element twice (scatter):
    torch leaves the result undefined, tfc would sum. Along `dim` per
    position of the other dims, or over all of them (dim None), negative
    ones counted from the back of `size` first."""
    if not ctx.is_static(index):
        return
    t = ctx.static(index, "the index")
    if size is not None:
        t = t.remainder(size)
    if dim is None or not t.dim():
        t = t.reshape(1, -1)
    else:
        t = t.movedim(dim, -1).reshape(-1, t.shape[dim])
    for row in t:
        if row.unique().numel() != row.numel():
            ctx.unsupported("the index writes one element more than once, where torch's "
                            "result is undefined",
                            "use scatter_add / index_put_(..., accumulate=True) (sums), or "
                            "make the indices unique")


def _table(ctx, rows, ids, count):
    """embedding_grad of `rows` (shape ids.shape + row shape, 1-d ids) into
    `count` rows, any row shape (scalars included)."""
    b = ctx.b
    row_shape = rows.shape[1:]
    table = b.embedding_grad(b.reshape(rows, (rows.shape[0], math.prod(row_shape))), ids, count)
    return b.reshape(table, (count,) + row_shape)


def _scatter_sum(ctx, shape, dim, ids, src):
    """A tensor of `shape` whose element e sums src's elements at the
    positions p of `ids` (rank of shape, each dim <= shape's outside `dim`)
    with ids[p] == e along `dim`, the others at p (torch.scatter_add's
    contribution), zero where nothing lands."""
    b = ctx.b
    rank = len(shape)
    dim = norm_dim(dim, rank)
    src = b.slice(src, [0] * rank, list(ids.shape))
    # Row-major strides of `shape`: element (c_0, .., c_n) is row
    # sum_j c_j * stride_j of the flattened table, with c_dim = ids[p].
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    flat = b.mul(ids, ctx.tensor(strides[dim], "i64")) if strides[dim] != 1 else ids
    for d in range(rank):
        if d != dim and shape[d] > 1:
            coord = b.iota(ids.shape, d)
            flat = b.add(flat, b.mul(coord, ctx.tensor(strides[d], "i64"))
                         if strides[d] != 1 else coord)
    n = math.prod(ids.shape)
    table = _table(ctx, b.reshape(src, (n,)), b.reshape(flat, (n,)), math.prod(shape))
    return b.reshape(table, tuple(shape))


def scatter_planes(ctx, values, ids, size):
    """[G, size] zeros with each of the G planes' [G, M] `values` written
    at its `ids` (i64, within the plane): one scatter-add, the writes
    another write after it overwrites (the same id later in its plane,
    compared pairwise within the plane) zeroed first, so the last write
    wins. Every write's value gets the gradient at its id (a
    straight_through of the last writes to the sum of all), as torch's
    max_unpool backward gathers it."""
    b = ctx.b
    g, m = values.shape
    if g * m * m > MAX_LAST_WRITE_SIZE ** 2:
        ctx.unsupported(f"{ctx.name} of {g} planes of {m} values (the last write of each "
                        f"index is found by comparing the writes of a plane pairwise: "
                        f"{g * m * m:,} comparisons, at most {MAX_LAST_WRITE_SIZE ** 2:,})",
                        "unpool fewer or smaller planes, or gather with the indices instead")
    ids = ids if ids.dtype == "i64" else b.convert(ids, "i64")
    flat = b.add(ids, b.mul(b.iota((g, m), 0), ctx.tensor(size, "i64")))
    same = b.compare("eq", b.reshape(ids, (g, m, 1)), b.reshape(ids, (g, 1, m)))
    after = b.compare("gt", b.iota((g, m, m), 2), b.iota((g, m, m), 1))
    later = b.reduce("sum", b.convert(b.select(after, same, ctx.tensor(False, "i1")), "i32"), [2])
    kept = b.select(b.compare("gt", later, ctx.tensor(0, "i32")), ctx.tensor(0.0, values.dtype),
                    values)
    n = g * m
    flat = b.reshape(flat, (n,))
    written = _table(ctx, b.reshape(kept, (n,)), flat, g * size)
    summed = _table(ctx, b.reshape(values, (n,)), flat, g * size)
    return b.reshape(b.straight_through(written, summed), (g, size))


@lowers("aten.scatter_add.default")
@_exact_integers
def scatter_add(ctx, x, dim, index, src):
    dt = _float_values(ctx, "scatter_add", integers=True)
    v = ctx.tensor(x, dt)
    ids = _checked(ctx, _index_value(ctx, index), v, dim)
    return ctx.b.add(v, _scatter_sum(ctx, v.shape, dim, ids, ctx.tensor(src, dt)))


def _scatter_into(ctx, v, dim, index, values):
    """v with the elements `index` writes along `dim` replaced by `values`
    (a Value of index's shape, or a scalar). Indices known at trace time
    that write an element twice are refused (torch calls the result
    undefined); traced ones may repeat, and the last write along `dim`
    wins, as torch's CPU kernel (_last_writes)."""
    b = ctx.b
    dim = norm_dim(dim, v.rank)
    _refuse_duplicates(ctx, index, dim)
    ids = _checked(ctx, _index_value(ctx, index), v, dim)
    ones = b.broadcast_to(ctx.tensor(1.0, v.dtype), ids.shape)
    hit = b.compare("gt", _scatter_sum(ctx, v.shape, dim, ids, ones), ctx.tensor(0.0, v.dtype))
    if not isinstance(values, (int, float)):
        summed = _scatter_sum(ctx, v.shape, dim, ids, values)
        if ctx.is_static(index):
            values = summed   # distinct: each element written once
        else:
            written = _scatter_sum(ctx, v.shape, dim, ids, _last_writes(ctx, ids, dim, values))
            # Every write's value gets the gradient at its target, as
            # torch's scatter backward gathers it.
            values = b.straight_through(written, summed)
    return b.select(hit, ctx.tensor(values, v.dtype), v)


def _last_writes(ctx, ids, dim, values):
    """`values` (index's shape, or larger along the other dims) with each
    write that a later one along `dim` (the same id further on in its
    line) overwrites zeroed: the writes that stay. Compares each line's
    ids pairwise (lines x m^2, m the index's size along dim)."""
    b = ctx.b
    values = b.slice(values, [0] * values.rank, list(ids.shape))
    last = ids.rank - 1
    moved_ids = b.swap(ids, dim, last) if dim != last else ids
    m = moved_ids.shape[-1]
    lines = moved_ids.type.numel // m
    if lines * m * m > MAX_LAST_WRITE_SIZE ** 2:
        ctx.unsupported(f"{ctx.name} of {lines} lines of {m} traced indices (the last write of "
                        f"each index is found by comparing a line's writes pairwise: "
                        f"{lines * m * m:,} comparisons, at most {MAX_LAST_WRITE_SIZE ** 2:,})",
                        "use scatter_add / index_put_(..., accumulate=True) (sums), or write "
                        "fewer or shorter lines")
    lead = moved_ids.shape[:-1]
    same = b.compare("eq", b.reshape(moved_ids, lead + (m, 1)), b.reshape(moved_ids, lead + (1, m)))
    after = b.compare("gt", b.iota(lead + (m, m), len(lead) + 1),
                      b.iota(lead + (m, m), len(lead)))
    later = b.reduce("sum", b.convert(b.select(after, same, ctx.tensor(False, "i1")), "i32"),
                     [len(lead) + 1])
    overwritten = b.compare("gt", later, ctx.tensor(0, "i32"))
    if dim != last:
        overwritten = b.swap(overwritten, dim, last)
    return b.select(overwritten, ctx.tensor(0.0, values.dtype), values)


@lowers("aten.scatter.src")
@_exact_integers
def scatter_src(ctx, x, dim, index, src):
    dt = _float_values(ctx, "scatter", integers=True)
    return _scatter_into(ctx, ctx.tensor(x, dt), dim, index, ctx.tensor(src, dt))


@lowers("aten.scatter.value")
@_exact_integers
def scatter_value(ctx, x, dim, index, value):
    dt = _float_values(ctx, "scatter", integers=True)
    return _scatter_into(ctx, ctx.tensor(x, dt), dim, index, float(value))


def _reduced_into(ctx, v, dim, ids, src, reduce, include_self):
    """scatter_reduce's prod, amax or amin: with `dim` moved last, a
    [.., n, m] one-hot of which target (n, v's size along dim) each of
    the m scattered elements lands on, the src elements there (1 or -inf
    elsewhere) reduced over m, self joining when include_self; elements
    nothing lands on keep self. Where the index is smaller than v outside
    `dim`, only that corner is reduced into."""
    b = ctx.b
    last = v.rank - 1
    src = b.slice(src, [0] * src.rank, list(ids.shape))

    def to_last(t):
        return b.swap(t, dim, last) if dim != last else t
    moved, ids, src = to_last(v), to_last(ids), to_last(src)
    lead, n, m = ids.shape[:-1], moved.shape[-1], ids.shape[-1]
    corner = b.slice(moved, [0] * v.rank, list(lead) + [n])                  # [.., n]
    lands = b.compare("eq", b.iota(lead + (n, m), -2), b.reshape(ids, lead + (1, m)))
    hit = b.compare("gt", b.reduce("sum", b.convert(lands, "i32"), [-1]), ctx.tensor(0, "i32"))
    values = b.reshape(src, lead + (1, m))
    if reduce == "prod":
        factors = b.select(lands, values, ctx.tensor(1.0, v.dtype))
        out = b.reshape(product_along(ctx, factors, v.rank), lead + (n,))
        if include_self:
            out = b.mul(corner, out)
    else:
        sign = (lambda y: y) if reduce == "amax" else (lambda y: b.unary("neg", y))
        candidates = b.select(lands, sign(values), ctx.tensor(float("-inf"), v.dtype))
        if include_self:  # ties with self split the gradient with it, as torch's
            candidates = b.concat([b.reshape(sign(corner), lead + (n, 1)), candidates], -1)
        out = sign(b.reduce("max", candidates, [-1]))
        if not include_self:
            out = _self_shares_ties(ctx, out, corner, lands, values, hit)
    out = b.select(hit, out, corner)
    if lead != moved.shape[:-1]:
        inside = None
        for d, size in enumerate(lead):
            if size != moved.shape[d]:
                here = b.compare("lt", b.iota(moved.shape, d), ctx.tensor(size, "i64"))
                inside = here if inside is None else b.select(inside, here,
                                                              ctx.tensor(False, "i1"))
        padded = b.pad(out, [0] * v.rank, [s - c for s, c in zip(moved.shape, out.shape)], 0)
        out = b.select(inside, padded, moved)
    return to_last(out)


def _self_shares_ties(ctx, out, corner, lands, values, hit):
    """amax / amin without self, whose gradient torch still splits with
    self where self equals the result (and then drops self's share): the
    src elements' even split scaled by ties / (ties + 1) there, as a
    straight_through of `out` times that constant."""
    b = ctx.b
    dt = out.dtype
    lead_n = out.shape
    ties = b.compare("eq", values, b.reshape(out, lead_n + (1,)))
    ties = b.reduce("sum", b.convert(b.select(lands, ties, ctx.tensor(False, "i1")), dt), [-1])
    self_tie = b.convert(b.compare("eq", corner, out), dt)
    scale = b.select(hit, b.div(ties, b.add(ties, self_tie)), ctx.tensor(1.0, dt))
    return b.straight_through(out, b.mul(out, b.stop_gradient(scale)))


@lowers("aten.scatter_reduce.two")
def scatter_reduce(ctx, x, dim, index, src, reduce, include_self=True):
    """self.scatter_reduce(dim, index, src, reduce, include_self): src's
    elements combined into the elements of self that `index` names along
    dim, with self's own value unless include_self is False; elements no
    index names keep self. sum and mean add with the scatter-add kernel
    (mean divides by the count, self included); prod, amax and amin
    reduce a one-hot layout (_reduced_into). The gradients are torch's:
    prod's the product of the others (zeros included), amax / amin's
    split evenly among the elements equal to the result, self among
    them where it is equal, even without include_self (whose share torch
    then drops)."""
    b = ctx.b
    dt = _float_values(ctx, "scatter_reduce")
    v, s = ctx.tensor(x, dt), ctx.tensor(src, dt)
    ids = _index_value(ctx, index)
    if v.rank == 0:
        v, s, ids = (b.reshape(t, (1,)) for t in (v, s, ids))
    dim = norm_dim(dim, v.rank)
    ids = _checked(ctx, ids, v, dim)
    if reduce in ("prod", "amax", "amin"):
        return b.reshape(_reduced_into(ctx, v, dim, ids, s, reduce, include_self), ctx.out().shape)
    if reduce not in ("sum", "mean"):
        ctx.unsupported(f"scatter_reduce with reduce={reduce!r}")
    ones = b.broadcast_to(ctx.tensor(1.0, dt), ids.shape)
    count = _scatter_sum(ctx, v.shape, dim, ids, ones)
    hit = b.compare("gt", count, ctx.tensor(0.0, dt))
    total = _scatter_sum(ctx, v.shape, dim, ids, s)
    if include_self:
        total, count = b.add(v, total), b.add(count, ctx.tensor(1.0, dt))
    if reduce == "mean":
        total = b.div(total, b.select(hit, count, ctx.tensor(1.0, dt)))
    return b.reshape(b.select(hit, total, v), ctx.out().shape)


def _moved_rows(ctx, v, dim):
    """v with `dim` moved to the front, and the permutation that undoes it."""
    perm = [dim] + [d for d in range(v.rank) if d != dim]
    return ctx.b.transpose(v, perm), [perm.index(d) for d in range(v.rank)]


@lowers("aten.index_add.default")
@_exact_integers
def index_add(ctx, x, dim, index, source, alpha=1):
    """self.index_add(dim, index, source, alpha): source's slices along dim,
    times alpha, added into self's slices at `index` (1-d)."""
    b = ctx.b
    dt = _float_values(ctx, "index_add", integers=True)
    v = ctx.tensor(x, dt)
    dim = norm_dim(dim, v.rank) if v.rank else 0
    ids = _index_value(ctx, index)
    src = ctx.tensor(source, dt)
    if alpha != 1:
        src = b.mul(src, ctx.tensor(alpha, dt))
    if v.rank == 0:
        return b.add(v, b.reduce("sum", src, list(range(src.rank))))
    moved, back = _moved_rows(ctx, b.broadcast_to(src, tuple(
        ids.shape[0] if d == dim else s for d, s in enumerate(v.shape))), dim)
    added = _table(ctx, moved, b.reshape(ids, (ids.shape[0] if ids.rank else 1,)),
                   v.shape[dim])
    return b.add(v, b.transpose(added, back))


# Assignments through more traced indices than this sum the writes to one
# element instead of keeping the last (finding it compares every pair).
MAX_LAST_WRITE_SIZE = 8192


def _later_writes(ctx, index, flat, n, size):
    """Which of the n writes at `flat` another write after it overwrites
    (i1 [n]), or None when none can: compared in Python for a known index,
    in the graph (every pair) for a traced one of at most
    MAX_LAST_WRITE_SIZE elements."""
    b = ctx.b
    if ctx.is_static(index):
        t = ctx.static(index, "the index").reshape(-1).to(torch.int64).remainder(size)
        n = t.numel()
        order = (t * n + torch.arange(n)).argsort()   # by element, then position
        ordered = t[order]
        later = torch.zeros(n, dtype=torch.bool)
        later[order[:-1]] = ordered[1:] == ordered[:-1]
        return ctx.tensor(Known(later), "i1") if bool(later.any()) else None
    if n > MAX_LAST_WRITE_SIZE:
        return None
    same = b.compare("eq", b.reshape(flat, (n, 1)), b.reshape(flat, (1, n)))
    after = b.compare("gt", b.iota((n, n), 1), b.iota((n, n), 0))
    overwritten = b.select(after, same, ctx.tensor(False, "i1"))
    return b.compare("gt", b.reduce("sum", b.convert(overwritten, "i32"), [1]),
                     ctx.tensor(0, "i32"))


def index_put_rows(ctx, v, index, values, accumulate):
    """x[index] = values (or += with accumulate) for one integer index
    tensor over dim 0: values broadcast to index.shape + x.shape[1:].
    Where several writes name one row, accumulate sums them; without it
    the last write wins (torch's CPU loop, and its deterministic mode),
    and, as torch's index_put backward, every write's values get the
    row's gradient (a straight_through of the last writes to their sum).
    Through more than MAX_LAST_WRITE_SIZE traced indices duplicates sum."""
    b = ctx.b
    if v.dtype not in ("f16", "bf16", "f32", "f64"):
        # Integer and boolean tensors (DETR's target_classes[idx] = labels,
        # PyG's mask[idx] = True) are written as f64, exact below 2^53.
        if v.dtype.startswith("u") or v.dtype in ("i1", "i8", "i16", "i32", "i64"):
            values = ctx.tensor(values)
            wide = index_put_rows(ctx, b.convert(v, "f64"), index, b.convert(values, "f64"),
                                  accumulate)
            if v.dtype == "i1":
                return b.compare("ne", wide, ctx.tensor(0.0, "f64"))
            return b.convert(wide, v.dtype)
        ctx.unsupported(f"assignment at integer indices into {v.dtype} values has no tfc form",
                        "assign float values, or use torch.where with a mask")
    # x[-1] = v: negative indices count from the back, known or traced;
    # one out of range is an error at run time, as torch's.
    ids = _index_value(ctx, index_ids(ctx, index, v.shape[0], wrap_traced=True))
    ids = range_checked(ctx, ids, v.shape[0])
    n = math.prod(ids.shape)
    rows = b.reshape(b.broadcast_to(ctx.tensor(values, v.dtype), ids.shape + v.shape[1:]),
                     (n,) + v.shape[1:])
    flat = b.reshape(ids, (n,))
    added = _table(ctx, rows, flat, v.shape[0])
    if accumulate:
        return b.add(v, added)
    later = _later_writes(ctx, index, flat, n, v.shape[0])
    if later is not None:
        kept = b.select(b.reshape(later, (n,) + (1,) * (v.rank - 1)),
                        ctx.tensor(0.0, v.dtype), rows)
        added = b.straight_through(_table(ctx, kept, flat, v.shape[0]), added)
    ones = b.broadcast_to(ctx.tensor(1.0, v.dtype), (n,))
    hit = b.compare("gt", _table(ctx, ones, flat, v.shape[0]), ctx.tensor(0.0, v.dtype))
    hit = b.reshape(hit, (v.shape[0],) + (1,) * (v.rank - 1))
    return b.select(hit, added, v)


@lowers("aten.put.default")
@_exact_integers
def put(ctx, x, index, source, accumulate=False):
    """x.put(index, source, accumulate): the flattened x's elements at
    `index` (any shape, negative counting from the back) set to (or, with
    accumulate, increased by) source's, as one assignment at integer
    indices (index_put_rows; duplicates as there)."""
    b = ctx.b
    dt = _float_values(ctx, "put", integers=True)
    v = ctx.tensor(x, dt)
    values = b.reshape(ctx.tensor(source, dt), ctx.tensor(index).shape)
    flat = index_put_rows(ctx, b.reshape(v, (v.type.numel,)), index, values, accumulate)
    return b.reshape(flat, v.shape)


@lowers("aten.index_copy.default")
@_exact_integers
def index_copy(ctx, x, dim, index, source):
    """x.index_copy(dim, index, source): x's slices along dim at the 1-d
    `index` replaced by source's, as an assignment at integer indices with
    dim moved first (index_put_rows: the gradients are torch's, x's zero
    at the copied slices, source's x's gradient there)."""
    b = ctx.b
    dt = _float_values(ctx, "index_copy", integers=True)
    v, src = ctx.tensor(x, dt), ctx.tensor(source, dt)
    if v.rank == 0:
        return b.reshape(src, ())
    dim = norm_dim(dim, v.rank)
    moved, back = _moved_rows(ctx, v, dim)
    rows, _ = _moved_rows(ctx, src, dim)
    ids = b.reshape(ctx.tensor(index), (rows.shape[0],))
    return b.transpose(index_put_rows(ctx, moved, ids, rows, False), back)


@lowers("aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor")
@takes_masked
def index_fill(ctx, x, dim, index, value):
    """x.index_fill(dim, index, value): x's slices along dim at the 1-d
    `index` (negative counting from the back) set to value, selected by a
    mask of the filled slices (a scatter of ones), so a traced value's
    gradient sums each filled element once, as torch's (over the unique
    indices). Selected ids (`torch.nonzero(target == pad).squeeze()`, the
    Annotated Transformer's label smoothing) fill where a selected id
    names the slice."""
    b = ctx.b
    dt = ctx.out().dtype
    if isinstance(x, Masked) or isinstance(value, Masked):
        ctx.masked(x if isinstance(x, Masked) else value)
    v = ctx.tensor(x, dt)
    if v.rank == 0:
        return b.reshape(ctx.tensor(value, dt), ())
    dim = norm_dim(dim, v.rank)
    size = v.shape[dim]
    if isinstance(index, Masked):
        ids = b.reshape(b.convert(index.values, "i64"), (index.values.type.numel,))
        ids = b.select(b.compare("lt", ids, ctx.tensor(0, "i64")),
                       b.add(ids, ctx.tensor(size, "i64")), ids)
        named = b.compare("eq", b.reshape(ids, ids.shape + (1,)),
                          b.iota((1, size), 1, "i64"))
        selected = b.reshape(index.broadcast_rows(b), ids.shape + (1,))
        named = b.select(selected, named, ctx.tensor(False, "i1"))
        hit = b.compare("gt", b.reduce("max", b.convert(named, "i32"), [0]),
                        ctx.tensor(0, "i32"))
        hit = b.reshape(hit, (size,) + (1,) * (v.rank - dim - 1))
        return b.select(hit, b.reshape(ctx.tensor(value, dt), ()), v)
    ids = _index_value(ctx, index_ids(ctx, index, size, wrap_traced=True))
    ids = range_checked(ctx, b.reshape(ids, (ids.type.numel,)), size)
    ones = b.broadcast_to(ctx.tensor(1.0, "f32"), ids.shape)
    hit = b.compare("gt", _table(ctx, ones, ids, size), ctx.tensor(0.0, "f32"))
    hit = b.reshape(hit, (size,) + (1,) * (v.rank - dim - 1))
    return b.select(hit, b.reshape(ctx.tensor(value, dt), ()), v)
