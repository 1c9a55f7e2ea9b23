"""Cases for tfc_torch/ops/conv.py's lowerings: convolutions and max / average
pooling as window gathers (strides, padding, dilation, groups, unbatched
inputs, ceil_mode and torch's divisors)."""
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
}


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
