"""Sampling grids: F.affine_grid (aten.affine_grid_generator) and
F.grid_sample (aten.grid_sampler_2d / 3d) in modes bilinear, nearest and
(2-d) bicubic, padding modes zeros, border and reflection, align_corners
either way.

The grid is an affine map of torch's base grid, per coordinate one
multiply-add of a small table along one output dim (no [H * W, 3] table,
no matmul). Sampling follows ATen's kernels operation by operation: grid
coordinates unnormalized to source positions, clipped or reflected into
the input, then the 2^S corners around each position (bilinear), the
nearest one, or the 4 x 4 taps around it (bicubic, each tap clipped or
reflected itself), read with one tfc.embedding lookup each from the input
as [N * H * W, C] rows (positions outside the input read as 0), weighted
and added in torch's order. Gradients follow from those ops and are
torch's: the input's scatters back through the lookups, the grid's comes
through the weights and the unnormalize / clip / reflect steps, whose
selects give 0 at and beyond a clip bound as torch's backward does;
nearest sampling gives the grid none. Nearest positions round half to
even in 2-d and half away from zero in 3-d, as torch 1.13's CPU kernels."""
import itertools
import math

import torch

from .. import dtypes
from ..constants import Known
from ..registry import lowers
from .rounding import floor_toward_minus_inf, round_half_even


def _base_line(n, align_corners, dtype):
    """torch's linspace_from_neg_one: n positions from -1 to 1 (the
    outer pixels' centers without align_corners), 0 when n <= 1."""
    if n <= 1:
        return torch.zeros(1, dtype=dtype)
    line = torch.linspace(-1, 1, n, dtype=dtype)
    return line * (n - 1) / n if not align_corners else line


@lowers("aten.affine_grid_generator.default")
def affine_grid_generator(ctx, theta, size, align_corners):
    """[N, *spatial, S] grid of theta [N, S, S + 1] applied to the base
    grid: coordinate j is x * theta[j, 0] + y * theta[j, 1] (+ z *
    theta[j, 2]) + theta[j, S], x running along the last spatial dim (W),
    y along H, z along D, added in that order as torch's matmul with the
    base grid's (x, y, z, 1) rows."""
    b = ctx.b
    t = ctx.out()
    dt = t.dtype
    v = ctx.tensor(theta, dt)
    spatial = list(size[2:])
    s = len(spatial)
    n = v.shape[0]
    grid = None
    for j in range(s + 1):
        column = b.reshape(b.slice_dim(v, 2, j, j + 1), (n,) + (1,) * s + (s,))
        if j < s:
            dim = s - 1 - j  # x along the last spatial dim
            line = _base_line(spatial[dim], align_corners, dtypes.torch_dtype(dt))
            shape = (1,) + tuple(spatial[d] if d == dim else 1 for d in range(s)) + (1,)
            column = b.mul(ctx.tensor(Known(line.reshape(shape)), dt), column)
        grid = column if grid is None else b.add(grid, column)
    return b.broadcast_to(grid, t.shape)


def _clip(ctx, c, size):
    """c clamped to [0, size - 1]: at or beyond a bound the bound itself,
    gradient 0 (torch's clip_coordinates_set_grad)."""
    b, dt = ctx.b, c.dtype
    zero, top = ctx.tensor(0.0, dt), ctx.tensor(float(size - 1), dt)
    return b.select(b.compare("le", c, zero), zero,
                    b.select(b.compare("ge", c, top), top, c))


def _reflect(ctx, c, twice_low, twice_high):
    """c reflected into [twice_low / 2, twice_high / 2] (torch's
    reflect_coordinates): |c - low| split into whole spans (floor) and the
    exact rest (tfc.fmod), which an odd number of spans counts from the
    other end; the gradient is +-1 as torch's."""
    b, dt = ctx.b, c.dtype
    if twice_low == twice_high:
        return b.mul(c, ctx.tensor(0.0, dt))
    low = ctx.tensor(twice_low / 2, dt)
    span = ctx.tensor((twice_high - twice_low) / 2, dt)
    d = b.sub(c, low)
    a = b.select(b.compare("lt", d, ctx.tensor(0.0, dt)), b.unary("neg", d), d)
    flips = b.stop_gradient(floor_toward_minus_inf(ctx, b.div(a, span)))
    extra = b.binary("fmod", a, span)
    half = b.mul(flips, ctx.tensor(0.5, dt))
    even = b.compare("eq", half, floor_toward_minus_inf(ctx, half))
    return b.select(even, b.add(extra, low), b.add(b.sub(span, extra), low))


