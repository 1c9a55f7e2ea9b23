"""Tensor.requires_grad while tracing, as eager torch would report it.

make_fx traces below autograd: every traced tensor, the parameters
included, reports requires_grad False, so model code that branches on it
would silently take its no-autograd path. DeepSeek-MoE's AddAuxiliaryLoss
keeps `loss.requires_grad` to decide whether its backward returns the
auxiliary loss's gradient (the load balancing would be off);
`if h.requires_grad: loss = loss + aux` would drop a loss term.

Here each op make_fx records computes the flag of its results the way
autograd does: true when grad mode is on and one of its tensor operands
has it (detach, .data and zeros_like-style factories give false); the
trainable parameters start it (in an imported forward, which computes no
gradient, none: as under torch.no_grad()).
Reading `t.requires_grad` in the model's code (not in the tracing
machinery's) answers with that flag; a tensor that is no traced value (a
module's plain tensor attribute) answers as always. Writing requires_grad
is unchanged.
"""
import contextlib
from typing import Iterable, Iterator

import torch
from torch.utils import _pytree as pytree

from . import patching
from .selection_sizes import _from_model

_FLAG = "_tfc_requires_grad"
# Ops whose results autograd never tracks, whatever their operands: the
# detaching ones, and factories whose tensor operand only gives a shape and
# dtype (torch.zeros_like(h) requires no grad).
_DETACHING = ("detach", "alias", "lift_fresh", "lift_fresh_copy", "zeros_like", "ones_like",
              "full_like", "empty_like", "rand_like", "randn_like", "randint_like", "new_zeros",
              "new_ones", "new_full", "new_empty", "new_empty_strided", "zero")


def _inner(t: torch.Tensor) -> torch.Tensor:
    """The tensor make_fx tracks behind a functionalized one."""
    if torch._is_functional_tensor(t):
        torch._sync(t)
        return torch._from_functional_tensor(t)
    return t


def mark_trainable(tensors: Iterable[torch.Tensor]):
    """Flags the traced parameters that training differentiates."""
    for t in tensors:
        setattr(_inner(t), _FLAG, True)


def flagged(t: torch.Tensor) -> bool:
    """Whether traced `t` reports requires_grad to the model's code."""
    return getattr(_inner(t), _FLAG, False)


@contextlib.contextmanager
def tracked() -> Iterator[None]:
    """Computes the flags of the ops make_fx records, and answers
    requires_grad reads from the model's code with them, meanwhile."""
    from torch.fx.experimental import proxy_tensor

    original_call = proxy_tensor.proxy_call
    descriptor = torch._C._TensorBase.requires_grad

    def proxy_call(mode, func, args, kwargs):
        out = original_call(mode, func, args, kwargs)
        if not torch.is_grad_enabled() or not isinstance(func, torch._ops.OpOverload) or \
                func.overloadpacket.__name__ in _DETACHING or \
                (func.overloadpacket.__name__ == "fill" and func._overloadname == "Scalar"):
            return out
        operands = [a for a in pytree.tree_flatten((args, kwargs))[0]
                    if isinstance(a, torch.Tensor)]
        if any(getattr(a, _FLAG, False) for a in operands):
            for result in pytree.tree_flatten(out)[0]:
                if isinstance(result, torch.Tensor) and \
                        (result.is_floating_point() or result.is_complex()):
                    setattr(result, _FLAG, True)
        return out

    def get(t):
        real = descriptor.__get__(t)
        if real or not torch._is_functional_tensor(t) or not _from_model():
            return real
        return getattr(_inner(t), _FLAG, False)

    def set_(t, value):
        descriptor.__set__(t, value)

    with patching.replaced(proxy_tensor, proxy_call=proxy_call), \
            patching.replaced(torch.Tensor, requires_grad=property(get, set_)):
        yield
