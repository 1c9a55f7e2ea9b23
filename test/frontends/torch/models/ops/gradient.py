"""Cases for gradient control, which has no lowering file of its own (the
importer, tracing.py and no_grad_writes.py, with ops/elementwise.py's
detach, and custom_functions.py): frozen parameters, detached and no_grad /
inference_mode values as constants (tfc.stop_gradient), in-place writes
under no_grad as straight-through (tfc.straight_through), and custom
autograd.Functions with elementwise backwards."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g

CASES = {
    # A frozen layer (requires_grad=False) is a constant: no gradient.
    "frozen-parameters": lambda: _frozen(),
    # Gradient control: detach and no_grad / inference_mode values are
    # constants to the gradient (tfc.stop_gradient); without it these
    # gradients differ from torch's by about their own size. Ops with
    # several results under no_grad (var_mean, topk: their outputs picked
    # by getitem nodes) used to fail the import with an IndexError.
    "detach-no-grad": _case(lambda h: _detached(h)),
    # An in-place op under no_grad on a tensor that requires grad keeps its
    # history: the new value, the gradient as through the identity
    # (tfc.straight_through). F.cosine_similarity clamps its squared norms
    # so in C++; the others write the whole tensor, a view of a 3-d
    # linear's output, and a column through a view of it.
    "no-grad-writes": lambda: _no_grad_writes(),
    # Custom torch.autograd.Functions, imported with their own backward
    # (elementwise: grad_input = m * grad_output): gradient reversal with a
    # number argument (called through an alias of its apply bound at import), a straight-through rounding with a clipping mask from
    # ctx attributes, a hand-written swish derivative from saved tensors, a
    # two-input product (each input its own m) with an integer mask input
    # that gets no gradient, reading ctx.saved_variables, an output used twice, an output clamped in
    # place under no_grad. Differentiating the
    # forwards instead gives other gradients (reversal: their negatives;
    # rounding: zero).
    "custom-functions": _case(lambda h: _custom_functions(h)),
    # Functions whose backward is their forward's derivative, on the
    # example's values, are traced through their forward (which tfc
    # differentiates): HF DeBERTa's XSoftmax (softmax's backward, which
    # mixes elements; its forward writes its output in place), Reformer's
    # ReverseSort (two differentiable outputs, a forward under no_grad);
    # both were refused.
    "custom-function-derivatives": lambda: _derivatives(),
    # A Function whose backward gives an input a gradient that does not
    # depend on grad_output adds a loss term (DeepSeek-MoE's
    # AddAuxiliaryLoss: the output is its first input, the auxiliary loss
    # gets the gradient ones only when it requires grad); here a scalar
    # router loss and a per-expert [3] one, the second weighted. Without the
    # term the routers get no gradient from them; before grad_flags the
    # required flag read False.
    "custom-function-added-loss": lambda: _added_loss(),
    # Outputs that carry no gradient (torch passes none through them, and
    # calls backward with zeros for them): a float mask marked with
    # ctx.mark_non_differentiable (its backward, never called by torch,
    # was imported: the gradient through h * mask was off by about its
    # size), a value with a marked bool mask beside it, an integer-only
    # output (nearest codebook rows; its backward raises) and a VQ-VAE
    # straight-through (codes, indices) on a detached codebook (its
    # backward index_adds into the codebook only if needs_input_grad says
    # so). Several outputs were refused.
    "custom-function-outputs": lambda: _output_kinds(),
    # A backward that gives an input of smaller (broadcast) shape the sum
    # of c * grad_output over the dimensions it broadcasts along: LSQ
    # quantization as a Function with a scalar and a per-channel step size
    # (grad_alpha = sum(coefficient * g)), and a per-feature scale. They
    # were refused as gradients that depend on grad_output. A [1, 8] gain
    # whose backward returns g * x of the output's shape (torch sums it to
    # the gain's) was refused as not elementwise.
    "custom-function-reductions": lambda: _reductions(),
    # A view of a tensor written in place (F.linear adds its bias in place
    # on a 3-d input that is not contiguous) is rebuilt by functionalization
    # at its next read: read first under no_grad (an accuracy, a no_grad
    # clone as ESPnet's label smoothing does), the rebuilt view was taken
    # as made without gradient, and the loss after it, reading it too, got
    # none (conformer CTC models trained to other losses).
    "no-grad-replayed-views": lambda: _replayed_views(),
    # The converse: a view the model makes under no_grad of a tensor written
    # in place (attention weights from a transposed linear's output, a
    # slice after h.mul_, split pieces) is a leaf without gradient in
    # torch, but functionalization rebuilds it at its next read with grad
    # on, and the gradient flowed through it (grad_modes.NoGradViews).
    "no-grad-views-read-later": lambda: _no_grad_views(),
    # Tensor.requires_grad read in forward answers as in eager torch
    # (grad_flags.py): true for trainable parameters and what grad mode
    # computes from them, false for the batch, detached and no_grad values,
    # integer results and a zeros_like of a flagged tensor; is_leaf and
    # grad_fn as follows from them. Each flag weights a term of the loss;
    # make_fx alone reports false for all, which drops terms and their
    # gradients.
    "requires-grad-reads": lambda: _requires_grad_reads(),
    # .data in forward (module_state.data_writes): read, torch's detached
    # alias (focal loss's pt = logpt.data.exp(), weight standardization's
    # statistics of w.data), a stop-gradient; set on an intermediate
    # (BinaryNet's h.data = h.data.sign()) or written in place through it
    # or a view of it (h.data.clamp_(), h.data[:, 0].mul_(), d += ...), the
    # new value forward and the gradient straight through to the old one. The trace recorded no detach (gradients
    # through the reads) and dropped the assignment (the loss itself wrong).
    "data-reads-writes": lambda: _data_reads_writes(),
    # HF's enable_input_require_grads (PEFT's LoRA with checkpointing): a
    # forward hook on the frozen input embeddings calls
    # output.requires_grad_(True); while tracing a no-op that flags the
    # tensor (a requires_grad read answers True, as in torch; here it
    # weights a loss term). It was refused as a derivative in forward.
    "requires-grad-hook": lambda: _requires_grad_hook(),
    # requires_grad of parameters toggled inside forward (Spinning Up's
    # freeze-Q-for-the-policy-loss, DreamerV3's RequiresGrad, a GAN's D
    # frozen for G's loss): the ops using a parameter while its flag is off
    # pass it no gradient, those before and after the freeze do (through
    # a view taken before the freeze too); module requires_grad_, the
    # attribute set in a loop over parameters(), a reference held from
    # before. The flag was ignored: the frozen critic got the actor's
    # gradient.
    "requires-grad-toggles": lambda: _requires_grad_toggles(),
    # A parameter frozen in forward read through a property (.T, .mT, .H)
    # or indexed (w[0:3], w[...], w[None]), or assigned into a fresh
    # tensor: no gradient through those reads, as torch's. They took
    # __get__ / __getitem__ for in-place writers (or reached no torch
    # function mode) and passed the gradient. A buffer's requires_grad
    # turned on and off again in forward is no freeze (it was refused as a
    # trainable parameter left frozen).
    "requires-grad-frozen-views": lambda: _requires_grad_frozen_views(),
    # Submodules copied in forward (copy.deepcopy, functorch's
    # make_functional, learn2learn's clone_module): deepcopy of a traced
    # tensor failed ("python bindings to nullptr storage", at copy.py).
    "module-copies": lambda: _module_copies(),
}


class _Reverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -ctx.lam * grad, None


class _RoundClip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bound):
        ctx.bound = bound
        ctx.save_for_backward(x)
        return torch.round(x * 4).clamp(-bound, bound) / 4

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * (x.abs() <= ctx.bound / 4).to(grad.dtype), None


class _Swish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad * (s * (1 + x * (1 - s)))


class _MaskedProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, keep):
        ctx.save_for_backward(a, b, keep)
        return a * b * keep

    @staticmethod
    def backward(ctx, grad):
        a, b, keep = ctx.saved_variables  # torch's deprecated alias (NAFNet)
        return grad * b * keep, grad * a * keep, None


# Bound at import, as pytorch-tabnet's `sparsemax = SparsemaxFunction.apply`:
# tracing rebinds such aliases (custom_functions.code_globals).
_reverse = _Reverse.apply


def _custom_functions(h):                          # h: [4, 8]
    r = _reverse(h, 0.7)
    q = _RoundClip.apply(h.tanh(), 3.0)
    s = _Swish.apply(h * 1.5)
    keep = (torch.arange(8) % 3 != 0).expand(4, 8).to(torch.int64)
    p = _MaskedProduct.apply(h.sin(), h.cos(), keep)
    # An in-place write under no_grad on a Function's output keeps its
    # history (straight-through), as on any tensor that requires grad.
    w = _Swish.apply(h * 0.5)
    with torch.no_grad():
        w.clamp_(-0.2, 0.2)
    return ((r * torch.linspace(0.5, 1.5, 8)).sum() + (q * h).sum() + s.pow(2).sum()
            + p.sum() + (p * p).mean() + (w * h).sum())


class _AddAuxiliary(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, aux, weight):
        ctx.wanted = aux.requires_grad
        ctx.shape, ctx.weight = aux.shape, weight
        return x

    @staticmethod
    def backward(ctx, grad):
        extra = None
        if ctx.wanted:
            extra = torch.full(ctx.shape, ctx.weight, dtype=grad.dtype)
        return grad, extra, None


class _AddedLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.router = nn.Linear(6, 3)

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        h = _AddAuxiliary.apply(self.fc(x), probs.pow(2).mean(), 1.0)
        h = _AddAuxiliary.apply(h.tanh(), probs.mean(0).log(), 0.25)
        return h.square().mean()


def _added_loss():
    torch.manual_seed(0)
    return _AddedLoss(), (torch.randn(4, 6, generator=_g(1)),)


class _PositiveMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        return mask

    @staticmethod
    def backward(ctx, grad):
        return grad  # torch never calls it: the output has no gradient


class _SignWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        keep = x.abs() <= 1
        ctx.mark_non_differentiable(keep)
        return x.sign(), keep

    @staticmethod
    def backward(ctx, grad, grad_keep):
        x, = ctx.saved_tensors
        return grad * (x.abs() <= 1).to(grad.dtype) + grad_keep.to(grad.dtype)


def _nearest_rows(z, codebook):
    return torch.cdist(z, codebook).argmin(-1)


class _Nearest(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, codebook):
        idx = _nearest_rows(z, codebook)
        ctx.mark_non_differentiable(idx)
        return idx

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("VectorQuantization has no gradient")


class _QuantizeST(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, codebook):
        idx = _nearest_rows(z, codebook)
        ctx.save_for_backward(idx, codebook)
        ctx.mark_non_differentiable(idx)
        return codebook[idx], idx

    @staticmethod
    def backward(ctx, grad, grad_idx):
        grad_z = grad_codebook = None
        if ctx.needs_input_grad[0]:
            grad_z = grad.clone()
        if ctx.needs_input_grad[1]:
            idx, codebook = ctx.saved_tensors
            grad_codebook = torch.zeros_like(codebook).index_add_(0, idx, grad)
        return grad_z, grad_codebook


class _OutputKinds(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.codebook = nn.Parameter(torch.randn(5, 4))

    def forward(self, x):
        h = self.fc(x)                                   # [4, 8]
        ramp = torch.linspace(0.5, 1.5, 8)
        loss = (h * _PositiveMask.apply(h) * ramp).sum()
        s, keep = _SignWithMask.apply(h * 2)
        loss = loss + (s * h).sum() + (keep.to(h.dtype) * h).pow(2).sum()
        z = h.reshape(8, 4)
        idx = _Nearest.apply(z, self.codebook.detach())
        loss = loss + (self.codebook[idx] - z.detach()).pow(2).mean()
        q, idx2 = _QuantizeST.apply(z, self.codebook.detach())
        return loss + (q * ramp[:4]).pow(2).sum() + self.codebook[idx2].sin().sum()


def _output_kinds():
    torch.manual_seed(0)
    return _OutputKinds(), (torch.randn(4, 6, generator=_g(1)),)


class _StepQuantize(torch.autograd.Function):
    """LSQ (Esser et al.) as its Function is commonly written: w / alpha
    rounded and clamped to [qn, qp], the step size alpha scalar or per
    channel, its gradient a sum over the elements it scales."""

    @staticmethod
    def forward(ctx, w, alpha, qn, qp):
        ctx.save_for_backward(w, alpha)
        ctx.bounds = qn, qp
        return (w / alpha).round().clamp(qn, qp) * alpha

    @staticmethod
    def backward(ctx, grad):
        w, alpha = ctx.saved_tensors
        qn, qp = ctx.bounds
        q = w / alpha
        low, high = (q < qn).to(grad.dtype), (q > qp).to(grad.dtype)
        inside = 1 - low - high
        coefficient = low * qn + high * qp + inside * (q.round() - q)
        scale = 1.0 / (w.numel() / alpha.numel() * qp) ** 0.5
        # alpha is [1] or [channels, 1]: summed over the dims it broadcasts along
        dims = [0, 1] if alpha.shape[0] == 1 else [1]
        grad_alpha = (coefficient * grad).sum(dims, keepdim=True).reshape(alpha.shape) * scale
        return inside * grad, grad_alpha, None, None


class _Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * s, (grad * x).sum(0)


class _ScaleUnreduced(_Scale):
    """The input's gradient left of the output's shape: torch sums it."""

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * s, grad * x


class _Reductions(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.step = nn.Parameter(torch.tensor([0.05]))
        self.channel_step = nn.Parameter(torch.linspace(0.03, 0.08, 8).reshape(8, 1))
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, 8))
        self.gain = nn.Parameter(torch.linspace(1.5, 0.5, 8).reshape(1, 8))

    def forward(self, x):
        w = _StepQuantize.apply(self.fc.weight, self.step, -8, 7)
        h = F.linear(x, w, self.fc.bias)
        v = _StepQuantize.apply(self.fc.weight * 0.5, self.channel_step, -4, 3)
        h = h + F.linear(x, v)
        h = _ScaleUnreduced.apply(h, self.gain)
        return _Scale.apply(h.tanh(), self.scale).pow(2).sum()


def _reductions():
    torch.manual_seed(0)
    return _Reductions(), (torch.randn(4, 6, generator=_g(1)),)


class _ReplayedViews(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(8, 5)
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, 8))
        self.gain = nn.Parameter(torch.linspace(1.5, 0.5, 8).reshape(1, 8))

    def forward(self, x, y):
        logits = self.out(x.transpose(0, 1)).view(-1, 5)
        h = x[0] * self.scale
        h += 1.0
        flat = h.view(-1)
        with torch.no_grad():
            accuracy = (logits.argmax(-1) == y).float().mean()
            smoothed = logits.clone().fill_(0.1)
            peak = flat.abs().max()
        return (F.cross_entropy(logits, y) + (smoothed * logits).sum() + flat.pow(2).sum()
                + accuracy + peak)


def _replayed_views():
    torch.manual_seed(0)
    return _ReplayedViews(), (torch.randn(3, 2, 8, generator=_g(1)),
                              torch.tensor([0, 1, 2, 3, 4, 0]))


class _NoGradViews(nn.Module):
    def __init__(self):
        super().__init__()
        self.key = nn.Linear(8, 6)
        self.fc = nn.Linear(8, 6)

    def forward(self, x):
        keys = self.key(x.transpose(0, 1))  # bias added in place: not contiguous
        h = self.fc(x[0])
        h.mul_(2.0)
        with torch.no_grad():
            weights = keys.flatten(1).softmax(-1)
            first, rest = h.split([2, 4], dim=1)
            column = h[:, 0]
            tail = keys.T
        loss = (keys.flatten(1) * weights).sum() + (h[:, :2] * first).sum()
        loss = loss + torch.cat([rest, h[:, 2:]], 1).pow(2).sum() * 0.1
        return loss + (column * h[:, 1]).sum() + (tail.sin() * keys.T).mean()


def _no_grad_views():
    torch.manual_seed(0)
    return _NoGradViews(), (torch.randn(3, 2, 8, generator=_g(1)),)


class _RequiresGradReads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.gate = nn.Linear(6, 3)

    def forward(self, x):
        h = self.fc(x)
        with torch.no_grad():
            quiet = h * 2
        flags = [self.fc.weight.requires_grad, h.requires_grad, h[:, 1:].requires_grad,
                 x.requires_grad, h.detach().requires_grad, h.data.requires_grad,
                 quiet.requires_grad, h.argmax(-1).requires_grad,
                 torch.zeros_like(h).requires_grad]
        loss = h.square().mean()
        if h.requires_grad:  # an auxiliary loss only while training
            loss = loss + self.gate(x).softmax(-1).pow(2).mean()
        weights = torch.tensor([float(f) for f in flags[:8]]) * torch.linspace(1.0, 2.0, 8)
        weights = weights + float(flags[8]) * 3.0
        # is_leaf and grad_fn follow (all true in torch); retain_grad is a no-op.
        h.retain_grad()
        leaves = [not h.is_leaf, self.fc.weight.is_leaf, h.grad_fn is not None,
                  x.grad_fn is None, x.is_leaf, quiet.grad_fn is None]
        loss = loss + sum(float(f) * (k + 1) for k, f in enumerate(leaves)) * h.mean()
        return loss + (h.sin().mean(0) * weights).sum()


def _requires_grad_reads():
    torch.manual_seed(0)
    return _RequiresGradReads(), (torch.randn(4, 6, generator=_g(1)),)


class _FrozenLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        self.net[0].weight.requires_grad_(False)

    def forward(self, x):
        return self.net(x).pow(2).mean()


class _DataReadsWrites(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x, y):
        w = self.fc.weight
        mean = w.data.mean(1, keepdim=True)
        std = w.data.std(1, keepdim=True) + 1e-5
        h = F.linear(x, (w - mean) / std, self.fc.bias)
        logpt = F.log_softmax(self.out(h), -1).gather(1, y[:, None])
        pt = logpt.data.exp()
        focal = -((1 - pt) ** 2 * logpt).mean()
        b = torch.tanh(h) * 1.0
        b.data = b.data.sign()
        c = h * 0.5
        c.data.clamp_(-0.2, 0.3)
        d = c.data
        d += 0.1
        e = h * 2.0
        e.data[:, 0].mul_(0.5)
        return (focal + (self.out(b) ** 2).mean() + (c * c.data.sin()).sum() + (e * h).sum()
                + (h[:, :2] * h.data.t()[1:3].t()).sum())


def _data_reads_writes():
    torch.manual_seed(0)
    return _DataReadsWrites(), (torch.randn(5, 6, generator=_g(1)), torch.tensor([0, 2, 1, 1, 0]))


class _LoraHooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6).requires_grad_(False)
        self.fc = nn.Linear(6, 6).requires_grad_(False)
        self.lora = nn.Linear(6, 6, bias=False)
        self.emb.register_forward_hook(lambda module, inputs, out: out.requires_grad_(True))

    def forward(self, idx):
        e = self.emb(idx)
        h = self.fc(e) + self.lora(e)
        weight = 1.0 if e.requires_grad else 0.0
        return h.square().mean() + weight * self.lora(e.sin()).mean()


def _requires_grad_hook():
    torch.manual_seed(0)
    return _LoraHooked(), (torch.tensor([[1, 2, 3], [4, 5, 9]]),)


class _ToggledCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 1)
        self.d = nn.Linear(4, 3)
        self.pi = nn.Linear(4, 4)

    def forward(self, x, y):
        critic = F.mse_loss(self.q(x).squeeze(-1), y)
        held = self.d.weight
        early = self.d.weight.t()             # a view taken with the flag on
        self.q.requires_grad_(False)
        for p in self.d.parameters():
            p.requires_grad = False
        a = torch.tanh(self.pi(x))
        actor = -self.q(a).mean() + (a @ early).pow(2).mean() + (a @ held.t()).sum() * 0.1
        frozen_read = float(self.q.weight.requires_grad) + float(held.requires_grad)
        self.q.requires_grad_(True)
        for p in self.d.parameters():
            p.requires_grad_(True)
        after = self.d(a.detach()).pow(2).mean() * (2.0 - frozen_read)
        return critic + actor + after


def _requires_grad_toggles():
    torch.manual_seed(0)
    return _ToggledCritic(), (torch.randn(5, 4, generator=_g(3)),
                              torch.randn(5, generator=_g(4)))


class _FrozenViews(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4, generator=_g(5)) * 0.3)
        self.register_buffer("m", torch.linspace(0.5, 1.5, 4))

    def forward(self, x, y):
        self.m.requires_grad_(True)
        x = x * self.m
        self.m.requires_grad_(False)
        w = self.w
        w.requires_grad_(False)       # a critic frozen for the actor's loss
        held = torch.zeros(4, 4)
        held[0:4] = w
        frozen = (x @ w.T + x @ w.mT + x @ w.H + x @ w[0:4] + x @ w[...] + (x @ w[None])[0]
                  + x @ held)
        w.requires_grad_(True)
        return F.mse_loss(frozen + x @ w, y)


def _requires_grad_frozen_views():
    return _FrozenViews(), (torch.randn(5, 4, generator=_g(6)),
                            torch.randn(5, 4, generator=_g(7)))


def _frozen():
    torch.manual_seed(0)
    return _FrozenLayer(), (torch.randn(4, 6, generator=_g(1)),)


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
        spread, centre = torch.var_mean(h, 0)
        top, where = h.topk(2, 1)
    with torch.inference_mode():
        shift = (h * 0.0 + 1.0).sum()
    target = (h * 0.5 + 1.0).detach()
    # requires_grad_(False) of a tensor needing no gradient: a no-op (the
    # Annotated Transformer's positional-encoding slice).
    bias = torch.linspace(0.0, 1.0, 8)[:h.shape[1]].requires_grad_(False)
    return (F.mse_loss(h, target + bias) + (h * scale).sum() + (h * above).mean()
            + (h * h.detach()).sum() * 0.1 + shift * 0.01
            + ((h - centre) / (spread + 1).sqrt()).pow(2).sum() * 0.1
            + (h.gather(1, where) * top).sum() * 0.1)


def _clone_module(module):
    """learn2learn's clone_module, in short: a shallow copy of each
    module's tables whose parameters are clones (differentiable)."""
    clone = module.__new__(type(module))
    clone.__dict__ = module.__dict__.copy()
    clone._parameters = {k: p.clone() for k, p in module._parameters.items()}
    clone._modules = {k: _clone_module(m) for k, m in module._modules.items()}
    return clone


