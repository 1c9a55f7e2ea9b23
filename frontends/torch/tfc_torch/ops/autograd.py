"""Lowerings of the frontend's own torch ops (custom_functions.py):
tfc_torch::straight_through, a custom autograd.Function's output with its
imported backward."""
from ..registry import lowers


@lowers("tfc_torch.straight_through.default")
def straight_through(ctx, value, source):
    """`value` with the gradient of `source` (tfc.straight_through)."""
    t = ctx.out()
    return ctx.b.straight_through(ctx.tensor(value, t.dtype), ctx.tensor(source, t.dtype))
