"""Models tfc_torch must refuse for their gradient code: hooks, autograd.grad
and backward in forward, custom autograd Functions whose backward is not
the derivative of their forward (clipping, scaling, reversal, recomputing
ones). As unsupported.py: the line that causes the error carries a trailing
`# error here` comment, which check_errors.py uses."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from unsupported import Base


class GradientHook(Base):
    """A gradient hook on a parameter (per-element clipping): tfc derives
    the gradients itself and runs no hook."""

    def __init__(self):
        super().__init__()
        self.fc.weight.register_hook(lambda g: g.clamp(-1, 1))  # error here

    def forward(self, x):
        return self.fc(x).pow(2).mean()


class TensorHookInForward(nn.Module):
    """A gradient hook on an intermediate, guarded as usual: torch scales
    the encoder's gradient by 0.1; tfc runs no Python hook during the step
    (ignoring it trained on other gradients, silently)."""

    def __init__(self):
        super().__init__()
        self.enc, self.dec = nn.Linear(8, 8), nn.Linear(8, 3)

    def forward(self, x):
        h = self.enc(x)
        if h.requires_grad:
            h.register_hook(lambda g: g * 0.1)  # error here
        return self.dec(h).pow(2).mean()


class MixingBackward(torch.autograd.Function):
    """A custom backward that moves gradients between elements: tfc imports
    elementwise backwards only (grad_input = m * grad_output), and
    differentiating the forward instead would give other gradients."""

    @staticmethod
    def forward(ctx, h):
        return h * 2.0

    @staticmethod
    def backward(ctx, grad):
        return grad.flip(-1) * 2.0


class CustomFunction(Base):
    """A torch.autograd.Function with its own backward inside the model."""

    def forward(self, x):
        return MixingBackward.apply(self.fc(x)).mean()  # error here


class ClippedGradient(torch.autograd.Function):
    """A backward that clips its gradient: m * g only where |g| <= 0.5, so
    not linear in the gradient (a fixed m would be wrong for others)."""

    @staticmethod
    def forward(ctx, h):
        return h * 1.0

    @staticmethod
    def backward(ctx, grad):
        return grad.clamp(-0.5, 0.5)


class ClippingBackward(Base):
    """A custom Function whose backward is not linear in the gradient."""

    def forward(self, x):
        return ClippedGradient.apply(self.fc(x)).pow(2).sum()  # error here


class DecayingGradient(torch.autograd.Function):
    """SR-STE's N:M sparse weights (NM-sparsity): the backward adds a decay
    term for the pruned weights to the gradient, an affine backward that no
    m * grad_output (nor a loss term alone) gives."""

    @staticmethod
    def forward(ctx, w):
        ctx.save_for_backward(w)
        ctx.mask = (w.abs() > 0.2).to(w.dtype)
        return w * ctx.mask

    @staticmethod
    def backward(ctx, grad):
        w, = ctx.saved_tensors
        return grad + 2e-4 * (1 - ctx.mask) * w


class AffineBackward(Base):
    """A custom Function whose backward is affine in the gradient."""

    def forward(self, x):
        w = DecayingGradient.apply(self.fc.weight)  # error here
        return F.linear(x, w, self.fc.bias).pow(2).mean()


class ClippedStepGradient(torch.autograd.Function):
    """A quantizer's step-size gradient clipped after its sum over the
    weights: not linear in the gradient (LSQ's sum alone is)."""

    @staticmethod
    def forward(ctx, w, alpha):
        ctx.save_for_backward(w, alpha)
        return (w / alpha).round() * alpha

    @staticmethod
    def backward(ctx, grad):
        w, alpha = ctx.saved_tensors
        q = w / alpha
        return grad, ((q.round() - q) * grad).sum().clamp(-1e-3, 1e-3).reshape(1)


class ClippedStepSize(Base):
    """A custom Function whose gradient to a broadcast input is not a sum of
    c * grad_output."""

    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.tensor([0.1]))

    def forward(self, x):
        w = ClippedStepGradient.apply(self.fc.weight, self.alpha)  # error here
        return F.linear(x, w, self.fc.bias).pow(2).mean()


class NegatedGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h):
        return h.view_as(h)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class FunctionInTransform(Base):
    """A custom Function inside functorch's vmap(grad(...)): this torch runs
    none inside a transform (tracing it failed an internal assert)."""

    def forward(self, x):
        from functorch import grad, vmap

        def energy(row):
            return torch.tanh(NegatedGradient.apply(self.fc(row))).sum()  # error here
        return vmap(grad(energy))(x).pow(2).sum()


class AutogradGradInForward(Base):
    """torch.autograd.grad inside forward (a PINN residual's u_x): the
    functionalized trace's tensors carry no autograd history; the error
    shows the functorch form (requires_grad_(True) alone is a no-op)."""

    def forward(self, x):
        x = x.clone().requires_grad_(True)
        u = self.fc(x).tanh()
        u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]  # error here
        return (u_x - 1).pow(2).mean()


