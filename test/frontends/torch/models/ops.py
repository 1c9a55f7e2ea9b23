"""One small module per group of aten ops the frontend lowers, each
returning a scalar loss that depends on its parameters through the ops
under test (check_ops.py compares loss and gradients with PyTorch).
CASES maps a case name to a factory returning (module, example batch);
PATTERNS, the patterns a case's import must recognize."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _g(seed):
    return torch.Generator().manual_seed(seed)


class Lambda(nn.Module):
    """A linear layer whose output `fn(h, *batch)` turns into the loss."""

    def __init__(self, fn, width=6, out=8):
        super().__init__()
        self.fc = nn.Linear(width, out)
        self.fn = fn

    def forward(self, x, *rest):
        return self.fn(self.fc(x), *rest)


def _case(fn, rows=4, width=6, out=8, extra=()):
    def make():
        torch.manual_seed(0)
        x = torch.randn(rows, width, generator=_g(1))
        return Lambda(fn, width, out), (x, *extra)
    return make


CASES = {
    # Elementwise arithmetic, comparisons and activations.
    "arith": _case(lambda h: ((h * 2.5 - 1.0) / 3.0 + (1.0 - h) * h.exp() / (h.abs() + 1)).sum()),
    "unary": _case(lambda h: (h.sigmoid() + h.tanh() + F.silu(h) + F.relu(h) + h.sin() * h.cos()
                              + (h.abs() + 0.5).log() + (h.abs() + 0.5).sqrt()
                              + (h.abs() + 0.5).rsqrt() + (h.abs() + 1).reciprocal()
                              + torch.log1p(h.abs()) + torch.expm1(h * 0.1) - h.neg()).mean()),
    "activations": _case(lambda h: (F.gelu(h) + F.gelu(h, approximate="tanh") + F.leaky_relu(h, 0.2)
                                    + F.softplus(h) + F.softplus(h, beta=2.0, threshold=1.0)
                                    + F.hardsigmoid(h) + F.hardswish(h) + F.hardtanh(h, -0.5, 0.5)
                                    + F.elu(h).clamp(max=10.0)).mean()),
    "clamp-minmax": _case(lambda h: (h.clamp(-0.3, 0.4) + h.clamp(min=0.1) + h.clamp(max=-0.1)
                                     + torch.maximum(h, h.flip(0) if False else h * 0.5)
                                     + torch.minimum(h, -h)).sum()),
    # Values exactly on a clamp bound (relu's zeros, a value clamped twice):
    # clamp passes their gradient on (lo <= x <= hi), hardtanh / relu6 do
    # not (lo < x < hi), maximum would split it.
    "clamp-ties": _case(lambda h: _clamp_ties(h)),
    # Piecewise activations with parameters exactly on their kinks: each
    # gets torch's one-sided derivative there.
    "activation-kinks": lambda: _activation_kinks(),
    "pow": _case(lambda h: (h.pow(2) + h.abs().pow(1.5) + h.pow(3.0) + 2.0 ** h
                            + torch.pow(h.abs() + 1, torch.tensor(2.0))).mean()),
    "where-compare": _case(lambda h: (torch.where(h > 0, h, h * 0.1)
                                      + torch.where(h <= 0.2, 1.0, h)
                                      + h.masked_fill(h < -0.5, 0.0)
                                      + (h >= 0.1).float() * h + (h == h).float()
                                      + ((h > 0) & (h < 0.5)).float() * h
                                      + ((h > 0) | ~(h < 0.5)).float() * h).sum()),
    # Reductions.
    "reductions": _case(lambda h: (h.sum(0).mean() + h.mean(dim=1, keepdim=True).sum()
                                   + h.amax(dim=1).sum() + h.amin(dim=0).sum() + h.max()
                                   + h.min() + h.max(dim=1).values.sum()
                                   + torch.logsumexp(h, dim=1).sum())),
    "var-std-norm": _case(lambda h: (h.var(dim=1).sum() + h.std(dim=0, unbiased=False).sum()
                                     + h.var() + torch.linalg.vector_norm(h, dim=1).sum()
                                     + h.norm(p=1) + torch.linalg.vector_norm(h, ord=float("inf")))),
    # Shapes and data movement.
    "shapes": _case(lambda h: (h.view(2, 2, 8).transpose(0, 2).reshape(8, 4).t()
                               .unsqueeze(0).squeeze(0).permute(1, 0).flatten() * torch.arange(32.0)
                               ).sum()),
    "slicing": _case(lambda h: (h[1:3, ::2].sum() + h[:, -1].sum() * 2 + h[2].sum()
                                + torch.cat([h[:, :3], h[:, 5:]], dim=1).pow(2).sum()
                                + torch.stack([h[0], h[1]], dim=1).exp().sum()
                                + sum(p.mean() for p in h.split(3, dim=1))
                                + sum(p.sum() for p in h.chunk(2, dim=0))
                                + sum(p.max() for p in h.unbind(0)) + h.narrow(1, 2, 3).sum())),
    "pad-repeat": _case(lambda h: (F.pad(h, (1, 2, 0, 1), value=0.5).pow(2).sum()
                                   + F.pad(h, (-1, -2)).sum() + h.repeat(2, 3).sigmoid().sum()
                                   + h.expand(3, 4, 8).tanh().sum())),
    "tril-triu": _case(lambda h: (h.view(4, 8)[:, :4].tril().pow(2).sum()
                                  + h[:, 4:].triu(1).exp().sum()), out=8),
    "slice-assign": _case(lambda h: _slice_assign(h)),
    "gather-index": _case(lambda h, idx, rows: (h.gather(1, idx).pow(2).sum()
                                                + h.index_select(1, idx[0]).sum()
                                                + h[rows].exp().sum() + h[:, idx[1]].sum()
                                                + h[rows, 2:5].tanh().sum()
                                                + h[:, torch.tensor([-1, 0, -3])].sum()),
                          extra=(torch.tensor([[0, 3], [7, 1], [2, 2], [5, 6]]),
                                 torch.tensor([[3, 0], [1, 1], [2, 0]]))),
    "masked-reductions": _case(lambda h: (h[h > 0].sum() + h[h[:, 0] > 0].mean()
                                          + torch.masked_select(h, h < 0.1).mean())),
    # Losses.
    "losses": _case(lambda h, y: (F.mse_loss(h, y) + F.l1_loss(h, y, reduction="sum")
                                  + F.smooth_l1_loss(h, y, beta=0.5)
                                  + F.huber_loss(h, y, delta=0.7)
                                  + F.binary_cross_entropy_with_logits(h, (y > 0).float())
                                  + F.binary_cross_entropy_with_logits(
                                      h, (y > 0).float(), pos_weight=torch.full((8,), 2.0))
                                  + F.binary_cross_entropy(h.sigmoid(), (y > 0).float())),
                    extra=(torch.randn(4, 8, generator=_g(2)),)),
    "nll-variants": _case(lambda h, t: (F.cross_entropy(h, t, weight=torch.linspace(0.5, 2.0, 8))
                                        + F.cross_entropy(h, t, ignore_index=3, reduction="sum")
                                        + F.cross_entropy(h, t, label_smoothing=0.1)
                                        + F.nll_loss(F.log_softmax(h, 1), t, reduction="none").sum()
                                        + F.cross_entropy(h.view(2, 2, 8).transpose(1, 2),
                                                          t.view(2, 2))),
                          extra=(torch.tensor([3, 0, 7, 3]),)),
    # Normalization.
    "norms": lambda: _norms(),
    "batch-norm-train": lambda: _batch_norm(train=True),
    "batch-norm-eval": lambda: _batch_norm(train=False),
    "embedding-padding": lambda: _embedding_padding(),
    "softmax-dims": _case(lambda h: (F.softmax(h.view(2, 2, 8), dim=1) * h.view(2, 2, 8)).sum()
                          + (F.log_softmax(h, dim=0) * h).sum()),
    "matmul-forms": lambda: _matmuls(),
    # Activations and math composed from tfc ops (ops/elementwise.py).
    "activations-composed": _case(lambda h: (F.mish(h) + F.logsigmoid(h) + F.celu(h, 0.7) + F.selu(h)
                                             + F.softsign(h) + F.tanhshrink(h)
                                             + F.hardshrink(h, 0.3) + F.softshrink(h, 0.2)
                                             + F.threshold(h, 0.1, -2.0) + F.relu6(h * 8)
                                             + F.glu(torch.cat([h, h * 0.5], 1), dim=1)).mean()
                                  + F.glu(h, dim=0).sum()),
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
    # Piecewise-constant rounding: values (ties to even, signed zeros) and
    # zero gradients; frac passes the gradient through.
    "rounding": _case(lambda h: ((torch.floor(h * 3) + torch.ceil(h * 3) + torch.trunc(h * 3)
                                  + torch.round(h * 3) + torch.frac(h * 3)) * h).sum()
                      + (torch.round(torch.arange(-10, 11) * 0.25 + h.sum() * 0)
                         * torch.arange(1, 22)).sum()
                      + (1.0 / (torch.ceil(h * 0 - 0.5) + torch.trunc(h * 0 - 0.5))).clamp(-1, 1).sum()
                      # beyond 2^23 every f32 is an integer: still a zero gradient
                      + (torch.floor(h * 1e8) * 1e-8).sum()),
    # Reductions composed from tfc ops (ops/reduction.py).
    "reductions-composed": _case(lambda h: (h.prod(1).sum() + (h * 0.5 + 1).prod() + h.prod(0, keepdim=True).sum()
                                            + (h * (h > 0).any(1, keepdim=True)).sum()
                                            + (h * (h > -1).all(0)).sum() + (h * (h > 0).any()).sum()
                                            + torch.std_mean(h, 1)[0].sum() + torch.std_mean(h, 0)[1].sum()
                                            + h.cumsum(1).pow(2).mean() + h.cumsum(0).sum()
                                            + h.norm(p=3, dim=1).sum() + h.norm(p=float("-inf"))),
                                 rows=5, out=7),
    # Position ids from an attention mask (HF style): an integer cumsum.
    "cumsum-positions": lambda: _positions(),
    # Data movement composed from slices and gathers (ops/shape.py).
    "flip-roll-diagonal": _case(lambda h: ((h.flip(0) * h).sum() + (h.flip(0, 1)[:, :3] ** 2).sum()
                                           + (torch.roll(h, 3, 1) * h).sum()
                                           + (torch.roll(h, (1, -2), (0, 1)) * h).sum()
                                           + (torch.roll(h, 5) * h).sum()
                                           + (torch.diagonal(h) ** 2).sum()
                                           + torch.diagonal(h, 2).sum() + torch.diagonal(h, -1).sum() * 3
                                           + torch.diagonal(h.view(2, 2, 8), 1, 1, 2).pow(2).sum())),
    "group-norm": lambda: _group_norm(),
    # A frozen layer (requires_grad=False) is a constant: no gradient.
    "frozen-parameters": lambda: _frozen(),
    # Gradient control: detach and no_grad / inference_mode values are
    # constants to the gradient (tfc.stop_gradient); without it these
    # gradients differ from torch's by about their own size.
    "detach-no-grad": _case(lambda h: _detached(h)),
    # Convolutions and pooling as window gathers (ops/conv.py): a ViT patch
    # embedding (kernel = stride), a padded, dilated, depthwise (groups)
    # conv1d, an unbatched one; max pooling with overlapping windows,
    # padding and ties (relu's zeros), average pooling with and without
    # the padding counted.
    # Reflection and replication padding (1-3 dims, unbatched, negative
    # amounts cropping one side) and circular padding (F.pad traces it to
    # slices), of convolutions' outputs so the gradient reaches their
    # parameters; padding_mode= pads the convolutions' own inputs so.
    "padding-modes": lambda: _padding_modes(),
    # Interpolation in modes nearest, nearest-exact, linear, bilinear,
    # bicubic and trilinear: sizes given (7 -> 16, 5 -> 3) and scale factors (2, 1.7,
    # below 1), align_corners both ways, a dim kept at its size (torch
    # weighs its rows by 1 and 0), scale factors 1.1 and 2.2 that keep and
    # double a size (torch's nearest gradient goes to other rows than its
    # forward reads); the .vec overloads F.interpolate traces to and the
    # others.
    "upsampling": lambda: _upsampling(),
    # Adaptive average and max pooling, 1-3 dims, to sizes whose windows
    # overlap and differ in size (7 -> 3, 5 -> 4), tile the input (8 -> 2)
    # or repeat rows (5 -> 7), interpolate's area mode; rounded values make
    # ties, whose gradient goes to the first largest element in row-major
    # order.
    "adaptive-pool": lambda: _adaptive_pool(),
    # Sub-pixel convolution: pixel_shuffle of a convolution's channels,
    # pixel_unshuffle back (batched, unbatched, 5-d). channel_shuffle has
    # no derivative in torch 1.13: check_forward covers it.
    "pixel-shuffle": lambda: _pixel_shuffle(),
    # Pooling with ceil_mode, whose last window overhangs the padded input
    # (max: ties whose gradient goes to the first largest element; average:
    # torch's divisors, count_include_pad both ways, divisor_override), and
    # average pooling whose divisors differ per dim.
    "pool-ceil-mode": lambda: _pool_ceil_mode(),
    "conv-pool": lambda: _conv_pool(),
    # Sliding windows (Tensor.unfold: one strided slice per offset),
    # overlapping and not, as local attention takes its key windows.
    "unfold-windows": _case(lambda h: ((h.unfold(1, 3, 2).pow(2).sum(-1) * torch.arange(3.0)).sum()
                                       + h.unfold(0, 2, 1).sin().sum()
                                       + h.view(2, 2, 8).unfold(2, 4, 4).prod(-1).sum())),
    # Index-selecting reductions: max/min(dim) values and indices, topk
    # (largest and smallest) and sort, whose gradient goes to the selected
    # element alone; relu's zeros make ties, which pick the first index
    # (amax splits a tie's gradient evenly, max(dim) does not).
    "selections": _case(lambda h: _selections(h)),
    # A mixture-of-experts layer: a softmax router's top-2 (topk), one-hot
    # expert masks (F.one_hot, traced as a comparison), tokens gathered per
    # expert and their outputs summed back with index_add.
    "moe-routing": lambda: _moe_routing(),
    # Scatters (one tfc.embedding_grad each): scatter_add into a larger
    # tensor, scatter of values and of a scalar, index_add with a repeated
    # index and alpha, x[idx] = v and x[idx] += v; indices known and traced.
    "scatters": _case(lambda h, ids: _scatters(h, ids),
                      extra=(torch.tensor([[3, 0, 4, 4, 1, 0, 2, 2], [1, 1, 0, 3, 2, 4, 4, 0]]),)),
    # Integer fmod / remainder / floor division (exact; float fmod and
    # floor division are refused), float trunc division, traced negative
    # indices, bool
    # arithmetic (isfinite decomposes into a bool mul), logaddexp(2),
    # copysign, prelu and soft_margin_loss.
    "more-elementwise": lambda: _more_elementwise(),
    # An in-place op under no_grad on a tensor that requires grad keeps its
    # history: the new value, the gradient as through the identity
    # (tfc.straight_through). F.cosine_similarity clamps its squared norms
    # so in C++; the others write the whole tensor, a view of a 3-d
    # linear's output, and a column through a view of it.
    "no-grad-writes": lambda: _no_grad_writes(),
    # nn.LSTM (projections), nn.GRU and nn.RNN (tanh and relu): two
    # bidirectional layers, batch-first or not, with and without biases,
    # given initial states or zeros; the loss reads every output, h_n and
    # c_n (their gates come from aten.unsafe_split).
    "recurrent": lambda: _recurrent(),
    # aminmax (values; torch 1.13 cannot differentiate it), nansum and
    # nanmean over NaNs, cumprod with zeros and negative values, cummax /
    # cummin with ties and NaN (values and indices), logcumsumexp with ties
    # and -inf after finite values.
    "more-reductions": lambda: _more_reductions(),
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
    # bucketize / searchsorted: ties with the boundaries, duplicate
    # boundaries, NaN, right / side, out_int32, a sorter, a 2-d sequence.
    "bucketize": _case(lambda h: _bucketize(h)),
    # multi_margin_loss (p 1 and 2, margin, weight, reductions, a 1-d
    # input, margins exactly 0); cdist with p 2, 1, 3, 0.5, 0 and inf,
    # batched, at zero distance (gradient 0) and with tied differences
    # (p = inf gives each its whole gradient, as torch's).
    "more-losses": lambda: _more_losses(),
    # nn.utils.weight_norm over dim 0 of Linear and Conv1d, the last dim of
    # Linear (aten._weight_norm_interface), a middle dim of Conv1d and
    # dim=None (torch traces those as a norm and a division).
    "weight-norm": lambda: _weight_norm(),
    # F.gaussian_nll_loss / nn.GaussianNLLLoss (replaced while tracing: no
    # value check on var): per-element, per-row ([N] and [N, 1]) variances,
    # variances below eps clamped under no_grad (their gradient passes
    # through, as torch's), full, reductions.
    "gaussian-nll": lambda: _gaussian_nll(),
}


class _Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Embedding(9, 6)
        self.fc = nn.Linear(6, 6)

    def forward(self, x, mask):
        positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
        return (self.fc(x) * self.pos(positions)).sum()


def _positions():
    torch.manual_seed(0)
    mask = torch.tensor([[0, 0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0, 0]])
    return _Positions(), (torch.randn(2, 8, 6, generator=_g(1)), mask)


class _GroupNorms(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 12)
        self.affine = nn.GroupNorm(3, 6)
        self.plain = nn.GroupNorm(2, 4, affine=False)

    def forward(self, x):
        h = self.fc(x).view(2, 6, 2, 2)
        return ((self.affine(h) * h).sum() + self.plain(h[:, :4].reshape(2, 4, 4)).pow(2).mean()
                + F.group_norm(h.reshape(4, 6, 2), 6).pow(3).sum())


def _group_norm():
    torch.manual_seed(0)
    return _GroupNorms(), (torch.randn(4, 6, generator=_g(1)),)


class _FrozenLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        self.net[0].weight.requires_grad_(False)

    def forward(self, x):
        return self.net(x).pow(2).mean()


def _frozen():
    torch.manual_seed(0)
    return _FrozenLayer(), (torch.randn(4, 6, generator=_g(1)),)


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


class _ActivationKinks(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.tensor([-3.0, 3.0, 0.0, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 6.0,
                                            -6.0, 0.5]))

    def forward(self, x):
        p, w = self.p, torch.arange(1.0, 13.0) + x.sum()
        return ((F.hardswish(p) * w).sum() + (F.hardsigmoid(p) * w).sum() * 3
                + (F.relu6(p + 3) * w).sum() * 5 + (F.hardtanh(p, -3, 3) * w).sum() * 7
                + (p.clamp(-3, 3) * w).sum() * 11 + (F.relu(p) * w).sum() * 13
                + (F.threshold(p, 3.0, -1.0) * w).sum() * 17 + (F.hardshrink(p, 3.0) * w).sum()
                + (F.softshrink(p, 3.0) * w).sum() * 23 + (F.leaky_relu(p, 0.1) * w).sum()
                + F.elu(p).sum())


def _activation_kinks():
    return _ActivationKinks(), (torch.zeros(2),)


class _ConvPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, 8, kernel_size=4, stride=4)
        self.depthwise = nn.Conv1d(8, 8, kernel_size=3, padding=2, dilation=2, groups=8)
        self.mix = nn.Conv1d(8, 6, kernel_size=2, stride=1, bias=False)
        self.pool2 = nn.MaxPool2d(3, stride=2, padding=1)
        self.avg2 = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)

    def forward(self, images):
        p = self.patch(images)                    # [2, 8, 3, 4]
        tokens = p.flatten(2)                     # [2, 8, 12]
        d = self.depthwise(tokens)
        m = self.mix(F.relu(d[0]))                # unbatched [8, 12] -> [6, 11]
        pooled = self.pool2(F.relu(p - 0.2))
        averaged = self.avg2(p) + F.avg_pool1d(tokens, 2)[..., :2, None]
        return (d.pow(2).mean() + m.sin().sum() + (pooled * pooled.flip(-1)).sum()
                + averaged.pow(2).sum() + F.max_pool1d(tokens, 3, 2).sum())


def _conv_pool():
    torch.manual_seed(0)
    return _ConvPool(), (torch.randn(2, 3, 12, 16, generator=_g(1)),)


class _PoolCeilMode(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 2)
        self.max = nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.avg = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True)

    def forward(self, x):                                   # [2, 3, 8, 7]
        a = self.conv(x)                                    # [2, 4, 7, 6]
        tied = (a * 2).round() / 2 + (a - a.detach())      # ties with a's gradient
        t = a.mean(3)[..., :6]                              # [2, 4, 6]
        v = tied.view(2, 2, 2, 7, 6)
        return ((self.max(tied) * torch.linspace(0.5, 1.5, 4)).sum()
                + (F.max_pool2d(tied, 2, ceil_mode=True) * torch.linspace(0.5, 1.5, 3)).sum()
                + (F.max_pool2d(tied, 2, 2, dilation=2, ceil_mode=True).pow(2)).sum()
                + F.max_pool1d(t, 3, 2, ceil_mode=True).pow(2).sum()
                + F.max_pool3d(v, 2, ceil_mode=True).pow(2).sum()
                + _ramp_sum([self.avg(a), F.avg_pool2d(a, 2, ceil_mode=True),
                             F.avg_pool2d(a, 3, 2, padding=1, ceil_mode=True,
                                          count_include_pad=False),
                             F.avg_pool2d(a, (3, 2), 2, padding=1, count_include_pad=False),
                             F.avg_pool1d(t, 3, 2, padding=1, ceil_mode=True),
                             F.avg_pool3d(a.view(2, 2, 2, 7, 6), (2, 3, 2), (2, 2, 1),
                                          padding=(1, 1, 0), ceil_mode=True,
                                          count_include_pad=False),
                             F.avg_pool2d(a, 3, 2, padding=1, ceil_mode=True,
                                          divisor_override=5)]))


def _pool_ceil_mode():
    torch.manual_seed(0)
    return _PoolCeilMode(), (torch.randn(2, 3, 8, 7, generator=_g(1)),)


def _ramp_sum(parts):
    """sum of sin(part) weighted along its last dim (every position's
    gradient differs)."""
    return sum((p.sin() * torch.linspace(0.5, 1.5, p.shape[-1])).sum() for p in parts)


class _PaddingModes(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect")
        self.line = nn.Conv1d(3, 4, 2, padding=1, padding_mode="circular")
        self.reflect1 = nn.ReflectionPad1d((3, 2))
        self.reflect2 = nn.ReflectionPad2d((2, 1, 4, 0))
        self.replicate1 = nn.ReplicationPad1d((1, 4))
        self.replicate2 = nn.ReplicationPad2d((0, 2, 1, 3))
        self.replicate3 = nn.ReplicationPad3d((1, 2, 0, 1, 2, 1))

    def forward(self, x):                                   # [2, 3, 5, 6]
        a = self.conv(x)                                    # [2, 4, 5, 6]
        t = self.line(x.mean(2))                            # [2, 4, 7]
        v = a.view(2, 2, 2, 5, 6)
        return _ramp_sum([self.reflect1(t), self.reflect1(t[0]), self.reflect2(a),
                          self.replicate1(t), self.replicate2(a), self.replicate3(v),
                          F.pad(v, (1, 1, 2, 0, 1, 1), mode="reflect"),
                          F.pad(a, (2, 1, 1, 3), mode="circular"),
                          F.pad(a, (-1, 2, 2, -2), mode="circular"),
                          F.pad(t, (-2, 3), mode="reflect"),
                          F.pad(a, (2, -3, -1, 1), mode="replicate")])


def _padding_modes():
    torch.manual_seed(0)
    return _PaddingModes(), (torch.randn(2, 3, 5, 6, generator=_g(1)),)


class _Upsampling(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.nearest = nn.Upsample(scale_factor=2)
        self.bilinear = nn.Upsample(scale_factor=1.7, mode="bilinear")

    def forward(self, x):                                   # [2, 3, 9, 7]
        a = self.conv(x)                                    # [2, 4, 7, 5]
        t = a.mean(3)                                       # [2, 4, 7]
        v = a.view(2, 2, 2, 7, 5)
        up = F.interpolate
        return _ramp_sum([
            self.nearest(a), up(a, size=(16, 3)), up(a, scale_factor=(1.1, 2.2)),
            up(v, size=(3, 8, 4)), up(t, size=16, mode="nearest-exact"),
            up(a, scale_factor=1.7, mode="nearest-exact"),
            up(v, scale_factor=(1.5, 0.6, 2.0), mode="nearest-exact"),
            up(t, size=16, mode="linear"), up(t, size=3, mode="linear", align_corners=True),
            up(t, scale_factor=0.6, mode="linear"), self.bilinear(a),
            up(a, size=(16, 3), mode="bilinear", align_corners=True),
            up(a, size=(7, 9), mode="bilinear"), nn.UpsamplingBilinear2d(size=(5, 8))(a),
            up(v, scale_factor=(1.5, 0.6, 1.7), mode="trilinear"),
            up(v, size=(3, 4, 8), mode="trilinear", align_corners=True),
            up(a, size=(16, 3), mode="bicubic"),
            up(a, scale_factor=1.7, mode="bicubic", align_corners=True),
            # Sizes kept by a scale factor: torch's bicubic backward copies.
            up(a[..., :5, :], scale_factor=1.1, mode="bicubic"),
            # The overloads with one scale per dim (torch 2.x's decompositions).
            torch.ops.aten.upsample_nearest2d.default(a, [7, 10], 1.1, 2.2),
            torch.ops.aten._upsample_nearest_exact1d.default(t, [12], 1.7),
            torch.ops.aten.upsample_bilinear2d.default(a, [11, 8], False, 1.7, 1.7)])


def _upsampling():
    torch.manual_seed(0)
    return _Upsampling(), (torch.randn(2, 3, 9, 7, generator=_g(1)),)


class _AdaptivePool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 2)
        self.avg = nn.AdaptiveAvgPool2d((3, 4))
        self.max = nn.AdaptiveMaxPool2d((3, 4))

    def forward(self, x):                                   # [2, 3, 8, 6]
        a = self.conv(x)                                    # [2, 4, 7, 5]
        # Ties (a rounded to halves) whose gradient is a's, so which
        # element takes it shows in the parameters' gradients.
        tied = (a * 2).round() / 2 + (a - a.detach())
        t = a.mean(3)                                       # [2, 4, 7]
        v = tied.view(2, 2, 2, 7, 5)
        return _ramp_sum([
            self.avg(a), self.max(tied), self.max(tied[0]), F.adaptive_avg_pool1d(t, 3),
            F.adaptive_max_pool1d(F.relu(t), 4), F.adaptive_avg_pool2d(a, (None, 4)),
            F.adaptive_avg_pool2d(a[..., :6, :], (2, 7)), F.adaptive_max_pool2d(tied, (7, 7)),
            F.adaptive_avg_pool3d(a.view(2, 2, 2, 7, 5), (1, 3, 4)),
            F.adaptive_max_pool3d(v, (2, 3, 2)), F.interpolate(a, size=(3, 4), mode="area")])


def _adaptive_pool():
    torch.manual_seed(0)
    return _AdaptivePool(), (torch.randn(2, 3, 8, 6, generator=_g(1)),)


class _PixelShuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1)
        self.shuffle = nn.PixelShuffle(2)
        self.unshuffle = nn.PixelUnshuffle(3)

    def forward(self, x):                                   # [2, 3, 3, 5]
        a = self.conv(x)                                    # [2, 12, 3, 5]
        s = self.shuffle(a)                                 # [2, 3, 6, 10]
        return _ramp_sum([s, self.unshuffle(s[..., :9]), F.pixel_shuffle(a[0], 2),
                          F.pixel_unshuffle(s.view(2, 1, 3, 6, 10), 2),
                          F.pixel_shuffle(a.view(2, 1, 12, 3, 5), 2)])


def _pixel_shuffle():
    torch.manual_seed(0)
    return _PixelShuffle(), (torch.randn(2, 3, 3, 5, generator=_g(1)),)


def _selections(h):
    r = F.relu(h - 0.3)
    top = torch.topk(r, 3, dim=1)
    low = torch.topk(h, 2, dim=0, largest=False)
    srt = torch.sort(h * torch.tensor([1.0, -1.0, 1.0, 0.0]).view(4, 1), dim=0, descending=True)
    mx, mi = r.max(dim=1)
    nn_, ni = h.min(dim=0, keepdim=True)
    weights = torch.arange(1.0, 9.0)
    return ((top.values * torch.tensor([3.0, 2.0, 1.0])).sum() + (top.indices * r[:, :3]).sum()
            + low.values.pow(2).sum() + (srt.values * weights).sum() + (srt.indices * h).sum()
            + (mx * mi).sum() + mx.pow(2).sum() + (nn_ * ni).sum() + r.max(0)[0].sum())


class _MoE(nn.Module):
    def __init__(self, width=6, experts=4):
        super().__init__()
        self.router = nn.Linear(width, experts)
        self.experts = nn.ModuleList([nn.Linear(width, width) for _ in range(experts)])

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        weights, chosen = probs.topk(2, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        masks = F.one_hot(chosen, len(self.experts)).sum(1)          # [tokens, experts]
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            gate = (weights * (chosen == e)).sum(-1, keepdim=True)
            out = out.index_add(0, torch.arange(x.shape[0]), expert(x) * gate)
        balance = (masks.float().mean(0) * probs.mean(0)).sum() * len(self.experts)
        return out.pow(2).mean() + 0.01 * balance


def _moe_routing():
    torch.manual_seed(0)
    return _MoE(), (torch.randn(10, 6, generator=_g(1)),)


def _scatters(h, ids):
    rows = torch.tensor([2, 0, 2, 1])
    added = torch.zeros(3, 6, 8).scatter_add(1, ids.view(2, 1, 8).expand(2, 2, 8) + 1,
                                             h.view(2, 2, 8))
    placed = torch.ones(4, 8).scatter(1, torch.tensor([[1, 0, 3, 2, 5, 4, 7, 6]] * 4), h)
    filled = h.scatter(1, ids[:, :4].remainder(8).repeat(2, 1)[:, :1], -0.5)
    summed = torch.zeros(3, 8).index_add(0, rows, h * h, alpha=0.5)
    assigned = torch.zeros(5, 8)
    assigned[torch.tensor([4, 0, -2])] = h[:3] * 2.0
    assigned[ids[0, :2]] += h[1:3]
    assigned[ids[1, 4:6] - 5] = h[2:4] * 0.5      # traced -3 and -1: rows 2 and 4
    return (added.pow(2).sum() + (placed * placed.flip(1)).sum() + filled.pow(3).sum()
            + (summed * torch.arange(24.0).view(3, 8)).sum() + assigned.sin().sum())


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


def _more_elementwise():
    torch.manual_seed(0)
    positions = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0],
                              [9, 11, -1, -5, 2, 8, 3, 1], [4, 4, 4, 4, 0, 0, 0, 0]])
    return _MoreElementwise(), (torch.randn(4, 6, generator=_g(1)), positions)


class _NoGradWrites(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)

    def forward(self, x):
        h = self.fc(x)  # [2, 3, 8]: a view of the GEMM's [6, 8]
        g = h * 1.5
        with torch.no_grad():
            h.clamp_(-0.4, 0.6)
            h.mul_(2.0)
            g[:, 0].clamp_(max=0.1)
            peak = g.abs().amax()
        sim = F.cosine_similarity(h[..., :4], g[..., 4:], dim=-1)
        return (1.0 - sim).sum() + (h * h).sum() + (g.pow(2) * peak).sum()


def _no_grad_writes():
    torch.manual_seed(0)
    return _NoGradWrites(), (torch.randn(2, 3, 6, generator=_g(1)),)


def _detached(h):
    with torch.no_grad():
        scale = h.abs().mean(0)
        above = h > scale
    with torch.inference_mode():
        shift = (h * 0.0 + 1.0).sum()
    target = (h * 0.5 + 1.0).detach()
    return (F.mse_loss(h, target) + (h * scale).sum() + (h * above).mean()
            + (h * h.detach()).sum() * 0.1 + shift * 0.01)


# RMSNorm without weight and with x / sqrt(...); cross_entropy for the
# unweighted mean/sum nll_loss of a log_softmax (ignore_index, and the nll
# part of label smoothing), not for the weighted, per-row or 2-d ones.
PATTERNS = {"norms": {"rms_norm": 2}, "nll-variants": {"cross_entropy": 2}, "erf": {"gelu": 1}}


def _slice_assign(h):
    z = h.clone()
    z[:, 0] = 0.0
    z[1:3, 2:5] = h[1:3, 2:5] * 2
    z += 1
    return (z * h).sum()


class _Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 12)
        self.ln = nn.LayerNorm(12)
        self.ln2 = nn.LayerNorm((3, 4), elementwise_affine=False)
        self.w = nn.Parameter(torch.randn(12))

    def forward(self, x):
        h = self.fc(x)
        a = self.ln(h)
        b = self.ln2(h.view(-1, 3, 4)).view(-1, 12)
        r = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-5)   # RMSNorm, no weight
        s = self.w * (h / torch.sqrt((h * h).mean(-1, keepdim=True) + 1e-6))
        return (a * b + r + s.tanh()).sum()


def _norms():
    torch.manual_seed(0)
    return _Norms(), (torch.randn(5, 6, generator=_g(1)),)


class _BatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.bn = nn.BatchNorm1d(8)
        self.conv_like = nn.BatchNorm2d(2)

    def forward(self, x):
        h = self.bn(self.fc(x))
        g = self.conv_like(self.fc(x).view(-1, 2, 2, 2))
        return (h.pow(2).sum() + g.tanh().sum())


def _batch_norm(train):
    torch.manual_seed(0)
    model = _BatchNorm()
    with torch.no_grad():
        for bn in (model.bn, model.conv_like):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 1.5)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.5, 0.5)
    model.train(train)
    return model, (torch.randn(5, 6, generator=_g(1)),)


class _Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)
        self.fc = nn.Linear(4, 3)

    def forward(self, ids):
        return self.fc(self.emb(ids)).pow(2).mean()


def _embedding_padding():
    torch.manual_seed(0)
    return _Embedding(), (torch.tensor([[0, 3, 9], [2, 0, 0]]),)


class _Matmuls(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.randn(2, 3, 4))
        self.b = nn.Parameter(torch.randn(4, 5))
        self.v = nn.Parameter(torch.randn(4))
        self.c = nn.Parameter(torch.randn(2, 3, 5))

    def forward(self, x):
        y = self.a @ self.b                               # broadcast batch matmul
        z = torch.baddbmm(self.c, self.a, self.b.expand(2, 4, 5), beta=0.5, alpha=2.0)
        w = torch.einsum("bij,jk->bik", self.a, self.b)
        u = self.a @ self.v                               # matrix @ vector
        d = torch.dot(self.v, self.v)
        o = torch.outer(self.v, self.v)
        return (y * z).sum() + w.sum() + u.sum() + d + o.sum() + (x @ self.b).sum()


def _matmuls():
    torch.manual_seed(0)
    return _Matmuls(), (torch.randn(3, 4, generator=_g(1)),)


class _Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 7, num_layers=2, bidirectional=True, batch_first=True)
        self.lstm_proj = nn.LSTM(5, 4, num_layers=2, proj_size=3, bias=False)
        self.gru = nn.GRU(5, 3, num_layers=2, bidirectional=True, bias=False)
        self.gru_first = nn.GRU(5, 3, num_layers=2, batch_first=True)
        self.rnn = nn.RNN(5, 4, num_layers=2, bidirectional=True, batch_first=True)
        self.rnn_relu = nn.RNN(5, 3, num_layers=2, nonlinearity="relu", bias=False)

    def forward(self, x, h0):
        seq = x.transpose(0, 1)  # [T, B, C] for the modules that are not batch-first
        a, (h, c) = self.lstm(x)
        p, (hp, cp) = self.lstm_proj(seq)
        g, hg = self.gru(seq, h0)
        f, hf = self.gru_first(x)
        r, hr = self.rnn(x)
        q, hq = self.rnn_relu(seq)
        weights = torch.linspace(-1.0, 1.0, 14)
        return ((a * weights).sum() + (h * c).sum() + p.pow(2).sum() + hp.sum() + cp.sum()
                + (g * g.flip(0)).sum() + hg.pow(2).sum() + f.sum() + hf.sum()
                + r.pow(2).sum() + hr.sum() + q.sum() + hq.pow(2).sum())


def _recurrent():
    torch.manual_seed(0)
    return _Recurrent(), (torch.randn(3, 5, 5, generator=_g(1)),
                          torch.randn(4, 3, 3, generator=_g(2)))


class _MoreReductions(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        nan = float("nan")
        # Ties, zeros, negative values and NaN in exact places.
        self.p = nn.Parameter(torch.tensor([[1.0, 3.0, 3.0, 2.0, 3.0, -1.0, 0.0, 0.0],
                                            [0.0, -2.0, 0.5, 0.0, -3.0, 4.0, -0.5, 2.0],
                                            [-1.0, -1.0, 2.0, -1.0, 5.0, 5.0, -2.0, 1.5]]))
        self.register_buffer("holes", torch.tensor([[False] * 8, [False, False, True, False,
                                                                  False, True, False, False],
                                                    [True] + [False] * 7]))
        self.nan = nan

    def forward(self, x):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(-1.0, 2.0, 8)
        holey = h.masked_fill(h > 0.6, self.nan)
        loss = torch.nansum(holey) + (torch.nansum(holey, 1) * w[:4]).sum()
        loss = loss + (torch.nanmean(holey, 0) * w).sum() + torch.nanmean(holey)
        low, high = torch.aminmax(h.detach(), dim=1)
        lo_all, hi_all = torch.aminmax(h.detach())
        loss = loss + (h * low[:, None]).sum() + (h.t() * high).sum() + h.sum() * (hi_all - lo_all)
        loss = loss + (torch.cumprod(h, 1) * w).sum() + torch.cumprod(h, 0).pow(2).sum()
        loss = loss + (torch.cumprod(self.p, 1) * w).sum() + torch.cumprod(self.p, 0).sum()
        p = self.p.masked_fill(self.holes, self.nan)
        values, indices = torch.cummax(p, 1)
        least, where = torch.cummin(p, 1)
        loss = loss + (torch.nan_to_num(values) * w).sum() + (torch.nan_to_num(least) * w).pow(2).sum()
        loss = loss + (h[:3] * (indices + 2 * where)).sum()
        loss = loss + (torch.cummax(h, 0).values * w).sum() + torch.cummin(h, 1)[0].sum()
        gaps = torch.cat([h[:, :3], torch.full((4, 1), float("-inf")), h[:, 3:]], 1)
        loss = loss + (torch.logcumsumexp(gaps, 1) * torch.linspace(-1.0, 2.0, 9)).sum()
        loss = loss + (torch.logcumsumexp(self.p, 1) * w).sum() + torch.logcumsumexp(h, 0).sum()
        return loss


def _more_reductions():
    torch.manual_seed(0)
    return _MoreReductions(), (torch.randn(4, 6, generator=_g(1)),)


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


def _bucketize(h):
    q = (h * 4.0).round() / 4.0                 # multiples of 1/4: ties with the boundaries
    q = q.masked_fill(h > 1.2, float("nan"))
    bounds = torch.tensor([-0.5, -0.25, 0.0, 0.0, 0.25, 0.5])
    left = torch.bucketize(q, bounds)
    right = torch.bucketize(q, bounds, right=True, out_int32=True)
    rows = torch.tensor([[-1.0, 0.0, 0.25, 1.0], [-0.5, -0.5, 0.0, 0.5],
                         [0.0, 0.25, 0.25, 0.75], [-0.25, 0.0, 0.5, 2.0]])
    placed = torch.searchsorted(rows, q, side="right")
    shuffled = torch.tensor([0.25, -0.5, 0.5, 0.0, -0.25])
    sorted_by = torch.searchsorted(shuffled, q.contiguous(), sorter=torch.tensor([1, 4, 3, 0, 2]))
    return ((left * h).sum() + (right * h.pow(2)).sum() + (placed * h).sum()
            + (sorted_by * h * torch.linspace(-1.0, 1.0, 8)).sum())


class _MoreLosses(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        # Margins exactly 0 against target [1, 0]; differences tied in size.
        self.s = nn.Parameter(torch.tensor([[0.0, 1.0, 0.0, 0.3], [2.0, 2.0, 1.0, 1.0]]))

    def forward(self, x, labels):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(0.5, 2.0, 8)
        loss = F.multi_margin_loss(h, labels) + F.multi_margin_loss(h, labels, p=2, margin=0.7)
        loss = loss + F.multi_margin_loss(h, labels, weight=w, reduction="sum")
        loss = loss + (F.multi_margin_loss(h, labels, p=2, weight=w, reduction="none") * w[:4]).sum()
        loss = loss + F.multi_margin_loss(h[0], labels[:1]) + F.multi_margin_loss(self.s, labels[:2])
        loss = loss + F.multi_margin_loss(self.s, labels[:2], p=2, reduction="sum")
        points = torch.tensor([[1.0, 0.0, 0.0, 0.3], [0.0, 1.0, 0.0, 0.3], [2.0, 1.0, 2.0, 1.0]])
        scale = torch.linspace(-1.0, 1.0, 12).view(4, 3)
        for p in (2.0, 1.0, 3.0, 0.5, 0.0, float("inf")):
            loss = loss + (torch.cdist(h[:, :4], points, p=p) * scale).sum()
            loss = loss + torch.cdist(h, h, p=p).sum() + (torch.cdist(self.s, points, p=p) * min(p, 4.0)).sum()
            loss = loss + torch.cdist(self.s, self.s.flip(0), p=p).pow(2).sum()
        grouped = h.view(2, 2, 8)
        return loss + torch.cdist(grouped, grouped.flip(1) * 0.5).sum()


def _more_losses():
    torch.manual_seed(0)
    return _MoreLosses(), (torch.randn(4, 6, generator=_g(1)), torch.tensor([1, 0, 7, 3]))


class _WeightNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.utils.weight_norm(nn.Linear(6, 5))
        self.fc_last = nn.utils.weight_norm(nn.Linear(6, 5), dim=1)
        self.fc_all = nn.utils.weight_norm(nn.Linear(6, 5), dim=None)
        self.conv = nn.utils.weight_norm(nn.Conv1d(3, 4, 3))
        self.conv_mid = nn.utils.weight_norm(nn.Conv1d(3, 4, 3, bias=False), dim=1)

    def forward(self, x, y):
        h = self.fc(x) * self.fc_last(x) + self.fc_all(x).pow(2)
        c = self.conv(y) + self.conv_mid(y).tanh()
        return (h * torch.linspace(-1.0, 1.0, 5)).sum() + c.pow(2).mean()


def _weight_norm():
    torch.manual_seed(0)
    return _WeightNorm(), (torch.randn(4, 6, generator=_g(1)), torch.randn(2, 3, 7, generator=_g(2)))


class _GaussianNll(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.var = nn.Parameter(torch.tensor([0.0, 1e-8, 0.5, 2.0]))  # two below eps
        self.loss = nn.GaussianNLLLoss(full=True)

    def forward(self, x, y):
        h = self.fc(x)                                            # [4, 8]
        loss = F.gaussian_nll_loss(h, y, h.exp()) + self.loss(h, y, self.var)
        loss = loss + F.gaussian_nll_loss(h, y, self.var[:, None] + h[:, :1].pow(2), reduction="sum")
        per_row = F.gaussian_nll_loss(h, y, (h * 0.5).pow(2).mean(1), eps=1e-3, reduction="none")
        return loss + (per_row * torch.linspace(-1.0, 1.0, 8)).sum()


def _gaussian_nll():
    torch.manual_seed(0)
    return _GaussianNll(), (torch.randn(4, 6, generator=_g(1)), torch.randn(4, 8, generator=_g(2)))
