"""Cases for tfc_torch/ops/complex.py (complex values as pairs of real
tensors, DFTs as matmuls): the model families that use them (FNet token
mixing, Fourier neural operator spectral convolutions in 1-d and 2-d with
complex weights from real parameters, an STFT magnitude loss, Llama's
complex rotary embedding), every FFT entry point over odd and even sizes
and each normalization, the complex arithmetic and identities (polar,
angle, abs, conj, division, exp, sums, casts), in f32 and f64; each loss
and gradient against torch.autograd."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _g


def _weighted(t):
    """A real loss reading every element of real `t` with its own weight."""
    flat = t.reshape(-1)
    w = torch.linspace(0.5, 1.5, flat.numel(), dtype=flat.dtype)
    return (flat * w).sum()


class FNetBlock(nn.Module):
    """FNet's encoder block: token mixing by the real part of a 2-d DFT
    over (sequence, hidden), residual, layer norm, feed-forward."""

    def __init__(self, width, dtype=torch.float32):
        super().__init__()
        self.inp = nn.Linear(width, width, dtype=dtype)
        self.ln1 = nn.LayerNorm(width, dtype=dtype)
        self.ff = nn.Linear(width, width, dtype=dtype)
        self.ln2 = nn.LayerNorm(width, dtype=dtype)
        self.out = nn.Linear(width, 5, dtype=dtype)

    def forward(self, x, labels):
        h = self.inp(x)
        mixed = torch.fft.fft(torch.fft.fft(h, dim=-1), dim=-2).real
        h = self.ln1(h + mixed)
        h = self.ln2(h + F.gelu(self.ff(h)))
        return F.cross_entropy(self.out(h).mean(1), labels)


def _fnet(seq, width, dtype=torch.float32):
    def make():
        torch.manual_seed(0)
        x = torch.randn(2, seq, width, generator=_g(1), dtype=dtype)
        return FNetBlock(width, dtype), (x, torch.tensor([1, 3]))
    return make


class SpectralConv1d(nn.Module):
    """An FNO layer: rfft, the lowest `modes` frequencies mixed by complex
    weights (real parameters viewed as complex), irfft back to n points
    (irfft pads the dropped modes with zeros), plus a pointwise linear."""

    def __init__(self, channels, modes, dtype=torch.float32):
        super().__init__()
        scale = 1 / channels
        self.modes = modes
        self.w = nn.Parameter(scale * torch.randn(channels, channels, modes, 2, dtype=dtype))
        self.lift = nn.Linear(1, channels, dtype=dtype)
        self.skip = nn.Conv1d(channels, channels, 1, dtype=dtype)

    def forward(self, x, target):
        h = self.lift(x.unsqueeze(-1)).transpose(1, 2)  # [B, C, N]
        n = h.shape[-1]
        spectrum = torch.fft.rfft(h)
        mixed = torch.einsum("bix,iox->box", spectrum[..., :self.modes],
                             torch.view_as_complex(self.w))
        h = F.gelu(torch.fft.irfft(mixed, n=n) + self.skip(h))
        return F.mse_loss(h.mean(1), target)


def _fno1d(n, modes, dtype=torch.float32):
    def make():
        torch.manual_seed(0)
        x = torch.randn(2, n, generator=_g(1), dtype=dtype)
        return SpectralConv1d(3, modes, dtype), (x, torch.randn(2, n, generator=_g(2),
                                                                dtype=dtype))
    return make


class SpectralConv2d(nn.Module):
    """The 2-d FNO layer: rfft2 (orthonormal), the low modes of both ends
    of the first frequency dim mixed by torch.complex(w_re, w_im) weights,
    concatenated with zeros and irfft2 back to the grid."""

    def __init__(self, channels, modes, dtype=torch.float32):
        super().__init__()
        self.modes = modes
        shape = (channels, channels, modes, modes)
        self.w_re = nn.Parameter(torch.randn(*shape, dtype=dtype) / channels)
        self.w_im = nn.Parameter(torch.randn(*shape, dtype=dtype) / channels)
        self.v_re = nn.Parameter(torch.randn(*shape, dtype=dtype) / channels)
        self.v_im = nn.Parameter(torch.randn(*shape, dtype=dtype) / channels)
        self.lift = nn.Conv2d(1, channels, 1, dtype=dtype)

    def forward(self, x):
        h = self.lift(x.unsqueeze(1))  # [B, C, H, W]
        H, W = h.shape[-2:]
        m = self.modes
        X = torch.fft.rfft2(h, norm="ortho")
        w, v = torch.complex(self.w_re, self.w_im), torch.complex(self.v_re, self.v_im)
        low = torch.einsum("bixy,ioxy->boxy", X[:, :, :m, :m], w)
        high = torch.einsum("bixy,ioxy->boxy", X[:, :, -m:, :m], v)
        middle = torch.zeros(X.shape[0], X.shape[1], H - 2 * m, m, dtype=X.dtype)
        kept = torch.cat([low, middle, high], dim=2)
        out = torch.fft.irfft2(kept, s=(H, W), norm="ortho")
        return _weighted(torch.tanh(out + h))


def _fno2d(h, w, modes, dtype=torch.float32):
    def make():
        torch.manual_seed(0)
        return SpectralConv2d(2, modes, dtype), (torch.randn(2, h, w, generator=_g(1),
                                                             dtype=dtype),)
    return make


class StftLoss(nn.Module):
    """A spectral convergence + log-magnitude STFT loss between a model's
    output signal and a target (a multi-resolution STFT loss's term)."""

    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)

    def forward(self, x, target):
        y = self.fc(x)
        loss = 0
        for n_fft, hop in ((16, 4), (12, 3)):
            window = torch.hann_window(n_fft)
            s = torch.stft(y, n_fft, hop_length=hop, window=window, return_complex=True).abs()
            t = torch.stft(target, n_fft, hop_length=hop, window=window,
                           return_complex=True).abs()
            loss = loss + torch.linalg.norm(t - s) / torch.linalg.norm(t)
            loss = loss + F.l1_loss(torch.log(s + 1e-5), torch.log(t + 1e-5))
        return loss


