"""Random draws in the forward (tfc_torch/ops/random.py): tfc draws its own
Philox stream, not torch's, so the checks compare distributions and
structure, never values. Each case imports a small module with
import_forward, runs it with `tfc-run --function forward` (the stream's
`dropout_seed` / `dropout_offset` inputs fed explicitly) and checks its
samples (N = 200000 per draw unless said):

- moments and histograms against the exact distribution: every sample mean,
  sample variance and bin count must be within 6 standard errors of its
  expectation (standard errors from the exact distribution: sqrt(var / N)
  for the mean, sqrt((mu4 - var^2) / N) for the variance, sqrt(N p (1 - p))
  for a bin of probability p). With some 200 such statistics a correct
  lowering fails with probability below 1e-6; a wrong scale, shift, tail
  or bit count moves them by tens of standard errors.
- structure, exactly: ranges (uniforms never reach 1, in every float type),
  the number of random bits (uniforms are multiples of 2^-bits, not all of
  2^-(bits - 1)), integers covering every value of their range and none
  outside, bernoulli(0) never and bernoulli(1) always, multinomial without
  replacement never repeating a category in a row and never drawing a
  zero-weight one, randperm a permutation, two draws in one model sharing
  no value (f64, so a shared value means overlapping counters), the same
  seed and offset giving the same values, offset + 1 shifting a draw by one
  element (one Philox counter per element), another seed other values.
- refusals: draws tfc does not lower (gamma, poisson, binomial, dirichlet,
  training-mode rrelu) are refused even from constant parameters, never
  folded into one draw that every step repeats.
- gradients: draws from a parameter (normal's mean and std, bernoulli's
  probabilities, in-place fills of its clone) give it no gradient, as torch.
- training graphs: a VAE's reparameterized loss and a diffusion model's
  noise-prediction loss (randint timesteps, randn_like noise) are imported
  twice, as a loss (tfc-run --grad) and as a forward that also returns the
  draws; torch.autograd with those draws substituted must give the same loss
  and gradients (check_models' tolerances), and with torch's own draws other
  gradients (so the comparison sees the draws).

Usage: check_random.py --tfc-run BIN [--case NAME ...] [--device host|cuda]
                       [--keep DIR]
Exit codes: 0 pass, 1 failure, 77 device unavailable.
"""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_models  # noqa: E402  (sets up the import path of tfc_torch)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

N = 200_000
SIGMAS = 6.0


# -- running a forward ---------------------------------------------------------------------

def run_forward(model, stem, tfc_run, device, seed=0, offset=0, exported=None):
    """The outputs (a list, in the import's order) of `model(x)` (x a
    dummy [1] input) run by tfc-run with the stream keyed by seed/offset."""
    from tfc_torch.export import import_forward
    if exported is None:
        exported = import_forward(model, (torch.zeros(1),))
        exported.save(stem + ".mlir")
    return _run(exported, stem, tfc_run, device, seed, offset, function="forward"), exported


