"""Random draws in the forward: rand / randn (and their _like forms),
normal in all its forms, uniform_, exponential_, geometric_, log_normal_,
cauchy_, randint (and random_ with a range), bernoulli with a tensor of
probabilities, multinomial (with and without replacement) and randperm.

Every draw is a tfc.random op (uniform in [0, 1) with the result type's
significand bits, or N(0, 1)) keyed like tfc.dropout by two 0-d i64 batch
inputs the import adds, `dropout_seed` and `dropout_offset`: a draw of n
elements takes the n Philox counters after the draws made before it in the
model (`philox_stream`), so two draws never overlap. The values are tfc's
stream, not torch's: the same distribution, other draws. Every result is
free of gradient, as torch's (its derivative of normal(mean, std) with
respect to mean and std is zero, so is bernoulli's).

The other distributions are transforms of those draws: exponential
-log(1 - u), geometric its ceiling over -log(1 - p), log-normal exp of a
normal, Cauchy tan(pi (u - 1/2)), integers floor(u (high - low)) from 53-bit
uniforms (so unbiased up to 2^53 values), all computed in f64 and rounded
once; multinomial takes the Gumbel-max trick (log p - log(E), E
exponential: the largest key is category i with probability p_i / sum p,
and without replacement the k largest keys in order are k draws without
replacement, exactly), randperm the ranks of n uniforms (the ranks of iid
continuous values are a uniformly random permutation)."""
import math

from .. import dtypes
from ..ir import TensorType
from ..registry import lowers
from .order import MAX_RANK_SIZE, ranks
from .reduction import first_extreme_index

# Draws with a torch.Generator never reach a lowering in torch 1.13 (make_fx
# cannot trace the argument); this says why in case they do.
_GENERATOR_HINT = ("drop the generator= argument: tfc draws from its own stream, keyed by the "
                   "dropout_seed and dropout_offset inputs")


def philox_stream(ctx, numel):
    """(seed, offset) for a random draw of `numel` elements: the batch
    inputs `dropout_seed` and `dropout_offset`, the offset advanced past
    the draws made before it in the model."""
    scalar = TensorType((), "i64")
    seed = ctx.batch_input("dropout_seed", scalar)
    base = ctx.batch_input("dropout_offset", scalar)
    used = ctx.dropout_counters
    ctx.dropout_counters = used + numel
    return seed, (ctx.b.add(base, ctx.tensor(used, "i64")) if used else base)


def draw(ctx, distribution, shape, dtype):
    """A tfc.random of `distribution` ("uniform" or "normal") and the given
    float type, from the next counters of the model's stream."""
    t = TensorType(tuple(shape), dtype)
    seed, offset = philox_stream(ctx, t.numel)
    return ctx.b.random(seed, offset, distribution, t)


def _check(ctx, generator=None, float_result=True):
    """Refuses a generator argument, a draw of the wrong type, and an
    in-place draw (what torch 1.13 leaves unfunctionalized: a fill of a
    tensor made from constants) into a tensor something else reads."""
    if ctx.name.split(".")[1].endswith("_"):
        written = ctx.node.args[0]
        if len(written.users) > 1:
            ctx.unsupported("an in-place draw into a tensor the model also reads elsewhere",
                            "draw into a fresh tensor (torch.empty_like(x).uniform_(), "
                            "torch.rand_like(x), ...)")
    if generator is not None:
        ctx.unsupported("a draw with its own torch.Generator", _GENERATOR_HINT)
    if float_result and not dtypes.is_float(ctx.out().dtype):
        ctx.unsupported(f"a draw of {ctx.out().dtype} values (float types are lowered)")


def _work(dtype):
    """The type a transform of draws computes in: f64 for f64 results, else f32."""
    return "f64" if dtype == "f64" else "f32"


def _exponential(ctx, shape):
    """Exp(1) samples in f64: -log(1 - u), u a 53-bit uniform in [0, 1) (1 - u
    is exact, so finite; 0 only where u is 0)."""
    b = ctx.b
    u = draw(ctx, "uniform", shape, "f64")
    return b.unary("neg", b.unary("log", b.sub(ctx.tensor(1.0, "f64"), u)))


