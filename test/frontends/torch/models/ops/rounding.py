"""Cases for tfc_torch/ops/rounding.py's lowerings: the piecewise-constant
floor, ceil, trunc and round (half to even) with their zero gradients, and
frac."""
import torch

from .common import _case

CASES = {
    # Piecewise-constant rounding: values (ties to even, signed zeros) and
    # zero gradients; frac passes the gradient through.
    "rounding": _case(lambda h: ((torch.floor(h * 3) + torch.ceil(h * 3) + torch.trunc(h * 3)
                                  + torch.round(h * 3) + torch.frac(h * 3)) * h).sum()
                      + (torch.round(torch.arange(-10, 11) * 0.25 + h.sum() * 0)
                         * torch.arange(1, 22)).sum()
                      + (1.0 / (torch.ceil(h * 0 - 0.5) + torch.trunc(h * 0 - 0.5))).clamp(-1, 1).sum()
                      # beyond 2^23 every f32 is an integer: still a zero gradient
                      + (torch.floor(h * 1e8) * 1e-8).sum()),
}
