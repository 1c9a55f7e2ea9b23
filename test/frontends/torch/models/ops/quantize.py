"""Cases for tfc_torch/ops/quantize.py's lowerings: fake quantization per
tensor and per channel (values on rounding ties and outside the range, so
rounding to even and the gradient mask matter), the learnable (LSQ) forms
with their scale and zero-point gradients, and a prepare_qat'ed conv +
linear model with the default fbgemm QAT qconfig (fused moving-average
observers)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _g


def _ties(n, scale, shift=0.0):
    """n values k * scale + scale / 2 (+ shift): each exactly on a rounding
    tie of x / scale, from well below the quantized range to above it."""
    return (torch.arange(n, dtype=torch.float32) - n // 2) * scale + scale / 2 + shift


class _FakeQuant(nn.Module):
    """fake_quantize_per_tensor_affine with Python and with tensor qparams
    (buffers), fake_quantize_per_channel_affine with an integer and a float
    zero point, each on x * 3 (the mask: values beyond the range get no
    gradient) and on ties (the rounded values weight the loss)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.register_buffer("scale", torch.tensor([0.25]))
        self.register_buffer("zero_point", torch.tensor([3], dtype=torch.int32))
        self.register_buffer("ch_scale", torch.tensor([0.125, 0.25, 0.5, 0.0625]))
        self.register_buffer("ch_zero", torch.tensor([0, -3, 5, 7], dtype=torch.int32))
        self.register_buffer("ch_zero_f", torch.tensor([0.5, -2.25, 4.0, 1.75]))

    def forward(self, x):
        h = self.fc(x)  # [4, 8]
        w = torch.linspace(0.5, 1.5, 8)
        ties = _ties(32, 0.25).reshape(4, 8) + h * 0  # traced, not folded
        parts = [
            torch.fake_quantize_per_tensor_affine(h * 3, 0.25, 3, 0, 15),
            torch.fake_quantize_per_tensor_affine(h * 3, self.scale, self.zero_point, -8, 7),
            torch.fake_quantize_per_channel_affine(h.t() * 3, self.ch_scale, self.ch_zero, 1,
                                                   -8, 7).t(),
            torch.fake_quantize_per_channel_affine(h * 3, self.ch_scale, self.ch_zero_f, 0,
                                                   -8, 7),
        ]
        loss = sum((p * w).sum() for p in parts)
        tied = [
            torch.fake_quantize_per_tensor_affine(ties, 0.25, 3, 0, 15),
            torch.fake_quantize_per_tensor_affine(ties, self.scale, self.zero_point, -8, 7),
            torch.fake_quantize_per_channel_affine(ties, self.ch_scale, self.ch_zero, 0, -8, 7),
            torch.fake_quantize_per_channel_affine(ties + 0.0625, self.ch_scale, self.ch_zero_f,
                                                   0, -8, 7),
        ]
        return loss + sum((t * h).sum() for t in tied)