def _scalar(ctx, x, what):
    x = ctx.static(x, what)
    return x.item() if hasattr(x, "item") else x


@lowers("aten.rand.default", "aten.rand_like.default")
def rand(ctx, *args, generator=None, **kwargs):
    """Uniform in [0, 1) of the traced type (every bit of its significand)."""
    _check(ctx, generator)
    t = ctx.out()
    return draw(ctx, "uniform", t.shape, t.dtype)


@lowers("aten.randn.default", "aten.randn_like.default")
def randn(ctx, *args, generator=None, **kwargs):
    _check(ctx, generator)
    t = ctx.out()
    return draw(ctx, "normal", t.shape, t.dtype)


@lowers("aten.normal.float_float", "aten.normal.Tensor_float", "aten.normal.float_Tensor",
        "aten.normal.Tensor_Tensor", "aten.normal_functional.default", "aten.normal_.default")
def normal(ctx, *args, generator=None, **kwargs):
    """mean + std * N(0, 1), mean and std numbers or tensors (broadcast),
    computed in f32 (f64 for f64 results) and rounded once; no gradient to
    mean or std (torch's derivative is zero)."""
    _check(ctx, generator)
    t = ctx.out()
    if ctx.name in ("aten.normal_functional.default", "aten.normal_.default"):  # (self, mean, std)
        mean = args[1] if len(args) > 1 else kwargs.get("mean", 0.0)
        std = args[2] if len(args) > 2 else kwargs.get("std", 1.0)
    else:
        mean = args[0] if args else kwargs["mean"]
        std = args[1] if len(args) > 1 else kwargs.get("std", 1.0)
    if isinstance(mean, (int, float)) and isinstance(std, (int, float)) and (mean, std) == (0, 1):
        return draw(ctx, "normal", t.shape, t.dtype)
    b, w = ctx.b, _work(t.dtype)
    z = draw(ctx, "normal", t.shape, w)
    y = b.add(b.mul(z, ctx.tensor(std, w)), ctx.tensor(mean, w))
    if y.shape != t.shape:
        y = b.broadcast_to(y, t.shape)
    return b.stop_gradient(b.convert(y, t.dtype))


@lowers("aten.uniform.default", "aten.uniform_.default")
def uniform(ctx, x, low=0.0, high=1.0, generator=None):
    """uniform_(low, high): low + (high - low) * u, u drawn in the result's
    type (so [0, 1) stays below 1), the affine map in f32 (f64) and rounded
    once (it may round up to `high`, as torch's)."""
    _check(ctx, generator)
    t = ctx.out()
    low, high = _scalar(ctx, low, "from"), _scalar(ctx, high, "to")
    u = draw(ctx, "uniform", t.shape, t.dtype)
    if (low, high) == (0, 1):
        return u
    b, w = ctx.b, _work(t.dtype)
    y = b.add(b.mul(b.convert(u, w), ctx.tensor(float(high - low), w)),
              ctx.tensor(float(low), w))
    return b.convert(y, t.dtype)


@lowers("aten.exponential.default", "aten.exponential_.default")
def exponential(ctx, x, lambd=1.0, generator=None):
    """exponential_(lambd): -log(1 - u) / lambd in f64, rounded once."""
    _check(ctx, generator)
    t = ctx.out()
    lambd = _scalar(ctx, lambd, "lambd")
    if not lambd > 0:
        ctx.unsupported(f"exponential_ with rate {lambd!r} (a positive number is lowered)")
    b = ctx.b
    e = _exponential(ctx, t.shape)
    if lambd != 1:
        e = b.div(e, ctx.tensor(float(lambd), "f64"))
    return b.convert(e, t.dtype)


