"""Complex numbers and FFTs over real tfc ops.

The dialect has real element types only, so a complex tensor is carried
through the import as an importer.Complex: its real and imaginary parts,
Values of the matching real type (complex64: f32, complex128: f64). The
lowerings here are registered with `lowers_complex` and run for every node
with a complex operand or result; they take such pairs (and real Values,
known tensors and Python numbers, complex ones included) and return pairs.
tfc's autodiff of the real ops gives the gradients, which equal torch's for
a real loss (the pair is the real 2-vector torch's convention differentiates).

  * Arithmetic: `mul`, `div`, `add`, `sub` (complex with complex or real),
    `complex`, `polar`, `view_as_complex` / `view_as_real`, `conj` (the
    imaginary part negated), `abs`, `sgn` and `angle` (gradient 0 at 0,
    torch's), `exp`, integer powers.
  * Data movement and linear reductions (reshapes, slices, permutes, cat,
    padding, sums, means, ...) are applied to each part by the op's real
    lowering (`_COMPONENTWISE`); matrix products (`mm`, `bmm`, `matmul`)
    from four real ones.
  * DFTs (`_fft_r2c`, `_fft_c2c`, `_fft_c2r`, what `torch.fft.*` and
    `torch.stft` trace to) are matmuls with constant cos / sin tables along
    each transformed dim, the exact definition at O(n^2) work per dim up to
    DIRECT_DFT_MAX points; a longer dim of n = n1 n2 points is split once
    (Cooley-Tukey: DFTs of n1 and n2 points and a twiddle product between,
    each part split again when it is long), so work and tables stay near
    O(n (n1 + n2)). A size whose largest prime factor exceeds MAX_DFT_SIZE
    is refused.
"""
import math

import torch

from .. import registry
from ..constants import Known
from ..importer import Complex, is_complex_arg
from ..ir import Value
from ..registry import lowers, lowers_complex
from .common import norm_dim
from .shape import flip

# Sizes up to DIRECT_DFT_MAX (and primes) are transformed with [n, n]
# tables; longer ones are split into factors. A prime (or a factor that
# cannot be split) above MAX_DFT_SIZE is refused: its two [n, n] tables
# would hold 4 MiB each in f32 at 1024.
DIRECT_DFT_MAX = 128
MAX_DFT_SIZE = 1024

# aten's fft_norm_mode (ATen/native/SpectralOpsUtils.h): the `normalization`
# argument of the _fft_* ops.
_NORM_NONE, _NORM_BY_ROOT_N, _NORM_BY_N = 0, 1, 2


# -- pairs ------------------------------------------------------------------------------

def parts(ctx, x, dtype):
    """(re, im) of a lowered argument as Values of element type `dtype`; im
    is None for a real argument (its imaginary part is zero)."""
    b = ctx.b
    if isinstance(x, Complex):
        return b.convert(x.re, dtype), b.convert(x.im, dtype)
    if isinstance(x, Known) and x.tensor.is_complex():
        t = x.tensor
        return (ctx.tensor(Known(t.real.contiguous()), dtype),
                ctx.tensor(Known(t.imag.contiguous()), dtype))
    if isinstance(x, complex):
        return ctx.tensor(x.real, dtype), ctx.tensor(x.imag, dtype)
    return ctx.tensor(x, dtype), None


def pair(ctx, re, im, i=None):
    """The node's (i-th) complex result from its parts (None: zero),
    broadcast to the traced shape."""
    t = ctx.out(i)
    b = ctx.b
    re = b.broadcast_to(b.convert(re, t.dtype), t.shape) if re is not None else None
    im = b.broadcast_to(b.convert(im, t.dtype), t.shape) if im is not None else None
    zero = None
    if re is None or im is None:
        zero = ctx.tensor(0.0, t.dtype, t.shape)
    return Complex(re if re is not None else zero, im if im is not None else zero)


def _add(b, x, y):
    if x is None:
        return y
    return x if y is None else b.add(x, y)


def _sub(b, x, y):
    if y is None:
        return x
    return b.unary("neg", y) if x is None else b.sub(x, y)


def _mul(b, x, y):
    return None if x is None or y is None else b.mul(x, y)


