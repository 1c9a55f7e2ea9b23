"""Cases for ops/backward.py: derivatives taken inside forward with functorch
(vmap(grad), grad(grad), jacrev), which record aten's backward ops, and the
training step's gradient of a loss built from them (second order: tfc
differentiates the backward ops themselves). Each case fails to import
without the lowerings (unsupported aten.*_backward op)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from functorch import grad, jacrev, vmap
from torch.nn.utils.stateless import functional_call

from .common import _g


class _Pinn(nn.Module):
    """One small MLP u(x) per activation; the loss is a PINN residual of
    u, u_x (vmap(grad)) and, with `second`, u_xx (vmap(grad(grad)))."""

    def __init__(self, acts, second=True):
        super().__init__()
        self.nets = nn.ModuleList(nn.Sequential(nn.Linear(1, 8), a, nn.Linear(8, 1))
                                  for a in acts)
        self.second = second

    def forward(self, x):                              # x: [B] collocation points
        loss = 0
        for i, net in enumerate(self.nets):
            def u(xi, net=net):
                return net(xi.reshape(1, 1)).squeeze()
            u_x = vmap(grad(u))(x)
            residual = u_x + vmap(u)(x) - torch.sin(x)
            if self.second[i] if isinstance(self.second, tuple) else self.second:
                residual = residual + 0.5 * vmap(grad(grad(u)))(x)
            loss = loss + residual.pow(2).mean()
        return loss


def _pinn(acts, second=True, points=None):
    def make():
        torch.manual_seed(0)
        x = points if points is not None else torch.linspace(-2.5, 2.5, 9)
        return _Pinn(acts(), second), (x,)
    return make


class _FrozenHardsigmoid(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 8), nn.Hardsigmoid(), nn.Linear(8, 1))
        self.net.requires_grad_(False)
        self.scale = nn.Parameter(torch.tensor(1.5))

    def forward(self, x):
        u_x = vmap(grad(lambda xi: self.net(xi.reshape(1, 1)).squeeze()))(x)
        return self.scale * u_x.pow(2).mean() + self.scale.pow(2)


def _frozen_hardsigmoid():
    torch.manual_seed(0)
    return _FrozenHardsigmoid(), (torch.linspace(-4.1, 3.9, 9),)


class _ReluInputGradient(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, 6))
        self.shift = nn.Parameter(torch.tensor(0.05))

    def forward(self, x):
        h = x + self.shift
        gx = grad(lambda v: torch.relu(v).sum())(h)
        thr = grad(lambda v: F.threshold(v, 0.2, -1.0).sum())(h)
        return (gx * self.w).sum() + (thr * self.w.flip(0)).sum()


def _threshold_backward_nan():
    torch.manual_seed(0)
    return _ReluInputGradient(), (torch.tensor([-1.0, float("nan"), 0.3, 2.0, float("nan"), 0.1]),)


class _Coordinates(nn.Module):
    def __init__(self):
        super().__init__()
        self.u = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
        self.v = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, x, t, xt):                       # x, t: [B]; xt: [B, 7]
        def u(xi, ti):
            return self.u(torch.stack([xi, ti])).squeeze()

        residual = vmap(lambda xi, ti: grad(u, 1)(xi, ti) - grad(grad(u, 0), 0)(xi, ti))(x, t)

        def v(z):                                      # z[0], z[2:7:2], z[-2]
            return self.v(torch.cat([z[:1] * z[-2:-1], z[2::2][:3]])).squeeze()

        v_t = vmap(lambda z: grad(v)(z)[0] + grad(lambda w: grad(v)(w)[2])(z)[4])(xt)
        return residual.pow(2).mean() + v_t.pow(2).mean()


def _coordinates():
    torch.manual_seed(0)
    return _Coordinates(), (torch.randn(5, generator=_g(1)), torch.rand(5, generator=_g(2)),
                            torch.randn(5, 7, generator=_g(3)))


class _GradientPenalty(nn.Module):
    """WGAN-GP's critic loss: critic(fake) - critic(real) plus 10 (|grad_x
    critic(x_hat)| - 1)^2 at points between real and fake samples, the input
    gradient taken per sample with vmap(grad)."""

    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16),
                                    nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, real, fake, mix):
        x_hat = mix * real + (1 - mix) * fake
        g = vmap(grad(lambda xi: self.critic(xi).squeeze()))(x_hat)
        penalty = (g.norm(dim=-1) - 1).pow(2).mean()
        return self.critic(fake).mean() - self.critic(real).mean() + 10 * penalty


def _gradient_penalty():
    torch.manual_seed(0)
    return _GradientPenalty(), (torch.randn(6, 3, generator=_g(1)),
                                torch.randn(6, 3, generator=_g(2)),
                                torch.rand(6, 1, generator=_g(3)))


class _ConvCritic(nn.Module):
    """WGAN-GP on images: a conv critic's input gradient per sample (strided
    padded conv, grouped conv: convolution_backward's grad_input through a
    transposed convolution), a conv-transpose decoder's input gradient
    (grad_input through a direct one), and a MAML-style inner step on a
    conv layer's weight and bias (grad_weight, grad_bias; 1-d, dilated),
    and the weight gradients of grouped direct and transposed ones."""

    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(nn.Conv2d(2, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                                    nn.Conv2d(4, 4, 3, groups=2), nn.Tanh(), nn.Flatten(0),
                                    nn.Linear(16, 1))
        self.decoder = nn.Sequential(nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1,
                                                        output_padding=1, groups=1),
                                     nn.Tanh())
        self.inner = nn.Conv1d(3, 4, 3, dilation=2, padding=1, stride=2)
        self.up = nn.ConvTranspose1d(3, 6, 3, stride=2, groups=3, output_padding=1)
        self.grouped = nn.Conv1d(3, 6, 2, groups=3)

    def forward(self, x, seq):                         # x: [B, 2, 8, 8]; seq: [B, 3, 11]
        g = vmap(grad(lambda xi: self.critic(xi).squeeze()))(x)
        penalty = (g.flatten(1).norm(dim=-1) - 1).pow(2).mean()
        gd = vmap(grad(lambda z: self.decoder(z).pow(2).sum()))(x[:, :, :4, :4])

        def inner_loss(w, bias):
            return F.conv1d(seq, w, bias, 2, 1, 2).tanh().pow(2).mean()

        dw, db = grad(inner_loss, argnums=(0, 1))(self.inner.weight, self.inner.bias)
        adapted = F.conv1d(seq, self.inner.weight - 0.5 * dw, self.inner.bias - 0.5 * db,
                           2, 1, 2)

        def grouped_loss(wu, wg):                      # grouped transposed and direct
            up = F.conv_transpose1d(seq, wu, None, 2, 0, 1, 3)
            return (F.conv1d(seq, wg, None, groups=3).tanh().sum() + up.sin().sum()) * 0.1

        du, dg = grad(grouped_loss, argnums=(0, 1))(self.up.weight, self.grouped.weight)
        return (10 * penalty + gd.pow(2).mean() + adapted.sin().mean() + du.pow(2).sum()
                + dg.pow(2).sum())


def _conv_critic():
    torch.manual_seed(0)
    return _ConvCritic(), (torch.randn(3, 2, 8, 8, generator=_g(1)),
                           torch.randn(3, 3, 11, generator=_g(2)))


class _AvgPoolCritic(nn.Module):
    """Input gradients through average pooling (avg_pool2d_backward,
    avg_pool3d_backward): plain 2x2, padded with stride and the padding
    left out of the divisor under ceil_mode (a last window overhanging the
    input), a divisor_override with a rectangular window, and a 3-d pool."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.conv3 = nn.Conv3d(1, 2, 2)
        self.pools = [dict(kernel_size=2),
                      dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                           count_include_pad=False),
                      dict(kernel_size=(2, 3), stride=(1, 2), divisor_override=5)]
        self.heads = nn.ModuleList(
            nn.Linear(F.avg_pool2d(torch.zeros(3, 7, 7), **kw).numel(), 1) for kw in self.pools)

    def forward(self, x, vol):                         # x: [B, 2, 7, 7]; vol: [B, 1, 5, 5, 5]
        def critic(xi):
            h = self.conv(xi).tanh()
            return sum(head(F.avg_pool2d(h, **kw).flatten()).squeeze()
                       for head, kw in zip(self.heads, self.pools))

        g = vmap(grad(critic))(x)
        g3 = vmap(grad(lambda v: F.avg_pool3d(self.conv3(v).sin(), 2, 1, 1).pow(2).sum()))(vol)
        return g.pow(2).mean() + g3.pow(2).mean()


