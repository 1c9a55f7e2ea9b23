"""Shape and data-movement aten ops: views and reshapes, transposes,
slicing (slice/select/split/narrow), concatenation, padding, repetition,
gathers by index (index_select, gather, take, embedding-like rows) and the
scatter ops functionalization produces for slice assignments and in-place
writes through diagonals and as_strided views. Indexing (x[...], x[...] =
v, masks and nonzero) is ops/indexing.py."""
import torch

from ..constants import Known
from ..importer import Masked
from ..ir import Value
from .. import dtypes, masked
from ..registry import lowers, takes_masked
from .conv import windows
from .common import index_ids, norm_dim, range_checked


@lowers("aten.view.default", "aten._unsafe_view.default", "aten._reshape_alias.default",
        "aten.reshape.default", "aten.view_copy.default", "aten._reshape_alias_copy.default",
        "aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.default", "aten.squeeze.dims",
        "aten.flatten.using_ints", "aten.unflatten.int", "aten.unsqueeze_copy.default",
        "aten.squeeze_copy.dim", "aten.view.dtype")
def reshape(ctx, x, *args, **kwargs):
    t = ctx.out()
    v = ctx.tensor(x)
    if v.dtype != t.dtype:
        ctx.unsupported("reinterpreting a tensor's bits as another dtype has no tfc op")
    return ctx.b.reshape(v, t.shape)


@lowers("aten.expand.default", "aten.expand_copy.default", "aten.broadcast_to.default")
def expand(ctx, x, size, implicit=False):
    return ctx.b.broadcast_to(ctx.tensor(x), ctx.out().shape)


@lowers("aten.t.default", "aten.numpy_T.default", "aten.t_copy.default")
def t(ctx, x):
    v = ctx.tensor(x)
    return ctx.b.transpose(v, list(reversed(range(v.rank))))


@lowers("aten.transpose.int", "aten.transpose_copy.int", "aten.swapaxes.default",
        "aten.swapdims.default")
def transpose(ctx, x, d0, d1):
    v = ctx.tensor(x)
    if v.rank == 0:
        return v
    return ctx.b.swap(v, d0, d1)


@lowers("aten.permute.default", "aten.permute_copy.default")
def permute(ctx, x, dims):
    v = ctx.tensor(x)
    return ctx.b.transpose(v, [norm_dim(d, v.rank) for d in dims])


def _slice_bounds(size, start, end, step):
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end, step or 1


@lowers("aten.slice.Tensor", "aten.slice_copy.Tensor")
def slice_(ctx, x, dim=0, start=None, end=None, step=1):
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    s, e, st = _slice_bounds(v.shape[dim], start, end, step)
    if e <= s:
        # No elements, so no values: a constant that an op folds and cat
        # leaves out (GPT-NeoX's x[..., rotary_ndims:] at rotary_pct=1).
        out = ctx.out()
        return Known(torch.zeros(out.shape, dtype=dtypes.torch_dtype(out.dtype)))
    return ctx.b.slice_dim(v, dim, s, e, st)


@lowers("aten.narrow.default", "aten.narrow_copy.default")
def narrow(ctx, x, dim, start, length):
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    start = start + v.shape[dim] if start < 0 else start
    return ctx.b.slice_dim(v, dim, start, start + length)


def _select(ctx, v, dim, index):
    dim = norm_dim(dim, v.rank)
    index = index + v.shape[dim] if index < 0 else index
    part = ctx.b.slice_dim(v, dim, index, index + 1)
    return ctx.b.reshape(part, v.shape[:dim] + v.shape[dim + 1:])


@lowers("aten.select.int", "aten.select_copy.int")
def select(ctx, x, dim, index):
    return _select(ctx, ctx.tensor(x), dim, ctx.static(index, "the index"))


@lowers("aten.split.Tensor", "aten.split_with_sizes.default", "aten.split_copy.Tensor",
        "aten.split_with_sizes_copy.default", "aten.unsafe_split.Tensor",
        "aten.unsafe_split_with_sizes.default")