def _stft():
    torch.manual_seed(0)
    return StftLoss(48), (torch.randn(2, 48, generator=_g(1)),
                          torch.randn(2, 48, generator=_g(2)))


class IstftHead(nn.Module):
    """A vocoder's ISTFT head (Vocos, iSTFTNet): magnitude and phase from a
    linear layer, torch.istft back to a waveform (centered with a Hann
    window; a shorter window padded to n_fft and a `length`; normalized
    with a two-sided spectrum, read as Hermitian), L1 against a target
    (traceable.py's replacement of torch.istft)."""

    def __init__(self, width, n_fft=16, hop=4):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.fc = nn.Linear(width, n_fft + 2)
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, x, target):
        h = self.fc(x).transpose(1, 2)                       # [B, n_fft + 2, T]
        magnitude, phase = h.chunk(2, dim=1)
        spec = torch.exp(magnitude).clip(max=1e2) * torch.exp(1j * phase)
        y = torch.istft(spec, self.n_fft, self.hop, self.n_fft, self.window, center=True)
        short = torch.istft(spec, self.n_fft, self.hop, 12, torch.hann_window(12) + 0.1,
                            length=30)
        full = torch.cat([spec, spec[:, 1:-1].flip(1).conj()], 1)
        normed = full.istft(self.n_fft, self.hop, window=self.window + 0.1, normalized=True,
                            onesided=False, center=False)
        return (F.l1_loss(y, target[:, :y.shape[-1]]) + short.pow(2).mean()
                + (normed * torch.linspace(0.5, 1.5, normed.shape[-1])).sum())


def _istft():
    torch.manual_seed(0)
    return IstftHead(6), (torch.randn(2, 9, 6, generator=_g(1)),
                          torch.randn(2, 64, generator=_g(2)))


