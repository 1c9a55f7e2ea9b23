"""Resampling along the trailing spatial dims of [N, C, *spatial] tensors
(1-3 dims, with or without the batch dim where torch allows it):

  * reflection and replication padding: the kept part of the input (a
    slice: negative padding crops) concatenated with the mirrored rows next
    to each border (a gather of those few rows, reversed) or with the edge
    row broadcast;
  * nearest, nearest-exact, (bi/tri)linear and bicubic interpolation: per
    resized dim, a gather of the source rows torch picks (two, weighted,
    for linear, four for bicubic, the filter's support for antialiased
    bilinear / bicubic), the index and weight tables computed here in
    Python with the float32 arithmetic of ATen's CPU kernels;
  * adaptive average and max pooling (and interpolate's "area" mode, which
    is adaptive average pooling): per pooled dim, torch's windows (start
    floor(i * in / out), end ceil((i + 1) * in / out)) gathered as
    [out, K] rows, K the widest window, the shorter ones' extra rows masked
    (a reshape where the windows tile the dim);
  * pixel (un)shuffle and channel shuffle: reshapes around a transpose.

Each gather is a tfc.embedding of constant ids (its gradient the
deterministic scatter-add): the work grows with the output, never with
in x out.
"""
import math
import struct

import torch

from ..constants import Known
from ..dtypes import torch_dtype
from ..importer import Missing
from ..registry import lowers
from .common import constant_along, result_used
from .reduction import first_extreme_index, picked_along
from .shape import index_select


def _f32(x: float) -> float:
    """x rounded to a C++ float (float32)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _gather(ctx, v, dim, ids):
    """v's rows `ids` (a list of ints) along `dim`."""
    if list(ids) == list(range(v.shape[dim])):
        return v
    return index_select(ctx, v, dim, Known(torch.tensor(ids, dtype=torch.int64)))


def _spatial(name, prefix):
    """The spatial dim count in an op name: _spatial("aten._adaptive_avg_pool2d.default",
    "_adaptive_avg_pool") is 2."""
    return int(name.split(prefix)[1][0])


# -- padding modes ---------------------------------------------------------------------------

def _mirrored(ctx, v, dim, start, stop):
    """Rows [start, stop) of `dim` in reverse order."""
    return _gather(ctx, v, dim, list(range(stop - 1, start - 1, -1)))


def _pad_dim(ctx, v, dim, low, high, reflect):
    """One dim padded by torch's reflection (the border row not repeated)
    or replication rule. A negative amount crops the input on that side;
    the other side's padding still mirrors or repeats the input's own
    border rows (torch's index rule)."""
    b = ctx.b
    n = v.shape[dim]
    parts = []
    if low > 0:
        parts.append(_mirrored(ctx, v, dim, 1, low + 1) if reflect else
                     b.broadcast_to(b.slice_dim(v, dim, 0, 1),
                                    v.shape[:dim] + (low,) + v.shape[dim + 1:]))
    start, stop = max(-low, 0), n - max(-high, 0)
    if stop > start:
        parts.append(b.slice_dim(v, dim, start, stop))
    if high > 0:
        parts.append(_mirrored(ctx, v, dim, n - 1 - high, n - 1) if reflect else
                     b.broadcast_to(b.slice_dim(v, dim, n - 1, n),
                                    v.shape[:dim] + (high,) + v.shape[dim + 1:]))
    return b.concat(parts, dim)


@lowers("aten.reflection_pad1d.default", "aten.reflection_pad2d.default",
        "aten.reflection_pad3d.default", "aten.replication_pad1d.default",
        "aten.replication_pad2d.default", "aten.replication_pad3d.default")
