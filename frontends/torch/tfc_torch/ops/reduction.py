"""Reductions: sum, nansum, mean, prod, any/all, count_nonzero, amax/amin/aminmax,
max/min, argmax/argmin, sort/topk, var/std, logsumexp, vector norms and
the cumulative scans (cumsum, cumprod, cummax/cummin, logcumsumexp),
bucketize / searchsorted (a compare and count) and histc (a scatter-add).
Reductions over every dimension are tfc reductions over all dims; integer
and boolean sums accumulate in the traced result type."""
import math
import operator

import torch

from .. import dtypes
from ..registry import lowers
from .common import norm_dim, norm_dims, promoted


def _input(ctx, x, dtype):
    return ctx.tensor(x, dtype)


@lowers("aten.sum.default", "aten.sum.dim_IntList", "aten.sum.dim_DimnameList")
def sum_(ctx, x, dims=None, keepdim=False, dtype=None):
    t = ctx.out()
    v = _input(ctx, x, t.dtype)
    return ctx.b.reduce("sum", v, norm_dims(dims, v.rank), keepdim)


@lowers("aten.mean.default", "aten.mean.dim")
def mean(ctx, x, dims=None, keepdim=False, dtype=None):
    t = ctx.out()
    v = _input(ctx, x, t.dtype)
    return ctx.b.reduce("mean", v, norm_dims(dims, v.rank), keepdim)


def _max(ctx, x, dims, keepdim, dtype, negate=False):
    b = ctx.b
    v = _input(ctx, x, dtype)
    if negate:
        return b.unary("neg", b.reduce("max", b.unary("neg", v), norm_dims(dims, v.rank), keepdim))
    return b.reduce("max", v, norm_dims(dims, v.rank), keepdim)


@lowers("aten.amax.default", "aten.max.default")
def amax(ctx, x, dims=None, keepdim=False):
    return _max(ctx, x, dims, keepdim, ctx.out().dtype)


@lowers("aten.amin.default", "aten.min.default")
def amin(ctx, x, dims=None, keepdim=False):
    return _max(ctx, x, dims, keepdim, ctx.out().dtype, negate=True)


@lowers("aten.aminmax.default")
def aminmax(ctx, x, dim=None, keepdim=False):
    """(amin, amax) along dim (of every element when None). torch 1.13 has
    no derivative for aminmax (its backward raises); tfc gives amin's and
    amax's (a tie splits the gradient evenly)."""
    dt = ctx.out(0).dtype
    dims = None if dim is None else [dim]
    low = _max(ctx, x, dims, keepdim, dt, negate=True)
    high = _max(ctx, x, dims, keepdim, dt)
    return ctx.b.reshape(low, ctx.out(0).shape), ctx.b.reshape(high, ctx.out(1).shape)


@lowers("aten.nansum.default")
def nansum(ctx, x, dims=None, keepdim=False, dtype=None):
    """The sum with NaN elements counted as zero; their gradient is zero
    (torch's nansum backward masks it). torch.nanmean traces to this over
    a count of the non-NaN elements."""
    b, t = ctx.b, ctx.out()
    v = _input(ctx, x, t.dtype)
    if v.dtype.startswith(("f", "bf")):
        v = b.select(b.compare("ne", v, v), ctx.tensor(0.0, v.dtype), v)
    return b.reshape(b.reduce("sum", v, norm_dims(dims, v.rank), keepdim), t.shape)


def first_extreme_index(ctx, v, dim, dtype):
    """The first index of the largest element of `v` along `dim` (kept as a
    size-1 dim), NaN counting as the largest, as torch's argmax: the
    elements equal to the reduce_max (or NaN) select their index counted
    from the end, whose reduce_max is the first hit."""
    b = ctx.b
    hit = b.compare("eq", v, b.reduce("max", v, [dim], keepdim=True))
    if v.dtype.startswith(("f", "bf")):
        hit = b.select(b.compare("ne", v, v), ctx.tensor(True, "i1"), hit)
    last = ctx.tensor(v.shape[dim] - 1, dtype)
    from_end = b.sub(last, b.iota(v.shape, dim, dtype))
    best = b.reduce("max", b.select(hit, from_end, ctx.tensor(-1, dtype)), [dim], True)
    return b.sub(last, best)


def picked_along(ctx, v, dim, index):
    """v's element at `index` (a size-1 dim) along `dim`: its value with the
    gradient going to that element alone (torch's max(dim), topk). The
    value is the exact element; the one-hot sum that carries the gradient
    would turn -0 into +0."""
    b = ctx.b
    onehot = b.compare("eq", b.iota(v.shape, dim, index.dtype), index)
    zero = ctx.tensor(0.0 if v.dtype.startswith(("f", "bf")) else 0, v.dtype)
    summed = b.reduce("sum", b.select(onehot, v, zero), [dim], keepdim=True)
    exact = b.reduce("max", b.select(onehot, v, ctx.tensor(float("-inf"), v.dtype)), [dim],
                     keepdim=True) if v.dtype.startswith(("f", "bf")) else summed
    return b.straight_through(exact, summed) if exact is not summed else summed