def cmul(b, ar, ai, br, bi, product=None):
    """(ar + i ai) (br + i bi) for any real-bilinear `product` of parts
    (default: elementwise mul); None parts are zero."""
    product = product or b.mul

    def p(x, y):
        return None if x is None or y is None else product(x, y)
    return _sub(b, p(ar, br), p(ai, bi)), _add(b, p(ar, bi), p(ai, br))


# -- construction, views and casts --------------------------------------------------------

@lowers_complex("aten.view_as_complex.default")
def view_as_complex(ctx, x):
    t, b = ctx.out(), ctx.b
    v = ctx.tensor(x, t.dtype)
    return Complex(b.reshape(b.slice_dim(v, -1, 0, 1), t.shape),
                   b.reshape(b.slice_dim(v, -1, 1, 2), t.shape))


@lowers_complex("aten.view_as_real.default")
def view_as_real(ctx, z):
    t, b = ctx.out(), ctx.b
    re, im = parts(ctx, z, t.dtype)
    if im is None:
        im = ctx.tensor(0.0, t.dtype, re.shape)
    column = tuple(re.shape) + (1,)
    return b.concat([b.reshape(re, column), b.reshape(im, column)], -1)


@lowers_complex("aten.complex.default")
def complex_(ctx, real, imag):
    dt = ctx.out().dtype
    return pair(ctx, ctx.tensor(real, dt), ctx.tensor(imag, dt))


@lowers_complex("aten.polar.default")
def polar(ctx, magnitude, angle):
    dt, b = ctx.out().dtype, ctx.b
    r, a = ctx.tensor(magnitude, dt), ctx.tensor(angle, dt)
    return pair(ctx, b.mul(r, b.unary("cos", a)), b.mul(r, b.unary("sin", a)))


@lowers_complex("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout",
                "aten.to.device", "aten.to.other", "aten.type_as.default")
def to_copy(ctx, x, *args, **kwargs):
    """A cast to or from a complex type: a real tensor gets a zero
    imaginary part; complex to real keeps the real part (torch discards the
    imaginary part, with a warning)."""
    dt = ctx.out().dtype
    re, im = parts(ctx, x, dt)
    if ctx.out_complex[0]:
        return pair(ctx, re, im)
    return re


@lowers_complex("aten.conj.default", "aten._conj.default", "aten.resolve_conj.default",
                "aten.conj_physical.default", "aten._conj_physical.default")
def conj(ctx, z):
    """The conjugate (torch's lazy conjugate bit made physical)."""
    re, im = parts(ctx, z, ctx.out().dtype)
    return pair(ctx, re, ctx.b.unary("neg", im) if im is not None else None)


@lowers("aten._neg_view.default")
@lowers_complex("aten._neg_view.default", "aten.neg.default")
def neg(ctx, x):
    """-x (`_neg_view` is how the trace spells the negated imaginary part
    of a conjugate: view_as_real(conj(z)) read as its negation)."""
    b = ctx.b
    if not ctx.out_complex or not ctx.out_complex[0]:
        return b.unary("neg", ctx.tensor(x, ctx.out().dtype))
    re, im = parts(ctx, x, ctx.out().dtype)
    return pair(ctx, b.unary("neg", re), b.unary("neg", im) if im is not None else None)


# -- arithmetic --------------------------------------------------------------------------

def _alpha_scaled(ctx, x, alpha, dt):
    if alpha == 1 or x is None:
        return x
    if isinstance(alpha, complex):
        ctx.unsupported("a complex alpha")
    return ctx.b.mul(x, ctx.tensor(alpha, dt))


@lowers_complex("aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor", "aten.sub.Scalar",
                "aten.rsub.Tensor", "aten.rsub.Scalar")
def add_sub(ctx, a, other, alpha=1):
    dt, b = ctx.out().dtype, ctx.b
    if ctx.name.startswith("aten.rsub"):
        a, other = other, a
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, other, dt)
    br, bi = _alpha_scaled(ctx, br, alpha, dt), _alpha_scaled(ctx, bi, alpha, dt)
    if ctx.name.startswith("aten.add"):
        return pair(ctx, _add(b, ar, br), _add(b, ai, bi))
    return pair(ctx, _sub(b, ar, br), _sub(b, ai, bi))