def split(ctx, x, sizes, dim=0):
    """Slices of `sizes` along dim (an int: pieces of that size, the last
    one shorter). The unsafe_ forms differ from split only in how torch's
    autograd checks later in-place writes to the pieces, which a
    functionalized trace no longer has (nn.LSTM/GRU split their gates so)."""
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    total = v.shape[dim]
    if isinstance(sizes, int):
        sizes = [min(sizes, total - s) for s in range(0, total, sizes)] if total else []
    parts, start = [], 0
    for size in sizes:
        parts.append(ctx.b.slice_dim(v, dim, start, start + size))
        start += size
    return parts


@lowers("aten.unsafe_chunk.default")
def unsafe_chunk(ctx, x, chunks, dim=0):
    """`chunks` pieces along dim of ceil(size / chunks) elements each (fewer
    pieces when they run out), as torch.chunk."""
    v = ctx.tensor(x)
    total = v.shape[norm_dim(dim, v.rank)]
    return split(ctx, v, max(-(-total // chunks), 1), dim)


@lowers("aten.unbind.int", "aten.unbind_copy.int")
def unbind(ctx, x, dim=0):
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    return [_select(ctx, v, dim, i) for i in range(v.shape[dim])]


def _is_empty(x) -> bool:
    """Whether a lowered argument is a tensor of no elements (a Known
    constant such as a cat accumulator's torch.zeros(B, 0, C), or a
    Value)."""
    if isinstance(x, Known):
        return x.tensor.numel() == 0
    return isinstance(x, Value) and x.type.numel == 0


@lowers("aten.cat.default", "aten.concat.default")
def cat(ctx, tensors, dim=0):
    """Operands without elements add nothing and are left out: torch's
    legacy 1-d [0] tensor of any rank's cat, and an accumulator started
    empty along the cat's dim (`outs = torch.zeros(B, 0, C)`, then
    `outs = torch.cat([outs, step], 1)` per step)."""
    t = ctx.out()
    if t.numel == 0:
        ctx.unsupported("the concatenation is empty; tfc tensors have no zero-sized dimensions")
    values = [ctx.tensor(x, t.dtype) for x in tensors if not _is_empty(x)]
    return ctx.b.concat(values, norm_dim(dim, t.rank))


@lowers("aten.stack.default")
def stack(ctx, tensors, dim=0):
    t = ctx.out()
    dim = norm_dim(dim, t.rank)
    values = []
    for x in tensors:
        v = ctx.tensor(x, t.dtype)
        values.append(ctx.b.reshape(v, v.shape[:dim] + (1,) + v.shape[dim:]))
    return ctx.b.concat(values, dim)


@lowers("aten.constant_pad_nd.default")
def constant_pad_nd(ctx, x, pad, value=0):
    v = ctx.tensor(x)
    low, high = [0] * v.rank, [0] * v.rank
    for i in range(len(pad) // 2):
        d = v.rank - 1 - i
        low[d], high[d] = pad[2 * i], pad[2 * i + 1]
    # Negative padding crops.
    if any(p < 0 for p in low + high):
        starts = [max(-l, 0) for l in low]
        limits = [s - max(-h, 0) for s, h in zip(v.shape, high)]
        v = ctx.b.slice(v, starts, limits)
        low, high = [max(l, 0) for l in low], [max(h, 0) for h in high]
    if not any(low + high):
        return v
    return ctx.b.pad(v, low, high, float(value))


@lowers("aten.repeat.default")
def repeat(ctx, x, repeats):
    b = ctx.b
    v = ctx.tensor(x)
    lead = len(repeats) - v.rank
    shape = (1,) * lead + v.shape
    v = b.reshape(v, shape)
    interleaved = []
    for s in shape:
        interleaved += [1, s]
    v = b.reshape(v, interleaved)
    target = []
    for r, s in zip(repeats, shape):
        target += [r, s]
    v = b.broadcast_to(v, target)
    return b.reshape(v, ctx.out().shape)


def gather_rows(ctx, table, ids):
    """table[ids] along dim 0 of `table` (any rank >= 1) with an embedding
    (a gather: tfc.embedding, whose table is float). Integer and boolean
    tables go through f64 rows, exactly: bool and i32 values as they are,
    i64 as its two 32-bit halves (v >> 32 and v & 0xffffffff, each exact in
    f64), joined again after the gather (a one-hot selection instead costs
    ids x rows: a sort's permutation of 4608 labels made 21M compares)."""
    b = ctx.b
    rest = table.shape[1:]
    width = 1
    for s in rest:
        width *= s
    rows = b.reshape(table, (table.shape[0], width))
    if ids.dtype not in ("i32", "i64"):
        ids = b.convert(ids, "i64")
    if rows.dtype.startswith(("f", "bf")):
        picked = b.embedding(rows, ids)
    elif rows.dtype == "i64":
        low = b.binary("bitwise_and", rows, ctx.tensor(0xFFFFFFFF, "i64"))
        high = b.binary("shift_right", rows, ctx.tensor(32, "i64"))
        halves = b.embedding(b.convert(b.concat([high, low], 1), "f64"), ids)
        high, low = (b.convert(b.slice(halves, [0] * ids.rank + [k * width],
                                       list(ids.shape) + [(k + 1) * width]), "i64")
                     for k in (0, 1))
        picked = b.binary("bitwise_or", b.binary("shift_left", high, ctx.tensor(32, "i64")), low)
    else:
        picked = b.convert(b.embedding(b.convert(rows, "f64"), ids), rows.dtype)
    return b.reshape(picked, ids.shape + rest)


@lowers("aten.flip.default")
def flip(ctx, x, dims):
    """x reversed along each of `dims`: a gather of its rows in reverse
    order (constant ids; the gradient scatters back)."""
    v = ctx.tensor(x)
    for d in sorted({norm_dim(d, v.rank) for d in dims}):
        if v.shape[d] < 2:
            continue
        v = select_along(ctx, v, d, ctx.tensor(Known(torch.arange(v.shape[d] - 1, -1, -1)), "i64"))
    return v


@lowers("aten.unfold.default")
def unfold(ctx, x, dim, size, step):
    """x.unfold(dim, size, step): the windows of `size` along dim, every
    `step`, as a dim of their count there and a last dim of size
    (conv.windows along dim moved last, then the two swapped back)."""
    b = ctx.b
    v = ctx.tensor(x)
    if v.rank == 0:
        return b.reshape(v, (1,))
    dim = norm_dim(dim, v.rank)
    last = v.rank - 1
    win, _ = windows(ctx, b.swap(v, dim, last), [size], [step], [0], [1], 0.0)
    return b.swap(b.swap(win, last, last + 1), dim, last)  # [.., count, .., size]


@lowers("aten.roll.default")
def roll(ctx, x, shifts, dims=()):
    """Elements shifted along each dim (the flattened tensor when `dims`
    is empty), wrapping around: two slices concatenated."""
    b = ctx.b
    v = ctx.tensor(x)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    flat = not dims
    if flat:
        v, dims = b.reshape(v, (v.type.numel,)), [0]
    for shift, d in zip(shifts, dims):
        d = norm_dim(d, v.rank)
        n = v.shape[d]
        k = shift % n if n else 0
        if k:
            v = b.concat([b.slice_dim(v, d, n - k, n), b.slice_dim(v, d, 0, n - k)], d)
    return b.reshape(v, ctx.out().shape) if flat else v


@lowers("aten.diagonal.default", "aten.diagonal_copy.default")
def diagonal(ctx, x, offset=0, dim1=0, dim2=1):
    """The diagonal of dims (dim1, dim2) as the last dim: those two moved
    last and flattened, then a strided slice (one element per row)."""
    b = ctx.b
    v = ctx.tensor(x)
    d1, d2 = norm_dim(dim1, v.rank), norm_dim(dim2, v.rank)
    rest = [d for d in range(v.rank) if d not in (d1, d2)]
    v = b.transpose(v, rest + [d1, d2])
    rows, cols = v.shape[-2], v.shape[-1]
    lead = tuple(v.shape[:-2])
    length = _diagonal_length(rows, cols, offset)
    start = offset if offset >= 0 else -offset * cols
    flat = b.reshape(v, lead + (rows * cols,))
    if length == 0:
        return b.slice_dim(flat, -1, 0, 0)
    return b.slice_dim(flat, -1, start, start + (length - 1) * (cols + 1) + 1, cols + 1)


@lowers("aten.diag_embed.default")
def diag_embed(ctx, x, offset=0, dim1=-2, dim2=-1):
    """Matrices whose `offset` diagonal over (dim1, dim2) holds x's last dim,
    zero elsewhere: x padded by |offset| and broadcast along the rows
    (offset >= 0: row i holds x[i]) or columns (below the diagonal: column
    j holds x[j]), kept where column - row == offset."""
    b = ctx.b
    t = ctx.out()
    v = ctx.tensor(x, t.dtype)
    m = v.shape[-1] + abs(offset)
    on, along = _along_diagonal(ctx, v, offset, m, m)
    zero = ctx.tensor(False if t.dtype == "i1" else 0, t.dtype)
    square = b.select(on, along, zero)  # [..., rows, cols]
    rank = t.rank
    d1, d2 = norm_dim(dim1, rank), norm_dim(dim2, rank)
    rest = iter(range(rank - 2))
    perm = [rank - 2 if d == d1 else rank - 1 if d == d2 else next(rest) for d in range(rank)]
    return b.transpose(square, perm)


def _diagonal_length(rows, cols, offset):
    """The length of a [rows, cols] matrix's offset-th diagonal."""
    if offset >= 0:
        return max(0, min(rows, cols - offset))
    return max(0, min(rows + offset, cols))


def _along_diagonal(ctx, v, offset, rows, cols):
    """v's last dim laid along the offset-th diagonal of [rows, cols]
    matrices: (the [rows, cols] mask where column - row == offset, v
    broadcastable to [..., rows, cols] holding v[k] at the diagonal's k-th
    element). The diagonal's k-th element lies in row k (offset >= 0) or
    column k (below the diagonal), so v, padded to that many rows or
    columns, runs down the rows or across the columns."""
    b = ctx.b
    span = rows if offset >= 0 else cols
    if v.shape[-1] < span:
        v = b.pad(v, [0] * v.rank, [0] * (v.rank - 1) + [span - v.shape[-1]], 0)
    along = b.reshape(v, tuple(v.shape[:-1]) + ((span, 1) if offset >= 0 else (1, span)))
    diff = b.sub(b.iota((rows, cols), 1), b.iota((rows, cols), 0))
    return b.compare("eq", diff, ctx.tensor(offset, "i64")), along


@lowers("aten.diagonal_scatter.default")
def diagonal_scatter(ctx, x, src, offset=0, dim1=0, dim2=1):
    """x with its offset-th diagonal over (dim1, dim2) replaced by src
    (laid out as diagonal's result: the diagonal last), what an in-place
    write through torch.diagonal traces to: a select, with dims (dim1,
    dim2) moved last, between src along the diagonal and x. src's
    gradient is the diagonal's, x's the gradient off the diagonal."""
    b = ctx.b
    v = ctx.tensor(x)
    d1, d2 = norm_dim(dim1, v.rank), norm_dim(dim2, v.rank)
    perm = [d for d in range(v.rank) if d not in (d1, d2)] + [d1, d2]
    moved = b.transpose(v, perm)
    rows, cols = moved.shape[-2:]
    if _diagonal_length(rows, cols, offset) == 0:
        return v
    on, along = _along_diagonal(ctx, ctx.tensor(src, v.dtype), offset, rows, cols)
    return b.transpose(b.select(on, along, moved), [perm.index(d) for d in range(v.rank)])


@lowers("aten.diag.default")
def diag(ctx, x, *args, **kwargs):
    """torch.diag: a vector's square matrix with it on the offset-th
    diagonal (diag_embed), a matrix's offset-th diagonal (diagonal)."""
    offset = args[0] if args else kwargs.get("diagonal", 0)
    if ctx.tensor(x).rank == 1:
        return diag_embed(ctx, x, offset)
    return diagonal(ctx, x, offset)


@lowers("aten.take.default")
def take(ctx, x, index):
    """x.flatten()[index] in index's shape (negative indices count from
    the back, as torch's): a lookup of the flattened elements as rows."""
    b = ctx.b
    v = ctx.tensor(x)
    numel = v.type.numel
    ids = index_ids(ctx, index, numel, wrap_traced=True)
    return gather_rows(ctx, b.reshape(v, (numel,)), ids)


def select_along(ctx, v, dim, ids):
    """v's entries at 1-d `ids` along `dim` (index_select)."""
    perm = [dim] + [d for d in range(v.rank) if d != dim]
    picked = gather_rows(ctx, ctx.b.transpose(v, perm), ids)  # [n, rest...]
    return ctx.b.transpose(picked, [perm.index(d) for d in range(v.rank)])


@lowers("aten.as_strided.default", "aten.as_strided_copy.default")
def as_strided(ctx, x, size, stride, storage_offset=None):
    """x.as_strided(size, stride, storage_offset): the elements at storage
    positions offset + sum_d i_d * stride_d, which torch counts in x's
    storage. The traced x has no storage, so the positions are mapped, at
    trace time, to the elements of x (its example's strides and offset
    say where each lies) and gathered from x flattened; its gradient sums
    where positions repeat, as torch's. Positions outside the storage, or
    on storage that x does not cover (x a slice of a larger tensor), and
    an x whose elements share storage (an expanded view) are refused."""
    b = ctx.b
    v = ctx.tensor(x)
    if any(n == 0 for n in size):
        ctx.unsupported("the result is empty; tfc tensors have no zero-sized dimensions")
    ids = _strided_elements(ctx, ctx.example(0), size, stride, storage_offset)
    numel = v.type.numel
    return gather_rows(ctx, b.reshape(v, (numel,)), ctx.tensor(Known(ids), "i64"))


def _strided_elements(ctx, real, size, stride, storage_offset):
    """The elements of `real` (flat, row-major indices, a torch tensor of
    shape `size`) that real.as_strided(size, stride, storage_offset)
    names: each storage position mapped to the element of `real` that lies
    there (its strides and offset say where each lies)."""
    offset = real.storage_offset() if storage_offset is None else storage_offset
    held = real.storage_offset() + sum(
        (torch.arange(n) * st).view([n if d == k else 1 for d in range(real.dim())])
        for k, (n, st) in enumerate(zip(real.shape, real.stride())))
    held = torch.as_tensor(held, dtype=torch.int64).reshape(-1)
    if held.unique().numel() != held.numel():
        ctx.unsupported("the input's elements share storage (an expanded view), so its "
                        "storage positions do not name single elements",
                        "call .contiguous() (or .clone()) before as_strided")
    want = offset + sum((torch.arange(n) * st).view([n if d == k else 1 for d in range(len(size))])
                        for k, (n, st) in enumerate(zip(size, stride)))
    want = torch.as_tensor(want, dtype=torch.int64).expand(tuple(size))
    storage = real.storage().size()
    if offset < 0 or bool((want >= storage).any()):
        ctx.unsupported(f"size {list(size)}, stride {list(stride)} and storage offset {offset} "
                        f"reach past the input's storage of {storage} elements")
    order = held.argsort()
    at = torch.searchsorted(held[order], want.reshape(-1)).clamp(max=held.numel() - 1)
    if not bool((held[order][at] == want.reshape(-1)).all()):
        ctx.unsupported("the strides reach storage that the input tensor does not cover "
                        "(it is a view of a larger tensor)",
                        "call .contiguous() (or .clone()) before as_strided")
    return order[at].reshape(tuple(size))


@lowers("aten.as_strided_scatter.default")
def as_strided_scatter(ctx, x, src, size, stride, storage_offset=None):
    """x with the elements that x.as_strided(size, stride, storage_offset)
    names replaced by src (what an in-place write through as_strided
    traces to: x.fill_diagonal_(v)). torch writes into a clone of x, so
    the positions are mapped (as as_strided's) to the elements of that
    clone, at trace time; each element of x then takes the src element
    written there (a gather of src flattened, by known indices) where it
    is written and keeps x's elsewhere (a select by a known mask): src's
    gradient is the written elements', x's the others'. Positions that
    name one element twice (torch leaves the winner undefined) are
    refused."""
    b = ctx.b
    v = ctx.tensor(x)
    if any(n == 0 for n in size):
        return v
    ids = _strided_elements(ctx, ctx.example(0).clone(), size, stride, storage_offset).reshape(-1)
    if ids.unique().numel() != ids.numel():
        ctx.unsupported(f"size {list(size)} and stride {list(stride)} name some elements more "
                        "than once, and torch leaves which write wins undefined",
                        "write through a view whose elements are distinct (e.g. a strided "
                        "slice, torch.diagonal)")
    numel = v.type.numel
    written = torch.zeros(numel, dtype=torch.bool)
    written[ids] = True
    source = torch.zeros(numel, dtype=torch.int64)
    source[ids] = torch.arange(ids.numel())
    s = ctx.tensor(src, v.dtype)
    placed = gather_rows(ctx, b.reshape(s, (s.type.numel,)), ctx.tensor(Known(source), "i64"))
    kept = b.select(ctx.tensor(Known(written), "i1"), placed, b.reshape(v, (numel,)))
    return b.reshape(kept, v.shape)


@lowers("aten.index_select.default")
def index_select(ctx, x, dim, index):
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    return select_along(ctx, v, dim, index_ids(ctx, index, v.shape[dim]))


# The largest one-hot selection (index elements x gathered-dim size) a
# gather builds; above it (a knn gather of features over 1024 points: 134M)
# it looks the elements up by their linear offsets (_gather_by_offsets).
ONE_HOT_GATHER_LIMIT = 1 << 22


def _gather_by_offsets(ctx, v, dim, ids):
    """v.gather(dim, ids) as one embedding lookup of single elements: each
    index element's linear offset in v's data, (ids[p] at `dim`, p's own
    coordinates elsewhere) dotted with v's strides. A v that broadcasts a
    smaller tensor (x.unsqueeze(1).expand(...), the knn gather of
    DGCNN / PointNet++) is read in that tensor, stride 0 along the
    broadcast dims, so the expansion is never materialized. Costs the
    index's size (the gradient: one scatter-add), not index x dim size."""
    b = ctx.b
    base = v
    if v.op is not None and v.op.name == "tfc.broadcast_to":
        base = v.op.operands[0]
    shape = (1,) * (v.rank - base.rank) + tuple(base.shape)
    strides, step = [0] * v.rank, 1
    for d in reversed(range(v.rank)):
        if shape[d] != 1:
            strides[d] = step
        step *= shape[d]
    if strides[dim] == 0:  # the gathered dim broadcast: every index reads offset 0 there
        offsets = ctx.tensor(0, "i64", ids.shape)
    else:
        offsets = b.mul(ids, ctx.tensor(strides[dim], "i64"))
    for d in range(v.rank):
        if d != dim and strides[d] and ids.shape[d] > 1:
            offsets = b.add(offsets, b.mul(b.iota(ids.shape, d, "i64"),
                                           ctx.tensor(strides[d], "i64")))
    table = b.reshape(base, (base.type.numel, 1))
    return b.reshape(b.embedding(table, b.broadcast_to(offsets, ids.shape)), ids.shape)


@lowers("aten.gather.default")
@takes_masked
def gather(ctx, x, dim, index, sparse_grad=False):
    """x.gather(dim, index) as a one-hot selection (no gather op in tfc):
    out[..., k] = sum_c x[..., c] * (index[..., k] == c) along `dim`; a
    traced index is range-checked at run time (range_checked)."""
    b = ctx.b
    if isinstance(x, Masked) or isinstance(index, Masked) and (
            ctx.tensor(x).rank != 1 or norm_dim(dim, 1) != 0):
        return masked.lower(ctx, gather, (x, dim, index), {"sparse_grad": sparse_grad})
    v = ctx.tensor(x)
    if isinstance(index, Masked):
        # w.gather(0, ids[mask]): the gathered values under the same mask
        # (masked-out ids replaced by 0, so the lookup stays in range).
        ids = b.select(index.rows, index.values, ctx.tensor(0, index.values.dtype))
        picked = gather_rows(ctx, b.reshape(v, (v.shape[0], 1)), ids)
        return index.like(b.reshape(picked, ids.shape))
    dim = norm_dim(dim, v.rank)
    ids = range_checked(ctx, index_ids(ctx, index, v.shape[dim], "i64"), v.shape[dim])
    if any(a < i for d, (a, i) in enumerate(zip(v.shape, ids.shape)) if d != dim):
        ctx.unsupported("the index is larger than the input outside the gathered dimension")
    if v.dtype.startswith(("f", "bf")) and ids.type.numel * v.shape[dim] > ONE_HOT_GATHER_LIMIT:
        return _gather_by_offsets(ctx, v, dim, ids)
    last = v.rank - 1
    if dim != last:
        v = b.swap(v, dim, last)
        ids = b.swap(ids, dim, last)
    lead_v, lead_i = v.shape[:-1], ids.shape[:-1]
    if any(a < i for a, i in zip(lead_v, lead_i)):
        ctx.unsupported("the index is larger than the input outside the gathered dimension")
    if lead_v != lead_i:
        v = b.slice(v, [0] * v.rank, list(lead_i) + [v.shape[-1]])
    classes = v.shape[-1]
    onehot_shape = ids.shape + (classes,)
    onehot = b.compare("eq", b.iota(onehot_shape, -1),
                       b.reshape(ids, ids.shape + (1,)))
    expanded = b.reshape(v, v.shape[:-1] + (1, classes))
    picked = b.select(onehot, expanded, ctx.tensor(0.0 if v.dtype.startswith(("f", "b")) else 0,
                                                    v.dtype))
    out = b.reduce("sum", picked, [-1])
    if dim != last:
        out = b.swap(out, dim, last)
    return out


@lowers("aten.slice_scatter.default")
def slice_scatter(ctx, x, src, dim=0, start=None, end=None, step=1):
    b = ctx.b
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    lo, hi, st = _slice_bounds(v.shape[dim], start, end, step)
    if lo >= hi or any(n == 0 for n in ctx.out().shape):
        # x[a:a] = v (torchvision Swin's shift mask on a non-square map):
        # an empty slice, nothing written.
        return v
    s = ctx.tensor(src, v.dtype)
    if st != 1:
        # x[..., lo:hi:st] = src (pe[:, 0::2] = sin(...), torch's own
        # LowRankMultivariateNormal): src spread along dim by a known
        # gather, selected at the written positions.
        n = v.shape[dim]
        position = torch.arange(n)
        written = (position >= lo) & (position < hi) & ((position - lo) % st == 0)
        ids = ((position - lo) // st).clamp(0, s.shape[dim] - 1)
        spread = select_along(ctx, s, dim, ctx.tensor(Known(ids), "i64"))
        mask = ctx.tensor(Known(written.view((n,) + (1,) * (v.rank - dim - 1))), "i1")
        return b.select(mask, spread, v)
    parts = []
    if lo > 0:
        parts.append(b.slice_dim(v, dim, 0, lo))
    parts.append(s)
    if hi < v.shape[dim]:
        parts.append(b.slice_dim(v, dim, hi, v.shape[dim]))
    return b.concat(parts, dim)


@lowers("aten.select_scatter.default")
def select_scatter(ctx, x, src, dim, index):
    v = ctx.tensor(x)
    dim = norm_dim(dim, v.rank)
    index = index + v.shape[dim] if index < 0 else index
    s = ctx.tensor(src, v.dtype)
    s = ctx.b.reshape(s, s.shape[:dim] + (1,) + s.shape[dim:])
    return slice_scatter(ctx, v, s, dim, index, index + 1)


@lowers("aten.tril.default", "aten.triu.default")
def triangle(ctx, x, diagonal=0):
    b = ctx.b
    v = ctx.tensor(x)
    rows, cols = v.shape[-2:]
    i, j = b.iota((rows, cols), 0), b.iota((rows, cols), 1)
    direction = "le" if ctx.name.startswith("aten.tril") else "ge"
    keep = b.compare(direction, b.sub(j, i), b.splat(diagonal, "i64"))
    zero = ctx.tensor(False if v.dtype == "i1" else 0, v.dtype)
    return b.select(keep, v, zero)