@lowers("aten.geometric.default", "aten.geometric_.default")
def geometric(ctx, x, p, generator=None):
    """geometric_(p): trials up to the first success, ceil(E / -log(1 - p))
    for E ~ Exp(1), at least 1 (P(k) = (1 - p)^(k - 1) p), in f64."""
    _check(ctx, generator, float_result=False)
    t = ctx.out()
    p = _scalar(ctx, p, "p")
    if not 1e-15 <= p <= 1:
        ctx.unsupported(f"geometric_ with probability {p!r} (a number in [1e-15, 1] is lowered: "
                        "below, the trial counts outgrow int64)")
    b = ctx.b
    if p == 1:
        return ctx.tensor(1, t.dtype, t.shape)
    r = b.div(_exponential(ctx, t.shape), ctx.tensor(-math.log1p(-p), "f64"))
    # r >= 0 and finite (E <= 53 log 2): truncation is the floor.
    k = b.convert(r, "i64")
    k = b.add(k, b.convert(b.compare("lt", b.convert(k, "f64"), r), "i64"))
    k = b.binary("maximum", k, ctx.tensor(1, "i64"))
    return b.convert(k, t.dtype)


@lowers("aten.log_normal.default", "aten.log_normal_.default")
def log_normal(ctx, x, mean=1.0, std=2.0, generator=None):
    """log_normal_(mean, std): exp(mean + std * N(0, 1)) in f64."""
    _check(ctx, generator)
    t = ctx.out()
    mean, std = _scalar(ctx, mean, "mean"), _scalar(ctx, std, "std")
    b, w = ctx.b, "f64"
    z = draw(ctx, "normal", t.shape, w)
    y = b.unary("exp", b.add(b.mul(z, ctx.tensor(float(std), w)), ctx.tensor(float(mean), w)))
    return b.convert(y, t.dtype)


@lowers("aten.cauchy.default", "aten.cauchy_.default")
def cauchy(ctx, x, median=0.0, sigma=1.0, generator=None):
    """cauchy_(median, sigma): median + sigma tan(pi (u - 1/2)) in f64."""
    _check(ctx, generator)
    t = ctx.out()
    median, sigma = _scalar(ctx, median, "median"), _scalar(ctx, sigma, "sigma")
    b = ctx.b
    u = draw(ctx, "uniform", t.shape, "f64")
    a = b.mul(b.sub(u, ctx.tensor(0.5, "f64")), ctx.tensor(math.pi, "f64"))
    y = b.div(b.unary("sin", a), b.unary("cos", a))
    y = b.add(b.mul(y, ctx.tensor(float(sigma), "f64")), ctx.tensor(float(median), "f64"))
    return b.convert(y, t.dtype)


def _integers(ctx, low, high):
    """Integers uniform in [low, high) of the traced type: low + floor(u n),
    u a 53-bit uniform and n = high - low, at most n - 1 (u n may round up
    to n)."""
    t = ctx.out()
    low, high = int(_scalar(ctx, low, "low")), int(_scalar(ctx, high, "high"))
    n = high - low
    if n <= 0:
        ctx.unsupported(f"random integers in the empty range [{low}, {high})")
    if n == 1:
        return ctx.tensor(low, t.dtype, t.shape)
    if n > 2 ** 53:
        ctx.unsupported(f"random integers in a range of {n} values (tfc draws them from 53-bit "
                        "uniforms: ranges up to 2^53)")
    b = ctx.b
    u = draw(ctx, "uniform", t.shape, "f64")
    top = float(n - 1)
    if top > n - 1:  # n - 1 rounds up in f64: the largest double below it
        top = math.nextafter(top, 0.0)
    scaled = b.binary("minimum", b.mul(u, ctx.tensor(float(n), "f64")), ctx.tensor(top, "f64"))
    k = b.convert(scaled, "i64")  # >= 0: truncation is the floor
    if low:
        k = b.add(k, ctx.tensor(low, "i64"))
    return b.convert(k, t.dtype)


@lowers("aten.randint.default", "aten.randint.low", "aten.randint_like.default",
        "aten.randint_like.low_dtype", "aten.random.from", "aten.random.to", "aten.random_.from",
        "aten.random_.to")
def randint(ctx, *args, generator=None, **kwargs):
    """randint(high, size) / randint(low, high, size), randint_like(x, high)
    / (x, low, high), x.random_(low, high) / x.random_(high): integers
    uniform in [low, high) (low 0 when not given)."""
    _check(ctx, generator, float_result=False)
    name = ctx.name
    if name == "aten.randint.default":
        low, high = 0, args[0]
    elif name == "aten.randint.low":
        low, high = args[0], args[1]
    elif name in ("aten.randint_like.default", "aten.random.to", "aten.random_.to"):
        low, high = 0, args[1]
    else:  # randint_like.low_dtype, random(_).from
        low, high = args[1], args[2] if len(args) > 2 else kwargs.get("to")
        if high is None:
            ctx.unsupported("random_(from) up to the largest value of the type",
                            "give the upper bound: x.random_(low, high)")
    return _integers(ctx, low, high)


