"""Order statistics: kthvalue, median and nanmedian (of every element or
along a dim) and mode. torch.quantile / nanquantile are replaced while
tracing by a sort-based form (traceable.py), which ops/reduction.py's sort
lowers.

Each element's place in the row's stable ascending order (NaN after every
number, ties in index order) is counted directly: its rank is the number
of elements before it in that order, from one comparison of every pair
of the row ([.., n, n], for rows of up to MAX_RANK_SIZE). The k-th
smallest is the element of rank k - 1: one comparison and one reduction,
whatever k is, and a rank computed in the graph (nanmedian's, from the
row's count of numbers) costs the same. Longer rows are sorted (tfc.sort,
the same order) and the index at position k - 1 of the sort is read; mode
counts equal pairs in short rows and the runs of equal values of the sorted
row in longer ones. Values carry their gradient to
the element picked (torch's median(dim), kthvalue, mode), or spread it
evenly over the elements equal to the result (torch's median() and
nanmedian() of every element).

Among tied elements torch's kthvalue and median(dim) return whichever
index its quickselect leaves in place, which torch documents as
implementation-specific; tfc returns the first in index order (the
stable order's), and the gradient goes there."""
from ..registry import lowers
from .common import norm_dim
from .reduction import picked_along, scan_one, sorted_rows

# Rows longer than this are sorted (tfc.sort) rather than ranked, which
# compares every pair.
MAX_RANK_SIZE = 4096


def _is_float(v):
    return v.dtype.startswith(("f", "bf"))


def _last(ctx, v, dim):
    """v with `dim` moved last (a 0-d v as one element)."""
    b = ctx.b
    if v.rank == 0:
        return b.reshape(v, (1,))
    dim = norm_dim(dim, v.rank)
    return b.swap(v, dim, v.rank - 1) if dim != v.rank - 1 else v


def _nan_count(ctx, v):
    """How many NaNs each row (last dim) holds, as i64 [.., 1]."""
    b = ctx.b
    if not _is_float(v):
        return ctx.tensor(0, "i64")
    return b.reduce("sum", b.convert(b.compare("ne", v, v), "i64"), [-1], keepdim=True)


def ranks(ctx, v):
    """Each element's place in its row's (last dim) stable ascending order,
    NaN after every number: the elements before it (smaller, or equal
    and earlier), as i64."""
    b = ctx.b
    n = v.shape[-1]
    lead = v.shape[:-1]
    mine = b.reshape(v, lead + (n, 1))     # element i
    other = b.reshape(v, lead + (1, n))    # element j
    before = b.compare("lt", other, mine)
    same = b.compare("eq", other, mine)
    if _is_float(v):
        my_nan, other_nan = b.compare("ne", mine, mine), b.compare("ne", other, other)
        # A number comes before a NaN; NaNs tie with each other.
        before = b.select(my_nan, b.select(other_nan, ctx.tensor(False, "i1"),
                                           ctx.tensor(True, "i1")), before)
        same = b.select(my_nan, other_nan, same)
    earlier = b.compare("lt", b.iota((n, n), 1), b.iota((n, n), 0))
    counted = b.select(before, ctx.tensor(True, "i1"),
                       b.select(earlier, same, ctx.tensor(False, "i1")))
    return b.reduce("sum", b.convert(counted, "i64"), [-1])


def _at_rank(ctx, v, rank):
    """The index (i64 [.., 1]) of the element of `rank` (an int or i64
    [.., 1]) in each row of v (last dim): from the ranks, or for rows longer
    than MAX_RANK_SIZE the sort's index at position `rank`."""
    b = ctx.b
    if v.shape[-1] > MAX_RANK_SIZE:
        _, order = sorted_rows(ctx, v, v.rank - 1, False)
        if isinstance(rank, int):
            return b.slice(order, [0] * (v.rank - 1) + [rank], list(v.shape[:-1]) + [rank + 1])
        return picked_along(ctx, order, v.rank - 1, rank)
    if isinstance(rank, int):
        rank = ctx.tensor(rank, "i64")
    hit = b.compare("eq", ranks(ctx, v), rank)
    positions = b.iota(v.shape, v.rank - 1, "i64")
    return b.reduce("max", b.select(hit, positions, ctx.tensor(-1, "i64")), [-1], keepdim=True)