@lowers_complex("aten.mul.Tensor", "aten.mul.Scalar")
def mul(ctx, a, other):
    dt = ctx.out().dtype
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, other, dt)
    return pair(ctx, *cmul(ctx.b, ar, ai, br, bi))


@lowers_complex("aten.div.Tensor", "aten.div.Scalar")
def div(ctx, a, other):
    """a / b: by a real b each part; by a complex b, a conj(b) / |b|^2
    (the textbook formula: no rescaling against overflow of |b|^2)."""
    dt, b = ctx.out().dtype, ctx.b
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, other, dt)
    if bi is None:
        return pair(ctx, b.div(ar, br), b.div(ai, br) if ai is not None else None)
    re, im = cmul(b, ar, ai, br, b.unary("neg", bi))
    d = b.add(b.mul(br, br), b.mul(bi, bi))
    return pair(ctx, b.div(re, d), b.div(im, d))


@lowers_complex("aten.reciprocal.default")
def reciprocal(ctx, z):
    """1 / z = conj(z) / |z|^2 (a scalar divided by a complex tensor)."""
    dt, b = ctx.out().dtype, ctx.b
    re, im = parts(ctx, z, dt)
    d = b.add(b.mul(re, re), b.mul(im, im))
    return pair(ctx, b.div(re, d), b.div(b.unary("neg", im), d))


@lowers_complex("aten.pow.Tensor_Scalar")
def pow_(ctx, z, exponent):
    """z^k for an integer k (|k| <= 64): repeated squaring with complex
    products, the reciprocal of z^-k for k < 0."""
    dt, b = ctx.out().dtype, ctx.b
    if isinstance(exponent, complex) or float(exponent) != int(exponent) \
            or abs(int(exponent)) > 64:
        ctx.unsupported(f"a complex tensor to the power {exponent} (tfc lowers integer "
                        "powers up to 64 of complex tensors)")
    k = int(exponent)
    re, im = parts(ctx, z, dt)
    result, square = (None, None), (re, im)
    for bit in range(abs(k).bit_length()):
        if bit:
            square = cmul(b, *square, *square)
        if abs(k) >> bit & 1:
            result = square if result[0] is None else cmul(b, *result, *square)
    if result[0] is None:
        return pair(ctx, ctx.tensor(1.0, dt, re.shape), None)
    if k < 0:
        d = b.add(b.mul(result[0], result[0]), b.mul(result[1], result[1]))
        result = b.div(result[0], d), b.div(b.unary("neg", result[1]), d)
    return pair(ctx, *result)


@lowers_complex("aten.sgn.default")
def sgn(ctx, z):
    """z / |z|, 0 at 0 (with a zero gradient there, as torch's)."""
    dt, b = ctx.out().dtype, ctx.b
    re, im = parts(ctx, z, dt)
    origin, sre, sim = _at_origin(ctx, re, im)
    r = b.unary("sqrt", b.add(b.mul(sre, sre), b.mul(sim, sim)))
    zero = ctx.tensor(0.0, dt)
    return pair(ctx, b.select(origin, zero, b.div(sre, r)), b.select(origin, zero, b.div(sim, r)))


@lowers_complex("aten.exp.default")
def exp(ctx, z):
    dt, b = ctx.out().dtype, ctx.b
    re, im = parts(ctx, z, dt)
    e = b.unary("exp", re)
    if im is None:
        return pair(ctx, e, None)
    return pair(ctx, b.mul(e, b.unary("cos", im)), b.mul(e, b.unary("sin", im)))


def _at_origin(ctx, re, im):
    """(origin mask, re, im with the origin moved to 1 + 0i): where a
    formula's derivative is 0/0 at z = 0 it is evaluated at 1 instead and
    the result selected, so no NaN reaches the gradient."""
    b, dt = ctx.b, re.dtype
    zero = ctx.tensor(0.0, dt)
    origin = b.select(b.compare("eq", re, zero), b.compare("eq", im, zero),
                      ctx.tensor(False, "i1"))
    return origin, b.select(origin, ctx.tensor(1.0, dt), re), b.select(origin, zero, im)