@lowers("aten.max.dim", "aten.min.dim")
def max_dim(ctx, x, dim, keepdim=False):
    """(values, indices) along dim: the first extreme element, whose
    gradient is its own (torch's max(dim) backward scatters to the index;
    amax's splits ties evenly)."""
    b = ctx.b
    is_max = ctx.name == "aten.max.dim"
    v = _input(ctx, x, ctx.out(0).dtype)
    dim = norm_dims(dim, v.rank)[0]
    index = first_extreme_index(ctx, v if is_max else b.unary("neg", v), dim, ctx.out(1).dtype)
    values = picked_along(ctx, v, dim, index)
    return (b.reshape(values, ctx.out(0).shape), b.reshape(index, ctx.out(1).shape))


# Up to this many elements along its dim, sort ranks every element against
# every other (n x n comparisons per row, ops that fuse with what reads the
# result); longer rows are sorted by tfc.sort (a kernel of its own).
MAX_SORT_SIZE = 4096
# topk picks its k elements one by one (a few ops per pick); for more than
# this many it takes the first k of the sort.
MAX_TOPK_PICKS = 32


def _widening_narrow_integers(sort):
    """`sort(ctx, v, dim, descending)` with narrow integers (u8, i8, i16,
    bool) sorted as i64 and their values converted back (tfc.sort orders
    numeric types; the rank form's placing sum reduces in the values'
    type)."""
    def wrapped(ctx, v, dim, descending):
        if dtypes.is_float(v.dtype) or v.dtype in ("i32", "i64"):
            return sort(ctx, v, dim, descending)
        values, indices = sort(ctx, ctx.b.convert(v, "i64"), dim, descending)
        return ctx.b.convert(values, v.dtype), indices
    return wrapped


@_widening_narrow_integers
def sorted_rows(ctx, v, dim, descending):
    """v stably sorted along dim by tfc.sort, as (values, i64 indices): ties
    in index order, NaN last ascending and first descending (torch's stable
    sort); each value's gradient goes to its own element (the op's VJP).
    Rows of any length."""
    b = ctx.b
    last = v.rank - 1
    vt = b.swap(v, dim, last) if dim != last else v
    values, indices = b.sort(vt, descending)
    if dim != last:
        values, indices = b.swap(values, dim, last), b.swap(indices, dim, last)
    return values, indices


def _sorted(ctx, v, dim, descending):
    """_sorted_by_rank for rows of up to MAX_SORT_SIZE, tfc.sort past it."""
    if v.shape[dim] > MAX_SORT_SIZE:
        return sorted_rows(ctx, v, dim, descending)
    return _sorted_by_rank(ctx, v, dim, descending)


def _lowest(ctx, dtype):
    return ctx.tensor(float("-inf") if dtype.startswith(("f", "bf")) else
                      -(2 ** 31 if dtype == "i32" else 2 ** 63), dtype)


def _ranked(ctx, v, dim, k, largest):
    """The first k elements of v along dim in descending (largest) or
    ascending order, as (values, i64 indices), ties in index order and NaN
    counting as the largest, as torch's topk and stable sort: k picks of
    the first extreme element among those not yet taken, each value's
    gradient going to its own element."""
    b = ctx.b
    is_float = v.dtype.startswith(("f", "bf"))
    key = v if largest else b.unary("neg", v)
    nan = b.compare("ne", v, v) if is_float else None
    if nan is not None and not largest:
        key = b.select(nan, _lowest(ctx, v.dtype), key)  # NaN comes last
    lowest = _lowest(ctx, v.dtype)
    positions = b.iota(v.shape, dim, "i64")
    last = ctx.tensor(v.shape[dim] - 1, "i64")
    from_end = b.sub(last, positions)
    taken = None
    values, indices = [], []
    for _ in range(k):
        work = key if taken is None else b.select(taken, lowest, key)
        hit = b.compare("eq", work, b.reduce("max", work, [dim], keepdim=True))
        if nan is not None and largest:
            hit = b.select(nan, ctx.tensor(True, "i1"), hit)
        if taken is not None:
            hit = b.select(taken, ctx.tensor(False, "i1"), hit)
        if nan is not None and not largest:
            # Among equal keys, a NaN (keyed lowest) only after the others.
            real = b.select(nan, ctx.tensor(False, "i1"), hit)
            any_real = b.compare("gt", b.reduce("max", b.convert(real, "i32"), [dim], True),
                                 ctx.tensor(0, "i32"))
            hit = b.select(any_real, real, hit)
        best = b.reduce("max", b.select(hit, from_end, ctx.tensor(-1, "i64")), [dim], True)
        index = b.sub(last, best)
        values.append(picked_along(ctx, v, dim, index))
        indices.append(index)
        chosen = b.compare("eq", positions, index)
        taken = chosen if taken is None else b.select(chosen, ctx.tensor(True, "i1"), taken)
    return b.concat(values, dim), b.concat(indices, dim)