def pad_mode(ctx, x, padding):
    """F.pad(mode="reflect" / "replicate"): `padding` is (left, right) of
    the last dim, then of the one before, ..., as constant_pad_nd's."""
    v = ctx.tensor(x)
    reflect = ctx.name.startswith("aten.reflection")
    for i in range(len(padding) // 2):
        v = _pad_dim(ctx, v, v.rank - 1 - i, padding[2 * i], padding[2 * i + 1], reflect)
    return v


# -- interpolation ----------------------------------------------------------------------------

def _inverse_scale(n_in, n_out, scale):
    """ATen's compute_scales_value<float>: 1 / the scale factor the caller
    gave (F.interpolate(scale_factor=) passes it on), else in / out."""
    return _f32(1.0 / scale) if scale is not None and scale > 0 else _f32(n_in / n_out)


def _weighted_scale(n_in, n_out, align_corners, scale):
    """ATen's area_pixel_compute_scale<float> of the linear and cubic
    modes: (in - 1) / (out - 1) with align_corners, else the inverse scale."""
    if align_corners:
        return _f32((n_in - 1) / (n_out - 1)) if n_out > 1 else 0.0
    return _inverse_scale(n_in, n_out, scale)


def nearest_table(n_in, n_out, scale, exact, channels_last=False):
    """(forward ids, backward ids) of torch's nearest interpolation along
    one dim (torch 1.13's CPU kernels). ATen's nearest_idx special-cases
    out == in (i) and out == 2 * in (i // 2) and takes floor(float(s * i))
    otherwise, s the float inverse scale; nearest's backward uses it, and
    so does the forward's channels-last kernel (`channels_last`: a 2-d or
    3-d resize of a channels-last-contiguous input, which every contiguous
    one with a single channel is), while the other forward kernel always
    takes floor(float(s * i)): 2 -> 2 with scale_factor=1.3 reads [0, 0]
    there but sends the gradient to [0, 1]. Without a scale factor (s 1 or
    1/2 at those sizes) all agree. nearest-exact's forward takes
    floor(float(max(s * (i + 0.5) - 0.5, 0) + 0.5)), the inner part in
    double, its backward floor(float((i + 0.5) * s))."""
    s = _inverse_scale(n_in, n_out, scale)
    last = n_in - 1
    if exact:
        fwd = [min(math.floor(_f32(max(s * (i + 0.5) - 0.5, 0.0) + 0.5)), last)
               for i in range(n_out)]
        bwd = [min(math.floor(_f32((i + 0.5) * s)), last) for i in range(n_out)]
        return fwd, bwd
    fwd = [min(math.floor(_f32(s * i)), last) for i in range(n_out)]
    if n_out == n_in:
        bwd = list(range(n_out))
    elif n_out == 2 * n_in:
        bwd = [i >> 1 for i in range(n_out)]
    else:
        bwd = fwd
    return (bwd if channels_last else fwd), bwd


def _channels_last_kernel(ctx, v, spatial):
    """Whether torch 1.13 resizes `v` (the node's first argument) with its
    channels-last nearest kernel: a 2-d or 3-d resize of an input that is
    channels-last contiguous (its traced example's strides; a contiguous
    one of that shape without an example)."""
    if spatial == 1:
        return False
    example = ctx.example(0)
    if not isinstance(example, torch.Tensor):
        example = torch.empty(v.shape, device="meta")
    fmt = torch.channels_last if spatial == 2 else torch.channels_last_3d
    return example.dim() == spatial + 2 and example.is_contiguous(memory_format=fmt)


def linear_table(n_in, n_out, align_corners, scale):
    """(i0, i1, w0, w1) of torch's linear interpolation along one dim
    (out[i] = x[i0] * w0 + x[i1] * w1), for out != in. ATen's CPU kernels
    take the float scale s ((in - 1) / (out - 1) with align_corners, else
    the inverse scale), the source position in double (s * i, or
    max(s * (i + 0.5) - 0.5, 0)), i0 its integer part, i1 the next row
    (i0 on the last row), w1 = float(clamp(src - i0, 0, 1)), w0 = 1 - w1."""
    s = _weighted_scale(n_in, n_out, align_corners, scale)
    i0s, i1s, w0s, w1s = [], [], [], []
    for i in range(n_out):
        src = s * i if align_corners else max(s * (i + 0.5) - 0.5, 0.0)
        i0 = int(src)
        w1 = _f32(min(max(src - i0, 0.0), 1.0))
        i0s.append(i0)
        i1s.append(i0 + 1 if i0 < n_in - 1 else i0)
        w0s.append(_f32(1.0 - w1))
        w1s.append(w1)
    return i0s, i1s, w0s, w1s


def cubic_table(n_in, n_out, align_corners, scale):
    """(rows, weights), four lists of n_out each: torch's bicubic
    interpolation reads out[i] = sum_j x[rows[j][i]] * weights[j][i]. The
    source position is linear's without its clamp at 0, i0 its floor and t
    = src - i0; the rows are i0 - 1 ... i0 + 2 clamped to the input, the
    weights Keys' cubic convolution (A = -0.75) at distances t + 1, t,
    1 - t and 2 - t, in float with one rounding per operation. ATen's
    kernel rounds some of those operations differently: its weights are
    within 2e-6 of these (so where an input is infinite, a weight that is
    0 in one and tiny in the other can make inf of torch's NaN)."""
    s = _weighted_scale(n_in, n_out, align_corners, scale)
    a = -0.75
    f = _f32

    def near(x):  # ((a + 2) x - (a + 3)) x x + 1, for |x| <= 1
        return f(f(f(f(f((a + 2) * x) - (a + 3)) * x) * x) + 1)

    def far(x):  # ((a x - 5 a) x + 8 a) x - 4 a, for 1 < |x| < 2
        return f(f(f(f(f(f(a * x) - 5 * a) * x) + 8 * a) * x) - 4 * a)

    rows, weights = [[] for _ in range(4)], [[] for _ in range(4)]
    for i in range(n_out):
        src = s * i if align_corners else s * (i + 0.5) - 0.5
        i0 = math.floor(f(src))
        t = f(src - i0)
        u = f(1.0 - t)
        for j, w in enumerate((far(f(t + 1.0)), near(t), near(u), far(f(u + 1.0)))):
            rows[j].append(min(max(i0 - 1 + j, 0), n_in - 1))
            weights[j].append(w)
    return rows, weights


def _triangle(x):
    """ATen's antialiasing bilinear filter (in float)."""
    x = abs(x)
    return _f32(1.0 - x) if x < 1.0 else 0.0


def _keys_half(x):
    """ATen's antialiasing bicubic filter: Keys' cubic with a = -0.5, in
    double, rounded to float."""
    a = -0.5
    x = abs(x)
    if x < 1.0:
        return _f32(((a + 2.0) * x - (a + 3.0)) * x * x + 1)
    if x < 2.0:
        return _f32((((x - 5) * x + 8) * x - 4) * a)
    return 0.0


def antialias_table(n_in, n_out, align_corners, scale, cubic):
    """(starts, weights) of torch's antialiased interpolation along one
    dim: out[i] = sum_j x[starts[i] + j] * weights[i][j], j below the
    row's tap count. As ATen's CPU _compute_weights_aa (float, a C++ int
    cast truncating): the filter (a triangle, or Keys' cubic with a =
    -0.5) stretched by the scale s when downsampling (support = taps / 2
    times max(s, 1)), centered at s * (i + 0.5), evaluated at each
    input row's center inside [center - support, center + support) and
    normalized to sum 1."""
    f = _f32
    s = _weighted_scale(n_in, n_out, align_corners, scale)
    taps = 4 if cubic else 2
    support = f(taps * 0.5 * s) if s >= 1.0 else taps * 0.5
    inverse = f(1.0 / s) if s >= 1.0 else 1.0
    fn = _keys_half if cubic else _triangle
    starts, weights = [], []
    for i in range(n_out):
        center = f(s * (i + 0.5))
        lo = max(int(f(center - support) + 0.5), 0)
        size = min(int(f(center + support) + 0.5), n_in) - lo
        ws = [fn(f((f(f(j + lo) - center) + 0.5) * inverse)) for j in range(size)]
        total = 0.0
        for w in ws:
            total = f(total + w)
        starts.append(lo)
        weights.append([f(w / total) for w in ws] if total != 0.0 else ws)
    return starts, weights


def _antialias_dim(ctx, v, dim, n_out, align_corners, scale, cubic):
    """One dim's antialiased interpolation: tap j of every output row
    gathered (rows past a row's taps weighted 0, clamped to the input),
    weighted and added in tap order, as ATen's loop sums."""
    b = ctx.b
    n_in = v.shape[dim]
    starts, weights = antialias_table(n_in, n_out, align_corners, scale, cubic)
    out = None
    for j in range(max(len(w) for w in weights)):
        ids = [min(lo + j, n_in - 1) for lo in starts]
        w = [ws[j] if j < len(ws) else 0.0 for ws in weights]
        term = b.mul(_gather(ctx, v, dim, ids), constant_along(ctx, w, v, dim))
        out = term if out is None else b.add(out, term)
    return out


def _nearest_dim(ctx, v, dim, n_out, scale, exact, channels_last):
    fwd, bwd = nearest_table(v.shape[dim], n_out, scale, exact, channels_last)
    picked = _gather(ctx, v, dim, fwd)
    if bwd != fwd:
        # torch's gradient is not its forward's: the value of one gather,
        # the gradient of the other.
        picked = ctx.b.straight_through(picked, _gather(ctx, v, dim, bwd))
    return picked


def _linear_dim(ctx, v, dim, n_out, align_corners, scale):
    b = ctx.b
    if n_out == v.shape[dim]:
        # torch weighs the row itself by 1 and 0: x * 1 + x * 0 (an
        # infinity becomes NaN there, as in torch).
        return b.add(v, b.mul(v, ctx.tensor(0.0, v.dtype)))
    i0, i1, w0, w1 = linear_table(v.shape[dim], n_out, align_corners, scale)
    return b.add(b.mul(_gather(ctx, v, dim, i0), constant_along(ctx, w0, v, dim)),
                 b.mul(_gather(ctx, v, dim, i1), constant_along(ctx, w1, v, dim)))


def _cubic_dim(ctx, v, dim, n_out, align_corners, scale):
    """x0 * w0 + x1 * w1 + x2 * w2 + x3 * w3, in torch's order (also where
    the size is kept: weights 0, 1, 0, 0)."""
    b = ctx.b
    rows, weights = cubic_table(v.shape[dim], n_out, align_corners, scale)
    out = None
    for ids, w in zip(rows, weights):
        term = b.mul(_gather(ctx, v, dim, ids), constant_along(ctx, w, v, dim))
        out = term if out is None else b.add(out, term)
    return out


_NEAREST = [f"aten.upsample_nearest{s}d.{o}" for s in (1, 2, 3) for o in ("vec", "default")]
_NEAREST_EXACT = [f"aten._upsample_nearest_exact{s}d.{o}" for s in (1, 2, 3)
                  for o in ("vec", "default")]
_LINEAR = [f"aten.{m}.{o}" for m in ("upsample_linear1d", "upsample_bilinear2d",
                                     "upsample_trilinear3d") for o in ("vec", "default")]
_CUBIC = ["aten.upsample_bicubic2d.vec", "aten.upsample_bicubic2d.default"]


_ANTIALIAS = [f"aten._upsample_{m}2d_aa.{o}" for m in ("bilinear", "bicubic")
              for o in ("vec", "default")]


@lowers(*_NEAREST, *_NEAREST_EXACT, *_LINEAR, *_CUBIC, *_ANTIALIAS)
def upsample(ctx, x, output_size, *args, **kwargs):
    """F.interpolate / nn.Upsample in modes nearest, nearest-exact, linear,
    bilinear, bicubic and trilinear. The .vec overloads take (output_size,
    [align_corners,] scale_factors), the others (output_size,
    [align_corners,] scales per dim); the output size is the traced one.
    Dims are resized from the last one, as torch's kernels nest them.
    With antialias=True (bilinear, bicubic) every dim is resampled by
    torch's antialiasing filter (antialias_table), also one whose size a
    scale factor keeps (torch resamples it too)."""
    name = ctx.name
    antialias = name in _ANTIALIAS
    weighted = name in _LINEAR or name in _CUBIC or antialias  # these take align_corners
    s = int(name.split(".")[1].replace("_aa", "")[-2])  # upsample_bilinear2d: 2 spatial dims
    if name.endswith(".vec"):
        params = ["scale_factors"]
    else:
        params = ["scales"] if s == 1 else ["scales_d", "scales_h", "scales_w"][3 - s:]
    bound = dict(zip((["align_corners"] if weighted else []) + params, args), **kwargs)
    scales = (bound.get("scale_factors") or [None] * s) if name.endswith(".vec") \
        else [bound.get(p) for p in params]
    align_corners = bool(bound.get("align_corners", False))
    v = ctx.tensor(x)
    if v.dtype != "f32":
        dtype = str(torch_dtype(v.dtype)).replace("torch.", "")
        ctx.unsupported(f"interpolation of a {dtype} tensor: tfc computes torch's index and "
                        "weight tables as its CPU kernels do for float32",
                        "interpolate the tensor in float32 (x.float())")
    source, out = v, ctx.out().shape
    channels_last = name in _NEAREST and _channels_last_kernel(ctx, v, s)
    for i in reversed(range(s)):
        dim = v.rank - s + i
        if antialias:
            v = _antialias_dim(ctx, v, dim, out[dim], align_corners, scales[i],
                               "bicubic" in name)
        elif name in _CUBIC:
            v = _cubic_dim(ctx, v, dim, out[dim], align_corners, scales[i])
        elif name in _LINEAR:
            v = _linear_dim(ctx, v, dim, out[dim], align_corners, scales[i])
        else:
            v = _nearest_dim(ctx, v, dim, out[dim], scales[i], name in _NEAREST_EXACT,
                             channels_last)
    if name in _CUBIC and out == source.shape:
        # torch's bicubic backward copies the gradient when no size
        # changes, though a scale factor made the forward resample.
        v = ctx.b.straight_through(v, source)
    return v


# -- adaptive pooling --------------------------------------------------------------------------

def adaptive_windows(n_in, n_out):
    """torch's adaptive pooling windows [start, end) along one dim, as
    ATen's start_index / end_index compute them (in float)."""
    starts = [math.floor(_f32(_f32(i * n_in) / n_out)) for i in range(n_out)]
    ends = [math.ceil(_f32(_f32((i + 1) * n_in) / n_out)) for i in range(n_out)]
    return starts, ends


def _windows_along(ctx, v, dim, n_out, fill):
    """v's adaptive pooling windows along `dim`: [.., n_out, K, ..] with K
    the widest window's size; a shorter window's extra entries are `fill`.
    Also the window sizes."""
    b = ctx.b
    n_in = v.shape[dim]
    starts, ends = adaptive_windows(n_in, n_out)
    sizes = [e - s for s, e in zip(starts, ends)]
    k = max(sizes)
    split = v.shape[:dim] + (n_out, k) + v.shape[dim + 1:]
    if n_in == n_out * k:
        return b.reshape(v, split), sizes  # windows tile the dim
    ids = [min(s + j, e - 1) for s, e in zip(starts, ends) for j in range(k)]
    win = b.reshape(_gather(ctx, v, dim, ids), split)
    if min(sizes) < k:
        inside = torch.tensor([[j < size for j in range(k)] for size in sizes])
        inside = ctx.tensor(Known(inside.view((n_out, k) + (1,) * (v.rank - dim - 1))), "i1")
        win = b.select(inside, win, ctx.tensor(fill, v.dtype))
    return win, sizes


@lowers("aten._adaptive_avg_pool2d.default", "aten._adaptive_avg_pool3d.default")
def adaptive_avg_pool(ctx, x, output_size):
    """Each window's sum divided by its height, then its width (torch's
    sum / kh / kw; / kd first in 3-d). F.adaptive_avg_pool1d traces to
    the 2-d op on [N, C, 1, L], interpolate(mode="area") to these."""
    b = ctx.b
    s = _spatial(ctx.name, "_adaptive_avg_pool")
    v = ctx.tensor(x, ctx.out().dtype)
    out = ctx.out().shape
    sizes = {}
    for i in reversed(range(s)):
        dim = v.rank - s + i
        win, sizes[dim] = _windows_along(ctx, v, dim, out[dim], 0.0)
        v = b.reduce("sum", win, [dim + 1])
    for dim in sorted(sizes):
        v = b.div(v, constant_along(ctx, [float(k) for k in sizes[dim]], v, dim))
    return v


@lowers("aten.adaptive_max_pool2d.default", "aten.adaptive_max_pool3d.default")
def adaptive_max_pool(ctx, x, output_size):
    """Each window's first largest element (row-major order, as torch's
    kernels scan it), whose gradient is its own. Reduced one dim at a
    time from the last: the first largest of each row's window, then the
    first row holding the window's largest, is the row-major first.
    Where the trace reads the indices (return_indices=True), each
    element's flat index within its (N, C) plane is picked alongside.
    F.adaptive_max_pool1d traces to the 2-d op."""
    b = ctx.b
    s = _spatial(ctx.name, "adaptive_max_pool")
    v = ctx.tensor(x, ctx.out(0).dtype)
    out = ctx.out(0).shape
    flat = None
    if result_used(ctx, 1):
        lead = v.rank - s
        flat = ctx.tensor(Known(torch.arange(math.prod(v.shape[lead:]))
                                .view(v.shape[lead:])), "i64")
        flat = b.broadcast_to(b.reshape(flat, (1,) * lead + v.shape[lead:]), v.shape)
    for i in reversed(range(s)):
        dim = v.rank - s + i
        win, _ = _windows_along(ctx, v, dim, out[dim], float("-inf"))
        index = first_extreme_index(ctx, win, dim + 1, "i64")
        kept = win.shape[:dim + 1] + win.shape[dim + 2:]
        v = b.reshape(picked_along(ctx, win, dim + 1, index), kept)
        if flat is not None:
            ids, _ = _windows_along(ctx, flat, dim, out[dim], 0)
            flat = b.reshape(picked_along(ctx, ids, dim + 1, index), kept)
    if flat is None:
        return v, Missing("adaptive max pooling's indices are not computed where unused")
    return v, b.convert(flat, ctx.out(1).dtype)


# -- shuffles -----------------------------------------------------------------------------------

@lowers("aten.pixel_shuffle.default")
def pixel_shuffle(ctx, x, upscale_factor):
    """[*, C * r * r, H, W] -> [*, C, H * r, W * r]: out[c, h * r + i,
    w * r + j] = x[c * r * r + i * r + j, h, w]."""
    b = ctx.b
    v = ctx.tensor(x)
    r = upscale_factor
    lead, (c, h, w) = v.shape[:-3], v.shape[-3:]
    n = len(lead)
    v = b.reshape(v, lead + (c // (r * r), r, r, h, w))
    v = b.transpose(v, list(range(n)) + [n + k for k in (0, 3, 1, 4, 2)])
    return b.reshape(v, ctx.out().shape)


@lowers("aten.pixel_unshuffle.default")
def pixel_unshuffle(ctx, x, downscale_factor):
    """pixel_shuffle's inverse: [*, C, H * r, W * r] -> [*, C * r * r, H, W]."""
    b = ctx.b
    v = ctx.tensor(x)
    r = downscale_factor
    lead, (c, h, w) = v.shape[:-3], v.shape[-3:]
    n = len(lead)
    v = b.reshape(v, lead + (c, h // r, r, w // r, r))
    v = b.transpose(v, list(range(n)) + [n + k for k in (0, 2, 4, 1, 3)])
    return b.reshape(v, ctx.out().shape)


@lowers("aten.channel_shuffle.default", "aten.native_channel_shuffle.default")
def channel_shuffle(ctx, x, groups):
    """[N, C, *] with C = g * k: channel i * k + j moves to j * g + i."""
    b = ctx.b
    v = ctx.tensor(x)
    n, c, rest = v.shape[0], v.shape[1], v.shape[2:]
    v = b.reshape(v, (n, groups, c // groups) + rest)
    return b.reshape(b.swap(v, 1, 2), v.shape[:1] + (c,) + rest)