class ComplexRotary(nn.Module):
    """Llama's reference rotary embedding (apply_rotary_emb): query and
    key pairs viewed as complex, multiplied by freqs_cis = polar(1, t
    theta_i), viewed back as real and flattened, then attention scores.
    With `buffer`, freqs_cis is precomputed for 16 positions as a complex
    buffer and sliced to the sequence (Llama's Transformer)."""

    def __init__(self, dim=8, heads=2, dtype=torch.float32, buffer=False):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.q = nn.Linear(dim, dim, dtype=dtype)
        self.k = nn.Linear(dim, dim, dtype=dtype)
        self.buffer = buffer
        if buffer:
            self.register_buffer("freqs_cis", self.rotations(16))

    def rotations(self, t):
        freqs = 1.0 / (10000 ** (torch.arange(0, self.hd, 2)[: self.hd // 2].float() / self.hd))
        freqs = torch.outer(torch.arange(t), freqs).float()
        return torch.polar(torch.ones_like(freqs), freqs)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.hd)
        k = self.k(x).view(b, t, self.heads, self.hd)
        freqs_cis = self.freqs_cis[:t] if self.buffer else self.rotations(t)
        qc = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
        kc = torch.view_as_complex(k.float().reshape(*k.shape[:-1], -1, 2))
        freqs_cis = freqs_cis.view(1, t, 1, self.hd // 2)
        q = torch.view_as_real(qc * freqs_cis).flatten(3).type_as(q)
        k = torch.view_as_real(kc * freqs_cis).flatten(3).type_as(k)
        scores = torch.einsum("bthd,bshd->bhts", q, k) / math.sqrt(self.hd)
        return _weighted(scores.softmax(-1))


def _rotary(dtype=torch.float32, buffer=False):
    def make():
        torch.manual_seed(0)
        return ComplexRotary(dtype=dtype, buffer=buffer), (torch.randn(2, 5, 8, generator=_g(1),
                                                        dtype=dtype),)
    return make


class Transforms(nn.Module):
    """Every FFT entry point of a real signal h [B, N, M] (fft, ifft,
    rfft, irfft, hfft, ihfft, fft2, ifft2, rfftn, irfftn, fftn over chosen
    dims) with each norm, reduced to a weighted sum of real and imaginary
    parts."""

    def __init__(self, n, m, dtype):
        super().__init__()
        self.fc = nn.Linear(m, m, dtype=dtype)
        self.n, self.m = n, m

    def forward(self, x):
        h = self.fc(x)
        m = self.m
        parts = []
        for norm in ("backward", "ortho", "forward"):
            z = torch.fft.fft(h, norm=norm)
            parts += [torch.view_as_real(z), torch.fft.ifft(z, dim=1, norm=norm).imag]
            parts.append(torch.view_as_real(torch.fft.rfft(h, dim=1, norm=norm)))
            parts.append(torch.fft.irfft(torch.fft.rfft(h, norm=norm), n=m, norm=norm))
        z = torch.fft.fft2(h)
        parts += [z.real, torch.fft.ifft2(z * 1j).real]
        parts.append(torch.fft.irfftn(torch.fft.rfftn(h, dim=(0, 2)), s=(2, m), dim=(0, 2)))
        parts.append(torch.fft.fftn(h, dim=(0, 1)).imag)
        parts.append(torch.fft.hfft(torch.fft.ihfft(h), n=m))
        parts.append(torch.fft.irfft(torch.fft.rfft(h), n=m + 3))  # zero-padded spectrum
        parts.append(torch.fft.irfft(torch.fft.fft(h), n=m - 1))   # more bins than needed
        parts.append(torch.fft.fft(h, n=m + 2).abs())               # zero-padded signal
        return sum(_weighted(torch.sin(p)) for p in parts)


def _transforms(n, m, dtype=torch.float32):
    def make():
        torch.manual_seed(0)
        return Transforms(n, m, dtype), (torch.randn(2, n, m, generator=_g(1), dtype=dtype),)
    return make


class LongTransforms(nn.Module):
    """Sizes above DIRECT_DFT_MAX, split into factors: rfft / irfft of
    17424 = 132^2 points (132 = 11 x 12 split again), fft of 150 = 10 x 15
    points, irfft to an odd 135 = 9 x 15 points, and an STFT with n_fft
    2048 = 32 x 64 (a multi-resolution STFT loss's long window); a prime
    size above it (149) is direct. Orthonormal, so values stay near 1."""

    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.linspace(0.5, 1.5, 17424))
        self.fc = nn.Linear(150, 150)

    def forward(self, x, y):
        s = x * self.p
        h = self.fc(y)
        spectrum = torch.fft.rfft(s, norm="ortho")
        parts = [torch.view_as_real(spectrum), torch.fft.irfft(spectrum, n=17424, norm="ortho"),
                 torch.view_as_real(torch.fft.fft(h, norm="ortho")),
                 torch.fft.irfft(torch.fft.rfft(h, norm="ortho"), n=135, norm="ortho"),
                 torch.fft.ifft(h[:, :149], norm="ortho").imag]
        window = torch.hann_window(2048)
        frames = torch.stft(s[:, :6144], 2048, hop_length=512, window=window, normalized=True,
                            return_complex=True)
        parts.append(frames.abs())
        return sum(_weighted(torch.sin(q)) for q in parts)


def _long():
    torch.manual_seed(0)
    return LongTransforms(), (torch.randn(2, 17424, generator=_g(1)),
                              torch.randn(2, 150, generator=_g(2)))


class Arithmetic(nn.Module):
    """Complex arithmetic and identities on z = complex(h1, h2): |polar(r,
    a)| = r, angle, abs and sgn (also at 0, where the gradient is 0), conj,
    z conj(z) = |z|^2, division (by complex, real and scalars), exp,
    integer powers (z^3 = z z z), vector norms, add and sub with real tensors and
    scalars, sums and means, casts; integer tensors beside complex ones in
    cat, where and stack (imaginary part 0)."""

    def __init__(self, dtype):
        super().__init__()
        self.fc = nn.Linear(6, 8, dtype=dtype)
        self.zero = nn.Parameter(torch.zeros(3, dtype=dtype))

    def forward(self, x):
        h = self.fc(x)
        z = torch.complex(h[:, :4], h[:, 4:])
        w = torch.complex(h[:, 4:].cos(), h[:, :4].sin() + 1.5)
        r, a = h[:, :4].abs() + 0.1, h[:, 4:]
        p = torch.polar(r, a)
        parts = [p.abs() - r, p.angle(), z.abs(), z.angle(), z.conj().imag,
                 torch.view_as_real(z.conj() * w), (z * z.conj()).real - z.abs() ** 2,
                 torch.view_as_real(z / w), torch.view_as_real(z / (h[:, :4] + 3)),
                 torch.view_as_real((2 - 1j) / w), torch.view_as_real(z / (1 + 2j)),
                 torch.view_as_real(torch.exp(z * 0.3)), (z + h[:, :4]).imag,
                 (z - 2.5).real, (h[:, 4:] - z).imag, (3 * z - w).real, (1j * z).real,
                 torch.view_as_real(z.sum(0)), torch.view_as_real(z.mean(1, keepdim=True)),
                 torch.view_as_real(-z), (z.to(torch.complex128) * w).imag,
                 torch.view_as_real(h[:, :4].to(torch.complex64) * w),
                 torch.complex(self.zero, self.zero).abs(),
                 torch.complex(self.zero, self.zero).angle(),
                 torch.view_as_real(z ** 2), torch.view_as_real(z ** 3 - z * z * z),
                 torch.view_as_real(w ** -2), torch.view_as_real(z ** 5),
                 torch.view_as_real(z ** 0), torch.view_as_real(torch.sgn(z)),
                 torch.view_as_real(torch.sgn(torch.complex(self.zero, self.zero))),
                 torch.linalg.norm(z).reshape(1), torch.norm(w, dim=1),
                 torch.linalg.vector_norm(z, ord=1, dim=0),
                 torch.linalg.vector_norm(z, ord=float("inf"), dim=-1),
                 torch.view_as_real(torch.cat([z, h[:, :4]], 1)),
                 # Integer data among complex values: its imaginary part 0.
                 torch.view_as_real(torch.cat([z, torch.ones(3, 2, dtype=torch.long)], 1)),
                 torch.view_as_real(torch.where(h[:, :4] > 0, z,
                                                torch.full((3, 4), 2, dtype=torch.long))),
                 torch.view_as_real(torch.stack([z[0], torch.arange(4)]))]
        return sum(_weighted(q.float()) for q in parts)


def _arithmetic(dtype=torch.float32):
    def make():
        torch.manual_seed(0)
        return Arithmetic(dtype), (torch.randn(3, 6, generator=_g(1), dtype=dtype),)
    return make


class Writes(nn.Module):
    """Writes into complex tensors that need a gradient: FITS' low-pass
    filter xf[:, k:] = 0 and its zero padding out[:, :m] = z (torch 1.13
    cannot trace those slice_scatters on complex values: written through
    the real view), TimeMixer's xf[mask] = 0, masked_fill, a masked write
    of a complex tensor and of a real one, a complex number assigned,
    scatter of a value and of a source, diag_embed."""

    def __init__(self, dtype):
        super().__init__()
        self.lin = nn.Linear(3, 3, dtype=dtype)

    def forward(self, x):
        xf = torch.fft.rfft(self.lin(x), dim=1)                 # [2, 9, 3]
        xf[:, 6:] = 0
        small = xf.abs() < 0.8
        xf[small] = 0
        out = torch.zeros(2, 13, 3, dtype=xf.dtype)
        out[:, :xf.size(1)] = xf
        out[:, -1, 1] = 0.5 - 2j
        out[(out.real > 0.3) & (out.imag < 0)] = torch.ones(()) * 3
        m = xf.masked_fill(xf.real < 0, 0.25)
        m = m.masked_fill(m.imag > 0.2, torch.tensor(1 + 1j, dtype=xf.dtype))
        idx = torch.tensor([[2], [0], [1]]).expand(3, 3)[None].expand(2, 3, 3)
        s = torch.zeros_like(xf[:, :3]).scatter(1, idx, xf[:, :3]).scatter(1, idx[:, :1], 1.5)
        d = torch.diagonal(torch.diag_embed(xf[:, :4], offset=1), offset=1, dim1=-2, dim2=-1)
        return (_weighted(torch.fft.irfft(out, n=24, dim=1))
                + _weighted(torch.view_as_real(m)) + _weighted(torch.view_as_real(s))
                + _weighted(torch.view_as_real(d)))


def _writes(dtype=torch.float32):
    def make():
        torch.manual_seed(0)
        return Writes(dtype), (torch.randn(2, 16, 3, generator=_g(1), dtype=dtype),)
    return make


CASES = {
    # Complex writes: slice and mask assignment, masked_fill, scatter,
    # diag_embed (these were refused: torch 1.13's slice_scatter on complex
    # values, and no complex lowering).
    "complex-writes": _writes(),
    "complex-writes-f64": _writes(torch.float64),
    "complex-fnet": _fnet(7, 12),
    "complex-fnet-f64": _fnet(12, 33, torch.float64),
    "complex-fno1d": _fno1d(33, 5),
    "complex-fno1d-f64": _fno1d(12, 7, torch.float64),
    "complex-fno2d": _fno2d(12, 7, 3),
    "complex-stft": _stft,
    "complex-istft": _istft,
    "complex-rotary": _rotary(),
    "complex-rotary-f64": _rotary(torch.float64, buffer=True),
    "complex-transforms": _transforms(7, 12),
    "complex-transforms-f64": _transforms(4, 33, torch.float64),
    "complex-long": _long,
    "complex-arithmetic": _arithmetic(),
    "complex-arithmetic-f64": _arithmetic(torch.float64),
}