def _source_index(ctx, coord, size, padding_mode, align_corners):
    """torch's grid_sampler_compute_source_index: a grid coordinate in
    [-1, 1] as a position in an input dim of `size` (only unnormalized
    when `padding_mode` is None: bicubic bounds each tap instead)."""
    b, dt = ctx.b, coord.dtype
    one = ctx.tensor(1.0, dt)
    if align_corners:
        c = b.mul(b.div(b.add(coord, one), ctx.tensor(2.0, dt)), ctx.tensor(float(size - 1), dt))
    else:
        c = b.div(b.sub(b.mul(b.add(coord, one), ctx.tensor(float(size), dt)), one),
                  ctx.tensor(2.0, dt))
    return _bounded(ctx, c, size, padding_mode, align_corners) if padding_mode else c


def _bounded(ctx, c, size, padding_mode, align_corners):
    """torch's compute_coordinates: a position clipped (border) or
    reflected and clipped (reflection) into the input; as it is for
    zeros."""
    if padding_mode == 1:  # border
        c = _clip(ctx, c, size)
    elif padding_mode == 2:  # reflection
        c = (_reflect(ctx, c, 0, 2 * (size - 1)) if align_corners
             else _reflect(ctx, c, -1, 2 * size - 1))
        c = _clip(ctx, c, size)
    return c


def _corner(ctx, rows, positions, spatial):
    """The input's [N, *out, C] values at integer-valued float positions
    (one [N, *out] Value per spatial dim), 0 outside the input."""
    b = ctx.b
    dt = positions[0].dtype
    inside = None
    ids = b.iota(positions[0].shape, 0)  # the batch index
    for p, size in zip(positions, spatial):
        ok = b.select(b.compare("ge", p, ctx.tensor(0.0, dt)),
                      b.compare("lt", p, ctx.tensor(float(size), dt)), ctx.tensor(False, "i1"))
        inside = ok if inside is None else b.select(inside, ok, ctx.tensor(False, "i1"))
    for p, size in zip(positions, spatial):
        index = b.convert(b.select(inside, p, ctx.tensor(0.0, dt)), "i64")
        ids = b.add(b.mul(ids, ctx.tensor(size, "i64")), index)
    picked = b.embedding(rows, ids)  # [N, *out, C]
    mask = b.reshape(inside, inside.shape + (1,))
    return b.select(mask, picked, ctx.tensor(0.0, picked.dtype))


@lowers("aten.grid_sampler_2d.default", "aten.grid_sampler_3d.default")
def grid_sampler(ctx, x, grid, interpolation_mode, padding_mode, align_corners):
    """input [N, C, *spatial] sampled at grid [N, *out, S] (x, y[, z]
    normalized to [-1, 1]) into [N, C, *out]."""
    b = ctx.b
    t = ctx.out()
    dt = t.dtype
    v, g = ctx.tensor(x, dt), ctx.tensor(grid, dt)
    s = v.rank - 2
    if interpolation_mode not in (0, 1, 2) or (interpolation_mode == 2 and s != 2):
        ctx.unsupported(f"grid_sample's interpolation mode {interpolation_mode} is not lowered "
                        f"for {s}-d inputs", "mode='bilinear' or mode='nearest'")
    n, c, spatial = v.shape[0], v.shape[1], list(v.shape[2:])
    rows = b.reshape(b.transpose(v, [0] + list(range(2, v.rank)) + [1]),
                     (n * math.prod(spatial), c))  # [N * H * W, C]
    out = g.shape[1:-1]
    # Grid component j is the coordinate along spatial dim s - 1 - j.
    pos = [None] * s
    for j in range(s):
        coord = b.reshape(b.slice_dim(g, -1, j, j + 1), (n,) + out)
        pos[s - 1 - j] = _source_index(ctx, coord, spatial[s - 1 - j],
                                       None if interpolation_mode == 2 else padding_mode,
                                       align_corners)
    if interpolation_mode == 2:
        total = _bicubic(ctx, rows, pos, spatial, padding_mode, align_corners)
    elif interpolation_mode == 1:  # nearest
        rounded = round_half_even if s == 2 else _round_half_away
        near = [b.stop_gradient(rounded(ctx, p)) for p in pos]
        total = _corner(ctx, rows, near, spatial)
    else:
        low = [b.stop_gradient(floor_toward_minus_inf(ctx, p)) for p in pos]
        one = ctx.tensor(1.0, dt)
        high = [b.add(lo, one) for lo in low]
        total = None
        # Corners in torch's order (the first spatial dim outermost), each
        # weight the product of its per-dim factors from x (the last dim).
        for bits in itertools.product((0, 1), repeat=s):
            corner = [high[d] if bit else low[d] for d, bit in enumerate(bits)]
            weight = None
            for d in reversed(range(s)):
                f = b.sub(pos[d], low[d]) if bits[d] else b.sub(high[d], pos[d])
                weight = f if weight is None else b.mul(weight, f)
            value = _corner(ctx, rows, corner, spatial)
            term = b.mul(value, b.reshape(weight, weight.shape + (1,)))
            total = term if total is None else b.add(total, term)
    return b.transpose(total, [0, s + 1] + list(range(1, s + 1)))


