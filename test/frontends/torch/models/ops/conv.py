"""Cases for tfc_torch/ops/conv.py's lowerings: convolutions, transposed
convolutions and max / average pooling as window gathers (strides,
padding, output_padding, dilation, groups, unbatched inputs, ceil_mode and
torch's divisors), F.unfold and F.fold, max pooling's indices and
F.max_unpool*d."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _g, _ramp_sum

CASES = {
    # Pooling with ceil_mode, whose last window overhangs the padded input
    # (max: ties whose gradient goes to the first largest element; average:
    # torch's divisors, count_include_pad both ways, divisor_override), and
    # average pooling whose divisors differ per dim.
    "pool-ceil-mode": lambda: _pool_ceil_mode(),
    # Convolutions and pooling as window gathers (ops/conv.py): a ViT patch
    # embedding (kernel = stride), a padded, dilated, depthwise (groups)
    # conv1d, an unbatched one; max pooling with overlapping windows,
    # padding and ties (relu's zeros), average pooling with and without
    # the padding counted.
    "conv-pool": lambda: _conv_pool(),
    # Transposed convolutions, 1-3 dims: stride 2-3 with output_padding,
    # padding beyond dilation * (k - 1) (the dilated input cropped), groups
    # 2 with dilation 2, no bias, an unbatched input.
    "conv-transpose": lambda: _conv_transpose(),
    # F.unfold / F.fold (nn.Unfold, nn.Fold): kernels, dilation, padding
    # and strides, overlapping windows summed back, an unbatched fold.
    "unfold-fold": lambda: _unfold_fold(),
    # Max pooling's indices (return_indices=True), 1-3 dims, and
    # F.max_unpool*d writing the pooled values back at them: overlapping
    # windows (one element the max of several: the last write wins, its
    # gradient gathered by each), padding, ceil_mode, dilation, ties
    # (rounded values), an all -inf window (torch names its first element
    # inside the input), windows holding NaN (torch names the last), an
    # unbatched input; adaptive max pooling's indices. The indices enter the
    # loss, so a wrong one changes it.
    "max-unpool": lambda: _max_unpool(),
}


class _MaxUnpool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 2)

    def forward(self, x):                                   # [2, 2, 8, 7]
        a = self.conv(x)                                    # [2, 3, 7, 6]
        tied = (a * 2).round() / 2 + (a - a.detach())
        ramp = torch.linspace(0.5, 1.5, 6)
        total = 0.0
        indices = []
        p, i = F.max_pool2d(tied, 3, 2, padding=1, return_indices=True)
        total = total + (F.max_unpool2d(p, i, 3, 2, 1, output_size=(7, 6)) * ramp).sin().sum()
        indices.append(i)
        p, i = F.max_pool2d(a, (2, 3), (2, 1), dilation=(1, 2), ceil_mode=True,
                            return_indices=True)
        total = total + (p * torch.linspace(0.5, 1.5, 2)).sum()
        indices.append(i)
        t = a.flatten(2)                                    # [2, 3, 42]
        p, i = F.max_pool1d(t, 4, 3, padding=2, return_indices=True)
        total = total + F.max_unpool1d(p, i, 4, 3, 2, output_size=(42,)).pow(2).exp().sum()
        indices.append(i)
        v = a[:, :, :6].reshape(2, 3, 3, 2, 6)
        p, i = F.max_pool3d(v, 2, return_indices=True)
        total = total + (F.max_unpool3d(p, i, 2, output_size=(3, 2, 6)) * ramp).cos().sum()
        indices.append(i)
        p, i = F.max_pool2d(a[0], 2, return_indices=True)   # unbatched [3, 7, 6]
        total = total + (F.max_unpool2d(p, i, 2) * ramp).sum()
        indices.append(i)
        # The left columns -inf: windows wholly in the padding and -inf.
        masked = a.masked_fill(torch.arange(6) < 2, float("-inf"))
        p, i = F.max_pool2d(masked, 3, 2, padding=1, return_indices=True)
        total = total + p[..., 1:].sum()
        indices.append(i)
        # NaN in some windows (sqrt of negatives): torch names the last.
        p, i = F.max_pool2d(a.sqrt(), 2, 2, padding=1, return_indices=True)
        indices.append(i)
        # Adaptive max pooling's indices (ops/resample.py): overlapping and
        # unequal windows, ties, 1-3 dims, unbatched.
        for p, i in (F.adaptive_max_pool2d(tied, (3, 4), return_indices=True),
                     F.adaptive_max_pool1d(t, 5, return_indices=True),
                     F.adaptive_max_pool3d(v, (2, 1, 4), return_indices=True),
                     F.adaptive_max_pool2d(tied[1], (5, 5), return_indices=True)):
            total = total + (p * torch.linspace(0.5, 1.5, p.shape[-1])).sum()
            indices.append(i)
        for i in indices:   # bounded terms, each changed by a wrong index
            spread = torch.arange(float(i.numel())).view(i.shape)
            total = total + (i.float() * 0.37 + spread).sin().sum()
        return total


def _max_unpool():
    torch.manual_seed(0)
    return _MaxUnpool(), (torch.randn(2, 2, 8, 7, generator=_g(1)),)


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


class _ConvTranspose(nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = nn.ConvTranspose1d(6, 4, 3, stride=2, padding=1, output_padding=1)
        self.crop1 = nn.ConvTranspose1d(4, 3, 3, stride=3, padding=3, bias=False)
        self.up2 = nn.ConvTranspose2d(4, 6, (3, 2), stride=(3, 2), padding=(2, 0),
                                      output_padding=(1, 1), groups=2, dilation=(2, 1))
        self.up3 = nn.ConvTranspose3d(2, 3, (2, 3, 1), stride=(2, 1, 3), padding=(0, 1, 0),
                                      output_padding=(1, 0, 2))

    def forward(self, x):                                   # [2, 6, 7]
        a = self.up1(x)                                     # [2, 4, 14]
        b = self.crop1(a[0])                                # unbatched [3, 36]
        c = self.up2(a.view(2, 4, 2, 7))                    # [2, 6, 5, 15]
        d = self.up3(x.reshape(2, 2, 3, 7, 1))              # [2, 3, 7, 7, 3]
        return _ramp_sum([a, b, c, d])


def _conv_transpose():
    torch.manual_seed(0)
    return _ConvTranspose(), (torch.randn(2, 6, 7, generator=_g(1)),)


class _UnfoldFold(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 1)
        self.unfold = nn.Unfold((2, 3), dilation=(2, 1), padding=(1, 0), stride=(2, 3))
        self.fold = nn.Fold((5, 7), 3, padding=1)

    def forward(self, x):                                   # [2, 2, 5, 7]
        h = self.conv(x)                                    # [2, 3, 5, 7]
        cols = self.unfold(h)                               # [2, 18, 6]
        back = F.fold(cols, (5, 7), (2, 3), dilation=(2, 1), padding=(1, 0), stride=(2, 3))
        dense = F.unfold(h, 3, padding=1)                   # [2, 27, 35]
        summed = self.fold(dense)                           # overlapping windows
        single = F.fold(dense[0] * 0.5, (5, 7), 3, padding=1)
        return _ramp_sum([cols, back, summed, single, F.unfold(h[1], 2, stride=2)])


def _unfold_fold():
    torch.manual_seed(0)
    return _UnfoldFold(), (torch.randn(2, 2, 5, 7, generator=_g(1)),)