def _avg_pool_critic():
    torch.manual_seed(0)
    return _AvgPoolCritic(), (torch.randn(3, 2, 7, 7, generator=_g(1)),
                              torch.randn(2, 1, 5, 5, 5, generator=_g(2)))


class _DoubleBackpropLeNet(nn.Module):
    """Input-gradient regularization (double backprop) of a small LeNet:
    cross-entropy plus the squared gradient of it with respect to the image
    (nll_loss_backward, _log_softmax_backward_data, threshold_backward,
    max_pool2d_with_indices_backward with overlapping, padded, ceil_mode
    windows, convolution_backward), and a 3-d max pool's input gradient
    (max_pool3d_with_indices_backward, dilated)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, padding=1, ceil_mode=True),
                                      nn.Conv2d(4, 4, 2), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Flatten())
        self.classifier = nn.Linear(16, 5)
        self.conv3 = nn.Conv3d(1, 2, 2)

    def forward(self, images, labels, vol):            # [B, 1, 10, 10], [B], [2, 1, 6, 6, 6]
        def ce(x):
            return F.cross_entropy(self.classifier(self.features(x)), labels)

        g = grad(ce)(images)
        g3 = grad(lambda v: F.max_pool3d(self.conv3(v).sin(), 2, 1, 1, dilation=2).pow(2).sum())
        return ce(images) + 10 * g.pow(2).sum() + g3(vol).pow(2).mean()


def _double_backprop_lenet():
    torch.manual_seed(0)
    return _DoubleBackpropLeNet(), (torch.randn(4, 1, 10, 10, generator=_g(1)),
                                    torch.tensor([0, 3, 1, 4]),
                                    torch.randn(2, 1, 6, 6, 6, generator=_g(2)))


class _LossGradients(nn.Module):
    """Input-gradient regularization (double backprop) of a classifier's
    cross-entropy, with class weights and an ignored label, its mean, sum
    and per-row forms (nll_loss_backward, _log_softmax_backward_data), and
    the input gradients of smooth_l1 (beta 0.5) and huber (delta 0.8)
    losses of a regression head."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 5))
        self.head = nn.Linear(4, 3)

    def forward(self, x, labels, y):
        w = torch.tensor([1.0, 0.5, 2.0, 1.5, 0.7])

        def ce(xs, reduction, weight=None):
            return F.cross_entropy(self.net(xs), labels, weight, ignore_index=2,
                                   reduction=reduction)

        g_mean = grad(lambda xs: ce(xs, "mean", w))(x)
        g_sum = grad(lambda xs: ce(xs, "sum"))(x)
        g_rows = grad(lambda xs: (ce(xs, "none", w) * torch.linspace(0.5, 1.5, 6)).sum())(x)
        g_row = vmap(grad(lambda xi, li: F.cross_entropy(self.net(xi), li)))(x, labels)
        g_smooth = grad(lambda xs: F.smooth_l1_loss(self.head(xs), y, beta=0.5))(x)
        g_huber = grad(lambda xs: F.huber_loss(self.head(xs), y, reduction="sum",
                                               delta=0.8))(x)
        return (ce(x, "mean") + g_mean.pow(2).sum() + 0.1 * g_sum.pow(2).sum()
                + g_rows.pow(2).mean() + g_row.pow(2).mean() + g_smooth.pow(2).sum()
                + g_huber.pow(2).mean())