class _Learnable(nn.Module):
    """_fake_quantize_learnable_per_tensor_affine and _per_channel_affine
    (LSQ): scale and zero point are parameters; zero points on .5 (the
    forward rounds to even, the per-tensor backward up), values inside and
    outside the range, grad_factor."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.scale = nn.Parameter(torch.tensor([0.2]))
        self.zero_point = nn.Parameter(torch.tensor([2.5]))
        self.ch_scale = nn.Parameter(torch.tensor([0.1, 0.3, 0.05, 0.2]))
        self.ch_zero = nn.Parameter(torch.tensor([0.5, -1.5, 3.2, -0.4]))
        self.scale2 = nn.Parameter(torch.tensor([0.5]))
        self.zero2 = nn.Parameter(torch.tensor([-1.7]))

    def forward(self, x):
        h = self.fc(x)  # [4, 8]
        w = torch.linspace(0.5, 1.5, 8)
        a = torch._fake_quantize_learnable_per_tensor_affine(h * 2, self.scale, self.zero_point,
                                                             0, 15, 1.0)
        b = torch._fake_quantize_learnable_per_tensor_affine(h, self.scale2, self.zero2,
                                                             -8, 7, 0.5)
        c = torch._fake_quantize_learnable_per_channel_affine(h * 2, self.ch_scale, self.ch_zero,
                                                              0, -8, 7, 1.0)
        d = torch._fake_quantize_learnable_per_channel_affine(
            h.t().reshape(2, 4, 4).transpose(0, 1), self.ch_scale, self.ch_zero, 0, -4, 3, 0.25)
        return ((a + b + c) * w).sum() + (d.sin() * torch.linspace(0.5, 1.5, 4)).sum()


class _QatNet(nn.Module):
    """Conv + ReLU + linear between QuantStub / DeQuantStub."""

    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(4 * 4 * 4, 5)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x, y):
        h = self.relu(self.conv(self.quant(x)))
        return F.cross_entropy(self.dequant(self.fc(h.flatten(1))), y)


def make_qat_net(seed=0, backend="fbgemm"):
    """A prepare_qat'ed _QatNet (default QAT qconfig of `backend`: fused
    moving-average observers; fbgemm: per-channel symmetric weights,
    reduce_range activations; qnnpack: per-tensor symmetric weights) after
    one forward, so the per-channel observers' buffers have their [C]
    shapes, and its example batch, whose activations reach beyond the
    ranges observed (so the gradient mask matters)."""
    import warnings
    torch.manual_seed(seed)
    model = _QatNet().train()
    model.qconfig = torch.ao.quantization.get_default_qat_qconfig(backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reduce_range's deprecation
        torch.ao.quantization.prepare_qat(model, inplace=True)
    x = torch.randn(4, 3, 6, 6, generator=_g(1))
    y = torch.randint(0, 5, (4,), generator=_g(2))
    model(torch.randn(4, 3, 6, 6, generator=_g(3)) * 0.5, y)
    return model, (x, y)


def _qat_frozen():
    """The qnnpack QAT net late in training: observers off (the qparams
    stay, the running min / max too), and the output's fake quantization
    off (its input passes through with its whole gradient)."""
    model, batch = make_qat_net(backend="qnnpack")
    model.apply(torch.ao.quantization.disable_observer)
    model.fc.activation_post_process.apply(torch.ao.quantization.disable_fake_quant)
    return model, batch


class _ObserverEdges(nn.Module):
    """torch.fused_moving_avg_obs_fake_quant on batches built to reach each
    branch of ATen's ChooseQuantizationParams: a range of zeros (scale
    0.1), tiny ranges above, below and around zero (the scale raised to
    6.1e-5 and the range widened), an all-positive and a straddling range
    affine and symmetric (per tensor and per channel), ranges whose zero
    point needs the unrounded scale, a second observation moving the range; the loss reads the updated scales, zero
    points and running ranges (so a wrong branch shows) besides the
    fake-quantized values."""

    SPECS = [  # (values, quant_min, quant_max, symmetric)
        ([0.0, 0.0, 0.0, 0.0], 0, 255, False),
        ([1e-7, 2e-7, 3e-7, 2.5e-7], 0, 255, False),
        ([-3e-7, -1e-7, -2e-7, -1.5e-7], 0, 127, False),
        ([-1e-7, 2e-7, 0.5e-7, 1e-7], -128, 127, True),
        ([0.3, 1.7, 0.9, 1.1], 0, 255, False),
        ([0.3, 1.7, 0.9, 1.1], -128, 127, True),
        ([-0.61, 2.3, 0.05, -0.2], 0, 127, False),
        ([-0.61, 2.3, 0.05, -0.2], -128, 127, True),
        # Ranges whose zero point ATen takes from the unrounded (double)
        # scale: 128, where the f32 scale gives 127.
        ([-1.0, 1.0, 0.25, -0.5], 0, 255, False),
        ([-0.5, 0.5, 0.1, 0.2], 0, 255, False),
    ]

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.register_buffer("on", torch.tensor([1]))
        for i in range(len(self.SPECS)):
            self.register_buffer(f"min{i}", torch.tensor(float("inf")))
            self.register_buffer(f"max{i}", torch.tensor(float("-inf")))
            self.register_buffer(f"scale{i}", torch.tensor([1.0]))
            self.register_buffer(f"zp{i}", torch.tensor([0], dtype=torch.int32))
        self.register_buffer("ch_min", torch.tensor([float("inf")] * 3))
        self.register_buffer("ch_max", torch.tensor([float("-inf")] * 3))
        self.register_buffer("ch_scale", torch.ones(3))
        self.register_buffer("ch_zp", torch.zeros(3, dtype=torch.int32))

    def forward(self, x):
        h = self.fc(x)  # [4, 4]
        loss = 0
        for i, (values, qmin, qmax, symmetric) in enumerate(self.SPECS):
            v = torch.tensor(values) + h[0] * 0  # traced, not folded
            out = torch.fused_moving_avg_obs_fake_quant(
                v, self.on, self.on, getattr(self, f"min{i}"), getattr(self, f"max{i}"),
                getattr(self, f"scale{i}"), getattr(self, f"zp{i}"), 0.25, qmin, qmax, -1,
                False, symmetric)
            loss = loss + (out * h[1]).sum() + getattr(self, f"scale{i}").log().sum() \
                + getattr(self, f"zp{i}").float().sum() * 0.1 \
                + (getattr(self, f"min{i}") + getattr(self, f"max{i}")) * 10
        rows = torch.tensor([[0.0, 0.0, 0.0, 0.0], [1e-6, 3e-6, 2e-6, 0.0],
                             [-0.5, 1.5, 0.25, 0.75]]) + h[:3] * 0
        for scale in (1.0, 1.6):  # a second observation moves the ranges
            out = torch.fused_moving_avg_obs_fake_quant(
                rows * scale + h[:3] * 0.01, self.on, self.on, self.ch_min, self.ch_max,
                self.ch_scale, self.ch_zp, 0.25, -128, 127, 0, True, True)
            loss = loss + (out * h[:3]).sum()
        return loss + self.ch_scale.log().sum() + self.ch_zp.float().sum() * 0.1 \
            + (self.ch_min + self.ch_max).sum() * 10


def _module(cls):
    def make():
        torch.manual_seed(0)
        return cls(), (torch.randn(4, 6, generator=_g(1)),)
    return make


CASES = {
    "fake-quant": _module(_FakeQuant),
    "fake-quant-learnable": _module(_Learnable),
    "fused-observer-qparams": _module(_ObserverEdges),
    "qat-conv-linear": make_qat_net,
    "qat-qnnpack": lambda: make_qat_net(backend="qnnpack"),
    "qat-frozen-observers": _qat_frozen,
}
