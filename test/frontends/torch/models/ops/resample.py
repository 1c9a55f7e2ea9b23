"""Cases for tfc_torch/ops/resample.py's lowerings: reflection, replication
(and circular) padding, interpolation in every mode (antialiased too),
adaptive average and max pooling, and pixel (un)shuffle."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _g, _ramp_sum

CASES = {
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
    # nearest with scale factors (1.1, 2.1) that keep or double a size: torch
    # 1.13's channels-last kernel (a channels-last input, or a contiguous
    # one with one channel, 2-d and 3-d) reads rows i and i // 2 there, its
    # other kernel (more channels, 1-d) floor(i / 1.1) and floor(i / 2.1).
    "nearest-kernels": lambda: _nearest_kernels(),
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
    # Antialiased bilinear and bicubic interpolation (antialias=True):
    # downsampling by up to 3 (the filter stretched over many rows),
    # upsampling, mixed, align_corners both ways, a scale factor that keeps
    # a size (torch still resamples it), sizes given and the .vec overload.
    "antialias": lambda: _antialias(),
}


class _Antialias(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 2)

    def forward(self, x):                                   # [2, 3, 13, 11]
        a = self.conv(x)                                    # [2, 4, 12, 10]
        parts = []
        for mode in ("bilinear", "bicubic"):
            parts += [F.interpolate(a, size=(4, 3), mode=mode, antialias=True),
                      F.interpolate(a, size=(5, 17), mode=mode, antialias=True),
                      F.interpolate(a, size=(7, 4), mode=mode, antialias=True,
                                    align_corners=True),
                      F.interpolate(a, scale_factor=(0.45, 1.05), mode=mode, antialias=True),
                      F.interpolate(a, scale_factor=0.3, mode=mode, antialias=True,
                                    recompute_scale_factor=True)]
        return _ramp_sum(parts)


def _antialias():
    torch.manual_seed(0)
    return _Antialias(), (torch.randn(2, 3, 13, 11, generator=_g(1)),)


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


class _NearestKernels(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.single = nn.Conv2d(3, 1, 1)
        self.conv3d = nn.Conv3d(1, 1, 1)

    def forward(self, x, x_last):                           # [2, 3, 5, 5], channels-last
        up = F.interpolate
        a, one = self.conv(x), self.single(x)               # [2, 4, 5, 5], [2, 1, 5, 5]
        last = self.conv(x_last)                            # channels-last
        v = self.conv3d(one.view(2, 1, 1, 5, 5).expand(2, 1, 4, 5, 5))
        return _ramp_sum([
            up(one, scale_factor=1.1), up(one, scale_factor=(2.1, 1.1)),
            up(last, scale_factor=(1.1, 2.1)), up(a, scale_factor=(1.1, 2.1)),
            up(v, scale_factor=(1.1, 2.1, 1.3)), up(one[:, 0], scale_factor=1.1),
            up(torch.cat([v, v], 1), scale_factor=(1.1, 2.1, 1.1))])


def _nearest_kernels():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 5, generator=_g(1))
    return _NearestKernels(), (x, x.contiguous(memory_format=torch.channels_last))


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