def _loss_gradients():
    torch.manual_seed(0)
    return _LossGradients(), (torch.randn(6, 4, generator=_g(1)),
                              torch.tensor([0, 2, 4, 1, 3, 2]),
                              torch.randn(6, 3, generator=_g(2)))


class _SoftmaxJacobian(nn.Module):
    """The Jacobians of softmax and log_softmax of a linear layer's
    output (jacrev, per sample), over the last dim and over dim 0 of a
    [3, 4] view, penalized: _softmax_backward_data and
    _log_softmax_backward_data, differentiated again by the training step."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 12)

    def forward(self, x):
        def probs(xi):
            return F.softmax(self.fc(xi), -1)

        def logp(xi):
            return F.log_softmax(self.fc(xi).reshape(3, 4), 0)

        j1 = vmap(jacrev(probs))(x)                    # [B, 12, 5]
        j2 = vmap(jacrev(logp))(x)                     # [B, 3, 4, 5]
        return j1.pow(2).sum() + (j2 * torch.linspace(-1, 1, 5)).pow(2).mean()


def _softmax_jacobian():
    torch.manual_seed(0)
    return _SoftmaxJacobian(), (torch.randn(4, 5, generator=_g(1)),)


class _Glu(nn.Module):
    """A gated MLP's input gradient (glu_backward) in a score-matching
    style loss: |s(x)|^2 / 2 plus the divergence's diagonal terms."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.GLU(), nn.Linear(8, 1))

    def forward(self, x):
        s = vmap(grad(lambda xi: self.net(xi).squeeze()))(x)
        div = vmap(grad(lambda xi: grad(lambda xj: self.net(xj).squeeze())(xi)[0]))(x)[:, 0]
        return (0.5 * s.pow(2).sum(-1) + div).mean()