@lowers_complex("aten.abs.default")
def abs_(ctx, z):
    """|z| = sqrt(re^2 + im^2), 0 at 0 with a zero gradient (torch's
    sgn(0) = 0); squares overflow above 1.8e19 in f32 (torch's hypot
    does not)."""
    b, dt = ctx.b, ctx.out().dtype
    re, im = parts(ctx, z, dt)
    origin, sre, sim = _at_origin(ctx, re, im)
    r = b.unary("sqrt", b.add(b.mul(sre, sre), b.mul(sim, sim)))
    return b.select(origin, ctx.tensor(0.0, dt), r)


@lowers_complex("aten.linalg_vector_norm.default", "aten.norm.Scalar", "aten.norm.ScalarOpt_dim")
def norm(ctx, z, *args, **kwargs):
    """A vector norm of a complex tensor is the real lowering's norm of
    |z| (whose zero gradient at 0 is also the norm's there)."""
    if not is_complex_arg(z):
        ctx.unsupported("a complex dtype argument for the norm of a real tensor")
    return registry.lookup(ctx.name)(ctx, abs_(ctx, z), *args, **kwargs)


@lowers("aten.angle.default")
@lowers_complex("aten.angle.default")
def angle(ctx, z):
    """atan2(im, re); gradient 0 at 0 (torch's). Of a real tensor: pi for
    negative elements, 0 otherwise, NaN for NaN, no gradient (torch's)."""
    b, dt = ctx.b, ctx.out().dtype
    if not is_complex_arg(z):
        x = b.stop_gradient(ctx.tensor(z, dt))
        negative = b.compare("lt", x, ctx.tensor(0.0, dt))
        a = b.select(negative, ctx.tensor(math.pi, dt), ctx.tensor(0.0, dt))
        return b.select(b.compare("ne", x, x), x, a)
    re, im = parts(ctx, z, dt)
    origin, sre, sim = _at_origin(ctx, re, im)
    exact = b.stop_gradient(b.binary("atan2", im, re))  # +-0 and pi at the origin
    return b.select(origin, exact, b.binary("atan2", sim, sre))


# -- each part by the real lowering ---------------------------------------------------------

# Real-linear ops that act on each part alone: op(re + i im) = op(re) + i
# op(im). Their real lowerings run once per part; a real float operand
# (cat of a complex and a real tensor) has a zero imaginary part, a Python
# float (a pad or fill value) likewise, integer operands (dims, sizes,
# indices) are shared.
_COMPONENTWISE = (
    "aten.view.default", "aten._unsafe_view.default", "aten._reshape_alias.default",
    "aten.reshape.default", "aten.unsqueeze.default", "aten.squeeze.dim",
    "aten.squeeze.default", "aten.flatten.using_ints", "aten.unflatten.int",
    "aten.expand.default", "aten.t.default", "aten.transpose.int", "aten.permute.default",
    "aten.slice.Tensor", "aten.narrow.default", "aten.select.int", "aten.split.Tensor",
    "aten.split_with_sizes.default", "aten.unbind.int", "aten.cat.default",
    "aten.stack.default", "aten.constant_pad_nd.default", "aten.repeat.default",
    "aten.flip.default", "aten.roll.default", "aten.diagonal.default",
    "aten.index_select.default", "aten.index.Tensor", "aten.gather.default",
    "aten.slice_scatter.default", "aten.select_scatter.default", "aten.where.self",
    "aten.clone.default", "aten.alias.default", "aten.lift_fresh_copy.default",
    "aten.contiguous.default", "aten.detach.default", "aten.zeros_like.default",
    "aten.sum.default", "aten.sum.dim_IntList", "aten.mean.default", "aten.mean.dim",
    "aten.cumsum.default",
    # Writes of constants or values at indices or masks (zeroing bins of a
    # spectrum: xf.masked_fill(mask, 0), xf[mask] = 0; a diagonal).
    "aten.fill.Scalar", "aten.fill.Tensor", "aten.masked_fill.Scalar",
    "aten.masked_fill.Tensor", "aten.index_put.default", "aten.scatter.src",
    "aten.scatter.value", "aten.diag_embed.default",
)


# The index arguments (by position) of the componentwise ops that take
# some: shared by both runs. Every other tensor argument is data, whose
# imaginary part is 0 when it is real (an integer tensor in a cat with
# complex ones included).
_INDEX_ARGS = {"aten.index_select.default": 2, "aten.index.Tensor": 1,
               "aten.gather.default": 2, "aten.where.self": 0,
               "aten.masked_fill.Scalar": 1, "aten.masked_fill.Tensor": 1,
               "aten.index_put.default": 1, "aten.scatter.src": 2, "aten.scatter.value": 2}
