"""Convolution and pooling over 1-3 spatial dims, as window gathers: each
kernel offset is one strided tfc.slice of the (padded) input, and the
K = prod(kernel) slices stacked next to the channels ([N, C, K, *out],
im2col) feed a tfc.matmul against the weight (convolution, groups as a
batch dim), a max (pooling: the first largest element of the window, whose
gradient is its own, as torch's) or a sum. Exact up to the order of each
window's sum; memory grows with K (the transformer uses: patch embeddings,
kernel = stride, K slices of the input; short 1-d convolutions)."""
import itertools
import math

from ..importer import Missing
from ..registry import lowers
from .common import constant_along
from .reduction import first_extreme_index, picked_along


def _ints(value, n, what, ctx):
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        ctx.unsupported(f"{what} {value} for {n} spatial dims")
    return value


def windows(ctx, v, kernel, stride, padding, dilation, pad_value, extra=None):
    """v's windows: [*lead, K, *out] for v = [*lead, *spatial] (S =
    len(kernel) trailing spatial dims), and the output's spatial sizes.
    `extra` pads each spatial dim's end further (ceil_mode's last
    windows, which overhang the padded input)."""
    b = ctx.b
    s = len(kernel)
    lead = v.rank - s
    high = [p + e for p, e in zip(padding, extra or [0] * s)]
    if any(padding) or any(high):
        v = b.pad(v, [0] * lead + list(padding), [0] * lead + high, pad_value)
    spatial = v.shape[lead:]
    out = [(spatial[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(s)]
    if any(n <= 0 for n in out):
        ctx.unsupported(f"a kernel {kernel} larger than the padded input {list(spatial)}")
    slices = []
    for offsets in itertools.product(*[range(k) for k in kernel]):
        start = [0] * lead + [o * d for o, d in zip(offsets, dilation)]
        limit = list(v.shape[:lead]) + [st + (n - 1) * sd + 1
                                        for st, n, sd in zip(start[lead:], out, stride)]
        piece = b.slice(v, start, limit, [1] * lead + list(stride))
        slices.append(b.reshape(piece, v.shape[:lead] + (1,) + tuple(out)))
    return b.concat(slices, lead), out


def _batched(ctx, v, spatial_dims):
    """v with a batch dim (torch's unbatched [C, *spatial] inputs), and
    whether one was added."""
    if v.rank == spatial_dims + 1:
        return ctx.b.reshape(v, (1,) + v.shape), True
    return v, False


@lowers("aten.convolution.default")
def convolution(ctx, x, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    b = ctx.b
    dt = ctx.out().dtype
    if transposed:
        ctx.unsupported("transposed convolution has no tfc form yet",
                        "upsample with repeat_interleave and a plain convolution")
    w = ctx.tensor(weight, dt)
    s = w.rank - 2
    v, unbatched = _batched(ctx, ctx.tensor(x, dt), s)
    kernel = list(w.shape[2:])
    win, out = windows(ctx, v, kernel, _ints(stride, s, "stride", ctx),
                        _ints(padding, s, "padding", ctx), _ints(dilation, s, "dilation", ctx),
                        0.0)
    n, c, o, g = v.shape[0], v.shape[1], w.shape[0], groups
    k, p = math.prod(kernel), math.prod(out)
    cols = b.reshape(win, (n, g, c // g * k, p))
    rows = b.reshape(w, (1, g, o // g, c // g * k))
    y = b.convert(b.matmul(rows, cols), dt)  # [n, g, o / g, p]
    y = b.reshape(y, (n, o) + tuple(out))
    if bias is not None:
        y = b.add(y, b.reshape(ctx.tensor(bias, dt), (o,) + (1,) * s))
    return b.reshape(y, ctx.out().shape) if unbatched else y


def _pool_args(ctx, kernel, stride, padding, dilation, s):
    kernel = _ints(kernel, s, "kernel_size", ctx)
    stride = _ints(stride, s, "stride", ctx) if stride not in (None, []) else kernel
    padding = _ints(padding, s, "padding", ctx)
    dilation = _ints(dilation, s, "dilation", ctx)
    return kernel, stride, padding, dilation


def _overhang(v, want, kernel, stride, padding, dilation):
    """How far ceil_mode's last window (torch's output sizes `want`)
    reaches past each padded spatial dim's end (0 without ceil_mode).
    torch drops a last window that would start in the right padding, so
    every window holds an element of the input."""
    s = len(kernel)
    return [max(0, (o - 1) * st + d * (k - 1) + 1 - (n + 2 * p))
            for o, k, st, p, d, n in zip(want, kernel, stride, padding, dilation, v.shape[-s:])]


def _windows_as_traced(ctx, v, want, kernel, stride, padding, dilation, pad_value):
    """windows() producing torch's output sizes `want` (ceil_mode's
    partial last windows padded with `pad_value`)."""
    extra = _overhang(v, want, kernel, stride, padding, dilation)
    win, out = windows(ctx, v, kernel, stride, padding, dilation, pad_value, extra)
    if tuple(out) != tuple(want):
        raise AssertionError(f"{ctx.name}: windows give {out}, torch {list(want)}")
    return win


def _max_pool(ctx, x, kernel, stride, padding, dilation, s):
    """The largest of each window, ceil_mode's partial windows padded with
    -inf as torch's kernels skip the elements outside the input."""
    b = ctx.b
    dt = ctx.out(0).dtype if len(ctx.out_types) > 1 else ctx.out().dtype
    v = ctx.tensor(x, dt)
    kernel, stride, padding, dilation = _pool_args(ctx, kernel, stride, padding, dilation, s)
    want = ctx.out(0).shape if len(ctx.out_types) > 1 else ctx.out().shape
    win = _windows_as_traced(ctx, v, want[-s:], kernel, stride, padding, dilation,
                             float("-inf"))
    k = v.rank - s
    index = first_extreme_index(ctx, win, k, "i64")
    return b.reshape(picked_along(ctx, win, k, index), want)


@lowers("aten.max_pool1d_with_indices.default", "aten.max_pool2d_with_indices.default",
        "aten.max_pool3d_with_indices.default")
def max_pool_with_indices(ctx, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    s = int(ctx.name.split("max_pool")[1][0])
    values = _max_pool(ctx, x, kernel, stride, padding, dilation, s)
    return values, Missing("max pooling's indices have no tfc form",
                           "use the pooled values (return_indices=False)")


@lowers("aten.max_pool1d.default", "aten.max_pool2d.default", "aten.max_pool3d.default")
def max_pool(ctx, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    s = int(ctx.name.split("max_pool")[1][0])
    return _max_pool(ctx, x, kernel, stride, padding, dilation, s)


@lowers("aten.avg_pool1d.default", "aten.avg_pool2d.default", "aten.avg_pool3d.default")
def avg_pool(ctx, x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
    """The window's sum over torch's divisor: divisor_override, else the
    window's size clipped to the padded input (count_include_pad: the
    padding counts, ceil_mode's overhang does not) or the number of its
    elements inside the input."""
    b = ctx.b
    s = int(ctx.name.split("avg_pool")[1][0])
    dt = ctx.out().dtype
    v = ctx.tensor(x, dt)
    kernel, stride, padding, _ = _pool_args(ctx, kernel, stride, padding, 1, s)
    want = ctx.out().shape[-s:]
    win = _windows_as_traced(ctx, v, want, kernel, stride, padding, [1] * s, 0.0)
    total = b.reduce("sum", win, [v.rank - s])
    if divisor_override:
        return b.div(total, ctx.tensor(float(divisor_override), dt))
    # The divisor is a product of one extent per dim (exact integers).
    divisor = None
    for i, (o, k, st, p, n) in enumerate(zip(want, kernel, stride, padding, v.shape[-s:])):
        sizes = []
        for j in range(o):
            start = j * st - p
            end = min(start + k, n + p)
            sizes.append(end - start if count_include_pad else min(end, n) - max(start, 0))
        extent = constant_along(ctx, sizes, total, total.rank - s + i)
        divisor = extent if divisor is None else b.mul(divisor, extent)
    return b.div(total, divisor)