def _glu():
    torch.manual_seed(0)
    return _Glu(), (torch.randn(5, 2, generator=_g(1)),)


class _MseInputGradient(nn.Module):
    """The gradient of an inner mse_loss with respect to a prediction (one
    step of a learned refinement: x - 0.1 d mse / dx), then an outer loss:
    mse_loss_backward with the mean and the sum reductions."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, y):
        pred = self.fc(x)
        g_mean = grad(lambda p: F.mse_loss(p.tanh(), y))(pred)
        g_sum = grad(lambda p: F.mse_loss(p, y, reduction="sum"))(pred)
        refined = pred - 0.1 * g_mean - 0.01 * g_sum
        return (refined - y).pow(2).mean()


def _mse_input_gradient():
    torch.manual_seed(0)
    return _MseInputGradient(), (torch.randn(5, 4, generator=_g(1)),
                                 torch.randn(5, 3, generator=_g(2)))


class _NormCritics(nn.Module):
    """Gradient penalties through normalization layers (WGAN-GP's paper
    puts layer norm in the critic): a layer-norm MLP critic (the penalty
    per sample with vmap(grad): native_layer_norm_backward), a conv critic
    with group norm (functorch decomposes its backward, reading the
    forward's statistics) and one with affine instance norm (batch norm's
    training-mode backward, native_batch_norm_backward), and a jacrev
    penalty of a pre-norm residual block (layer norm without affine)."""

    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4, 12), nn.LayerNorm(12), nn.LeakyReLU(0.2),
                                 nn.Linear(12, 1))
        self.gn = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.SiLU(),
                                nn.Flatten(), nn.Linear(4 * 16, 1))
        # No conv bias before instance norm: its gradient is zero (float
        # noise on both sides), as such models leave it out.
        self.inorm = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1, bias=False),
                                   nn.InstanceNorm2d(4, affine=True),
                                   nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(4 * 16, 1))
        self.block_norm = nn.LayerNorm(4, elementwise_affine=False)
        self.block = nn.Linear(4, 4)

    def _penalty(self, critic, x):
        g = vmap(grad(lambda xi: critic(xi[None]).squeeze()))(x)
        return (g.flatten(1).norm(dim=1) - 1).pow(2).mean()

    def forward(self, points, images):
        jac = vmap(jacrev(lambda p: p + torch.tanh(self.block(self.block_norm(p)))))(points)
        return (self._penalty(self.mlp, points) + self._penalty(self.gn, images)
                + self._penalty(self.inorm, images) + jac.pow(2).mean()
                + self.mlp(points).mean() + self.gn(images).mean() + self.inorm(images).mean())


def _norm_critics():
    torch.manual_seed(0)
    return _NormCritics(), (torch.randn(5, 4, generator=_g(1)),
                            torch.randn(3, 2, 4, 4, generator=_g(2)))


class _MamlSequential(nn.Module):
    """MAML on an nn.Sequential learner (the docs' recipe): two inner SGD
    steps on the support set, each the functorch.grad of the learner's loss
    with respect to a dict of its parameters run through functional_call
    (nested inside the trace's own), then the query loss of the fast
    weights; and a hypernetwork whose generated weights a second
    Sequential runs with, through functional_call as well."""

    def __init__(self):
        super().__init__()
        self.learner = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
        self.target = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        self.shapes = {n: p.shape for n, p in self.target.named_parameters()}
        self.hyper = nn.Linear(2, sum(s.numel() for s in self.shapes.values()))

    def forward(self, xs, ys, xq, yq, z):

        def inner_loss(p):
            return F.mse_loss(functional_call(self.learner, p, (xs,)), ys)

        fast = dict(self.learner.named_parameters())
        for _ in range(2):
            g = grad(inner_loss)(fast)
            fast = {n: w - 0.1 * g[n] for n, w in fast.items()}
        query = F.mse_loss(functional_call(self.learner, fast, (xq,)), yq)
        chunks = self.hyper(z).split([s.numel() for s in self.shapes.values()])
        generated = {n: c.view(s) for (n, s), c in zip(self.shapes.items(), chunks)}
        return query + functional_call(self.target, generated, (xq,)).pow(2).mean()


def _maml_sequential():
    torch.manual_seed(0)
    return _MamlSequential(), (torch.randn(6, 3, generator=_g(1)),
                               torch.randn(6, 1, generator=_g(2)),
                               torch.randn(5, 3, generator=_g(3)),
                               torch.randn(5, 1, generator=_g(4)),
                               torch.randn(2, generator=_g(5)))


class _LargeInputGradients(nn.Module):
    """Input gradients (functorch.grad) of exp-based activations at inputs
    beyond exp's f32 range, > 100 and < -100: elu_backward (elu, selu,
    celu) and softplus_backward, which the training step differentiates
    again with respect to w. (Not mish: torch's own second derivative of
    mish is NaN there.)"""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([1.0, 1.5, -1.2, 0.8, 1.1, -0.9, 2.0]))

    def forward(self, x):
        ramp = torch.linspace(0.5, 1.5, x.shape[0])
        acts = (F.elu, lambda t: F.elu(t, 0.5), lambda t: F.celu(t, 0.7), F.selu, F.softplus,
                lambda t: F.softplus(t, 2.0, 1.0))
        loss = 0
        for i, act in enumerate(acts):
            g = grad(lambda t, act=act: (act(t * self.w) * ramp).sum())(x)
            loss = loss + (g * ramp.flip(0)).sum() * (i + 1)
        return loss


def _large_input_gradients():
    return _LargeInputGradients(), (torch.tensor([120.0, -130.0, 95.0, -101.0, 0.7, 0.4,
                                                  45.0]),)


class _EmbeddingGradients(nn.Module):
    """Gradients with respect to embedding weights inside forward
    (embedding_dense_backward): DP-SGD's per-sample gradients (vmap(grad))
    of a text model's embedding with a padding row, clipped per sample (the
    padding row zeroed by functorch's batching rule), the whole batch's
    (padding row zeroed by the lowering), and a whole-batch gradient with
    scale_grad_by_freq (repeated ids)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=1)
        self.freq = nn.Embedding(10, 3, scale_grad_by_freq=True)
        self.fc = nn.Linear(4, 1)

    def forward(self, tokens):                         # [B, T] ids, some repeated, some 1

        def sample_loss(w, ids):
            h = F.embedding(ids, w, padding_idx=1).tanh()
            return self.fc(h).squeeze(-1).mean().pow(2)

        g = vmap(grad(sample_loss), (None, 0))(self.emb.weight, tokens)        # [B, 10, 4]
        norms = g.pow(2).sum(dim=(1, 2)).add(1e-6).sqrt()
        clipped = (g / norms.clamp(min=0.1)[:, None, None]).mean(0)
        whole = grad(sample_loss)(self.emb.weight, tokens)  # padding_idx here (vmap: functorch)
        gf = grad(lambda w: F.embedding(tokens, w, scale_grad_by_freq=True).sin().sum())(
            self.freq.weight)
        ramp = torch.linspace(0.5, 1.5, 10)[:, None]
        return ((clipped * ramp).pow(2).sum() + (gf * ramp).pow(2).sum() + whole.pow(2).sum()
                + self.fc(self.emb(tokens)).mean())