# The Python number arguments that are data (a fill value): each part gets
# its part of the number (an int or bool one is real), where other numbers
# (dims, sizes) are shared.
_NUMBER_ARGS = {"aten.fill.Scalar": 1, "aten.masked_fill.Scalar": 2, "aten.scatter.value": 3}


def _number_part(x, part):
    """Part 0 (re) or 1 (im) of a fill value."""
    if isinstance(x, complex):
        return x.imag if part else x.real
    if isinstance(x, (bool, int, float)):
        return 0.0 if part else float(x)
    return x


def _part_of(ctx, x, part):
    """Data argument `x` for the run on part 0 (re) or 1 (im)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_part_of(ctx, e, part) for e in x)
    if isinstance(x, Complex):
        return x.im if part else x.re
    if isinstance(x, Known):
        t = x.tensor
        if t.is_complex():
            return Known((t.imag if part else t.real).contiguous())
        return Known(torch.zeros_like(t)) if part else x
    if isinstance(x, Value) and part:
        return ctx.tensor(False if x.dtype == "i1" else 0, x.dtype, x.shape)
    if isinstance(x, complex):
        return x.imag if part else x.real
    if isinstance(x, float):
        return 0.0 if part else x
    return x


def _example_part(x, part):
    if isinstance(x, (list, tuple)):
        return type(x)(_example_part(e, part) for e in x)
    if isinstance(x, torch.Tensor) and x.is_complex():
        return x.imag if part else x.real
    return x


@lowers_complex(*_COMPONENTWISE)
def componentwise(ctx, *args, **kwargs):
    real = registry.lookup(ctx.name)
    assert real is not None, f"{ctx.name}: no real lowering"
    if not all(ctx.out_complex):
        ctx.unsupported("its result is real here (only complex results are computed "
                        "part by part)")
    examples, results = ctx.real_args, []
    try:
        index, number = _INDEX_ARGS.get(ctx.name), _NUMBER_ARGS.get(ctx.name)
        for part in (0, 1):
            ctx.real_args = _example_part(examples, part)
            parts = [a if i == index else _number_part(a, part) if i == number
                     else _part_of(ctx, a, part) for i, a in enumerate(args)]
            results.append(real(ctx, *parts,
                                **{k: _part_of(ctx, v, part) for k, v in kwargs.items()}))
    finally:
        ctx.real_args = examples
    re, im = results
    if isinstance(re, (list, tuple)):
        return type(re)(Complex(r, i) for r, i in zip(re, im))
    if not isinstance(re, Value):   # a masked selection's rows (masked.py)
        ctx.unsupported("it selects a data-dependent number of rows of a complex tensor (a "
                        "boolean-mask selection, x[mask]), which tfc keeps for real values only",
                        "select from the real view, torch.view_as_real(z)[mask] (the real "
                        "and imaginary parts in its last dim), or keep the shape: "
                        "torch.where(mask, z, 0)")
    return Complex(re, im)


@lowers_complex("aten.mm.default", "aten.bmm.default", "aten.matmul.default",
                "aten.mv.default", "aten.dot.default")
def matmul(ctx, a, other):
    """Four real products of the parts (by the op's real lowering)."""
    real, dt = registry.lookup(ctx.name), ctx.out().dtype
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, other, dt)
    return pair(ctx, *cmul(ctx.b, ar, ai, br, bi, lambda x, y: real(ctx, x, y)))


# -- discrete Fourier transforms --------------------------------------------------------

def _scale(normalization, n):
    if normalization == _NORM_BY_N:
        return 1.0 / n
    if normalization == _NORM_BY_ROOT_N:
        return 1.0 / math.sqrt(n)
    assert normalization == _NORM_NONE, normalization
    return 1.0


