"""Convolution and pooling over 1-3 spatial dims, as window gathers: each
kernel offset is one strided tfc.slice of the (padded) input, and the
K = prod(kernel) slices stacked next to the channels ([N, C, K, *out],
im2col) feed a tfc.matmul against the weight (convolution, groups as a
batch dim), a max (pooling: the first largest element of the window, whose
gradient is its own, as torch's) or a sum. Exact up to the order of each
window's sum; memory grows with K (the transformer uses: patch embeddings,
kernel = stride, K slices of the input; short 1-d convolutions).
Transposed convolution is the same gather over the input with zeros
inserted between its elements; F.unfold is the gather itself and F.fold
its adjoint, the slices placed back and summed. Max pooling's indices
come from a constant table of each window element's flat position, and
F.max_unpool scatters the values back to them."""
import itertools
import math

import torch

from ..constants import Known
from ..importer import Missing
from ..registry import lowers
from . import scatter
from .common import constant_along, result_used
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


def windows(ctx, v, kernel, stride, padding, dilation, pad_value, extra=None, reverse=False):
    """v's windows: [*lead, K, *out] for v = [*lead, *spatial] (S =
    len(kernel) trailing spatial dims), and the output's spatial sizes.
    `extra` pads each spatial dim's end further (ceil_mode's last
    windows, which overhang the padded input); `reverse` lists each
    window's K elements in reverse order."""
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
    # `reverse` visits the offsets backwards: the windows of a kernel
    # flipped in every spatial dim (transposed convolution's).
    order = [range(k - 1, -1, -1) if reverse else range(k) for k in kernel]
    for offsets in itertools.product(*order):
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


def _padded(ctx, v, low, high):
    """v padded with zeros by `low` / `high` per dim, cropped where an
    amount is negative."""
    b = ctx.b
    if any(p < 0 for p in low + high):
        v = b.slice(v, [max(-p, 0) for p in low],
                    [n - max(-p, 0) for n, p in zip(v.shape, high)])
        low, high = [max(p, 0) for p in low], [max(p, 0) for p in high]
    return b.pad(v, low, high, 0.0) if any(low + high) else v


def _transposed_input(ctx, v, kernel, stride, padding, dilation, output_padding):
    """The input on which a stride-1 convolution with the flipped kernel is
    transposed convolution's: stride - 1 zeros inserted after each element
    of every spatial dim (a zero pad of a new size-1 dim after it, merged
    back), then d * (k - 1) - p zeros before each dim and d * (k - 1) - p +
    output_padding after its last element (cropped where negative)."""
    b = ctx.b
    s = len(kernel)
    lead = v.rank - s
    spatial = v.shape[lead:]
    if any(st > 1 for st in stride):
        v = b.reshape(v, v.shape[:lead] + tuple(x for n in spatial for x in (n, 1)))
        v = b.pad(v, [0] * v.rank, [0] * lead + [x for st in stride for x in (0, st - 1)], 0.0)
        v = b.reshape(v, v.shape[:lead] + tuple(n * st for n, st in zip(spatial, stride)))
    low = [d * (k - 1) - p for k, p, d in zip(kernel, padding, dilation)]
    # The inserted zeros already end each dim with stride - 1 of them.
    high = [lo + op - (st - 1) for lo, op, st in zip(low, output_padding, stride)]
    return _padded(ctx, v, [0] * lead + low, [0] * lead + high)