class _ModuleCopies(nn.Module):
    """Submodules copied in forward: copy.deepcopy (a batch norm's buffers
    too) whose weight is then moved under no_grad, functorch's
    make_functional with an inner grad step on its parameters (both are
    copies: no gradient reaches the originals through them, as in torch),
    and learn2learn's differentiable clone with an inner step whose
    parameters a hypernetwork-style rebinding replaces."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.Tanh(), nn.Linear(5, 1))
        self.head = nn.Sequential(nn.Linear(6, 4), nn.Tanh(), nn.Linear(4, 1))
        self.learner = nn.Sequential(nn.Linear(6, 3), nn.Tanh(), nn.Linear(3, 1))

    def forward(self, x, y):
        import copy

        from functorch import grad, make_functional
        fast = copy.deepcopy(self.net)
        with torch.no_grad():
            fast[0].weight -= 0.1 * fast[0].weight.sign()
        fmodel, params = make_functional(self.head)
        g = grad(lambda p: F.mse_loss(fmodel(p, x), y))(params)
        adapted = fmodel([p - 0.5 * gi for p, gi in zip(params, g)], x)
        clone = _clone_module(self.learner)
        inner = clone[2].weight.pow(2).sum()
        clone[2]._parameters["weight"] = clone[2].weight - 0.3 * inner * clone[2].weight
        return (F.mse_loss(fast(x), y) + F.mse_loss(self.net(x), y) + F.mse_loss(adapted, y)
                + F.mse_loss(self.head(x), y) + F.mse_loss(clone(x), y)
                + F.mse_loss(self.learner(x), y))


def _module_copies():
    torch.manual_seed(0)
    return _ModuleCopies(), (torch.randn(7, 6, generator=_g(1)),
                             torch.randn(7, 1, generator=_g(2)))


class XSoftmax(torch.autograd.Function):
    """HF DeBERTa's masked softmax: a backward that mixes elements
    (softmax's); check_forward.py uses it too."""

    @staticmethod
    def forward(ctx, x, mask, dim):
        ctx.dim = dim
        rmask = ~mask.to(torch.bool)
        out = torch.softmax(x.masked_fill(rmask, torch.finfo(x.dtype).min), dim)
        out.masked_fill_(rmask, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return torch._softmax_backward_data(grad, out, ctx.dim, out.dtype), None, None


class _ReverseSort(torch.autograd.Function):
    @staticmethod
    def forward(ctx, vectors, logits, sort_idx, undo_idx):
        with torch.no_grad():
            ctx.sort_idx = sort_idx
            vectors = torch.gather(vectors, 2, undo_idx.unsqueeze(-1).expand(vectors.shape))
            logits = torch.gather(logits, 2, undo_idx)
        return vectors, logits

    @staticmethod
    def backward(ctx, grad_vectors, grad_logits):
        idx = ctx.sort_idx
        grad_vectors = torch.gather(grad_vectors, 2, idx.unsqueeze(-1).expand(grad_vectors.shape))
        return grad_vectors, torch.gather(grad_logits, 2, idx), None, None


class _Derivatives(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 6)
        self.v = nn.Linear(8, 8)
        self.g = nn.Linear(8, 1)

    def forward(self, x, mask, order):
        probs = XSoftmax.apply(self.q(x), mask, -1)
        undo = order.argsort(-1)
        vectors, logits = _ReverseSort.apply(self.v(x), self.g(x).squeeze(-1), order, undo)
        return ((probs * torch.arange(6.0)).sum() + (vectors * logits.unsqueeze(-1).sigmoid())
                .pow(2).mean())


def _derivatives():
    torch.manual_seed(0)
    x = torch.randn(2, 2, 6, 8, generator=_g(1))
    mask = (torch.rand(2, 2, 6, 6, generator=_g(2)) > 0.3).long()
    mask[..., 0] = 1
    order = torch.stack([torch.randperm(6, generator=_g(3 + i)) for i in range(4)]).view(2, 2, 6)
    return _Derivatives(), (x, mask, order)