def _embedding_gradients():
    torch.manual_seed(0)
    return _EmbeddingGradients(), (torch.tensor([[2, 5, 1, 5, 7], [1, 1, 3, 9, 3],
                                                 [0, 4, 4, 4, 8]]),)


class _CdistForces(nn.Module):
    """Forces F = -dE/dR of a pair energy over torch.cdist distances
    (_cdist_backward) for p = 2, 1, inf, 1.5, 3 and 0.5: per configuration
    (vmap(grad)) of cdist(R, R), whose zero self-distances get torch's zero
    gradient, on half-integer coordinates (ties of |d| for inf, d = 0 for
    p < 1), and both operands' gradients of a cdist with broadcast batch
    dims. torch 1.13 cannot differentiate _cdist_backward, so the energy
    net is frozen and a trainable scale weights the forces (its gradient
    is their weighted sum)."""

    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(1, 8), nn.SiLU(), nn.Linear(8, 1))
        self.f.requires_grad_(False)
        self.scale = nn.Parameter(torch.tensor(1.5))

    def forward(self, r, q):                           # r: [B, N, 3]; q: [2, 5, 3]
        ramp = torch.linspace(-1.0, 2.0, r.shape[-2] * 3).reshape(r.shape[-2], 3)
        loss = self.scale.pow(2)
        for i, p in enumerate((2.0, 1.0, float("inf"), 1.5, 3.0, 0.5)):
            def energy(x, p=p):
                return self.f(torch.cdist(x, x, p).unsqueeze(-1)).sum()
            forces = -vmap(grad(energy))(r)
            loss = loss + self.scale * (forces * ramp).sum() * (i + 1)
        gr, gq = grad(lambda a, b: self.f(torch.cdist(a, b).unsqueeze(-1)).sum(),
                      argnums=(0, 1))(r[:1], q)
        return loss + self.scale * ((gr * ramp).sum() + (gq * torch.linspace(0, 1, 3)).sum())