def _median_rank(ctx, v, skip_nan):
    """The rank of the (lower) median of each row: (n - 1) // 2; with a NaN
    in the row torch's median is NaN (the first one: rank n - NaNs);
    nanmedian's counts the numbers alone (rank 0 of an all-NaN row, a
    NaN)."""
    b = ctx.b
    n = v.shape[-1]
    if not _is_float(v):
        return (n - 1) // 2
    nans = _nan_count(ctx, v)
    numbers = b.sub(ctx.tensor(n, "i64"), nans)
    if skip_nan:
        return b.div(b.binary("maximum", b.sub(numbers, ctx.tensor(1, "i64")),
                              ctx.tensor(0, "i64")), ctx.tensor(2, "i64"))
    return b.select(b.compare("gt", nans, ctx.tensor(0, "i64")), numbers,
                    ctx.tensor((n - 1) // 2, "i64"))


def _selected(ctx, x, dim, keepdim, index_of):
    """(values, indices) along `dim` of the element each row's `index_of(row
    values with dim last)` picks, its value's gradient to that element."""
    b = ctx.b
    v = ctx.tensor(x, ctx.out(0).dtype)
    rows = _last(ctx, v, dim)
    index = index_of(rows)                                   # [.., 1]
    values = picked_along(ctx, rows, rows.rank - 1, index)
    if v.rank and norm_dim(dim, v.rank) != v.rank - 1:
        d = norm_dim(dim, v.rank)
        values, index = b.swap(values, d, v.rank - 1), b.swap(index, d, v.rank - 1)
    return (b.reshape(values, ctx.out(0).shape),
            b.convert(b.reshape(index, ctx.out(1).shape), ctx.out(1).dtype))


@lowers("aten.kthvalue.default")
def kthvalue(ctx, x, k, dim=-1, keepdim=False):
    """The k-th smallest element along dim (NaN counting as the largest)
    and its index."""
    v = ctx.tensor(x)
    n = v.shape[norm_dim(dim, v.rank)] if v.rank else 1
    if not 1 <= k <= n:
        ctx.unsupported(f"kthvalue with k = {k} of {n} elements")
    return _selected(ctx, x, dim, keepdim, lambda rows: _at_rank(ctx, rows, k - 1))


@lowers("aten.median.dim", "aten.nanmedian.dim")
def median_dim(ctx, x, dim, keepdim=False):
    """The lower median along dim and its index (median: NaN where the row
    has one; nanmedian: of the row's numbers)."""
    skip_nan = ctx.name.startswith("aten.nanmedian")
    return _selected(ctx, x, dim, keepdim,
                     lambda rows: _at_rank(ctx, rows, _median_rank(ctx, rows, skip_nan)))


@lowers("aten.median.default", "aten.nanmedian.default")
def median(ctx, x):
    """The lower median of every element (median: NaN when one is NaN;
    nanmedian: of the numbers). Its gradient is spread evenly over the
    elements equal to it (the NaNs, for a NaN), as torch's."""
    b = ctx.b
    v = ctx.tensor(x, ctx.out().dtype)
    flat = b.reshape(v, (1, v.type.numel))
    rank = _median_rank(ctx, flat, ctx.name.startswith("aten.nanmedian"))
    index = _at_rank(ctx, flat, rank)
    exact = b.stop_gradient(picked_along(ctx, flat, 1, index))  # [1, 1]
    if not _is_float(v):
        return b.reshape(exact, ())
    both_nan = b.select(b.compare("ne", flat, flat), b.compare("ne", exact, exact),
                        ctx.tensor(False, "i1"))
    equal = b.select(both_nan, ctx.tensor(True, "i1"), b.compare("eq", flat, exact))
    zero = ctx.tensor(0.0, v.dtype)
    spread = b.div(b.reduce("sum", b.select(equal, flat, zero), [1], keepdim=True),
                   b.reduce("sum", b.convert(equal, v.dtype), [1], keepdim=True))
    return b.reshape(b.straight_through(exact, spread), ())


def _sorted_mode(ctx, rows):
    """The smallest of the most frequent numbers of each row (last dim) as
    [.., 1], NaN for a row of NaNs alone, from the row sorted (tfc.sort):
    each run of equal values is counted at its last element, as its
    position less the run's first position (a running maximum) plus one.
    A NaN is a run of its own, never counted."""
    b = ctx.b
    n, last = rows.shape[-1], rows.rank - 1
    s, _ = sorted_rows(ctx, b.stop_gradient(rows), last, False)
    differs = b.compare("ne", b.slice_dim(s, last, 1, n), b.slice_dim(s, last, 0, n - 1))
    none, one = [0] * rows.rank, [0] * last + [1]
    starts = b.pad(differs, one, none, True)      # s[i] begins a run
    ends = b.pad(differs, none, one, True)        # s[i] ends one
    positions = b.iota(rows.shape, last, "i64")
    zero = ctx.tensor(0, "i64")
    start_at = scan_one(ctx, b.select(starts, positions, zero), last,
                        lambda x, y: b.binary("maximum", x, y), 0)
    counts = b.select(ends, b.add(b.sub(positions, start_at), ctx.tensor(1, "i64")), zero)
    if _is_float(rows):
        counts = b.select(b.compare("ne", s, s), zero, counts)
    best = b.reduce("max", counts, [-1], keepdim=True)
    # The first such run's end (tfc reduces with max: negated positions).
    first = b.unary("neg", b.reduce("max", b.select(b.compare("eq", counts, best),
                                                    b.unary("neg", positions),
                                                    ctx.tensor(1 - n, "i64")), [-1], keepdim=True))
    value = picked_along(ctx, s, last, first)
    if not _is_float(rows):
        return value
    return b.select(b.compare("gt", best, zero), value, ctx.tensor(float("nan"), rows.dtype))


@lowers("aten.mode.default")
def mode(ctx, x, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of the most frequent
    ones) and the index of its last occurrence, as torch's for rows of up
    to 16 elements (longer ones torch sorts unstably, which may leave
    another occurrence's index); the value's gradient goes to that
    element. NaNs count as distinct values here (an all-NaN row gives NaN);
    torch sorts the row with `<`, which NaN leaves in no consistent order.
    Rows of up to MAX_RANK_SIZE compare every pair, longer ones are sorted
    (_sorted_mode)."""
    b = ctx.b

    def paired_mode(rows):
        n = rows.shape[-1]
        lead = rows.shape[:-1]
        same = b.compare("eq", b.reshape(rows, lead + (n, 1)), b.reshape(rows, lead + (1, n)))
        counts = b.reduce("sum", b.convert(same, "i64"), [-1])
        best = b.compare("eq", counts, b.reduce("max", counts, [-1], keepdim=True))
        if _is_float(rows):
            best = b.select(b.compare("ne", rows, rows), ctx.tensor(False, "i1"), best)
            lowest = ctx.tensor(float("-inf"), rows.dtype)
        else:
            lowest = ctx.tensor(-(2 ** 31 if rows.dtype == "i32" else 2 ** 63), rows.dtype)
        return b.unary("neg", b.reduce("max", b.select(best, b.unary("neg", rows), lowest),
                                       [-1], keepdim=True))

    def last_of_mode(rows):
        n = rows.shape[-1]
        smallest = _sorted_mode(ctx, rows) if n > MAX_RANK_SIZE else paired_mode(rows)
        positions = b.iota(rows.shape, rows.rank - 1, "i64")
        last = b.reduce("max", b.select(b.compare("eq", rows, smallest), positions,
                                        ctx.tensor(-1, "i64")), [-1], keepdim=True)
        # An all-NaN row: its last NaN.
        return b.select(b.compare("lt", last, ctx.tensor(0, "i64")), ctx.tensor(n - 1, "i64"),
                        last)
    return _selected(ctx, x, dim, keepdim, last_of_mode)