@lowers("aten.convolution.default")
def convolution(ctx, x, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """A convolution, or with `transposed` its adjoint (ConvTranspose*d):
    the input with zeros inserted between its elements and padded
    (_transposed_input), then a stride-1 convolution with the kernel
    flipped in every spatial dim and its channel dims swapped per group
    (the weight is [C_in, C_out / groups, *k]). Exact, at stride^S times
    the products of a direct scatter: the inserted zeros are multiplied
    too."""
    dt = ctx.out().dtype
    w = ctx.tensor(weight, dt)
    v, unbatched = _batched(ctx, ctx.tensor(x, dt), w.rank - 2)
    y = conv(ctx, v, w, stride, padding, dilation, transposed, output_padding, groups)
    if bias is not None:
        y = ctx.b.add(y, ctx.b.reshape(ctx.tensor(bias, dt), (y.shape[1],) + (1,) * (w.rank - 2)))
    return ctx.b.reshape(y, ctx.out().shape) if unbatched else y


def conv(ctx, v, w, stride, padding, dilation, transposed, output_padding, groups):
    """convolution's product of a batched input Value v ([N, C, *spatial])
    with the weight Value w, without bias (convolution_backward's too)."""
    b = ctx.b
    dt = v.dtype
    s = w.rank - 2
    kernel = list(w.shape[2:])
    stride = _ints(stride, s, "stride", ctx)
    padding = _ints(padding, s, "padding", ctx)
    dilation = _ints(dilation, s, "dilation", ctx)
    n, c, g = v.shape[0], v.shape[1], groups
    k = math.prod(kernel)
    if transposed:
        v = _transposed_input(ctx, v, kernel, stride, padding, dilation,
                              _ints(output_padding, s, "output_padding", ctx))
        win, out = windows(ctx, v, kernel, [1] * s, [0] * s, dilation, 0.0, reverse=True)
        o = w.shape[1] * g
        rows = b.reshape(w, (g, c // g, o // g, k))
        rows = b.reshape(b.swap(rows, 1, 2), (1, g, o // g, c // g * k))
    else:
        win, out = windows(ctx, v, kernel, stride, padding, dilation, 0.0)
        o = w.shape[0]
        rows = b.reshape(w, (1, g, o // g, c // g * k))
    p = math.prod(out)
    cols = b.reshape(win, (n, g, c // g * k, p))
    y = b.convert(b.matmul(rows, cols), dt)  # [n, g, o / g, p]
    return b.reshape(y, (n, o) + tuple(out))


@lowers("aten.convolution_backward.default")
def convolution_backward(ctx, grad, x, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """(grad_input, grad_weight, grad_bias) of convolution, each where
    output_mask asks (a derivative taken inside forward: functorch's input
    gradients ask for grad_input alone). grad_input is the adjoint
    convolution of grad with the same weight (transposed for a direct
    one, with the output padding that gives x's size; direct for a
    transposed one); grad_weight is the product of grad with the windows of
    the direct product's input (x, or grad for a transposed one), as the
    forward's; grad_bias sums grad over all dims but the channels."""
    b = ctx.b
    dt = next(t.dtype for t in ctx.out_types if t is not None)
    w = ctx.tensor(weight, dt)
    s = w.rank - 2
    dy, _ = _batched(ctx, ctx.tensor(grad, dt), s)
    v, _ = _batched(ctx, ctx.tensor(x, dt), s)
    kernel = list(w.shape[2:])
    stride = _ints(stride, s, "stride", ctx)
    padding = _ints(padding, s, "padding", ctx)
    dilation = _ints(dilation, s, "dilation", ctx)
    results = [None, None, None]
    if output_mask[0]:
        if transposed:
            dx = conv(ctx, dy, w, stride, padding, dilation, False, [0] * s, groups)
        else:
            fitted = [i - ((o - 1) * st - 2 * p + d * (k - 1) + 1) for i, o, st, p, d, k in
                      zip(v.shape[2:], dy.shape[2:], stride, padding, dilation, kernel)]
            dx = conv(ctx, dy, w, stride, padding, dilation, True, fitted, groups)
        results[0] = b.reshape(dx, ctx.out(0).shape)
    if output_mask[1]:
        # The direct product's input a and its output's gradient e: for a
        # transposed convolution, grad and x (x's gradient is the direct
        # convolution of grad with the weight).
        a, e = (dy, v) if transposed else (v, dy)
        n, g = a.shape[0], groups
        win, out = windows(ctx, a, kernel, stride, padding, dilation, 0.0)
        p, k = math.prod(out), math.prod(kernel)
        cols = b.reshape(win, (n, g, a.shape[1] // g * k, p))
        cols = b.reshape(b.transpose(cols, [1, 2, 0, 3]), (g, a.shape[1] // g * k, n * p))
        rows = b.reshape(e, (n, g, e.shape[1] // g, p))
        rows = b.reshape(b.transpose(rows, [1, 2, 0, 3]), (g, e.shape[1] // g, n * p))
        dw = b.convert(b.matmul(rows, cols, transpose_b=True), dt)  # [g, o / g, c / g * k]
        results[1] = b.reshape(dw, w.shape)
    if output_mask[2]:
        results[2] = b.reshape(b.reduce("sum", dy, [0] + list(range(2, dy.rank))),
                               ctx.out(2).shape)
    return tuple(results)


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


def _max_pool(ctx, x, kernel, stride, padding, dilation, s, with_indices=False):
    """The largest of each window (the first; where the window holds NaN,
    its last NaN, whose gradient it gets, as torch's kernels pick),
    ceil_mode's partial windows padded with -inf as torch's kernels skip
    the elements outside the input; with `with_indices` also torch's
    indices (_pool_indices)."""
    b = ctx.b
    dt = ctx.out(0).dtype if len(ctx.out_types) > 1 else ctx.out().dtype
    v = ctx.tensor(x, dt)
    kernel, stride, padding, dilation = _pool_args(ctx, kernel, stride, padding, dilation, s)
    want = ctx.out(0).shape if len(ctx.out_types) > 1 else ctx.out().shape
    win = _windows_as_traced(ctx, v, want[-s:], kernel, stride, padding, dilation,
                             float("-inf"))
    k = v.rank - s
    index = first_extreme_index(ctx, win, k, "i64")
    if dt in ("f16", "bf16", "f32", "f64"):  # torch's kernels pick a window's last NaN
        at = b.iota(win.shape, k)
        nan = b.reduce("max", b.select(b.compare("ne", win, win), at, ctx.tensor(-1, "i64")),
                       [k], keepdim=True)
        index = b.select(b.compare("ge", nan, ctx.tensor(0, "i64")), nan, index)
    values = b.reshape(picked_along(ctx, win, k, index), want)
    if not with_indices:
        return values
    table = _pool_indices(v.shape[-s:], want[-s:], kernel, stride, padding, dilation)
    table = ctx.tensor(Known(table.reshape((1,) * k + tuple(table.shape))), "i64")
    onehot = b.compare("eq", b.iota(win.shape, k), index)
    flat = b.reduce("sum", b.select(onehot, table, ctx.tensor(0, "i64")), [k])
    return values, b.convert(b.reshape(flat, want), ctx.out(1).dtype)


def _pool_indices(spatial, out, kernel, stride, padding, dilation):
    """[K, *out]: the flat index within its (N, C) plane (row-major over
    the input's spatial dims, torch's max pooling indices) of each
    window's K elements, in windows()'s order. An element in the padding
    or the overhang (picked only where every element of the window is
    -inf) names the window's first element inside the input, as torch's
    kernels start from it."""
    table, inside = _window_positions(spatial, out, kernel, stride, padding, dilation)
    first = table.gather(0, inside.to(torch.int8).argmax(0, keepdim=True))
    return torch.where(inside, table, first)


def _window_positions(spatial, out, kernel, stride, padding, dilation):
    """([K, *out] flat index of each window's K elements, as in
    _pool_indices, and whether each lies inside the input)."""
    planes = []
    for offsets in itertools.product(*(range(n) for n in kernel)):
        flat = torch.zeros(tuple(out), dtype=torch.int64)
        inside = torch.ones(tuple(out), dtype=torch.bool)
        for i, (o, st, p, d, n) in enumerate(zip(offsets, stride, padding, dilation, spatial)):
            shape = [1] * len(out)
            shape[i] = out[i]
            pos = (torch.arange(out[i]) * st - p + o * d).view(shape)
            inside = inside & (pos >= 0) & (pos < n)
            flat = flat * n + pos
        planes.append((flat, inside))
    return torch.stack([f for f, _ in planes]), torch.stack([m for _, m in planes])


@lowers("aten.max_pool1d_with_indices.default", "aten.max_pool2d_with_indices.default",
        "aten.max_pool3d_with_indices.default")
def max_pool_with_indices(ctx, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max pooling's values and indices: each window's first largest
    element (a NaN where the window holds one) and its flat index within
    the (N, C) plane, as F.max_unpool takes them."""
    s = int(ctx.name.split("max_pool")[1][0])
    if not result_used(ctx, 1):  # training traces take this op for plain max pooling
        values = _max_pool(ctx, x, kernel, stride, padding, dilation, s)
        return values, Missing("max pooling's indices are not computed where unused")
    return _max_pool(ctx, x, kernel, stride, padding, dilation, s, with_indices=True)


@lowers("aten.max_pool2d_with_indices_backward.default",
        "aten.max_pool3d_with_indices_backward.default")
def max_pool_backward(ctx, grad, x, kernel, stride, padding, dilation, ceil_mode, indices):
    """Each window's gradient at the element its index names: per kernel
    offset, grad where the index is that offset's element (never one in
    the padding or the overhang), spread to the input by a transposed
    convolution whose kernel takes offset k from channel k (channels as
    batch)."""
    b = ctx.b
    s = int(ctx.name.split("max_pool")[1][0])
    dt, shape = ctx.out().dtype, ctx.out().shape
    g = ctx.tensor(grad, dt)
    kernel, stride, padding, dilation = _pool_args(ctx, kernel, stride, padding, dilation, s)
    out = g.shape[-s:]
    m, k = math.prod(g.shape[:-s]), math.prod(kernel)
    table, inside = _window_positions(shape[-s:], out, kernel, stride, padding, dilation)
    table = torch.where(inside, table, torch.full_like(table, -1))
    table = ctx.tensor(Known(table.reshape((1, k) + tuple(out))), "i64")
    at = b.reshape(ctx.tensor(indices, "i64"), (m, 1) + tuple(out))
    cols = b.select(b.compare("eq", at, table), b.reshape(g, (m, 1) + tuple(out)),
                    ctx.tensor(0.0, dt))
    cols = b.broadcast_to(cols, (m, k) + tuple(out))
    pick = ctx.tensor(Known(torch.eye(k).reshape((k, 1) + tuple(kernel))), dt)
    fitted = [n - ((o - 1) * st - 2 * p + d * (kk - 1) + 1) for n, o, st, p, d, kk in
              zip(shape[-s:], out, stride, padding, dilation, kernel)]
    dx = conv(ctx, cols, pick, stride, padding, dilation, True, fitted, 1)
    return b.reshape(dx, shape)


@lowers("aten.max_pool1d.default", "aten.max_pool2d.default", "aten.max_pool3d.default")
def max_pool(ctx, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    s = int(ctx.name.split("max_pool")[1][0])
    return _max_pool(ctx, x, kernel, stride, padding, dilation, s)


@lowers("aten.max_unpool2d.default", "aten.max_unpool3d.default")
def max_unpool(ctx, x, indices, output_size, stride=None, padding=None):
    """F.max_unpool*d (1-d traces to the 2-d op): each (N, C) plane of
    zeros of `output_size` with x's elements written at their flat
    `indices` (max pooling's), a scatter (scatter.scatter_planes: where
    indices repeat, as overlapping windows give, the last write wins as
    torch's loop; each element's gradient is the output's at its index).
    stride and padding (3-d) only check the sizes in torch."""
    b = ctx.b
    out = ctx.out()
    s = len(output_size)
    v = ctx.tensor(x, out.dtype)
    lead = out.shape[:-s]
    planes, size = math.prod(lead), math.prod(out.shape[-s:])
    ids = ctx.tensor(indices)
    rows = (planes, math.prod(v.shape[-s:]))
    written = scatter.scatter_planes(ctx, b.reshape(v, rows), b.reshape(ids, rows), size)
    return b.reshape(written, out.shape)


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
    return b.div(total, _avg_divisor(ctx, total, v.shape[-s:], kernel, stride, padding,
                                     count_include_pad, divisor_override))


def _avg_divisor(ctx, total, sizes_in, kernel, stride, padding, count_include_pad,
                 divisor_override):
    """avg_pool's divisor of each window of `total` (the window sums, whose
    last len(kernel) dims are the output's) for inputs of spatial sizes
    `sizes_in`: a product of one extent per dim (exact integers)."""
    b, s = ctx.b, len(kernel)
    if divisor_override:
        return ctx.tensor(float(divisor_override), total.dtype)
    divisor = None
    for i, (o, k, st, p, n) in enumerate(zip(total.shape[-s:], kernel, stride, padding,
                                             sizes_in)):
        sizes = []
        for j in range(o):
            start = j * st - p
            end = min(start + k, n + p)
            sizes.append(end - start if count_include_pad else min(end, n) - max(start, 0))
        extent = constant_along(ctx, sizes, total, total.rank - s + i)
        divisor = extent if divisor is None else b.mul(divisor, extent)
    return divisor


@lowers("aten.avg_pool2d_backward.default", "aten.avg_pool3d_backward.default")
def avg_pool_backward(ctx, grad, x, kernel, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
    """avg_pool's adjoint: grad over each window's divisor, spread over
    the window's elements by a transposed convolution with a kernel of ones
    (channels as batch), cropped to x's size (ceil_mode's overhang too)."""
    b = ctx.b
    s = int(ctx.name.split("avg_pool")[1][0])
    dt = ctx.out().dtype
    g = ctx.tensor(grad, dt)
    shape = ctx.out().shape
    kernel, stride, padding, _ = _pool_args(ctx, kernel, stride, padding, 1, s)
    g = b.div(g, _avg_divisor(ctx, g, shape[-s:], kernel, stride, padding, count_include_pad,
                              divisor_override))
    out = g.shape[-s:]
    g = b.reshape(g, (math.prod(g.shape[:-s]), 1) + out)
    fitted = [n - ((o - 1) * st - 2 * p + k) for n, o, st, p, k in
              zip(shape[-s:], out, stride, padding, kernel)]
    ones = b.splat(1.0, dt, (1, 1) + tuple(kernel))
    dx = conv(ctx, g, ones, stride, padding, [1] * s, True, fitted, 1)
    return b.reshape(dx, shape)


@lowers("aten.im2col.default")
def im2col(ctx, x, kernel_size, dilation, padding, stride):
    """F.unfold: the windows of a [N, C, H, W] (or unbatched [C, H, W])
    input as [N, C * K, L] columns, the channel outer, the kernel offset
    inner and the L windows in row-major order (torch's layout)."""
    b = ctx.b
    v, unbatched = _batched(ctx, ctx.tensor(x), 2)
    win, out = windows(ctx, v, _ints(kernel_size, 2, "kernel_size", ctx),
                       _ints(stride, 2, "stride", ctx), _ints(padding, 2, "padding", ctx),
                       _ints(dilation, 2, "dilation", ctx), 0.0)
    cols = b.reshape(win, (v.shape[0], v.shape[1] * win.shape[2], math.prod(out)))
    return b.reshape(cols, ctx.out().shape) if unbatched else cols


@lowers("aten.col2im.default")
def col2im(ctx, x, output_size, kernel_size, dilation, padding, stride):
    """F.fold, im2col's adjoint: [N, C * K, L] columns summed back into a
    [N, C, H, W] image (or unbatched [C * K, L] into [C, H, W]). The
    columns of each kernel offset, zeros inserted stride - 1 apart (one pad
    for all of them), are placed by a pad at their offset in the padded
    image and added in torch's order (offsets in row-major order, each
    element's overlapping windows summed from the first), then the
    padding is cropped: K image-sized adds."""
    b = ctx.b
    v, unbatched = _batched(ctx, ctx.tensor(x), 1)
    kernel = _ints(kernel_size, 2, "kernel_size", ctx)
    dilation = _ints(dilation, 2, "dilation", ctx)
    padding = _ints(padding, 2, "padding", ctx)
    stride = _ints(stride, 2, "stride", ctx)
    size = _ints(output_size, 2, "output_size", ctx)
    padded = [n + 2 * p for n, p in zip(size, padding)]
    out = [(n - d * (k - 1) - 1) // st + 1 for n, k, d, st in zip(padded, kernel, dilation, stride)]
    n, k = v.shape[0], math.prod(kernel)
    c = v.shape[1] // k
    # [N, C, K, oh, 1, ow, 1] padded to [N, C, K, oh, sh, ow, sw]: each
    # column followed by stride - 1 zeros in both dims.
    cols = b.reshape(v, (n, c, k, out[0], 1, out[1], 1))
    cols = b.pad(cols, [0] * 7, [0, 0, 0, 0, stride[0] - 1, 0, stride[1] - 1], 0.0) \
        if stride != [1, 1] else cols
    cols = b.reshape(cols, (n, c, k, out[0] * stride[0], out[1] * stride[1]))
    image = None
    for i, offsets in enumerate(itertools.product(*[range(kk) for kk in kernel])):
        piece = b.reshape(b.slice_dim(cols, 2, i, i + 1), (n, c) + cols.shape[3:])
        low = [o * d for o, d in zip(offsets, dilation)]
        high = [m - lo - e for m, lo, e in zip(padded, low, cols.shape[3:])]
        piece = _padded(ctx, piece, [0, 0] + low, [0, 0] + high)
        image = piece if image is None else b.add(image, piece)
    image = b.slice(image, [0, 0] + padding,
                    [n, c] + [p + m for p, m in zip(padding, size)])
    return b.reshape(image, ctx.out().shape) if unbatched else image