@_widening_narrow_integers
def _sorted_by_rank(ctx, v, dim, descending):
    """v sorted along dim as (values, i64 indices): stable (ties in index
    order), NaN last ascending and first descending, as torch's sort. Each
    element's rank is the number of elements that go before it (one n x n
    comparison per row); the permutation's one-hot matrix then places the
    elements, each value the exact element with its gradient going to it
    alone (picked_along's scheme, over the rank's one-hot)."""
    b = ctx.b
    last = v.rank - 1
    vt = b.swap(v, dim, last) if dim != last else v
    n = vt.shape[-1]
    lead = vt.shape[:-1]
    me = b.reshape(vt, lead + (n, 1))       # element i
    other = b.reshape(vt, lead + (1, n))    # element j
    before = b.compare("gt" if descending else "lt", other, me)
    tie = b.compare("eq", other, me)
    if v.dtype.startswith(("f", "bf")):
        me_nan, other_nan = b.compare("ne", me, me), b.compare("ne", other, other)
        false = ctx.tensor(False, "i1")
        # A NaN goes after every number ascending, before them descending;
        # NaNs tie with each other.
        first, second = (other_nan, me_nan) if descending else (me_nan, other_nan)
        before = b.select(b.select(first, b.select(second, false, ctx.tensor(True, "i1")),
                                   false), ctx.tensor(True, "i1"), before)
        tie = b.select(me_nan, other_nan, tie)
    earlier = b.compare("lt", b.iota((n, n), 1, "i64"), b.iota((n, n), 0, "i64"))
    goes_first = b.select(tie, b.broadcast_to(earlier, tie.shape), before)
    rank = b.reduce("sum", b.convert(goes_first, "i64"), [-1])          # [lead, n] by i
    # onehot[r, i]: element i lands at position r.
    onehot = b.compare("eq", b.iota(lead + (n, 1), len(lead), "i64"),
                       b.reshape(rank, lead + (1, n)))
    zero = ctx.tensor(0, "i64")
    indices = b.reduce("sum", b.select(onehot, b.iota(lead + (1, n), len(lead) + 1, "i64"),
                                       zero), [-1])
    spread = b.broadcast_to(other, onehot.shape)
    if v.dtype.startswith(("f", "bf")):
        summed = b.reduce("sum", b.select(onehot, spread, ctx.tensor(0.0, v.dtype)), [-1])
        exact = b.reduce("max", b.select(onehot, spread, ctx.tensor(float("-inf"), v.dtype)),
                         [-1])
        values = b.straight_through(exact, summed)
    else:
        values = b.reduce("sum", b.select(onehot, spread, ctx.tensor(0, v.dtype)), [-1])
    if dim != last:
        values, indices = b.swap(values, dim, last), b.swap(indices, dim, last)
    return values, indices