def _run(exported, stem, tfc_run, device, seed, offset, function):
    import tfc_torch
    if "dropout_seed" not in exported.inputs:
        raise AssertionError("the import has no dropout_seed / dropout_offset inputs")
    exported.inputs["dropout_seed"] = torch.tensor(seed, dtype=torch.int64)
    exported.inputs["dropout_offset"] = torch.tensor(offset, dtype=torch.int64)
    feed, out = stem + "-in.safetensors", stem + "-out.safetensors"
    exported.save_feed(feed)
    cmd = [tfc_run, stem + ".mlir", "--inputs", feed, "--outputs", out, "--device", device,
           "--quiet"]
    cmd += ["--function", "forward"] if function == "forward" else ["--grad"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tfc-run failed: {proc.stderr.strip()[-2000:]}")
    got = tfc_torch.safetensors.load(out)
    if function == "forward":
        return [got[n] for n in exported.outputs]
    return got


class Draws(nn.Module):
    """A module whose forward returns `fn(x)` (a tuple of draws; x is a
    zero [1] input, for draws whose inputs are not all constants)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


# -- statistics ------------------------------------------------------------------------------

class Problems(list):
    def within(self, what, got, want, sigma):
        if not abs(got - want) <= SIGMAS * sigma:
            self.append(f"{what}: {got:.6g}, expected {want:.6g} +- {SIGMAS * sigma:.3g} "
                        f"({SIGMAS:g} sigma)")

    def moments(self, what, x, mean, var, mu4):
        x = x.double().flatten()
        n = x.numel()
        self.within(f"{what} mean", x.mean().item(), mean, math.sqrt(var / n))
        self.within(f"{what} variance", x.var().item(), var, math.sqrt((mu4 - var * var) / n))

    def bins(self, what, x, edges, cdf):
        """Counts in [edges[i], edges[i + 1]) against N (cdf(b) - cdf(a))."""
        x = x.double().flatten()
        n = x.numel()
        for a, b in zip(edges[:-1], edges[1:]):
            p = cdf(b) - cdf(a)
            count = int(((x >= a) & (x < b)).sum())
            self.within(f"{what} count in [{a:g}, {b:g})", count, n * p,
                        math.sqrt(n * p * (1 - p)))

    def frequencies(self, what, x, probs):
        """Counts of the values 0 .. len(probs) - 1 (a value of probability 0
        must never occur, one of probability 1 always)."""
        x = x.flatten().long()
        n = x.numel()
        for v, p in enumerate(probs):
            count = int((x == v).sum())
            if p in (0.0, 1.0):
                if count != n * p:
                    self.append(f"{what}: value {v} of probability {p} drawn {count} of {n} times")
            else:
                self.within(f"{what} count of {v}", count, n * p, math.sqrt(n * p * (1 - p)))

    def check(self, what, ok):
        if not ok:
            self.append(what)


def normal_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def uniform_bits(problems, what, u, bits):
    """u in [0, 1), a multiple of 2^-bits, not all of 2^-(bits - 1)."""
    d = u.double()
    problems.check(f"{what}: outside [0, 1): min {d.min().item()}, max {d.max().item()}",
                   bool((d >= 0).all()) and bool((d < 1).all()))
    k = d * 2.0 ** bits
    problems.check(f"{what}: not all multiples of 2^-{bits}", bool((k == k.floor()).all()))
    problems.check(f"{what}: all multiples of 2^-{bits - 1} (fewer than {bits} random bits)",
                   bool((k.remainder(2) == 1).any()))


# -- cases -----------------------------------------------------------------------------------

def case_uniform(tfc_run, device, stem):
    """rand in f32, f64, bf16, f16, rand_like, uniform_(-1, 3)."""
    base = torch.zeros(N)
    fn = lambda x: (torch.rand(N), torch.rand(N, dtype=torch.float64),  # noqa: E731
                  torch.rand(N, dtype=torch.bfloat16), torch.rand(N, dtype=torch.float16),
                  torch.rand_like(base), torch.empty(N).uniform_(-1.0, 3.0))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=7, offset=123)
    p = Problems()
    for (name, bits), u in zip((("f32", 24), ("f64", 53), ("bf16", 8), ("f16", 11),
                                ("rand_like", 24)), outs):
        uniform_bits(p, f"rand {name}", u, bits)
        m = 2.0 ** bits  # m equally likely values k / m
        p.moments(f"rand {name}", u, (m - 1) / (2 * m), (m * m - 1) / (12 * m * m), 1 / 80)
        p.bins(f"rand {name}", u, [i / 16 for i in range(17)], lambda x: min(max(x, 0.0), 1.0))
    w = outs[5]
    p.check("uniform_(-1, 3) outside [-1, 3]", bool((w >= -1).all()) and bool((w <= 3).all()))
    p.moments("uniform_(-1, 3)", w, 1.0, 16 / 12, 256 / 80)
    p.bins("uniform_(-1, 3)", w, [-1 + i / 4 for i in range(17)], lambda x: (x + 1) / 4)
    return p


def case_normal(tfc_run, device, stem):
    """randn (f32, f64, bf16), randn_like, normal in its forms."""
    base = torch.zeros(N)
    mean_t = torch.full((N,), -1.0)
    fn = lambda x: (torch.randn(N), torch.randn(N, dtype=torch.float64),  # noqa: E731
                  torch.randn(N, dtype=torch.bfloat16), torch.randn_like(base),
                  torch.normal(2.0, 3.0, (N,)), torch.normal(mean_t, 0.5),
                  torch.normal(1.0, torch.full((N,), 2.0)),
                  torch.normal(mean_t, torch.full((N,), 0.25)),
                  torch.empty(N).normal_(0.5, 1.5))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=11, offset=5)
    p = Problems()
    edges = [-math.inf, -3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, math.inf]
    forms = (("randn f32", 0, 1), ("randn f64", 0, 1), ("randn bf16", 0, 1),
             ("randn_like", 0, 1), ("normal(2, 3, size)", 2, 3), ("normal(tensor, 0.5)", -1, 0.5),
             ("normal(1, tensor)", 1, 2), ("normal(tensor, tensor)", -1, 0.25),
             ("normal_(0.5, 1.5)", 0.5, 1.5))
    for (name, mean, std), z in zip(forms, outs):
        p.check(f"{name}: not finite", bool(z.isfinite().all()))
        s = (z.double() - mean) / std
        p.moments(name, s, 0.0, 1.0, 3.0)
        p.bins(name, s, edges, lambda x: 0.0 if x == -math.inf else 1.0 if x == math.inf
               else normal_cdf(x))
    return p


def case_transforms(tfc_run, device, stem):
    """exponential_, geometric_, log_normal_, cauchy_."""
    fn = lambda x: (torch.empty(N).exponential_(2.0), torch.empty(N).exponential_(),  # noqa: E731
                  torch.empty(N).geometric_(0.3), torch.empty(N).log_normal_(0.5, 0.75),
                  torch.empty(N, dtype=torch.float64).cauchy_(1.0, 2.0))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=3, offset=0)
    e2, e1, g, ln, c = outs
    p = Problems()
    for name, e, lam in (("exponential_(2)", e2, 2.0), ("exponential_()", e1, 1.0)):
        p.check(f"{name}: negative or not finite", bool((e >= 0).all()) and bool(e.isfinite().all()))
        p.moments(name, e, 1 / lam, 1 / lam ** 2, 9 / lam ** 4)
        p.bins(name, e, [0, 0.1, 0.25, 0.5, 1, 2, 4, math.inf],
               lambda x: 1.0 if x == math.inf else 1 - math.exp(-lam * x))
    p.check("geometric_: not integers >= 1", bool((g >= 1).all()) and bool((g == g.floor()).all()))
    p.frequencies("geometric_(0.3)", g.clamp(max=12) - 1,
                  [0.3 * 0.7 ** k for k in range(11)] + [0.7 ** 11])
    var = 0.7 / 0.3 ** 2  # mu4 from the excess kurtosis 6 + p^2 / (1 - p)
    p.moments("geometric_(0.3)", g, 1 / 0.3, var, var * var * (9 + 0.09 / 0.7))
    p.check("log_normal_: not positive", bool((ln > 0).all()))
    p.moments("log of log_normal_(0.5, 0.75)", ln.double().log(), 0.5, 0.75 ** 2,
              3 * 0.75 ** 4)
    q = lambda f: 1.0 + 2.0 * math.tan(math.pi * (f - 0.5))  # noqa: E731  (cauchy quantile)
    fractions = [0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0]
    p.bins("cauchy_(1, 2)", c, [-math.inf] + [q(f) for f in fractions[1:-1]] + [math.inf],
           lambda x: 0.0 if x == -math.inf else 1.0 if x == math.inf
           else 0.5 + math.atan((x - 1.0) / 2.0) / math.pi)
    return p


def case_in_place(tfc_run, device, stem):
    """In-place fills of a tensor made from a constant, which torch 1.13's
    functionalization leaves in place (uniform_, normal_, ... themselves)."""
    c = torch.zeros(N)
    probs = torch.tensor([0.2, 0.9])
    fn = lambda x: (torch.empty_like(c).uniform_(0.0, 2.0),  # noqa: E731
                    torch.empty_like(c).normal_(1.0, 2.0), torch.empty_like(c).exponential_(3.0),
                    torch.empty_like(c).geometric_(0.5), torch.empty_like(c).log_normal_(0.0, 0.25),
                    torch.empty_like(c).cauchy_(), torch.empty_like(c).random_(7),
                    torch.empty(N // 2, 2).bernoulli_(probs))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=8, offset=3)
    u, z, e, g, ln, cy, r, b = outs
    p = Problems()
    p.check("uniform_(0, 2) outside [0, 2]", bool((u >= 0).all()) and bool((u <= 2).all()))
    p.moments("uniform_(0, 2)", u, 1.0, 4 / 12, 16 / 80)
    p.moments("normal_(1, 2)", (z - 1) / 2, 0.0, 1.0, 3.0)
    p.moments("exponential_(3)", e, 1 / 3, 1 / 9, 9 / 81)
    p.frequencies("geometric_(0.5)", g.clamp(max=8) - 1, [0.5 ** k for k in range(1, 8)] + [2 ** -7])
    p.moments("log of log_normal_(0, 0.25)", ln.double().log(), 0.0, 0.0625, 3 * 0.0625 ** 2)
    p.frequencies("cauchy_() within (-1, 1)", (cy.abs() < 1).long(), [0.5, 0.5])
    p.frequencies("random_(7)", r, [1 / 7] * 7)
    for j, pj in enumerate(probs.tolist()):
        p.frequencies(f"bernoulli_(probs) column {j}", b[:, j], [1 - pj, pj])
    return p


def case_integers(tfc_run, device, stem):
    """randint (both forms), randint_like (both), random_(high), a range
    of 2^40."""
    base = torch.zeros(N)
    fn = lambda x: (torch.randint(3, 10, (N,)), torch.randint(5, (N,)),  # noqa: E731
                  torch.randint_like(base, 4), torch.randint_like(base, -2, 2),
                  torch.empty(N, dtype=torch.int32).random_(6),
                  torch.randint(0, 2 ** 40, (N,)), torch.randint(7, 8, (4,)))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=5, offset=99)
    p = Problems()
    for (name, low, high, dtype), v in zip((("randint(3, 10)", 3, 10, torch.int64),
                                            ("randint(5)", 0, 5, torch.int64),
                                            ("randint_like(4)", 0, 4, torch.float32),
                                            ("randint_like(-2, 2)", -2, 2, torch.float32),
                                            ("random_(6) int32", 0, 6, torch.int32)), outs):
        p.check(f"{name}: dtype {v.dtype}, expected {dtype}", v.dtype == dtype)
        p.check(f"{name}: values outside [{low}, {high})",
                bool((v >= low).all()) and bool((v < high).all()) and bool((v == v.floor()).all()))
        p.frequencies(name, v - low, [1 / (high - low)] * (high - low))
    big = outs[5].double()
    p.check("randint(0, 2^40): outside the range", bool((big >= 0).all()) and
            bool((big < 2 ** 40).all()))
    n40 = 2.0 ** 40
    p.moments("randint(0, 2^40) / 2^40", big / n40, 0.5, 1 / 12, 1 / 80)
    for bit in (0, 1, 20):  # the low bits are random too (53-bit uniforms)
        ones = (outs[5] >> bit) & 1
        p.frequencies(f"randint(0, 2^40) bit {bit}", ones, [0.5, 0.5])
    p.check(f"randint(7, 8): {outs[6].tolist()}", outs[6].tolist() == [7] * 4)
    return p


def case_bernoulli(tfc_run, device, stem):
    """bernoulli of a probability tensor (bernoulli.default), bernoulli_ of
    one (bernoulli.Tensor, f64) and bernoulli(x, p) (bernoulli_.float)."""
    rows = N // 8
    probs = torch.tensor([0.0, 0.1, 0.3, 0.5, 0.9, 1.0, 0.01, 0.7])
    fn = lambda x: (torch.bernoulli((probs + x).expand(rows, 8)),  # noqa: E731
                  torch.empty(rows, 8, dtype=torch.float64).bernoulli_(probs.double()),
                  torch.bernoulli(torch.zeros(N), 0.3))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=1, offset=2)
    p = Problems()
    for name, b in (("bernoulli(probs)", outs[0]), ("bernoulli_(probs) f64", outs[1])):
        p.check(f"{name}: values other than 0 and 1", bool(((b == 0) | (b == 1)).all()))
        for j, pj in enumerate(probs.tolist()):
            p.frequencies(f"{name} column {j}", b[:, j], [1 - pj, pj])
    p.frequencies("bernoulli(x, 0.3)", outs[2], [0.7, 0.3])
    return p


class _DropPath(nn.Module):
    """Stochastic depth as timm writes it: one keep draw per sample, the
    [B, 1, 1] mask broadcast over the sample's features (not dropout's one
    draw per element)."""

    def forward(self, x):
        h = torch.ones(N // 8, 4, 2) + x
        mask = h.new_empty((h.shape[0], 1, 1)).bernoulli_(0.7).div_(0.7)
        return (h * mask,)


def case_drop_path(tfc_run, device, stem):
    """A per-sample mask broadcast over the features: each sample's values
    all 0 or all 1 / 0.7, kept with frequency 0.7."""
    outs, _ = run_forward(_DropPath(), stem, tfc_run, device, seed=3, offset=1)
    y = outs[0].reshape(N // 8, -1)
    p = Problems()
    p.check("drop path: a sample's values differ (one draw per element, not per sample)",
            bool((y == y[:, :1]).all()))
    p.frequencies("drop path: kept samples", (y[:, 0] > 0).long(), [0.3, 0.7])
    return p


def case_multinomial(tfc_run, device, stem):
    """multinomial with and without replacement, 2-d and 1-d weights (a
    zero weight among them), Gumbel-softmax with hard=True."""
    rows = 50_000
    weights = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    logits = torch.tensor([0.5, -1.0, 2.0, 0.0])
    fn = lambda x: (torch.multinomial((weights + x).expand(rows, 5), 3),  # noqa: E731
                  torch.multinomial((weights + x).expand(rows, 5), 4, replacement=True),
                  torch.multinomial(weights, 4),
                  F.gumbel_softmax(logits.expand(rows, 4), tau=0.7),
                  F.gumbel_softmax((logits + x).expand(rows, 4), tau=2.0, hard=True))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=2, offset=1000)
    without, with_, one_d, gumbel, gumbel_x = outs
    p = Problems()
    w = (weights / weights.sum()).tolist()
    p.check(f"without replacement: shape {tuple(without.shape)}", without.shape == (rows, 3))
    sorted_rows = without.sort(-1).values
    p.check("without replacement: a category twice in a row",
            bool((sorted_rows[:, 1:] != sorted_rows[:, :-1]).all()))
    # Sequential sampling without replacement: P(first = i) = w_i, P(second =
    # j) = sum_i w_i w_j / (1 - w_i), P(third = k) likewise over pairs.
    second = [sum(w[i] * w[j] / (1 - w[i]) for i in range(5) if i != j and w[i] < 1)
              for j in range(5)]
    third = [sum(w[i] * w[j] / (1 - w[i]) * w[k] / (1 - w[i] - w[j])
                 for i in range(5) for j in range(5) if len({i, j, k}) == 3 and w[i] + w[j] < 1)
             for k in range(5)]
    p.frequencies("without replacement, first sample", without[:, 0], w)
    p.frequencies("without replacement, second sample", without[:, 1], second)
    p.frequencies("without replacement, third sample", without[:, 2], third)
    p.frequencies("with replacement", with_, w)
    p.check(f"1-d without replacement: {one_d.tolist()} is not 1, 2, 3, 4 in some order",
            sorted(one_d.tolist()) == [1, 2, 3, 4])
    # exponential_ of a constant's empty_like (unfunctionalized; soft, as
    # torch 1.13 leaves hard's scatter_ in place there too), and of a traced
    # tensor's (exponential); the argmax is softmax(logits)-distributed for any tau.
    p.check("gumbel_softmax(hard): rows are not one-hot",
            bool((gumbel_x.sum(-1) == 1).all()) and bool(((gumbel_x == 0) | (gumbel_x == 1)).all()))
    p.check("gumbel_softmax: rows do not sum to 1", bool(((gumbel.sum(-1) - 1).abs() < 1e-5).all()))
    for name, g in (("gumbel_softmax of constants", gumbel),
                    ("gumbel_softmax(hard) of a traced tensor", gumbel_x)):
        p.frequencies(f"{name} argmax", g.argmax(-1), torch.softmax(logits.double(), -1).tolist())
    return p


def case_randperm(tfc_run, device, stem):
    """randperm(1000) and 200 draws of randperm(3) (every ordering, each
    with probability 1/6)."""
    fn = lambda x: (torch.randperm(1000), torch.randperm(7, dtype=torch.float32),  # noqa: E731
                  torch.stack([torch.randperm(3) for _ in range(200)]))
    outs, _ = run_forward(Draws(fn), stem, tfc_run, device, seed=9, offset=4)
    p = Problems()
    big, small_f, threes = outs
    p.check("randperm(1000) is not a permutation",
            torch.equal(big.sort().values, torch.arange(1000)))
    p.check("randperm(1000) is the identity", not torch.equal(big, torch.arange(1000)))
    p.check(f"randperm(7, float32) {small_f.tolist()} is not a permutation",
            small_f.dtype == torch.float32 and sorted(small_f.tolist()) == list(range(7)))
    p.check("randperm(3) draws are not permutations",
            bool((threes.sort(-1).values == torch.arange(3)).all()))
    code = threes[:, 0] * 3 + threes[:, 1]  # the ordering, from its first two
    orders = sorted({a * 3 + b for a in range(3) for b in range(3) if a != b})
    p.frequencies("randperm(3) orderings", torch.tensor([orders.index(c) for c in code.tolist()]),
                  [1 / 6] * 6)
    return p


def case_stream(tfc_run, device, stem):
    """Two draws in one model share no value; the same seed and offset give
    the same values, offset + 1 shifts each draw by one element, another
    seed gives other values."""
    fn = lambda x: (torch.rand(N, dtype=torch.float64),  # noqa: E731
                  torch.rand(N, dtype=torch.float64), torch.randn(1000))
    (a, b, z), exported = run_forward(Draws(fn), stem, tfc_run, device, seed=42, offset=10)
    p = Problems()
    shared = len(set(a.tolist()) & set(b.tolist()))
    p.check(f"two draws share {shared} values (overlapping counters)", shared == 0)
    p.within("correlation of two draws", torch.corrcoef(torch.stack([a, b]))[0, 1].item(), 0.0,
             1 / math.sqrt(N))
    (a2, b2, z2), _ = run_forward(None, stem, tfc_run, device, seed=42, offset=10,
                                  exported=exported)
    p.check("the same seed and offset give other values",
            torch.equal(a, a2) and torch.equal(b, b2) and torch.equal(z, z2))
    (a3, b3, z3), _ = run_forward(None, stem, tfc_run, device, seed=42, offset=11,
                                  exported=exported)
    p.check("offset + 1 does not shift the first draw by one element",
            torch.equal(a3[:-1], a[1:]) and not torch.equal(a3, a))
    p.check("offset + 1 does not shift the second draw by one element",
            torch.equal(b3[:-1], b[1:]))
    (a4, _, _), _ = run_forward(None, stem, tfc_run, device, seed=43, offset=10,
                                exported=exported)
    common = len(set(a.tolist()) & set(a4.tolist()))
    p.check(f"seeds 42 and 43 share {common} values", common == 0)
    return p


# -- training graphs: the draws read back, torch given the same draws ---------------------------

class Replayed(nn.Module):
    """A training loss drawing with `self.draw(fn)`: torch's draw, or the
    next of `self.given`; with `expose` the forward returns (loss, draws)."""

    def __init__(self):
        super().__init__()
        self.given, self.expose, self.drawn = None, False, []

    def draw(self, fn):
        value = self.given.pop(0) if self.given else fn()
        self.drawn.append(value)
        return value

    def forward(self, x):
        self.drawn = []
        loss = self.loss(x)
        return (loss, *self.drawn) if self.expose else loss


class VAE(Replayed):
    def __init__(self, d=6, h=3):
        super().__init__()
        self.enc = nn.Linear(d, 2 * h)
        self.dec = nn.Linear(h, d)

    def loss(self, x):
        mu, logvar = self.enc(x).chunk(2, -1)
        std = torch.exp(0.5 * logvar)
        eps = self.draw(lambda: torch.randn_like(std))
        recon = self.dec(mu + eps * std)
        kl = -0.5 * torch.mean(1 + logvar - mu ** 2 - logvar.exp())
        return F.mse_loss(recon, x) + kl


class Diffusion(Replayed):
    steps = 50

    def __init__(self, d=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, 16), nn.SiLU(), nn.Linear(16, d))
        betas = torch.linspace(1e-4, 0.2, self.steps)
        self.register_buffer("abar", torch.cumprod(1 - betas, 0))

    def loss(self, x):
        t = self.draw(lambda: torch.randint(0, self.steps, (x.shape[0],)))
        noise = self.draw(lambda: torch.randn_like(x))
        a = self.abar[t].unsqueeze(-1)
        xt = a.sqrt() * x + (1 - a).sqrt() * noise
        pred = self.net(torch.cat([xt, (t.float() / self.steps).unsqueeze(-1)], -1))
        return F.mse_loss(pred, noise)


def _replay(model, x, stem, tfc_run, device):
    import tfc_torch
    from tfc_torch.export import import_forward
    p = Problems()
    seed, offset = 1234, 777
    loss_import = tfc_torch.import_module(model, (x,))
    loss_import.save(stem + "-loss.mlir")
    got = _run(loss_import, stem + "-loss", tfc_run, device, seed, offset, "grad")
    model.expose = True
    forward = import_forward(model, (x,))
    model.expose = False
    forward.save(stem + "-draws.mlir")
    outs = _run(forward, stem + "-draws", tfc_run, device, seed, offset, "forward")
    draws = outs[1:]
    p.check(f"the forward's loss {outs[0].item():.8g} is not the loss import's "
            f"{got['loss'].item():.8g}", math.isclose(outs[0].item(), got["loss"].item(),
                                                      rel_tol=check_models.LOSS_RTOL))
    model.given = list(draws)
    want_loss, want_grads = check_models.torch_loss_and_grads(model, (x,), None)
    model.given = None
    if not math.isclose(got["loss"].item(), want_loss.item(), rel_tol=check_models.LOSS_RTOL,
                        abs_tol=check_models.LOSS_ATOL):
        p.append(f"loss {got['loss'].item():.8g}, torch with tfc's draws {want_loss.item():.8g}")
    names = list(loss_import.params)
    for name, want in zip(names, want_grads):
        err, scale, ok = check_models.grad_error(got[f"grad.{name}"], want)
        p.check(f"gradient of {name}: max |diff| {err:.3e} (max |grad| {scale:.3e})", ok)
    # With torch's own draws the gradients differ: the comparison sees them.
    torch.manual_seed(0)
    _, other = check_models.torch_loss_and_grads(model, (x,), None)
    p.check("torch's gradients with its own draws equal those with tfc's draws",
            any(not check_models.grad_error(got[f"grad.{n}"], g)[2] for n, g in zip(names, other)))
    return p, draws


class DrawsOfParameters(nn.Module):
    """A loss whose draws take the parameter as mean, std, probabilities or
    in-place target: torch gives none of them a gradient, so the gradient
    is x's alone (of the last term)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(-1.0, 1.0, 64))

    def forward(self, x):
        w = self.w
        drawn = (torch.normal(w, 0.5).sum() + torch.normal(0.0, w.exp()).sum()
                 + torch.normal(w, w.exp()).sum() + torch.bernoulli(torch.sigmoid(w)).sum()
                 + w.clone().normal_(1.0, 2.0).sum() + w.clone().uniform_().sum()
                 + w.clone().exponential_().sum() + torch.rand_like(w).sum()
                 + torch.randint_like(w, 5).sum())
        return drawn + (w * x).sum()


