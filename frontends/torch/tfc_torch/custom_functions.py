"""Custom torch.autograd.Function subclasses, imported with their backward.

tfc derives gradients from the traced forward ops, and make_fx cannot trace
a Function at all (torch 1.13's functorch refuses them). While tracing,
`Function.apply` is replaced (`applied`): the Function's forward runs
under no_grad (its ops carry no gradient), and its backward is imported in
the form most custom Functions have, an elementwise one,

    grad_input_i = m_i * grad_output      (m_i of the output's shape),

which covers straight-through estimators (m = 1 or a mask), gradient
reversal (m = -lambda), gradient scaling and clipping masks, and custom
activations with hand-written derivatives (m = f'(x)). m_i is the backward
of a gradient of ones, computed in the trace from the saved tensors; the
output is then `tfc_torch::straight_through(y, sum_i m_i * x_i)`: y's value
with the gradient m_i * g to each input x_i (ops/autograd.py lowers it to
tfc.straight_through).

The eager run after the trace (no_grad_writes.mark, `applied(check=True)`)
checks that form on the real values: the backward of a random gradient
must equal m_i times it, else the Function is refused with its name (a
backward that mixes elements, such as a custom matmul or softmax, is not
imported). One tensor output (floating point), inputs of its shape.
"""
import contextlib
from typing import Optional

import torch

from .errors import FrontendError, ModelError

# The frontend's own torch op: `value` with the gradient of `source` (the
# identity to source): recorded by make_fx like an aten op.
_LIBRARY = torch.library.Library("tfc_torch", "DEF")
_LIBRARY.define("straight_through(Tensor value, Tensor source) -> Tensor")
_LIBRARY.impl("straight_through", lambda value, source: value.clone(),
              "CompositeExplicitAutograd")

PROBLEM_HINT = ("write the forward with differentiable torch ops (tfc differentiates them), or "
                "give the Function an elementwise backward (grad_input = m * grad_output)")


class _TraceContext:
    """The `ctx` a Function's forward and backward see while tracing."""

    def __init__(self, args):
        self.saved_tensors = ()
        self.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.is_floating_point()
                                      for a in args)
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tuple(tensors)

    def save_for_forward(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = value


def _refuse(cls, why: str):
    name = getattr(cls, "__qualname__", str(cls))
    raise ModelError(f"custom torch.autograd.Function '{name}': {why}", hint=PROBLEM_HINT)


def _grads(cls, ctx, grad):
    """cls.backward(ctx, grad) as a tuple, under no_grad."""
    with torch.no_grad():
        out = cls.backward(ctx, grad)
    return out if isinstance(out, tuple) else (out,)


def _forward(cls, ctx, args):
    """The Function's forward under no_grad (torch 2's setup_context form
    too)."""
    base = getattr(torch.autograd.Function, "setup_context", None)
    setup = getattr(cls, "setup_context", None)
    with torch.no_grad():
        if setup is not None and getattr(setup, "__func__", setup) is not getattr(base, "__func__",
                                                                                    base):
            out = cls.forward(*args)
            setup(ctx, args, out)
            return out
        return cls.forward(ctx, *args)


def _apply(cls, *args, check: bool = False):
    try:
        return _import(cls, args, check)
    except FrontendError:
        raise
    except Exception as e:  # noqa: BLE001 - re-raised with the Function's name
        from .tracing import DATA_DEPENDENT_MARKERS  # (tracing imports this module)
        text = f"{type(e).__name__}: {e}".splitlines()[0]
        if any(m in text for m in DATA_DEPENDENT_MARKERS):
            raise  # the tracer's own message for value-dependent control flow
        _refuse(cls, f"running its forward or backward while tracing failed ({text})")


def _import(cls, args, check):
    ctx = _TraceContext(args)
    out = _forward(cls, ctx, args)
    if not isinstance(out, torch.Tensor) or not out.is_floating_point():
        _refuse(cls, "tfc imports Functions with one floating-point tensor output")
    grads = _grads(cls, ctx, torch.ones_like(out))
    if len(grads) < len(args):
        _refuse(cls, f"its backward returned {len(grads)} gradients for {len(args)} inputs")
    differentiable = [(a, m) for a, m in zip(args, grads)
                      if m is not None and isinstance(a, torch.Tensor) and a.is_floating_point()]
    for a, m in differentiable:
        if not isinstance(m, torch.Tensor) or m.shape != out.shape or a.shape != out.shape:
            _refuse(cls, "tfc imports an elementwise backward only (inputs and gradients of "
                         "the output's shape)")
    if check:
        _check_elementwise(cls, ctx, out, args, grads)
    if not differentiable:
        return out
    source = None
    for a, m in differentiable:
        term = m.detach().to(out.dtype) * a.to(out.dtype)
        source = term if source is None else source + term
    return torch.ops.tfc_torch.straight_through(out, source)


def _check_elementwise(cls, ctx, out, args, ones_grads):
    """The backward of a random gradient g must be m * g for every input
    (m: the backward of ones), on the eager run's real values."""
    g = torch.randn(out.shape, generator=torch.Generator().manual_seed(0)).to(out.dtype)
    grads = _grads(cls, ctx, g)
    for i, (a, m, got) in enumerate(zip(args, ones_grads, grads)):
        if m is None or got is None or not isinstance(a, torch.Tensor):
            continue
        want = (m.detach() * g).double()
        got = got.detach().double()
        scale = float(want.abs().max()) if want.numel() else 0.0
        if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-3,
                                                         atol=1e-5 * max(scale, 1e-30)):
            _refuse(cls, f"the gradient of input {i} is not m * grad_output (its backward "
                         "mixes elements: tfc imports an elementwise backward only)")


@contextlib.contextmanager
def applied(check: bool = False):
    """Replaces torch.autograd.Function.apply while tracing (check=False) or
    while the eager run checks the backwards (check=True)."""
    owner = torch.autograd.Function
    had: Optional[object] = owner.__dict__.get("apply")

    def apply(cls, *args):
        return _apply(cls, *args, check=check)
    owner.apply = classmethod(apply)
    try:
        yield
    finally:
        if had is None:
            del owner.apply
        else:
            owner.apply = had
