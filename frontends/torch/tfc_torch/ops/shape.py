"""Shape and data-movement aten ops: views and reshapes, transposes,
slicing (slice/select/split/narrow), concatenation, padding, repetition,
gathers by index (index, index_select, gather, embedding-like) and the
scatter ops functionalization produces for slice assignments and in-place
writes through diagonals and as_strided views."""
import math
from typing import Optional

import torch

from ..builder import broadcast_shapes
from ..constants import Known
from ..importer import Masked
from ..ir import Value
from .. import dtypes, masked
from ..registry import lowers, refuse, takes_masked
from . import reduction, scatter
from .conv import windows
from .common import index_ids, norm_dim


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
    """table[ids] along dim 0 of `table` (any rank >= 1) with an embedding;
    an integer or boolean table (tfc.embedding's is float) by a one-hot
    selection of its rows, summed (exact: one row is picked)."""
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
    else:
        count = rows.shape[0]
        onehot = b.compare("eq", b.iota(ids.shape + (count, 1), ids.rank, ids.dtype),
                           b.reshape(ids, ids.shape + (1, 1)))
        values = rows if rows.dtype != "i1" else b.convert(rows, "i32")
        picked = b.reduce("sum", b.select(onehot, values, ctx.tensor(0, values.dtype)),
                          [ids.rank])
        if rows.dtype == "i1":
            picked = b.compare("ne", picked, ctx.tensor(0, "i32"))
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


@lowers("aten.gather.default")
@takes_masked
def gather(ctx, x, dim, index, sparse_grad=False):
    """x.gather(dim, index) as a one-hot selection (no gather op in tfc):
    out[..., k] = sum_c x[..., c] * (index[..., k] == c) along `dim`."""
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
    ids = index_ids(ctx, index, v.shape[dim], "i64")
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

@lowers("aten.slice_scatter.default")
def slice_scatter(ctx, x, src, dim=0, start=None, end=None, step=1):
    b = ctx.b
    v = ctx.tensor(x)
    s = ctx.tensor(src, v.dtype)
    dim = norm_dim(dim, v.rank)
    lo, hi, st = _slice_bounds(v.shape[dim], start, end, step)
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


refuse(["aten.unique.default",
        "aten._unique2.default", "aten.unique_dim.default", "aten.unique_consecutive.default",
        "aten.repeat_interleave.Tensor"],
       "its output shape depends on tensor values",
       "tfc compiles static shapes: keep every tensor's shape independent of the data "
       "(torch.where / masked_fill instead of boolean indexing or nonzero)")