def case_gradients(tfc_run, device, stem):
    import tfc_torch
    model = DrawsOfParameters()
    x = torch.linspace(0.5, 2.0, 64)
    exported = tfc_torch.import_module(model, (x,))
    exported.save(stem + ".mlir")
    got = _run(exported, stem, tfc_run, device, 5, 6, "grad")
    _, (want,) = check_models.torch_loss_and_grads(model, (x,), None)
    p = Problems()
    p.check("torch's gradient is not x's", torch.equal(want, x))
    err, scale, ok = check_models.grad_error(got["grad.w"], want)
    p.check(f"gradient of w: max |diff| {err:.3e} (max |grad| {scale:.3e})", ok)
    return p


def case_vae(tfc_run, device, stem):
    torch.manual_seed(0)
    model = VAE()
    x = torch.randn(256, 6)
    p, (eps,) = _replay(model, x, stem, tfc_run, device)
    p.moments("the VAE's eps", eps, 0.0, 1.0, 3.0)
    return p


def case_diffusion(tfc_run, device, stem):
    torch.manual_seed(1)
    model = Diffusion()
    x = torch.randn(512, 6)
    p, (t, noise) = _replay(model, x, stem, tfc_run, device)
    p.check(f"timesteps: dtype {t.dtype}, outside [0, {model.steps})",
            t.dtype == torch.int64 and bool((t >= 0).all()) and bool((t < model.steps).all()))
    p.moments("the diffusion noise", noise, 0.0, 1.0, 3.0)
    return p


