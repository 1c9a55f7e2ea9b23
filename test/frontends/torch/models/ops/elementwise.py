"""Cases for tfc_torch/ops/elementwise.py's lowerings: arithmetic, comparisons
and selections, clamps (ties on their bounds), powers, math composed from
tfc's pointwise ops (log2, sinh, hypot, xlogy, lerp, ...), division and
remainders (of floats through tfc.fmod), the inverse trigonometric functions
(tfc.atan2), erf / erfc (tfc.erf) and the hyperbolic inverses and log1p."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g, _ramp_sum

CASES = {
    "arith": _case(lambda h: ((h * 2.5 - 1.0) / 3.0 + (1.0 - h) * h.exp() / (h.abs() + 1)).sum()),
    "unary": _case(lambda h: (h.sigmoid() + h.tanh() + F.silu(h) + F.relu(h) + h.sin() * h.cos()
                              + (h.abs() + 0.5).log() + (h.abs() + 0.5).sqrt()
                              + (h.abs() + 0.5).rsqrt() + (h.abs() + 1).reciprocal()
                              + torch.log1p(h.abs()) + torch.expm1(h * 0.1) - h.neg()).mean()),
    "clamp-minmax": _case(lambda h: (h.clamp(-0.3, 0.4) + h.clamp(min=0.1) + h.clamp(max=-0.1)
                                     + torch.maximum(h, h.flip(0) if False else h * 0.5)
                                     + torch.minimum(h, -h)).sum()),
    # Values exactly on a clamp bound (relu's zeros, a value clamped twice):
    # clamp passes their gradient on (lo <= x <= hi), hardtanh / relu6 do
    # not (lo < x < hi), maximum would split it.
    "clamp-ties": _case(lambda h: _clamp_ties(h)),
    "pow": _case(lambda h: (h.pow(2) + h.abs().pow(1.5) + h.pow(3.0) + 2.0 ** h
                            + torch.pow(h.abs() + 1, torch.tensor(2.0))).mean()),
    # Traced exponents (pow.Tensor_Tensor, pow.Scalar): GeM pooling with a
    # learnable p, integer exponents of negative bases (signed), zero bases
    # with exponents 0, 2, 3 (gradients masked as torch's), a negative
    # scalar base, f64, integers, and C's special values (NaN, +-inf, 0^-1,
    # (-1)^inf, NaN^0, 1^NaN, (-2)^0.5) through nan_to_num.
    "pow-tensor": lambda: _tensor_powers(),
    # signbit (-0, +-inf, integers), deg2rad / rad2deg (floats, integers),
    # heaviside (zeros, NaN, broadcast values; no gradient in torch),
    # isin (all three forms, invert, integers against floats, NaN) and
    # frexp (its mantissa's gradient; f32 / f64 subnormals, extremes, 0,
    # -0, +-inf, NaN).
    "sign-tests-frexp": _case(lambda h: _sign_tests_frexp(h)),
    # Tensor.new_tensor in forward (pytorch-fm's offsets, Dreamer's free
    # nats; traceable.py: torch 1.13's functionalization fails on it): a
    # scalar, a list, another dtype, a copy of a tensor.
    "new-tensor": _case(lambda h: ((h + h.new_tensor([0.5, -1.0, 2.0, 0.0, 1.5, 3.0, 0.1, 0.2]))
                                   .clamp(min=h.new_tensor(0.25)).sum()
                                   + (h * h.new_tensor(h[0].detach())).sum()
                                   + h.new_tensor([1, 2], dtype=torch.long).sum())),
    # The legacy Tensor.new (traceable.py; the same functionalization
    # failure): sizes (ints, a torch.Size) filled or zeroed in place, a
    # list, a tensor (a differentiable alias), no argument then resize_as_
    # (reid-strong-baseline's triplet loss), through .data.
    "tensor-new": _case(lambda h: _tensor_new(h)),
    "where-compare": _case(lambda h: (torch.where(h > 0, h, h * 0.1)
                                      + torch.where(h <= 0.2, 1.0, h)
                                      + h.masked_fill(h < -0.5, 0.0)
                                      + (h >= 0.1).float() * h + (h == h).float()
                                      + ((h > 0) & (h < 0.5)).float() * h
                                      + ((h > 0) | ~(h < 0.5)).float() * h).sum()),
    # Bitwise ops of bool masks with a Python bool (traceable.py: torch
    # 1.13's make_fx fails on bitwise_xor / or with a number, and & with one
    # lowered only as the Tensor overload): operators, reflected, in place,
    # methods and functions.
    "bitwise-numbers": _case(lambda h: _bitwise_numbers(h)),
    # Math composed from tfc's pointwise ops.
    "math-composed": _case(lambda h: (torch.sign(h) * h + torch.log2(h.abs() + 1) + torch.log10(h.abs() + 1)
                                      + torch.exp2(h) + torch.sinh(h) + torch.cosh(h)
                                      + torch.tan(h * 0.5) + torch.hypot(h, h * 0.5 + 1)
                                      + torch.xlogy(h.relu(), h.abs() + 0.5)
                                      + torch.logit(torch.sigmoid(h * 3), eps=0.02)
                                      + torch.addcmul(h, h, h * 0.5 + 1, value=0.3)
                                      + torch.addcdiv(h, h, h.abs() + 1, value=-0.7)
                                      + torch.lerp(h, h * 2, 0.3) + torch.lerp(h, -h, 0.8)
                                      + torch.lerp(h, h.flip(1), torch.sigmoid(h))
                                      + torch.nan_to_num(h.log())).mean()
                           + F.kl_div(F.log_softmax(h, 1), F.softmax(h.detach() * 2, 1),
                                      reduction="batchmean")),
    # Integer fmod / remainder / floor division (exact), float trunc
    # division, traced negative indices, bool
    # arithmetic (isfinite decomposes into a bool mul), logaddexp(2),
    # copysign, prelu and soft_margin_loss.
    "more-elementwise": lambda: _more_elementwise(),
    # diag_embed (offsets, dims), take (known and traced indices, negative
    # ones), sinc (at 0 its gradient is 0), asinh / acosh / atanh and
    # log1p (small arguments scaled up, where log(1 + x) loses digits;
    # large ones; acosh at 1, whose gradient is inf), rrelu in eval mode;
    # take, flip and x[:, idx] of integer and boolean tensors.
    "more-math": lambda: _more_math(),
    # atan2 (tfc.atan2) in all four quadrants, on the axes, at signed zeros
    # (atan2(-0, -1) = -pi, atan2(0, -0) = pi) and at the origin (NaN
    # gradients, as torch's), broadcast both ways; atan = atan2(x, 1) up to
    # +-inf; asin / acos = atan2 with sqrt(1 - x^2), at +-1 (infinite
    # gradients), +-0 and near +-1.
    "inverse-trig": lambda: _inverse_trig(),
    # erf outside an exact GELU (tfc.erf; the GELU beside it is still
    # recognized), at +-0, +-inf and large |x|; erfc = 1 - erf in f64, up to
    # x = 4.4 (erfc 1e-9) and down to -6.
    "erf": lambda: _erf(),
    # expm1 (Kahan's (u - 1) x / log(u)): arguments scaled down to 1e-4 and
    # 1e-13 (f32 and f64), where exp(x) - 1 loses the digits; signed zeros,
    # tiny, large and infinite arguments (gradient exp(x), 0 at -inf).
    "expm1": lambda: _expm1(),
    # Float fmod, remainder (%), floor_divide (//) and div's floor and
    # trunc rounding (tfc.fmod, ATen's formulas): operands of both signs,
    # exact multiples (zero remainders, integral quotients), signed zeros
    # (made visible by atan2(r, -1) = +-pi), quotients rounding up to an
    # integer (1.0 // 0.1 = 9), tensor and scalar divisors,
    # a zero or infinite divisor, bf16 (computed in f32); the gradients
    # of a and b (fmod's b: -g trunc(a / b), remainder's: -g (a // b)).
    "float-remainders": lambda: _float_remainders(),
    # fmax / fmin: ties (the gradient to the first operand), NaN in either
    # operand (the other one and its gradient), broadcasting, a scalar.
    "fmax-fmin": _case(lambda h: _fmax_fmin(h)),
    # uint8 tensors in arithmetic (tfc's ui8 is storage only: i32 inside,
    # wrapped modulo 256 as torch's): pytorch-metric-learning's triplet
    # masks (`.byte()`, m * d, 1 - m, m + d, maximum, sum as int64), an
    # image batch input (img + 200, img * 3, img - 100, -img wrap around),
    # conversions from int64 (wrapping) and floats, comparisons, where.
    "uint8-arithmetic": lambda: _uint8_arithmetic(),
    # A constant holding 0.0 and -0.0 keeps each sign (torch.equal takes
    # them for one value; a splat of the first lost the others): copysign
    # by it, atan2 of zeros by it, 1 / it.
    "signed-zero-constants": _case(lambda h: _signed_zeros(h), rows=3, out=4),
    # Integer tensors to non-negative integer powers (pixels squared): exact
    # products, wrapping as torch's (uint8 modulo 256, int32 modulo 2^32),
    # x ** 0 ones; tfc.pow takes floats only, and tfc-run refused them.
    "integer-powers": lambda: _integer_powers(),
    # Integer bitwise ops (tfc.bitwise_*): an Instant-NGP-style spatial hash
    # (int64 grid corners times large primes, xor, & (T - 1) and % T into
    # embedding tables), parity masks (i & 1), ~ of int64 and of uint8
    # (255 - x), int32 hashes, bool & int (int64), number operands
    # (reflected, in place, methods and functions).
    "bitwise-hash": lambda: _bitwise_hash(),
    # Shifts (tfc.shift_left / shift_right): 3-D Morton codes of int64 grid
    # coordinates (bit spreading with <<, |, &) into an embedding table, an
    # int32 hash with arithmetic >> of negatives and wrapping <<, tensor
    # amounts 0..63 (x >> s, 1 << s, torch.bitwise_left_shift), uint8 << (wraps
    # modulo 256), >> and <<= in place.
    "shifts-morton": lambda: _shifts_morton(),
    # Edges of value and gradient, each op on a parameter of its own:
    # copysign against +-inf and +-0 (of an infinite magnitude: a NaN
    # gradient, torch's g * result / a); clamp with NaN tensor bounds (NaN,
    # no gradient); hypot of huge (3e19) and tiny (1e-30) operands, scaled
    # as libm's (the plain squares overflow / underflow); a / b for a = 0,
    # b = 1e-30 (b's gradient -(a / b) / b, b^2 would underflow to 0 / 0);
    # logit at exactly 0 and 1 and acosh at 1
    # (infinite gradients; NaN outside [0, 1], 0 outside [eps, 1 - eps]
    # with eps); acosh below 1 and atanh beyond +-1 (NaN values, torch's
    # formula gradients: finite below -1, -0 at +-inf), log1p at -inf (-0),
    # xlogy / xlog1py of x = 0 against y = inf (gradient inf for x), 0, -1.
    # The loss is NaN, as torch's.
    "value-edges": lambda: _value_edges(),
    # Integer powers with traced exponents (pow.Scalar / Tensor_Tensor of
    # integers: exact squarings, wrapping as torch's): 2 ** e, b ** e up to
    # e = 63, negative exponents (1, +-1 or 0); Python ints wider than the
    # tensor's type (int32 * 2**33 multiplies by 0, as torch casts the
    # number); (+-0) ** t with a traced t (the sign of -0 ** -1 = -inf, 0
    # for -0 ** 0.5).
    "power-edges": lambda: _power_edges(),
}


# The exact GELU beside erf.
PATTERNS = {"erf": {"gelu": 1}}


def _clamp_ties(h):
    # On the bounds with h's gradient: the value of a detached copy, the
    # gradient of h (and values clamped under no_grad, as straight-through).
    c = h - h.detach() + torch.where(h > 0, 0.3, -0.2)
    with torch.no_grad():
        g = (h * 1.0).clamp_(-0.2, 0.3)
    lo = torch.full((8,), -0.2)
    return ((c.clamp(-0.2, 0.3) * h.detach()).sum() + (F.hardtanh(c, -0.2, 0.3) * 3).sum()
            + (torch.clamp(c, min=lo) * 5).sum() + (c.clamp(max=0.3) * 7).sum()
            + (F.relu6(c * 20 - 6) * h.detach()).sum() + (g.clamp(-0.2, 0.3) * 2).sum())


class _MoreElementwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.act = nn.PReLU(4, init=0.2)

    def forward(self, x, positions):
        h = self.fc(x)
        period = (positions.remainder(3) + torch.fmod(positions - 4, 3) * 2
                  + positions // 3 - torch.div(positions, -2, rounding_mode="floor"))
        wrapped = h[positions[2, :4] % 4 - 2]        # traced negative indices count from the back
        wave = h * period.to(h.dtype)
        ok = torch.isfinite(h / (h > -0.5)) & (h < 0.9)
        act = self.act(h.view(4, 4, 2))
        steps = torch.div(h * 5, 0.7, rounding_mode="trunc")
        return (torch.logaddexp(h, wave).sum() + torch.logaddexp2(h, -h * 0.5).sum()
                + wrapped.pow(2).sum() + (steps * h).sum()
                + torch.copysign(h, wave - 0.1).pow(3).sum() + (h * ok).sum()
                + (h * ((h > 0) + (h < -0.2))).sum() + act.pow(2).sum()
                + F.soft_margin_loss(h, torch.sign(torch.arange(32.0).view(4, 8) - 15.5)))


class _FloatRemainders(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        # Dyadic divisors of both signs, so that their multiples are exact.
        self.b = nn.Parameter(torch.tensor([0.75, -0.5, 1.5, -2.0, 0.25, -0.375, 3.0, -1.25]))

    def forward(self, x):
        h = self.fc(x) * 4
        k = torch.tensor([3.0, -2.0, 5.0, -7.0, 0.0, 1.0, -1.0, 4.0])
        a = torch.cat([h, (self.b * k).view(1, 8), (-self.b * k).view(1, 8)])  # +-0 at k = 0
        b = self.b
        w = torch.linspace(0.5, 1.5, 8)
        parts = [torch.fmod(a, b), a % b, torch.fmod(a, -1.5), a % 0.75, 2.5 % b.detach(),
                 torch.div(a, b, rounding_mode="floor"), torch.div(a, -0.75, rounding_mode="trunc"),
                 a.detach() // b.detach(), a.detach() // -0.5]
        # a / 0.1 rounds to an integer the exact quotient is below: floor
        # division takes one less than floor(a / b), % keeps about 0.1.
        tenths = torch.tensor([1.0, -1.0, 0.3, -0.7, 5.0, 1e-3, 2.9, 7.0]) + h[:1] * 0
        parts += [torch.div(tenths, 0.1, rounding_mode="floor"), tenths % 0.1,
                  tenths % -0.1, tenths.detach() // -0.1]
        zero = torch.atan2(torch.cat([parts[0], parts[1], parts[5]]), torch.tensor(-1.0))
        # Zero and infinite divisors and dividends, a tiny divisor (but not
        # for //, whose huge quotients would swamp the loss).
        special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), 1e-30, 2.0, -3.0, 0.5])
        odd = [torch.fmod(h, special), h % special,
               torch.div(h, special[[0, 1, 2, 3, 7, 5, 6, 7]], rounding_mode="floor"),
               torch.fmod(special.view(8, 1) * h[:1], 1.25), special.view(8, 1) % -h[:1].detach()]
        half = [torch.fmod(h.bfloat16(), b.bfloat16()).float(), (h.bfloat16() % -0.7).float(),
                torch.div(h.bfloat16(), b.detach().bfloat16(), rounding_mode="floor").float()]
        return (sum(((p * w).sum() for p in parts + half)) + zero.sum()
                + sum(torch.nan_to_num(p, 7.0, 100.0, -100.0).mul(w).sum() for p in odd))


def _float_remainders():
    torch.manual_seed(0)
    return _FloatRemainders(), (torch.randn(4, 6, generator=_g(3)),)


def _more_elementwise():
    torch.manual_seed(0)
    positions = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0],
                              [9, 11, -1, -5, 2, 8, 3, 1], [4, 4, 4, 4, 0, 0, 0, 0]])
    return _MoreElementwise(), (torch.randn(4, 6, generator=_g(1)), positions)


class _MoreMath(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.p = nn.Parameter(torch.tensor([0.0, 0.5, -1.0, 2.5, 0.0, 1e-4, -3e-5, 1.0]))
        self.q = nn.Parameter(torch.tensor([1.0, 1.0 + 1e-6, 1.5, 3.0, 1e3, 3e9]))

    def forward(self, x, ids):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(-1.0, 2.0, 8)
        loss = (torch.diag_embed(h) * torch.linspace(-1.0, 1.0, 64).view(8, 8)).sum()
        loss = loss + torch.diag_embed(h[:2], offset=1).pow(2).sum()
        loss = loss + (torch.diag_embed(h[:3, :5], offset=-2, dim1=0, dim2=2)
                       * torch.arange(3 * 7 * 7.0).view(7, 3, 7)).sum()
        loss = loss + (torch.take(h, torch.tensor([[0, 31], [-1, 5], [9, 9]])) * 2.0).pow(2).sum()
        loss = loss + (torch.take(h, ids) * w[:5]).sum()
        steps = (h * 3.0).round().long()                          # integer and boolean lookups
        loss = loss + (torch.take(steps, ids) * h[0, :5]).sum() + (steps.flip(1) * h).sum()
        loss = loss + ((h > 0)[:, torch.tensor([2, 2, 0])] * h[:, :3]).sum()
        loss = loss + (torch.sinc(h) * w).sum() + (torch.sinc(self.p) * w).sum()
        loss = loss + (torch.asinh(h * 3.0) * w).sum() + (torch.asinh(self.p * 1e5) * w).sum()
        loss = loss + (torch.asinh(h * 1e-6) * 1e6).sum() + torch.asinh(self.p).sum()
        loss = loss + (torch.acosh(1.0 + h.pow(2)) * w).sum() + torch.acosh(self.q).sum()
        loss = loss + (torch.acosh(1.0 + h.abs() * 1e-5) * 1e3).sum()
        loss = loss + (torch.atanh(h.tanh() * 0.9) * w).sum() + (torch.atanh(h * 1e-6) * 1e6).sum()
        loss = loss + torch.atanh(self.p * 0.3).sum()
        loss = loss + (torch.log1p(h * 1e-6) * 1e6).sum() + (torch.log1p(h.abs()) * w).sum()
        loss = loss + (F.rrelu(h, 0.1, 0.3, training=False) * w).sum()
        return loss + (F.rrelu(self.p, training=False) * w).sum()


def _more_math():
    torch.manual_seed(0)
    return _MoreMath(), (torch.randn(4, 6, generator=_g(1)), torch.tensor([3, -2, 17, 31, 0]))


class _InverseTrig(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.num = nn.Parameter(torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 2.5, -0.3]))
        self.den = nn.Parameter(torch.tensor([-1.0, -1.0, -0.0, 2.0, 0.0, -0.0, -4.0, 0.7]))
        self.origin = nn.Parameter(torch.tensor([0.0, -0.0]))
        self.t = nn.Parameter(torch.tensor([0.0, -0.0, 1e-3, -7.0, 3e4, float("inf"), -float("inf")]))
        self.s = nn.Parameter(torch.tensor([1.0, -1.0, 0.0, -0.0, 0.5, -0.9999, 0.999, 1e-4]))

    def forward(self, x):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(-1.0, 2.0, 8)
        loss = (torch.atan2(self.num, self.den) * w).sum() + (torch.atan2(h, self.den) * w).sum()
        loss = loss + (torch.atan2(h[:, :1], h) * w).sum() + torch.atan2(h.t(), h[:, 0]).pow(2).sum()
        loss = loss + (torch.atan2(self.origin, self.origin.flip(0)) * torch.tensor([1.0, 2.0])).sum()
        loss = loss + (torch.atan(h * 2.0) * w).sum() + (torch.atan(self.t) * w[:7]).sum()
        loss = loss + (torch.asin(h.tanh()) * w).sum() + (torch.asin(self.s) * w).sum()
        loss = loss + (torch.acos(h.tanh() * 0.99) * w).sum() + (torch.acos(self.s) * w.flip(0)).sum()
        return loss


def _inverse_trig():
    torch.manual_seed(0)
    return _InverseTrig(), (torch.randn(4, 6, generator=_g(1)),)


class _Erf(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.p = nn.Parameter(torch.tensor([0.0, -0.0, float("inf"), -float("inf"), 4.0, -9.0, 1e-4]))
        self.q = nn.Parameter(torch.tensor([0.0, 1.0, 2.5, 4.4, -1.5, -6.0, 1e-3]))

    def forward(self, x):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(-1.0, 2.0, 8)
        gelu = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
        loss = (gelu * w).sum() + (torch.erf(h * 0.7) * w).sum() + (torch.erf(self.p) * w[:7]).sum()
        loss = loss + (torch.erfc(h) * w).sum() + (torch.erfc(self.q) * w[1:]).sum()
        return loss + (torch.erfc(self.q[3:4]) * 1e9).sum()


def _erf():
    torch.manual_seed(0)
    return _Erf(), (torch.randn(4, 6, generator=_g(1)),)


def _fmax_fmin(h):
    a = (h * 2).round() / 2 + (h - h.detach())              # tied values, h's gradient
    b = (h.flip(0) * 2).round() / 2 + (h.flip(0) - h.flip(0).detach())
    nan = torch.tensor(float("nan"))
    holes = torch.arange(32).view(4, 8) % 5
    an, bn = torch.where(holes == 1, nan, a), torch.where(holes == 3, nan, b)
    return _ramp_sum([torch.fmax(an, bn), torch.fmin(an, bn), torch.fmax(a, b),
                      torch.fmin(b, a), torch.fmax(an, h[0]), torch.fmin(h[:, :1], bn),
                      torch.fmax(an, torch.tensor(0.25))])


class _Expm1(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.p = nn.Parameter(torch.tensor([0.0, -0.0, 1e-30, -1e-8, 3e-4, -20.0,
                                            -float("inf"), 1.5]))
        self.q = nn.Parameter(torch.tensor([5.0, 80.0]))

    def forward(self, x):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(-1.0, 2.0, 8)
        loss = (torch.expm1(h * 1e-4) * 1e4 * w).sum() + (torch.expm1(h) * w).sum()
        loss = loss + (torch.expm1(h.double() * 1e-13) * 1e13 * w).sum().float()
        loss = loss + (torch.expm1(self.p) * w).sum()
        return loss + (torch.expm1(self.q) * torch.tensor([1.0, 1e-30])).sum()


def _expm1():
    torch.manual_seed(0)
    return _Expm1(), (torch.randn(4, 6, generator=_g(1)),)


class _TensorPowers(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.p = nn.Parameter(torch.tensor(3.0))
        self.q = nn.Parameter(torch.tensor([0.0, 2.0, 0.5, 2.0, 3.0, 0.0]))
        self.k = nn.Parameter(torch.tensor([2.0, 3.0, -1.0, 0.0, 1.0, 4.0, -2.0, 0.5]))

    def forward(self, x):
        h = self.fc(x)                                               # [4, 8]
        gem = h.clamp(min=1e-6).pow(self.p).mean(-1).pow(1.0 / self.p)
        ints = torch.tensor([2.0, 3.0, -1.0, 0.0, 1.0, 4.0, -2.0, 5.0])
        signed = (h - 3.0).pow(ints) + torch.pow(-1.5, self.k.detach()).nan_to_num(7.0)
        zeros = (h[:, :6].abs() * torch.tensor([0.0, 1.0, 1.0, 0.0, 0.0, 1.0])).pow(self.q)
        wide = h.double().abs().pow(self.p.double() - 1.5).float()
        nan, inf = math.nan, math.inf
        xs = torch.tensor([0.0, 0.0, 0.0, -2.0, -2.0, -2.0, 2.0, nan, 1.0, -1.0, -1.0, inf,
                           -inf, -inf, -inf, 0.5, -0.0, 0.5, -0.5]) + h.detach().sum() * 0
        ts = torch.tensor([0.0, 2.0, -1.0, 3.0, 2.0, 0.5, 0.5, 0.0, nan, inf, 3.0, -1.0,
                           0.5, 3.0, 2.0, inf, 3.0, -inf, -inf]) + h.detach().sum() * 0
        special = torch.nan_to_num(xs.pow(ts), nan=7.0, posinf=5.0, neginf=-3.0)
        counts = torch.tensor([3, -2, 0, 5]) + h.detach().sum().long() * 0
        whole = counts ** torch.tensor([5, 3, 0, 2]) + torch.tensor([2, 7, 1, 3]) ** (counts.abs())
        return _ramp_sum([gem, signed, zeros, wide, special, whole.float()])


def _tensor_powers():
    torch.manual_seed(0)
    return _TensorPowers(), (torch.randn(4, 6, generator=_g(1)),)


def _sign_tests_frexp(h):                             # h: [4, 8]
    one = 1 + h.detach().sum() * 0                     # a traced 1 (keeps -0)
    nan, inf = math.nan, math.inf
    odd = torch.tensor([-0.0, 0.0, -1.0, 2.0, inf, -inf, 1e-45, -1e-45]) * one
    ints = torch.tensor([-3, 0, 4, 180, -90]) * one.long()
    bits = [torch.signbit(odd), torch.signbit(h), torch.signbit(ints)]
    angles = [torch.deg2rad(h), torch.rad2deg(h), torch.deg2rad(ints)]
    zeros = h.detach() * torch.tensor([0.0, 1.0] * 4)
    steps = [torch.heaviside(zeros, torch.tensor(0.25)),
             torch.heaviside(zeros, torch.linspace(-1.0, 1.0, 8)),
             torch.heaviside(torch.tensor([nan, -0.0, 0.0, -2.0]) * one, torch.tensor([3.0]))]
    hits = [torch.isin(h, h[0, :3]), torch.isin(h, torch.tensor([1.0, 2.0]), invert=True),
            torch.isin(ints, torch.tensor([180.0, 4.5, 4.0]) * one),
            torch.isin(torch.tensor([nan, 1.0, 2.0]) * one, torch.tensor([nan, 2.0]) * one),
            torch.isin(h.detach().round(), 0.0), torch.isin(1.0, h.detach().round()).view(1)]
    specials = [torch.tensor([0.0, -0.0, inf, -inf, nan, 1e-45, 3e-39, 3.4e38, -0.75, 1.0, 6.0]),
                torch.tensor([5e-324, 2e-310, 1.7e308, -3.0], dtype=torch.float64)]
    frexps = [torch.frexp(h * 3.0)] + [torch.frexp(t * one.to(t.dtype)) for t in specials]
    parts = ([p.float() for p in bits + steps + hits] + angles
             + [m.nan_to_num(7.0, 5.0, -3.0).float() for m, _ in frexps]
             + [e.float() for _, e in frexps])
    return _ramp_sum([p.flatten() for p in parts])


def _tensor_new(h):                                  # h: [4, 8]
    ones = h.new(h.size()).fill_(1.5)
    zeros = h.new(4, 8).zero_()
    flat = h.data.new(32).fill_(0.5).resize_(4, 8)
    target = h.new().resize_as_(h).fill_(1)
    scale = h.new([0.5, -1.0, 2.0, 0.0, 1.5, 3.0, 0.1, 0.2])
    return ((h * ones + zeros).sin().sum() + F.margin_ranking_loss(h[0], h[1], target[0], 0.3)
            + (h * scale * flat).sum() + (h.new(h) * h).mean())


def _bitwise_numbers(h):                             # h: [4, 8]
    m = h > 0.1
    flipped = m ^ True
    kept = m.clone()
    kept &= True
    kept.bitwise_or_(False)
    parts = (flipped, m | False, True ^ m, m & True, torch.bitwise_xor(m, True),
             torch.bitwise_or(False, m), m.bitwise_and(True), kept)
    return sum((p.float() * h * (i + 1)).sum() for i, p in enumerate(parts))


class _Uint8(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)

    def forward(self, x, labels, img):
        f = self.fc(x)
        m = (labels[:, None] == labels[None]).byte()
        d = (labels[:, None] != labels[None]).byte()
        triplets = m.unsqueeze(2) * d.unsqueeze(1)
        pairs = ((m * d).float() + (1 - m).float() * 2 + (m + d).float() * 3
                 + torch.maximum(m, d).float() * 5 + torch.minimum(m, 2 * d).float() * 7)
        wrapped = torch.stack([img + 200, img * 3, img - 100, -img, img // 3, img + img], 0)
        casts = torch.stack([(labels * 97 - 150).byte()[:, None].expand(6, 3),
                             (x.abs() * 50).byte()[:, :3]], 0)
        scale = img.float() / 255 + (img > 128).float() + torch.where(img < 50, img, 7).float()
        return ((f @ f.t() * pairs).sum() + (triplets.sum((1, 2)).float() * f[:, 0]).sum()
                + (wrapped.float() * f[None, :, :3]).sum() + (casts.float() * f[:, :3]).sum()
                + (scale * f[:, 3:]).sum() + m.sum() * f.sum() + img.sum() * 1e-3 * f.mean())


def _uint8_arithmetic():
    torch.manual_seed(0)
    x = torch.randn(6, 4, generator=_g(1))
    labels = torch.tensor([0, 0, 1, 1, 2, 2])
    img = torch.randint(0, 256, (6, 3), generator=_g(2), dtype=torch.uint8)
    return _Uint8(), (x, labels, img)


class _IntegerPowers(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)

    def forward(self, img, counts):
        powers = torch.stack([img.pow(2).float(), (img ** 3).float(), img.int().pow(5).float(),
                              (counts ** 2).float()[:, :3], counts.pow(0).float()[:, :3]], 0)
        return (self.fc(powers / 1e3).sin()).sum()


def _integer_powers():
    torch.manual_seed(0)
    img = torch.randint(0, 256, (6, 3), generator=_g(3), dtype=torch.uint8)
    counts = torch.randint(-40000, 40000, (6, 4), generator=_g(4))
    return _IntegerPowers(), (img, counts)


class _HashGrid(nn.Module):
    T = 1024  # hash table size, a power of two

    def __init__(self):
        super().__init__()
        self.fine = nn.Embedding(self.T, 2)
        self.coarse = nn.Embedding(97, 2)
        self.head = nn.Linear(4, 1)

    def forward(self, pts, ids):
        g = (pts * 16).long()                                # int64 grid coordinates
        frac = pts * 16 - g
        feats = 0
        for corner in range(8):
            c = torch.tensor([corner & 1, (corner >> 1) & 1, (corner >> 2) & 1])
            v = g + c
            h = v[:, 0] ^ (v[:, 1] * 2654435761) ^ (v[:, 2] * 805459861)
            w = torch.where(c.bool(), frac, 1 - frac).prod(1, keepdim=True)
            fine = self.fine(h & (self.T - 1))
            coarse = self.coarse(h % 97)
            parity = 1 + (h & 1).float() * 0.5              # parity mask
            feats = feats + w * torch.cat([fine, coarse], 1) * parity[:, None]
        # ~ of int64 and of uint8 (255 - x), number operands, bool & int.
        k = ids * 40503
        k ^= 0x5BD1E995
        k = (~k).bitwise_and(self.T - 1) | torch.bitwise_xor(k, 7) & 3
        b = (ids * 37).to(torch.uint8)
        nb = ~b
        gi = g.int()
        h32 = (gi[:, 0] * 73856093) ^ (gi[:, 1] * 19349663) ^ (gi[:, 2] * 83492791)
        mixed = (pts[:, 0] > 0.5) & ids | (1 ^ (ids & 2))
        extra = (self.fine(k)[:, 0] * (nb.float() / 255 + (b ^ nb).float() / 255)
                 + (h32 & 0xFF).float() / 255 + mixed.float() * 0.25)
        return (self.head(feats).squeeze(1).sin() * extra).sum()


def _bitwise_hash():
    torch.manual_seed(0)
    pts = torch.rand(32, 3, generator=_g(5))
    ids = torch.randint(0, 100000, (32,), generator=_g(6))
    return _HashGrid(), (pts, ids)


def _spread_bits(v):
    """The low 10 bits of v spread to every third bit (a 3-D Morton code)."""
    v = (v | (v << 16)) & 0x030000FF
    v = (v | (v << 8)) & 0x0300F00F
    v = (v | (v << 4)) & 0x030C30C3
    return (v | (v << 2)) & 0x09249249


class _Morton(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(256, 2)
        self.head = nn.Linear(2, 1)

    def forward(self, pts, s, img):
        g = (pts * 1023).long()                          # 10-bit int64 coordinates
        code = _spread_bits(g[:, 0]) | (_spread_bits(g[:, 1]) << 1) | \
            (_spread_bits(g[:, 2]) << 2)
        bucket = ((code >> 22) ^ code) & 255
        feats = self.table(bucket)
        h = g.int()[:, 0] * -1640531535 + g.int()[:, 1]  # int32, wraps
        h = (h ^ (h >> 15)) << 7                          # >> of negatives, << wraps
        big = (code << 33) >> s                           # tensor amounts 0..63
        bits = (1 << s) | torch.bitwise_left_shift(g[:, 2], s % 8)
        b = img << 3                                      # uint8 wraps modulo 256
        b >>= 1
        b <<= 2
        extra = (h.float() / 2 ** 31 + (big % 1000).float() / 1000
                 + (bits % 997).float() / 997 + b.float() / 255 + (img >> 5).float())
        return (self.head(feats).squeeze(1).sin() * extra).sum()


def _shifts_morton():
    torch.manual_seed(0)
    pts = torch.rand(32, 3, generator=_g(7))
    s = torch.randint(0, 64, (32,), generator=_g(8))
    s[:3] = torch.tensor([0, 63, 31])
    img = torch.randint(0, 256, (32,), generator=_g(9), dtype=torch.uint8)
    return _Morton(), (pts, s, img)


class _ValueEdges(nn.Module):
    def __init__(self):
        super().__init__()
        t = lambda *v: nn.Parameter(torch.tensor(v))  # noqa: E731
        self.sign = t(1.0, 2.0, 3.0, 4.0, math.inf, 0.0)
        self.clamped = t(0.5, 2.0, -1.0, 0.25)
        self.hx = t(3e19, 0.0, 1e-30, 3.0, -1e-25, 2e38)
        self.hy = t(1.0, 1e-30, 1e-30, -4.0, 2e-25, 1e38)
        self.num = t(0.0, 0.0, 1.0)
        self.den = t(1e-30, -1e-25, 2.0)
        self.unit = t(0.0, 0.5, 1.0, 0.25, -0.5, 1.5)
        self.inside = t(0.0, 0.5, 1.0, 0.25, -0.5, 1.5)
        self.arccosh = t(-2.5, -1.0, 0.5, 1.0, 3.0, 1e20)
        self.arctanh = t(math.inf, -math.inf, 2.0, -1.0, 0.5, 1.0)
        self.log1p = t(-math.inf, -1.0, -2.0, 0.5, math.inf, 1e-8)
        self.xs = nn.Parameter(torch.tensor([[0.0, 0.0, -0.0, 0.0, 1.0, 0.0]] * 2))

    def forward(self, x):
        w = torch.linspace(0.5, 1.5, 6) + x.sum()
        signs = torch.tensor([-math.inf, -1.0, math.inf, -0.0, 0.0, -2.0])
        loss = (torch.copysign(self.sign, signs) * w).sum()
        loss = loss + (self.clamped.clamp(min=torch.tensor([math.nan, 0.0, 0.0, 0.0]),
                                          max=torch.tensor([1.0, math.nan, 3.0, 3.0]))
                       * w[:4]).sum() * 2
        loss = loss + (torch.hypot(self.hx, self.hy) * w).sum() * 1e-20 * 3
        loss = loss + (self.num / self.den * w[:3]).sum() * 5
        loss = loss + (torch.logit(self.unit) * w).sum() * 17
        loss = loss + (torch.logit(self.inside, eps=0.25) * w).sum() * 23
        loss = loss + (torch.acosh(self.unit[:4] + 1) * w[:4]).sum() * 19
        loss = loss + (torch.acosh(self.arccosh) * w).sum() + (torch.atanh(self.arctanh) * w).sum()
        loss = loss + (torch.log1p(self.log1p) * w).sum()
        ys = torch.tensor([math.inf, 0.0, math.inf, -1.0, 2.0, math.nan])
        return loss + (torch.xlogy(self.xs[0], ys) * w).sum() + (
            torch.special.xlog1py(self.xs[1], ys) * w).sum()


def _value_edges():
    return _ValueEdges(), (torch.zeros(2),)


class _PowerEdges(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, 8))
        self.t = nn.Parameter(torch.tensor([-1.0, -1.0, 3.0, 2.0, 0.5, -0.5, -3.0, 1.0]))

    def forward(self, e, base, ids):
        whole = 2 ** e + base ** e.abs() + (-1) ** e * 3 + base ** e      # int64, wrapping
        wide = ids * 2**33 + ids * (2**32 + 3) - ids * 2654435761 + (ids + 2**40)  # int32
        loss = (self.w * (whole % 1000).float()).sum() + (self.w[:4] * (wide % 97).float()).sum()
        zeros = torch.tensor([-0.0, 0.0, -0.0, -0.0, -0.0, -0.0, -0.0, 2.0])
        # atan2(y, -1) is -pi for y = -0 (pi for 0) and turns +-inf into +-pi/2.
        return loss + (torch.atan2(torch.pow(zeros, self.t), torch.tensor(-1.0)) * self.w).sum()


def _power_edges():
    return _PowerEdges(), (torch.tensor([0, 1, 3, 5, 62, 63, -1, -2]),
                           torch.tensor([3, -3, 1, -1, 7, 2, 1, -1]),
                           torch.tensor([1, 3, -5, 100000], dtype=torch.int32))


def _signed_zeros(h):                                   # h: [3, 4]
    zeros = torch.tensor([0.0, -0.0, 0.0, -0.0])   # (traced operands: not folded by torch)
    signs = torch.copysign(torch.ones_like(h), zeros)
    angles = torch.atan2(h * 0 + 0.0, zeros)
    return ((h * signs).sum() + (h.sin() * angles).sum()
            + (h.tanh() * (h.detach() * 0 + 1 / zeros).clamp(-3, 3)).sum())