class AutogradGradOfParameter(Base):
    """torch.autograd.grad of a parameter inside forward (a gradient-norm
    penalty): the traced parameter has no grad_fn either."""

    def forward(self, x):
        loss = self.fc(x).tanh().pow(2).mean()
        g = torch.autograd.grad(loss, self.fc.weight, create_graph=True)[0]  # error here
        return loss + g.pow(2).sum()


class LossInputGradient(Base):
    """A functorch input gradient through binary cross-entropy records
    binary_cross_entropy_backward, which tfc does not lower."""

    def forward(self, x):
        from functorch import grad, vmap
        target = torch.full((4,), 0.5)
        g = vmap(grad(lambda xi: F.binary_cross_entropy(self.fc(xi).sigmoid(), target)))(x)  # error here
        return g.pow(2).mean()


class HessianOfScaled(Base):
    """functorch's hessian (forward mode) of a function multiplying by a
    Python float: torch 1.13 cannot trace it; the error suggests
    jacrev(jacrev(f))."""

    def f(self, p):
        return torch.sin(30.0 * self.fc(p)).sum()  # error here

    def forward(self, x):
        from functorch import hessian, vmap
        h = vmap(hessian(self.f))(x)  # error here
        return h.diagonal(dim1=-2, dim2=-1).sum()


class BackwardInForward(Base):
    """loss.backward() inside forward (an FGSM / PGD attack helper reading
    x_adv.grad): functorch refuses backward() inside its transforms; the
    error is the autograd-in-forward one, with the functorch form."""

    def forward(self, x):
        x_adv = x.clone().requires_grad_(True)
        self.fc(x_adv).pow(2).mean().backward()  # error here
        x_adv = (x + 0.1 * x_adv.grad.sign()).detach()
        return self.fc(x_adv).pow(2).mean()


class _Reversible(torch.autograd.Function):
    """A reversible residual block (Reformer, RevViT, revtorch): the
    backward recomputes the forward and runs autograd on it (the
    parameters passed so that torch calls it: their gradients accumulate
    in its autograd calls)."""

    @staticmethod
    def forward(ctx, x, f, g, *params):
        with torch.no_grad():
            x1, x2 = x.chunk(2, -1)
            y1 = x1 + f(x2)
            y2 = x2 + g(y1)
        ctx.f, ctx.g = f, g
        ctx.save_for_backward(y1, y2)
        return torch.cat([y1, y2], -1)

    @staticmethod
    def backward(ctx, dy):
        y1, y2 = ctx.saved_tensors
        dy1, dy2 = dy.chunk(2, -1)
        with torch.enable_grad():
            y1 = y1.detach().requires_grad_()
            gy1 = ctx.g(y1)
            torch.autograd.backward(gy1, dy2)
        with torch.no_grad():
            x2 = y2 - gy1
            dx1 = dy1 + y1.grad
        with torch.enable_grad():
            x2 = x2.detach().requires_grad_()
            torch.autograd.backward(ctx.f(x2), dx1)
        return (torch.cat([dx1, dy2 + x2.grad], -1), None, None) + (None,) * (
            len(ctx.needs_input_grad) - 3)


class ReversibleFunction(nn.Module):
    """Refused with what to write instead (the plain ops, checkpoint); the
    message spoke of an elementwise backward."""

    def __init__(self):
        super().__init__()
        self.f, self.g = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        return _Reversible.apply(x, self.f, self.g, *self.parameters()).pow(2).mean()  # error here


class _LowerBound(torch.autograd.Function):
    """CompressAI's LowerBoundFunction (GDN): max(x, bound), and the
    gradient passed where x >= bound or where it is negative: on an
    example above the bound its backward is the forward's derivative
    (which the check accepted, differentiating max; later batches below
    the bound got other gradients) and m * g, with m = 1."""

    @staticmethod
    def forward(ctx, x, bound):
        ctx.save_for_backward(x, bound)
        return torch.max(x, bound)

    @staticmethod
    def backward(ctx, grad):
        x, bound = ctx.saved_tensors
        return ((x >= bound) | (grad < 0)).to(grad.dtype) * grad, None


class LowerBoundAboveExample(Base):
    """_LowerBound with the example's values all above its bound."""

    def __init__(self):
        super().__init__()
        self.register_buffer("bound", torch.zeros(1))

    def forward(self, x):
        return (_LowerBound.apply(self.fc(x) + 10.0, self.bound) - 10.0).pow(2).sum()  # error here


class _WideClip(torch.autograd.Function):
    """The identity with the gradient clipped to [-5, 5]: the forward's
    derivative for the example's small gradients (which the check, drawing
    gradients of scale 1, accepted)."""

    @staticmethod
    def forward(ctx, h):
        return h.view_as(h)

    @staticmethod
    def backward(ctx, grad):
        return grad.clamp(-5.0, 5.0)


class WideClippingBackward(Base):
    """_WideClip on an example whose gradients are within its clip."""

    def forward(self, x):
        return _WideClip.apply(self.fc(x) * 1e-3).pow(2).sum()  # error here