def case_unlowered_draws(tfc_run, device, stem):
    """Draws tfc has no lowering for, from constant parameters
    (torch.distributions' Gamma, StudentT, Poisson and Binomial sample(),
    _sample_dirichlet, training-mode rrelu): the import refuses them, naming
    the op, rather than folding one draw into a constant every step repeats.
    Eval-mode rrelu of a constant (no draw) still imports, as leaky_relu
    with the mean slope."""
    from tfc_torch.errors import FrontendError
    from tfc_torch.export import import_forward
    d = torch.distributions
    draws = [
        ("aten._standard_gamma", lambda x: d.Gamma(torch.full((4,), 2.0), torch.ones(4)).sample()),
        ("aten._standard_gamma", lambda x: d.StudentT(torch.full((4,), 3.0)).sample()),
        ("aten.poisson", lambda x: torch.poisson(torch.full((4,), 3.0))),
        ("aten.binomial", lambda x: d.Binomial(5, torch.full((4,), 0.5)).sample()),
        # (Dirichlet's sample() is its custom Function, refused as such.)
        ("aten._sample_dirichlet", lambda x: torch._sample_dirichlet(torch.ones(3))),
        ("aten.rrelu_with_noise", lambda x: F.rrelu(-torch.ones(4), training=True)),
    ]
    p = Problems()
    for op, fn in draws:
        try:
            import_forward(Draws(fn), (torch.zeros(1),))
        except FrontendError as e:
            first = str(e).splitlines()[0]
            p.check(f"{op}: refused without naming it: {first}", op in first)
        else:
            p.append(f"{op} imported: its draw folded into a constant")
    # (A rand beside it: run_forward feeds the stream.)
    (y, _), _ = run_forward(Draws(lambda x: (F.rrelu(-torch.ones(4), 0.1, 0.3), torch.rand(2))),
                            stem, tfc_run, device)
    p.check(f"eval-mode rrelu of -1: {y.tolist()}, expected -0.2", torch.allclose(y, -0.2 *
                                                                                 torch.ones(4)))
    return p


CASES = {
    "uniform": case_uniform,
    "normal": case_normal,
    "transforms": case_transforms,
    "in-place": case_in_place,
    "integers": case_integers,
    "bernoulli": case_bernoulli,
    "drop-path": case_drop_path,
    "multinomial": case_multinomial,
    "randperm": case_randperm,
    "stream": case_stream,
    "gradients": case_gradients,
    "vae": case_vae,
    "diffusion": case_diffusion,
    "unlowered-draws": case_unlowered_draws,
}


def check_case(case, tfc_run, device, workdir):
    problems = CASES[case](tfc_run, device, os.path.join(workdir, case))
    return "; ".join(problems) or None


def main():
    return check_models.run_cases(__doc__, CASES, check_case, "tfc-random-")


if __name__ == "__main__":
    sys.exit(main())