@lowers("aten.topk.default")
def topk(ctx, x, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest) along dim, in order (torch's order for
    sorted=False is unspecified; this is one)."""
    v = _input(ctx, x, ctx.out(0).dtype)
    dim = norm_dims(dim, v.rank)[0] if v.rank else 0
    if v.rank == 0 or k == 0:
        ctx.unsupported("topk of a scalar or with k = 0")
    if k > MAX_TOPK_PICKS:
        # The first k of the sort: the rank form for short rows, tfc.sort for
        # longer ones (OHEM over a full-resolution loss map).
        values, indices = _sorted(ctx, v, dim, largest)
        limit = list(v.shape)
        limit[dim] = k
        values = ctx.b.slice(values, [0] * v.rank, limit)
        indices = ctx.b.slice(indices, [0] * v.rank, limit)
    else:
        values, indices = _ranked(ctx, v, dim, k, largest)
    return values, ctx.tensor(indices, ctx.out(1).dtype)


def _prefix_read(ctx, dim, rank, n):
    """k when every read of the node's results is a slice [0:k] (step 1)
    along `dim`, possibly after whole slices of other dims (x[:, :, :k]
    traces as one slice per dim), k < n the largest such end; else None."""
    sizes = ctx.out(0).shape

    def prefix(node):
        k = 0
        for use in node.users:
            args = list(use.args) + [None] * 5
            if str(use.target) != "aten.slice.Tensor" or args[0] is not node:
                return None
            d, start, end, step = args[1], args[2] or 0, args[3], args[4] or 1
            if not isinstance(d, int) or start != 0 or step != 1 or not isinstance(end, int):
                return None
            d = norm_dims(d, rank)[0]
            if d == dim:
                k = max(k, min(end, n))
            elif end >= sizes[d]:  # the whole dim: what reads it counts
                inner = prefix(use)
                if inner is None:
                    return None
                k = max(k, inner)
            else:
                return None
        return k

    k = 0
    for user in ctx.node.users:
        inner = prefix(user) if user.target is operator.getitem else None
        if inner is None:
            return None
        k = max(k, inner)
    return k if 0 < k < n else None


@lowers("aten.sort.default", "aten.sort.stable")
def sort(ctx, x, *args, **kwargs):
    """A stable sort (ties in index order, NaN last ascending, first
    descending) along dim: ranks for rows of up to MAX_SORT_SIZE elements
    (_sorted_by_rank), tfc.sort for longer ones."""
    if ctx.name == "aten.sort.stable":  # sort.stable(self, *, stable, dim, descending)
        dim, descending = kwargs.get("dim", -1), kwargs.get("descending", False)
    else:
        dim = args[0] if args else kwargs.get("dim", -1)
        descending = args[1] if len(args) > 1 else kwargs.get("descending", False)
    v = _input(ctx, x, ctx.out(0).dtype)
    if v.rank == 0:
        return v, ctx.tensor(0, ctx.out(1).dtype)
    dim = norm_dims(dim, v.rank)[0]
    n = v.shape[dim]
    k = _prefix_read(ctx, dim, v.rank, n)
    if k is not None and k <= MAX_TOPK_PICKS:
        # Only the first k sorted elements are read (PointNet++'s ball
        # query: group_idx.sort(-1)[0][..., :nsample]): k picks, O(k n) a
        # row instead of the n x n ranks; the rest of the result is zeros
        # nothing reads.
        values, indices = _ranked(ctx, v, dim, k, descending)
        low, high = [0] * v.rank, [0] * v.rank
        high[dim] = n - k
        return (ctx.b.pad(values, low, high, 0.0),
                ctx.b.pad(ctx.tensor(indices, ctx.out(1).dtype), low, high, 0))
    values, indices = _sorted(ctx, v, dim, descending)
    return values, ctx.tensor(indices, ctx.out(1).dtype)


@lowers("aten.argsort.stable")
def argsort_stable(ctx, x, *, stable=True, dim=-1, descending=False):
    """torch.argsort(x, stable=True): the indices of the stable sort."""
    v = ctx.tensor(x)
    if v.rank == 0:
        return ctx.tensor(0, ctx.out().dtype)
    _, indices = _sorted(ctx, v, norm_dims(dim, v.rank)[0], descending)
    return ctx.tensor(indices, ctx.out().dtype)


@lowers("aten.argmax.default", "aten.argmin.default")
def argmax(ctx, x, dim=None, keepdim=False):
    """The first index of the largest (argmin: smallest) element along
    `dim` (of all elements when None), NaN counting as the largest, as in
    torch (first_extreme_index)."""
    b = ctx.b
    t = ctx.out()
    v = ctx.tensor(x)
    if dim is None:
        v, dim = b.reshape(v, (v.type.numel,)), 0
    dim = norm_dims(dim, v.rank)[0]
    if ctx.name == "aten.argmin.default":
        v = b.unary("neg", v)
    return b.reshape(first_extreme_index(ctx, v, dim, t.dtype), t.shape)


def _variance(ctx, x, dims, correction, keepdim):
    b = ctx.b
    v = _input(ctx, x, ctx.out(0).dtype if len(ctx.out_types) > 1 else ctx.out().dtype)
    dims = norm_dims(dims, v.rank)
    mean = b.reduce("mean", v, dims, keepdim=True)
    centered = b.sub(v, mean)
    squares = b.reduce("sum", b.mul(centered, centered), dims, keepdim)
    n = 1
    for d in dims:
        n *= v.shape[d]
    denominator = max(n - (1 if correction is None else correction), 0)
    return b.div(squares, ctx.tensor(float(denominator), v.dtype)), (mean if keepdim else
                                                                      b.reshape(mean, squares.shape))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


@lowers("aten.var.correction", "aten.var.dim", "aten.var.default")
def var(ctx, x, dims=None, unbiased=None, keepdim=False, correction=None):
    if isinstance(dims, bool):  # var.default(x, unbiased)
        dims, unbiased = None, dims
    return _variance(ctx, x, dims, _correction(unbiased, correction), keepdim)[0]


@lowers("aten.std.correction", "aten.std.dim", "aten.std.default")
def std(ctx, x, dims=None, unbiased=None, keepdim=False, correction=None):
    if isinstance(dims, bool):
        dims, unbiased = None, dims
    return _safe_root(ctx, _variance(ctx, x, dims, _correction(unbiased, correction), keepdim)[0])


@lowers("aten.var_mean.correction", "aten.var_mean.dim")
def var_mean(ctx, x, dims=None, unbiased=None, keepdim=False, correction=None):
    variance, mean = _variance(ctx, x, dims, _correction(unbiased, correction), keepdim)
    return variance, mean


@lowers("aten.logsumexp.default")
def logsumexp(ctx, x, dims, keepdim=False):
    b = ctx.b
    v = _input(ctx, x, ctx.out().dtype)
    dims = norm_dims(dims, v.rank)
    peak = b.reduce("max", v, dims, keepdim=True)
    # A row of -inf has peak -inf; shift by 0 there, as torch does.
    finite = b.compare("ne", b.unary("abs", peak), ctx.tensor(float("inf"), v.dtype))
    shift = b.select(finite, peak, ctx.tensor(0.0, v.dtype))
    total = b.reduce("sum", b.unary("exp", b.sub(v, shift)), dims, keepdim=True)
    out = b.add(b.unary("log", total), shift)
    return out if keepdim else b.reshape(out, ctx.out().shape)


def p_norm(ctx, v, p, dims, keepdim=False):
    """The p-norm of v over `dims` with torch's norm gradient (norm_backward):
    0 where the norm is 0 (a safe operand under the root, not inf * 0), for
    p < 1 also 0 at zero elements, for p = +-inf split evenly among the
    elements whose |v| is the extreme (tfc's max reduction splits ties so),
    none for p = 0 (a count)."""
    b = ctx.b
    dt = v.dtype
    size = b.unary("abs", v)
    zero = ctx.tensor(0.0, dt)
    if p == 0:
        return b.reduce("sum", b.convert(b.compare("ne", v, zero), dt), dims, keepdim)
    if p == 1:
        return b.reduce("sum", size, dims, keepdim)
    if p == float("inf"):
        return b.reduce("max", size, dims, keepdim)
    if p == float("-inf"):
        return b.unary("neg", b.reduce("max", b.unary("neg", size), dims, keepdim))
    if p < 0 or not math.isfinite(p):
        ctx.unsupported(f"a norm of order {p} is not lowered (p >= 0 and +-inf are)")
    if p == 2:
        powered = b.mul(v, v)
    else:
        nonzero = b.compare("ne", v, zero)
        powered = b.select(nonzero, b.pow(b.select(nonzero, size, ctx.tensor(1.0, dt)), p),
                           zero)
    return _safe_root(ctx, b.reduce("sum", powered, dims, keepdim), p)


def _safe_root(ctx, total, p=2):
    """total^(1/p) (sqrt for p = 2) with gradient 0 where total is 0, as
    torch's norm_backward and std_backward mask it (not inf * 0 = NaN)."""
    b = ctx.b
    zero = ctx.tensor(0.0, total.dtype)
    empty = b.compare("eq", total, zero)
    safe = b.select(empty, ctx.tensor(1.0, total.dtype), total)
    root = b.unary("sqrt", safe) if p == 2 else b.pow(safe, 1.0 / p)
    return b.select(empty, zero, root)


@lowers("aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar")
def vector_norm(ctx, x, ord=2, dims=None, keepdim=False, dtype=None):
    """p_norm (torch's gradients at a zero norm); a negative finite order
    as sum(|v|^ord)^(1 / ord)."""
    b = ctx.b
    v = _input(ctx, x, ctx.out().dtype)
    dims = norm_dims(dims, v.rank)
    ord = 2 if ord is None else float(ord)
    if ord >= 0 or ord == float("-inf"):
        return p_norm(ctx, v, ord, dims, keepdim)
    if math.isfinite(ord):
        return b.pow(b.reduce("sum", b.pow(b.unary("abs", v), ord), dims, keepdim), 1.0 / ord)
    ctx.unsupported(f"norm of order {ord} is not lowered")


@lowers("aten.std_mean.correction", "aten.std_mean.dim")
def std_mean(ctx, x, dims=None, unbiased=None, keepdim=False, correction=None):
    variance, mean = _variance(ctx, x, dims, _correction(unbiased, correction), keepdim)
    return _safe_root(ctx, variance), mean


def _any(ctx, x, dims, keepdim, every):
    """any: some element != 0 (NaN counts); all (`every`): none == 0."""
    b = ctx.b
    v = ctx.tensor(x)
    zero = ctx.tensor(0, v.dtype) if v.dtype != "i1" else ctx.tensor(False, "i1")
    hit = b.compare("eq" if every else "ne", v, zero)
    found = b.reduce("max", b.convert(hit, "f32"), norm_dims(dims, v.rank), keepdim)
    return b.compare("eq" if every else "gt", found, ctx.tensor(0.0, "f32"))


@lowers("aten.any.default", "aten.any.dim", "aten.any.dims")
def any_(ctx, x, dims=None, keepdim=False):
    return _any(ctx, x, dims, keepdim, every=False)


@lowers("aten.all.default", "aten.all.dim", "aten.all.dims")
def all_(ctx, x, dims=None, keepdim=False):
    return _any(ctx, x, dims, keepdim, every=True)


@lowers("aten.count_nonzero.default", "aten.count_nonzero.dim_IntList")
def count_nonzero(ctx, x, dims=None):
    """The number of elements != 0 (NaN counts) along dims (all when
    None), as i64."""
    b = ctx.b
    v = ctx.tensor(x)
    zero = ctx.tensor(0, v.dtype) if v.dtype != "i1" else ctx.tensor(False, "i1")
    hits = b.convert(b.compare("ne", v, zero), ctx.out().dtype)
    return b.reduce("sum", hits, norm_dims(dims, v.rank))


@lowers("aten.prod.default", "aten.prod.dim_int")
def prod(ctx, x, dim=None, keepdim=False, dtype=None):
    """The product along `dim` (of every element when None) by halving:
    pad with ones to a power of two, multiply the halves, repeat (the
    gradient follows from the multiplications, zeros included)."""
    if isinstance(dim, torch.dtype):  # prod.default(x, dtype): ctx.out() has it
        dim = None
    b, t = ctx.b, ctx.out()
    v = ctx.tensor(x, t.dtype)
    if dim is None:
        v, d = b.reshape(v, (v.type.numel,)), 0
    else:
        d = norm_dims(dim, v.rank)[0]
    if v.shape[d] == 0:
        return b.broadcast_to(ctx.tensor(1, t.dtype), t.shape)
    return b.reshape(product_along(ctx, v, d), t.shape)


def product_along(ctx, v, d):
    """The product of v along dim d (kept as size 1) by halving: padded
    with ones to a power of two, the halves multiplied until one is left."""
    b = ctx.b
    n = v.shape[d]
    width = 1 << (n - 1).bit_length()
    if width != n:
        high = [0] * v.rank
        high[d] = width - n
        v = b.pad(v, [0] * v.rank, high, 1)
    while width > 1:
        width //= 2
        v = b.mul(b.slice_dim(v, d, 0, width), b.slice_dim(v, d, width, 2 * width))
    return v


def _shifted(ctx, v, d, shift, fill):
    """v moved `shift` places forward along d, the first `shift` places
    holding `fill`."""
    low = [0] * v.rank
    low[d] = shift
    return ctx.b.pad(ctx.b.slice_dim(v, d, 0, v.shape[d] - shift), low, [0] * v.rank, fill)


def _scan(ctx, values, dim, combine, fills):
    """The inclusive scan along dim of a tuple of same-shape Values, in
    ceil(log2 n) steps: step s = 1, 2, 4, ... combines each position's tuple
    with the one s places before it (`fills` before the start):
    `combine(earlier, later, s)` returns the new tuple and must be
    associative; it gets s to tell the first s places, which have nothing
    before them, where a fill is not neutral. With 0-d values the scan is
    the values."""
    values = tuple(values)
    if values[0].rank == 0:
        return values
    d = norm_dim(dim, values[0].rank)
    shift = 1
    while shift < values[0].shape[d]:
        earlier = tuple(_shifted(ctx, v, d, shift, f) for v, f in zip(values, fills))
        values = tuple(combine(earlier, values, shift))
        shift *= 2
    return values


def scan_one(ctx, v, dim, op, fill):
    """The scan of one Value whose binary `op` has `fill` as its identity."""
    return _scan(ctx, (v,), dim, lambda e, l, _: (op(e[0], l[0]),), (fill,))[0]


@lowers("aten.cumsum.default")
def cumsum(ctx, x, dim, dtype=None):
    """Inclusive prefix sums along `dim`: a scan of additions (integer
    sums are exact; float sums group differently from torch's
    left-to-right loop)."""
    t = ctx.out()
    return scan_one(ctx, ctx.tensor(x, t.dtype), dim, ctx.b.add, 0)


@lowers("aten.cumprod.default")
def cumprod(ctx, x, dim, dtype=None):
    """Inclusive prefix products along `dim`: a scan of multiplications
    (rounded in another order than torch's loop). Its gradient follows
    from the multiplications, so each element's is the sum over later
    outputs of the product of the others, exact with zeros and negative
    values (torch's cumprod_backward computes the same without dividing)."""
    t = ctx.out()
    return scan_one(ctx, ctx.tensor(x, t.dtype), dim, ctx.b.mul, 1)


@lowers("aten.cummax.default", "aten.cummin.default")
def cummax(ctx, x, dim):
    """(values, indices) of the running maximum (cummin: minimum) along
    dim, as torch's loop: a later element takes over when it is NaN or,
    while the running value is not NaN, when it is >= (cummin: <=) it, so
    ties and NaNs take the latest index. A scan over (value, index) pairs
    whose combine picks one of them by selects: each value is its
    element's, and its gradient goes to that element alone (torch scatters
    it to the index)."""
    b = ctx.b
    v = ctx.tensor(x, ctx.out(0).dtype)
    index_type = ctx.out(1).dtype
    if v.rank == 0:
        return v, ctx.tensor(0, index_type)
    d = norm_dim(dim, v.rank)
    direction = "ge" if ctx.name == "aten.cummax.default" else "le"
    is_float = v.dtype.startswith(("f", "bf"))
    positions = b.iota(v.shape, d, index_type)

    def combine(earlier, later, shift):
        (early_v, early_i), (values, indices) = earlier, later
        take_later = b.compare(direction, values, early_v)
        if is_float:  # NaN wins, and a NaN is kept by all but a later NaN
            take_later = b.select(b.compare("ne", early_v, early_v), ctx.tensor(False, "i1"),
                                  take_later)
            take_later = b.select(b.compare("ne", values, values), ctx.tensor(True, "i1"),
                                  take_later)
        # The first `shift` places have nothing before them.
        take_later = b.select(b.compare("lt", positions, ctx.tensor(shift, index_type)),
                              ctx.tensor(True, "i1"), take_later)
        return (b.select(take_later, values, early_v), b.select(take_later, indices, early_i))
    return _scan(ctx, (v, positions), d, combine, (0, 0))


@lowers("aten.logcumsumexp.default")
def logcumsumexp(ctx, x, dim):
    """log(cumsum(exp(x))) along dim without overflow: a scan of torch's
    two-term log-add-exp, max(a, b) + log(1 + exp(-|a - b|)), which is a
    where a == b is infinite (-inf + -inf stays -inf). Equal terms get
    |a - b| = 0 as a constant, so no NaN enters the gradient; an element
    of -inf after a finite one gets gradient 0 (as torch's), one in a
    leading run of -inf gets a finite gradient where torch's is NaN."""
    b = ctx.b
    v = ctx.tensor(x, ctx.out().dtype)
    dt = v.dtype
    if v.rank == 0:
        return v
    d = norm_dim(dim, v.rank)
    zero, one = ctx.tensor(0.0, dt), ctx.tensor(1.0, dt)
    positions = b.iota(v.shape, d, "i64")

    def log_add_exp(earlier, later, shift):
        a, c = earlier[0], later[0]
        same = b.compare("eq", a, c)
        gap = b.unary("abs", b.sub(b.select(same, zero, a), b.select(same, zero, c)))
        out = b.add(b.binary("maximum", a, c),
                    b.unary("log", b.add(one, b.unary("exp", b.unary("neg", gap)))))
        infinite = b.compare("eq", b.unary("abs", c), ctx.tensor(float("inf"), dt))
        out = b.select(b.select(same, infinite, ctx.tensor(False, "i1")), c, out)
        # The first `shift` places have nothing before them.
        return (b.select(b.compare("lt", positions, ctx.tensor(shift, "i64")), c, out),)
    return _scan(ctx, (v,), d, log_add_exp, (float("-inf"),))[0]


def _count_below(ctx, seq, x, right, dtype):
    """For each element of x (shape [..., M]), how many elements of the
    sorted last dim of seq ([..., K], or [K] for all of x) lie before it:
    those < x (right: <= x), counted as K minus those >= x (right: > x),
    so that NaN lands after every boundary as in torch's binary search.
    Counting gives torch's answer for any order of equal boundaries."""
    b = ctx.b
    k = seq.shape[-1]
    if seq.rank == 1:
        bounds, xs = seq, b.reshape(x, x.shape + (1,))
    else:
        bounds = b.reshape(seq, seq.shape[:-1] + (1, k))
        xs = b.reshape(x, x.shape + (1,))
    above = b.compare("gt" if right else "ge", bounds, xs)
    return b.sub(ctx.tensor(k, dtype), b.reduce("sum", b.convert(above, dtype), [-1]))


def _search(ctx, seq, x, right):
    t = ctx.out()
    s = ctx.tensor(seq)
    v = ctx.tensor(x)
    common = promoted(s, v)
    if s.rank == 0:
        ctx.unsupported("a 0-d sequence of boundaries", "give the boundaries as a 1-d tensor")
    return ctx.b.reshape(_count_below(ctx, ctx.b.convert(s, common), ctx.b.convert(v, common),
                                      right, t.dtype), t.shape)


@lowers("aten.bucketize.Tensor")
def bucketize(ctx, x, boundaries, out_int32=False, right=False):
    """The bucket index of each element among the sorted 1-d boundaries
    (compare and count; an integer result with no gradient)."""
    return _search(ctx, boundaries, x, right)


@lowers("aten.searchsorted.Tensor")
def searchsorted(ctx, seq, x, out_int32=False, right=False, side=None, sorter=None):
    """Where each element of x would be inserted into the sorted last dim of
    seq (1-d, or with x's leading dims): compare and count. A `sorter`
    only reorders seq, and counting does not depend on the order."""
    return _search(ctx, seq, x, right or side == "right")


@lowers("aten.bincount.default")
def bincount(ctx, x, weights=None, minlength=0):
    """torch.bincount with minlength covering the values (class counts:
    bincount(labels, minlength=num_classes)): the counts (or summed
    weights) of each value in [0, minlength), one scatter-add into the
    table (values outside it into an extra row, dropped: torch would
    lengthen its result instead, which a compiled program cannot). Without
    a minlength above the example's values the length is data-dependent:
    refused. No gradient, as torch's (none for the weights either)."""
    from .scatter import _table   # scatter.py imports this module
    b, t = ctx.b, ctx.out()
    n = t.shape[0]
    if minlength <= 0 or n != minlength:
        ctx.unsupported("bincount without a minlength covering the values: its length is "
                        "max(x) + 1, read from the data",
                        "give minlength (e.g. the number of classes), at least max(x) + 1")
    ids = b.reshape(ctx.tensor(x, "i64"), (ctx.tensor(x).type.numel,))
    outside = b.select(b.compare("lt", ids, ctx.tensor(0, "i64")), ctx.tensor(True, "i1"),
                       b.compare("ge", ids, ctx.tensor(n, "i64")))
    ids = b.select(outside, ctx.tensor(n, "i64"), ids)
    dt = t.dtype if weights is not None else "f32"
    rows = (b.stop_gradient(b.reshape(ctx.tensor(weights, dt), ids.shape)) if weights is not None
            else b.splat(1.0, dt, ids.shape))
    counts = b.slice_dim(_table(ctx, rows, ids, n + 1), 0, 0, n)
    return b.convert(counts, t.dtype)


@lowers("aten.histc.default")
def histc(ctx, x, bins=100, min=0, max=0):  # noqa: A002 - torch's argument names
    """torch.histc: counts of x's elements in `bins` equal bins over
    [min, max] (x's own extremes when min == max, widened by 1 each way
    when equal), torch's bin (x - min) / (max - min) * bins truncated, in
    x's type, the max edge in the last bin; elements outside [min, max]
    are not counted, NaN is counted in bin 0 (as torch 1.13's CPU kernel).
    One scatter-add of ones (the uncounted ones
    into an extra bin, dropped). No gradient, as torch's."""
    from .scatter import _table   # scatter.py imports this module
    b = ctx.b
    dt = ctx.out().dtype
    v = ctx.tensor(x, dt)
    v = b.stop_gradient(b.reshape(v, (v.type.numel,)))
    if min == max:
        lo = b.unary("neg", b.reduce("max", b.unary("neg", v), [0]))
        hi = b.reduce("max", v, [0])
        same = b.compare("eq", lo, hi)
        lo = b.sub(lo, b.select(same, ctx.tensor(1.0, dt), ctx.tensor(0.0, dt)))
        hi = b.add(hi, b.select(same, ctx.tensor(1.0, dt), ctx.tensor(0.0, dt)))
    else:
        lo, hi = ctx.tensor(float(min), dt), ctx.tensor(float(max), dt)
    # torch 1.13's CPU kernel skips x < min and x > max only: NaN lands in bin 0.
    inside = b.select(b.compare("lt", v, lo), ctx.tensor(False, "i1"),
                      b.select(b.compare("gt", v, hi), ctx.tensor(False, "i1"),
                               ctx.tensor(True, "i1")))
    scaled = b.mul(b.div(b.sub(v, lo), b.sub(hi, lo)), ctx.tensor(float(bins), dt))
    counted = b.select(inside, b.compare("eq", v, v), ctx.tensor(False, "i1"))  # not NaN
    pos = b.convert(b.select(counted, scaled, ctx.tensor(0.0, dt)), "i64")
    pos = b.select(b.compare("ge", pos, ctx.tensor(bins, "i64")), ctx.tensor(bins - 1, "i64"), pos)
    pos = b.select(inside, pos, ctx.tensor(bins, "i64"))
    ones = b.splat(1.0, dt, v.shape)
    return b.slice_dim(_table(ctx, ones, pos, bins + 1), 0, 0, bins)