@lowers("aten.bernoulli.default", "aten.bernoulli.Tensor", "aten.bernoulli_.Tensor")
def bernoulli_tensor(ctx, x, p=None, generator=None):
    """bernoulli(probabilities) and bernoulli_(probabilities): 1 where a
    uniform (24 bits; 53 for f64 probabilities) is below the element's
    probability, else 0, in the traced type; no gradient (as torch)."""
    _check(ctx, generator, float_result=False)
    t = ctx.out()
    probs = x if ctx.name == "aten.bernoulli.default" else p
    if ctx.is_static(probs) and isinstance(probs, (int, float)):
        ctx.unsupported("bernoulli_ with a number here (bernoulli_.float is its form)")
    b = ctx.b
    dtype = ctx.tensor(probs).dtype
    w = _work(dtype) if dtypes.is_float(dtype) else "f32"
    u = draw(ctx, "uniform", t.shape, w)
    hit = b.compare("lt", u, ctx.tensor(probs, w))  # i1: no gradient
    return b.convert(hit, t.dtype)


@lowers("aten.multinomial.default")
def multinomial(ctx, x, num_samples, replacement=False, generator=None):
    """num_samples category indices per row of weights (1-d or 2-d, not
    normalized), by the Gumbel-max trick in f64: key_i = log w_i - log E_i
    with E_i ~ Exp(1). With replacement each sample is the argmax of its own
    keys; without, the samples are the categories of the num_samples
    largest keys in descending order (their ranks). A row with fewer
    positive weights than samples (torch raises) gives zero-weight
    categories, by index."""
    _check(ctx, generator, float_result=False)
    t = ctx.out()
    b = ctx.b
    w = b.stop_gradient(ctx.tensor(x, "f64"))
    n, k = w.shape[-1], int(num_samples)
    lead = w.shape[:-1]
    if w.rank not in (1, 2) or k <= 0:
        ctx.unsupported("multinomial of 1-d or 2-d weights with at least one sample is lowered")
    logw = b.unary("log", w)
    if replacement:
        e = _exponential(ctx, lead + (k, n))
        keys = b.sub(b.reshape(logw, lead + (1, n)), b.unary("log", e))
        index = first_extreme_index(ctx, keys, len(lead) + 1, "i64")
        return b.convert(b.reshape(index, t.shape), t.dtype)
    if k > n:
        ctx.unsupported(f"multinomial of {k} samples without replacement from {n} categories")
    if n > MAX_RANK_SIZE:
        ctx.unsupported(f"multinomial without replacement from {n} categories (at most "
                        f"{MAX_RANK_SIZE}: it ranks every pair)")
    keys = b.sub(logw, b.unary("log", _exponential(ctx, w.shape)))
    rank = ranks(ctx, b.unary("neg", keys))  # 0 for the largest key
    picked = b.compare("eq", b.reshape(rank, lead + (1, n)), b.iota((k, 1), 0))
    index = b.reduce("sum", b.select(picked, b.iota((k, n), 1), ctx.tensor(0, "i64")), [-1])
    return b.convert(index, t.dtype)


@lowers("aten.randperm.default")
def randperm(ctx, n, *args, generator=None, **kwargs):
    """A uniformly random permutation of 0 .. n-1: the ranks of n 53-bit
    uniforms (ties, of probability n^2 2^-54, keep index order)."""
    _check(ctx, generator, float_result=False)
    t = ctx.out()
    if n <= 1:
        return ctx.tensor(0, t.dtype, t.shape)
    if n > MAX_RANK_SIZE:
        ctx.unsupported(f"randperm({n}) (at most {MAX_RANK_SIZE}: it ranks every pair)")
    return ctx.b.convert(ranks(ctx, draw(ctx, "uniform", (n,), "f64")), t.dtype)
