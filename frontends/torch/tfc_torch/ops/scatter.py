"""Scatters by index: scatter_add, scatter (src / value), index_add and
integer-indexed assignment (x[idx] = v, x[idx] += v). Each is one
tfc.embedding_grad, the deterministic scatter-add kernel (its VJP is an
embedding lookup, so the gradient of the scattered values is torch's
gather): the written positions are flattened into rows of a table, the
values summed into them in increasing position order.

Where several positions write one element, torch's scatter and assignment
leave which write wins undefined; tfc sums them (known indices with such
duplicates are refused). Only float values are scattered (embedding_grad's
rows are float)."""
import math

from ..registry import lowers
from .common import index_ids, norm_dim


def _float_values(ctx, what):
    dt = ctx.out().dtype
    if dt not in ("f16", "bf16", "f32", "f64"):
        ctx.unsupported(f"{what} of {dt} values has no tfc form (tfc scatters float values)",
                        "scatter floats and convert, or use one-hot arithmetic")
    return dt


def _index_value(ctx, index):
    """The index as an i64 Value (negative known entries are invalid for
    scatters in torch, so they are not wrapped)."""
    ids = ctx.tensor(index)
    if ids.dtype not in ("i32", "i64"):
        ctx.unsupported(f"a {ids.dtype} index", "index with integer tensors")
    return ids if ids.dtype == "i64" else ctx.b.convert(ids, "i64")


def _refuse_duplicates(ctx, index, dim=None, size=None):
    """Known indices that write one element twice (scatter, assignment):
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


@lowers("aten.scatter_add.default")
def scatter_add(ctx, x, dim, index, src):
    dt = _float_values(ctx, "scatter_add")
    v = ctx.tensor(x, dt)
    ids = _index_value(ctx, index)
    return ctx.b.add(v, _scatter_sum(ctx, v.shape, dim, ids, ctx.tensor(src, dt)))


def _scatter_into(ctx, v, dim, index, values):
    """v with the elements `index` writes along `dim` replaced by `values`
    (a Value of index's shape, or a scalar)."""
    b = ctx.b
    _refuse_duplicates(ctx, index, norm_dim(dim, v.rank))
    ids = _index_value(ctx, index)
    ones = b.broadcast_to(ctx.tensor(1.0, v.dtype), ids.shape)
    hit = b.compare("gt", _scatter_sum(ctx, v.shape, dim, ids, ones), ctx.tensor(0.0, v.dtype))
    if not isinstance(values, (int, float)):
        values = _scatter_sum(ctx, v.shape, dim, ids, values)
    return b.select(hit, ctx.tensor(values, v.dtype), v)


@lowers("aten.scatter.src")
def scatter_src(ctx, x, dim, index, src):
    dt = _float_values(ctx, "scatter")
    return _scatter_into(ctx, ctx.tensor(x, dt), dim, index, ctx.tensor(src, dt))


@lowers("aten.scatter.value")
def scatter_value(ctx, x, dim, index, value):
    dt = _float_values(ctx, "scatter")
    return _scatter_into(ctx, ctx.tensor(x, dt), dim, index, float(value))


def _moved_rows(ctx, v, dim):
    """v with `dim` moved to the front, and the permutation that undoes it."""
    perm = [dim] + [d for d in range(v.rank) if d != dim]
    return ctx.b.transpose(v, perm), [perm.index(d) for d in range(v.rank)]


@lowers("aten.index_add.default")
def index_add(ctx, x, dim, index, source, alpha=1):
    """self.index_add(dim, index, source, alpha): source's slices along dim,
    times alpha, added into self's slices at `index` (1-d)."""
    b = ctx.b
    dt = _float_values(ctx, "index_add")
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


def index_put_rows(ctx, v, index, values, accumulate):
    """x[index] = values (or += with accumulate) for one integer index
    tensor over dim 0: values broadcast to index.shape + x.shape[1:]."""
    b = ctx.b
    if v.dtype not in ("f16", "bf16", "f32", "f64"):
        ctx.unsupported(f"assignment at integer indices into {v.dtype} values has no tfc form",
                        "assign float values, or use torch.where with a mask")
    if not accumulate:
        _refuse_duplicates(ctx, index, size=v.shape[0])
    # x[-1] = v: negative indices count from the back, known or traced.
    ids = _index_value(ctx, index_ids(ctx, index, v.shape[0], wrap_traced=True))
    n = math.prod(ids.shape)
    rows = b.reshape(b.broadcast_to(ctx.tensor(values, v.dtype), ids.shape + v.shape[1:]),
                     (n,) + v.shape[1:])
    flat = b.reshape(ids, (n,))
    added = _table(ctx, rows, flat, v.shape[0])
    if accumulate:
        return b.add(v, added)
    ones = b.broadcast_to(ctx.tensor(1.0, v.dtype), (n,))
    hit = b.compare("gt", _table(ctx, ones, flat, v.shape[0]), ctx.tensor(0.0, v.dtype))
    hit = b.reshape(hit, (v.shape[0],) + (1,) * (v.rank - 1))
    return b.select(hit, added, v)