def _round_half_away(ctx, y):
    """y rounded to the nearest integer, ties away from zero (std::round):
    torch 1.13's 3-d CPU grid sampler rounds its nearest positions so (0.5
    reads row 1, -0.5 is outside), its 2-d one half to even
    (std::nearbyint); torch 2.1 rounds both half to even."""
    b, dt = ctx.b, y.dtype
    f = floor_toward_minus_inf(ctx, y)
    d = b.sub(y, f)  # exact: f is within one of y
    half, zero = ctx.tensor(0.5, dt), ctx.tensor(0.0, dt)
    up = b.select(b.compare("eq", d, half), b.compare("ge", f, zero), b.compare("gt", d, half))
    return b.add(f, b.convert(up, dt))


def _cubic_coefficients(ctx, t):
    """torch's get_cubic_upsample_coefficients (Keys' cubic convolution, A
    = -0.75) at the distances t + 1, t, 1 - t and 2 - t of the four taps."""
    b, dt = ctx.b, t.dtype
    c = lambda value: ctx.tensor(value, dt)  # noqa: E731
    a = -0.75

    def far(x):  # 1 < x < 2
        return b.sub(b.mul(b.add(b.mul(b.sub(b.mul(c(a), x), c(a * 5)), x), c(a * 8)), x),
                     c(a * 4))

    def near(x):  # x <= 1
        return b.add(b.mul(b.mul(b.sub(b.mul(c(a + 2), x), c(a + 3)), x), x), c(1.0))

    return [far(b.add(t, c(1.0))), near(t), near(b.sub(c(1.0), t)), far(b.sub(c(2.0), t))]


def _bicubic(ctx, rows, pos, spatial, padding_mode, align_corners):
    """torch's bicubic grid sampling: the unnormalized position's 4 x 4
    taps around floor(position), each tap's coordinates clipped or
    reflected into the input (get_value_bounded), rows interpolated along
    x first, then those along y."""
    b = ctx.b
    low = [b.stop_gradient(floor_toward_minus_inf(ctx, p)) for p in pos]
    coeffs = [_cubic_coefficients(ctx, b.sub(p, lo)) for p, lo in zip(pos, low)]

    def tap(d, k):
        at = b.add(low[d], ctx.tensor(float(k - 1), low[d].dtype))
        if padding_mode:
            at = b.stop_gradient(_bounded(ctx, at, spatial[d], padding_mode, align_corners))
        return at

    total = None
    for i in range(4):
        row = None
        for j in range(4):
            value = _corner(ctx, rows, [tap(0, i), tap(1, j)], spatial)
            term = b.mul(b.reshape(coeffs[1][j], coeffs[1][j].shape + (1,)), value)
            row = term if row is None else b.add(row, term)
        term = b.mul(b.reshape(coeffs[0][i], coeffs[0][i].shape + (1,)), row)
        total = term if total is None else b.add(total, term)
    return total