def _cdist_forces():
    torch.manual_seed(0)
    r = torch.randint(-4, 5, (3, 6, 3), generator=_g(1)) / 2.0
    r[0, 1] = r[0, 4]                                  # a repeated point: distance 0
    return _CdistForces(), (r, torch.randn(2, 5, 3, generator=_g(2)))


CASES = {
    # PINN residuals u_x + u - sin(x) + u_xx / 2 of tanh / sigmoid /
    # tanhshrink MLPs: tanh_backward and sigmoid_backward at first order
    # and of themselves at second order (grad(grad)).
    "functorch-tanh-sigmoid": _pinn(lambda: [nn.Tanh(), nn.Sigmoid(), nn.Tanhshrink()]),
    # The same for GELU (erf and tanh forms: gelu_backward) and SiLU / Mish,
    # whose first derivatives functorch decomposes into sigmoid / tanh ops
    # and whose second ones record sigmoid_backward and tanh_backward.
    "functorch-gelu-silu-mish": _pinn(lambda: [nn.GELU(), nn.GELU("tanh"), nn.SiLU(),
                                               nn.Mish()]),
    # softplus (threshold 1 at beta 2: points on both sides of the linear
    # branch), log_sigmoid (its forward's buffer built for the backward),
    # and elu / selu / celu (elu_backward from the input at first order; at
    # second order torch's grad of elu_backward is elu_backward again).
    "functorch-softplus-elu": _pinn(lambda: [nn.Softplus(2.0, 1.0), nn.LogSigmoid(), nn.ELU(),
                                             nn.SELU(), nn.CELU(0.7)]),
    # elu / selu / celu / softplus input gradients at inputs above
    # 100 and below -100 (an exp that overflows must not reach a gradient).
    "functorch-large-inputs": lambda: _large_input_gradients(),
    # Piecewise activations (threshold_backward for relu / threshold,
    # leaky_relu_backward, hardtanh_backward for hardtanh / relu6,
    # hardswish_backward, hard / soft shrink): u_x and u_xx. The points
    # avoid the kinks.
    "functorch-piecewise": _pinn(
        lambda: [nn.ReLU(), nn.LeakyReLU(0.1), nn.Hardtanh(-0.5, 0.8), nn.ReLU6(),
                 nn.Hardswish(), nn.Hardshrink(0.3), nn.Softshrink(0.3),
                 nn.Threshold(0.2, -0.1)],
        points=torch.linspace(-3.3, 3.1, 11)),
    # hardsigmoid_backward, which torch cannot differentiate: the input
    # gradient of a frozen hardsigmoid MLP, weighted by a trainable scale
    # (whose gradient is the mean squared input gradient).
    "functorch-hardsigmoid": lambda: _frozen_hardsigmoid(),
    # threshold_backward at a NaN input passes the gradient, as ATen's
    # (x <= threshold ? 0 : g): relu's input gradient taken in forward
    # (functorch's grad) at inputs holding a NaN, weighted by a
    # parameter whose gradient is that input gradient.
    "threshold-backward-nan": lambda: _threshold_backward_nan(),
    # The PINN residual u_t - u_xx of u(x, t) = mlp(stack([x, t])) and one
    # of an MLP of a vector input's coordinates (xt[0], xt[1:] with
    # strides): select_backward and slice_backward, zeros around the
    # derivative of the picked coordinates.
    "functorch-coordinates": lambda: _coordinates(),
    # WGAN-GP's gradient penalty on a leaky-relu critic (vmap(grad) of the
    # critic at interpolated samples, norm of each input gradient).
    "functorch-gradient-penalty": lambda: _gradient_penalty(),
    # Input gradients of conv critics and decoders, and a conv weight's
    # gradient inside forward: convolution_backward (ops/conv.py).
    "functorch-conv": lambda: _conv_critic(),
    # Input gradients through 2-d and 3-d average pooling (ops/conv.py).
    "functorch-avg-pool": lambda: _avg_pool_critic(),
    # Double backprop through a LeNet's max pooling (ops/conv.py) and a
    # 3-d max pool's input gradient.
    "functorch-max-pool": lambda: _double_backprop_lenet(),
    # Gradients of losses with respect to the inputs inside forward:
    # cross-entropy (weighted, ignored label; mean, sum, per row, per
    # sample), smooth_l1 and huber.
    "functorch-loss-gradients": lambda: _loss_gradients(),
    # jacrev of softmax (last dim) and log_softmax (dim 0 of a view) per
    # sample: the softmax backward ops.
    "functorch-softmax-jacobian": lambda: _softmax_jacobian(),
    # Score matching with a GLU network: first and second input derivatives
    # (glu_backward and its own derivative).
    "functorch-glu": lambda: _glu(),
    # grad of mse_loss (mean and sum) with respect to a prediction inside
    # forward: mse_loss_backward.
    "functorch-mse": lambda: _mse_input_gradient(),
    # Input gradients through layer norm, group norm and instance norm
    # (normalization backward ops, and the statistics' own derivatives).
    "functorch-norms": lambda: _norm_critics(),
    # Per-sample (DP-SGD) and whole-batch gradients with respect to
    # embedding weights: embedding_dense_backward, padding_idx and
    # scale_grad_by_freq.
    "functorch-embedding": lambda: _embedding_gradients(),
    # Force matching's F = -dE/dR through torch.cdist (p = 2, 1, inf and
    # others): _cdist_backward.
    "functorch-cdist": lambda: _cdist_forces(),
    # MAML's fast weights and a hypernetwork's generated weights on
    # nn.Sequential modules through functional_call in forward (torch
    # 1.13's cannot nest in the trace's own: functional_calls.py).
    "functorch-maml-functional-call": lambda: _maml_sequential(),
}