def _tables(ctx, n, rows, cols, sign, scale, dtype, hermitian=False):
    """Known [rows, cols] tables (cos, sign * sin)(2 pi j k / n) * scale, j
    the row and k the column (angles reduced mod n in integers, so exact
    up to the final rounding). With `hermitian` (c2r's last dim: rows are
    the onesided input k, columns the output j) row k is weighted by the
    number of spectrum entries it stands for (1 for k = 0 and k = n/2, 2
    for the others, 0 past n // 2) and the sine of rows 0 and n/2 is 0
    (their imaginary parts are ignored, as torch's c2r does)."""
    if n > MAX_DFT_SIZE and _split(n) is None:
        ctx.unsupported(f"a DFT of size {n} (tfc computes DFTs as matmuls with tables of "
                        f"the size or of its factors, and {n} has no factors; at most "
                        f"{MAX_DFT_SIZE} points without)",
                        "transform a size with small prime factors (pad with n=...)")
    j = torch.arange(rows, dtype=torch.int64).view(-1, 1)
    k = torch.arange(cols, dtype=torch.int64).view(1, -1)
    theta = (j * k).remainder(n).double() * (2 * math.pi / n)
    cos, sin = torch.cos(theta) * scale, torch.sin(theta) * (sign * scale)
    if hermitian:
        weight = torch.full((rows, 1), 2.0, dtype=torch.float64)
        weight[0] = 1.0
        if n % 2 == 0 and n // 2 < rows:
            weight[n // 2] = 1.0
        weight[n // 2 + 1:] = 0.0
        cos, sin = cos * weight, sin * weight
        sin[0] = 0.0
        if n % 2 == 0 and n // 2 < rows:
            sin[n // 2] = 0.0
    t = torch.float64 if dtype == "f64" else torch.float32
    return (ctx.tensor(Known(cos.to(t).contiguous()), dtype),
            ctx.tensor(Known(sin.to(t).contiguous()), dtype))


def _along(ctx, x, dim, table):
    """x's dim (size n) contracted with the rows of `table` [n, m]: a
    matmul, with the dims before and after dim flattened around it."""
    b = ctx.b
    shape = list(x.shape)
    n, m = shape[dim], table.shape[1]
    before = math.prod(shape[:dim])
    after = math.prod(shape[dim + 1:])
    out = shape[:dim] + [m] + shape[dim + 1:]
    if after == 1:
        y = b.matmul(b.reshape(x, (before, n)), table)
    else:
        y = b.matmul(table, b.reshape(x, (before, n, after)), transpose_a=True)
    return b.reshape(y, out)


def _dft(ctx, re, im, dim, cos, sin):
    """sum_j (re + i im)_j (cos + i sin)_jk along dim; im None is zero."""
    b = ctx.b
    yr, yi = _along(ctx, re, dim, cos), _along(ctx, re, dim, sin)
    if im is not None:
        yr = b.sub(yr, _along(ctx, im, dim, sin))
        yi = b.add(yi, _along(ctx, im, dim, cos))
    return yr, yi


def _split(n):
    """(n1, n2) with n = n1 n2 and n1 the largest divisor up to sqrt(n),
    for n above DIRECT_DFT_MAX; None for shorter and prime n."""
    if n <= DIRECT_DFT_MAX:
        return None
    for n1 in range(math.isqrt(n), 1, -1):
        if n % n1 == 0:
            return n1, n // n1
    return None


def _c2c_dim(ctx, re, im, d, sign, scale, dt):
    """sum_j x_j exp(sign 2 pi i j k / n) * scale along dim d (im None:
    a real x). Split as x[n2 j1 + j2] -> X[k1 + n1 k2]: a DFT over j1 (n1
    points), the twiddle exp(sign 2 pi i j2 k1 / n), a DFT over j2 (n2
    points), the (k1, k2) dims swapped into k's order."""
    n = re.shape[d]
    split = _split(n)
    if split is None:
        cos, sin = _tables(ctx, n, n, n, sign, scale, dt)
        return _dft(ctx, re, im, d, cos, sin)
    n1, n2 = split
    b = ctx.b
    shape = list(re.shape)
    parted = shape[:d] + [n1, n2] + shape[d + 1:]
    re = b.reshape(re, parted)
    im = b.reshape(im, parted) if im is not None else None
    re, im = _c2c_dim(ctx, re, im, d, sign, scale, dt)
    tw_cos, tw_sin = _tables(ctx, n, n1, n2, sign, 1.0, dt)
    ones = (1,) * (len(shape) - d - 1)
    re, im = cmul(b, re, im, b.reshape(tw_cos, (n1, n2) + ones),
                  b.reshape(tw_sin, (n1, n2) + ones))
    re, im = _c2c_dim(ctx, re, im, d + 1, sign, 1.0, dt)
    return b.reshape(b.swap(re, d, d + 1), shape), b.reshape(b.swap(im, d, d + 1), shape)


def _c2c_dims(ctx, re, im, dims, normalization, forward, dt):
    sign = -1.0 if forward else 1.0
    for d in dims:
        re, im = _c2c_dim(ctx, re, im, d, sign, _scale(normalization, re.shape[d]), dt)
    return re, im


def _dims(ctx, dims, rank):
    return [norm_dim(d, rank) for d in dims]


@lowers_complex("aten._fft_r2c.default")
def fft_r2c(ctx, x, dim, normalization, onesided):
    """The forward DFT of a real tensor over `dim`: the last one first
    (onesided: its n // 2 + 1 first outputs), then the others."""
    dt = ctx.out().dtype
    v = ctx.tensor(x, dt)
    dims = _dims(ctx, dim, v.rank)
    last = dims[-1]
    n = v.shape[last]
    m = n // 2 + 1 if onesided else n
    if _split(n) is None:
        cos, sin = _tables(ctx, n, n, m, -1.0, _scale(normalization, n), dt)
        re, im = _dft(ctx, v, None, last, cos, sin)
    else:  # the whole transform, then its first m outputs
        re, im = _c2c_dim(ctx, v, None, last, -1.0, _scale(normalization, n), dt)
        re, im = ctx.b.slice_dim(re, last, 0, m), ctx.b.slice_dim(im, last, 0, m)
    re, im = _c2c_dims(ctx, re, im, dims[:-1], normalization, True, dt)
    return pair(ctx, re, im)


@lowers_complex("aten._fft_c2c.default")
def fft_c2c(ctx, z, dim, normalization, forward):
    dt = ctx.out().dtype
    re, im = parts(ctx, z, dt)
    re, im = _c2c_dims(ctx, re, im, _dims(ctx, dim, re.rank), normalization, forward, dt)
    return pair(ctx, re, im)


@lowers_complex("aten._fft_c2r.default")
def fft_c2r(ctx, z, dim, normalization, last_dim_size):
    """The inverse DFT to a real tensor: inverse c2c over all dims but the
    last, then the last dim's n = last_dim_size outputs from its onesided
    half (entries k and n - k of a Hermitian spectrum are conjugates)."""
    t = ctx.out()
    re, im = parts(ctx, z, t.dtype)
    dims = _dims(ctx, dim, re.rank)
    re, im = _c2c_dims(ctx, re, im, dims[:-1], normalization, False, t.dtype)
    last, n = dims[-1], last_dim_size
    rows = re.shape[last]
    if _split(n) is not None and rows >= n // 2 + 1:
        return _c2r_split(ctx, re, im, last, n, _scale(normalization, n), t.dtype)
    cos, sin = _tables(ctx, n, rows, n, 1.0, _scale(normalization, n), t.dtype,
                       hermitian=True)
    y = _along(ctx, re, last, cos)
    if im is not None:
        y = ctx.b.sub(y, _along(ctx, im, last, sin))
    return y


def _c2r_split(ctx, re, im, d, n, scale, dt):
    """c2r of a long dim: the whole spectrum from its onesided half (entry
    n - k the conjugate of entry k), its inverse DFT, the real part (which
    drops the imaginary parts of entries 0 and n / 2, as torch's c2r)."""
    b = ctx.b
    h = n // 2 + 1
    re = b.slice_dim(re, d, 0, h)
    im = b.slice_dim(im, d, 0, h) if im is not None else ctx.tensor(0.0, dt, re.shape)
    mirrored = n - h  # entries h .. n - 1 are conj of entries n - h .. 1
    full_re = b.concat([re, flip(ctx, b.slice_dim(re, d, 1, 1 + mirrored), [d])], d)
    full_im = b.concat([im, b.unary("neg", flip(ctx, b.slice_dim(im, d, 1, 1 + mirrored),
                                                 [d]))], d)
    y, _ = _c2c_dim(ctx, full_re, full_im, d, 1.0, scale, dt)
    return y
