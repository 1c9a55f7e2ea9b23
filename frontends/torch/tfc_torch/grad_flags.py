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
machinery's) answers with that flag, and `t.is_leaf` / `t.grad_fn` with
what follows from it (a flagged result of an op: no leaf, a grad_fn); a
tensor that is no traced value (a module's plain tensor attribute)
answers as always.

Writing requires_grad of a trainable parameter in forward (Spinning Up's
`for p in q.parameters(): p.requires_grad = False` around the policy loss,
DreamerV3's RequiresGrad context, a GAN's discriminator frozen for the
generator's loss) is torch's: ops that use the parameter while the flag is
off record no gradient path to it, uses before the freeze and after
`requires_grad_(True)` do. set_requires_grad notes the frozen parameters;
meanwhile every torch function given one (an operand, not the tensor an
in-place op writes) gets its detached alias (_FrozenReads). A parameter
still frozen when forward returns gets no gradient at all in torch (whose
backward checks the flag) and stays frozen for the later steps: refused,
with the line that froze it (freeze it before compiling instead).
"""
import contextlib
from typing import Dict, Iterable, Iterator, Optional, Tuple

import torch
from torch.utils import _pytree as pytree

from . import patching
from .errors import ModelError
from .selection_sizes import from_model
from .source import Frame, stack_frame

_FLAG = "_tfc_requires_grad"
_LEAF = "_tfc_leaf"  # on the trainable parameters
# On the trainable parameters the model holds (not on a tensor forward made
# require grad, a buffer's requires_grad_(True): turning that off again is
# no freeze).
_PARAMETER = "_tfc_parameter"
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


def mark_trainable(tensors: Iterable[torch.Tensor], parameters: bool = True):
    """Flags the traced parameters that training differentiates (leaves);
    `parameters=False`: leaves forward made require grad (requires_grad_()
    of a buffer or a computed tensor), which forward may turn off again."""
    for t in tensors:
        inner = _inner(t)
        setattr(inner, _FLAG, True)
        setattr(inner, _LEAF, True)
        setattr(inner, _PARAMETER, parameters)


class TracedGradFn:
    """What `grad_fn` of a traced tensor computed with gradient answers in
    the model's code: not None, as in torch (the trace keeps no autograd
    graph to walk)."""
    next_functions = ()

    def name(self):
        return "TracedBackward"


_GRAD_FN = TracedGradFn()


def flagged(t: torch.Tensor) -> bool:
    """Whether traced `t` reports requires_grad to the model's code."""
    return getattr(_inner(t), _FLAG, False)


# The trainable parameters forward froze (requires_grad False) in the call
# being traced: id -> (the traced parameter, its detached alias, the line).
_FROZEN: Dict[int, Tuple[torch.Tensor, torch.Tensor, Optional[Frame]]] = {}


def set_requires_grad(t: torch.Tensor, value: bool) -> bool:
    """`t.requires_grad = value` / `t.requires_grad_(value)` in the traced
    forward: True when `t` is a trainable traced leaf (a parameter's
    placeholder) and it was handled here (frozen: later uses detached;
    unfrozen: used as it is again)."""
    if not torch._is_functional_tensor(t):
        return False
    entry = _FROZEN.get(id(t))
    if entry is not None and entry[0] is t:
        if value:
            del _FROZEN[id(t)]
            setattr(_inner(t), _FLAG, True)
        return True
    inner = _inner(t)
    if not (getattr(inner, _LEAF, False) and getattr(inner, _FLAG, False)):
        return False
    if not getattr(inner, _PARAMETER, True):
        setattr(inner, _FLAG, value)    # a buffer's flag turned off again: no freeze
        return True
    if not value:
        with torch._C.DisableTorchFunction():
            alias = t.detach()
        _FROZEN[id(t)] = (t, alias, stack_frame())
        setattr(inner, _FLAG, False)
    return True


def _unfrozen(a):
    entry = _FROZEN.get(id(a)) if isinstance(a, torch.Tensor) else None
    return entry[1] if entry is not None and entry[0] is a else a


# The dunder methods that write their first operand (a property's setter,
# item assignment, the augmented assignments); every other dunder reads it
# (__getitem__, a property's getter such as .T / .mT / .H: __get__).
_DUNDER_WRITES = {"__set__", "__setitem__", "__delitem__"} | {
    f"__i{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "div", "mod",
                            "pow", "and", "or", "xor", "lshift", "rshift")}


def _writes_first(name: str) -> bool:
    """Whether a torch function named `name` writes its first operand: an
    in-place op (one trailing underscore on a plain name: add_, copy_) or a
    writing dunder (_DUNDER_WRITES)."""
    if name.startswith("__") and name.endswith("__"):
        return name in _DUNDER_WRITES
    return name.endswith("_") and not name.endswith("__")


class _FrozenReads(torch.overrides.TorchFunctionMode):
    """Torch functions see the detached alias of each frozen parameter
    (_FROZEN) among their operands; the tensor an in-place op or a setter
    writes (its first argument) is left as it is (Tensor.__getitem__ /
    __setitem__, which reach no mode in torch 1.13: grad_flags' context)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if _FROZEN:
            first = 1 if args and _writes_first(getattr(func, "__name__", "")) else 0
            args = tuple(args[:first]) + tuple(pytree.tree_map(_unfrozen, list(args[first:])))
            kwargs = pytree.tree_map(_unfrozen, kwargs)
        return func(*args, **kwargs)


def _refuse_left_frozen() -> None:
    """A trainable parameter forward froze and did not unfreeze."""
    if not _FROZEN:
        return
    frozen = list(_FROZEN.values())
    _FROZEN.clear()
    shapes = ", ".join(str(list(t.shape)) for t, _, _ in frozen[:4])
    raise ModelError(
        f"forward sets requires_grad=False on trainable parameters (of shapes {shapes}) and "
        "leaves them frozen: torch then gives them no gradient at all (backward checks the "
        "flag) and they stay frozen for every later step", frozen[0][2],
        "freeze them before compiling (p.requires_grad_(False), then compile), or turn "
        "requires_grad back on before forward returns: the ops in between then pass them no "
        "gradient, as in torch")


# On results of ops computed from shapes and constants alone (no parameter,
# buffer, input or random draw reaches them: RIFE's cached sampling grid,
# torch.linspace expanded to the batch's size).
_SHAPES_ONLY = "_tfc_shapes_only"
_RANDOM = frozenset((
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
    "bernoulli", "normal", "uniform", "exponential", "multinomial", "native_dropout",
    "poisson", "rrelu_with_noise", "cauchy", "geometric", "log_normal", "random"))


def _note_shapes_only(func, operands, results, slot) -> None:
    """Flags the tensors of `results` when every tensor of `operands` is a
    constant (no traced value: no proxy in its `slot` entry) or flagged
    itself, and func draws nothing; clears the flag otherwise (an in-place
    op writing a flagged tensor)."""
    constant = func.overloadpacket.__name__ not in _RANDOM
    if constant:
        for a in operands:
            entries = a.__dict__
            if entries.get(slot) and not entries.get(_SHAPES_ONLY):
                constant = False
                break
    for result in results:
        if isinstance(result, torch.Tensor):
            if constant:
                result.__dict__[_SHAPES_ONLY] = True
            elif result.__dict__.get(_SHAPES_ONLY):
                del result.__dict__[_SHAPES_ONLY]


def shapes_only(t: torch.Tensor) -> bool:
    """Whether traced `t` was computed from shapes and constants alone (a
    value every call of the compiled program computes alike)."""
    try:
        return torch._is_functional_tensor(t) and getattr(_inner(t), _SHAPES_ONLY, False)
    except RuntimeError:
        return False


@contextlib.contextmanager
def tracked() -> Iterator[None]:
    """Computes the flags of the ops make_fx records, and answers
    requires_grad reads from the model's code with them, meanwhile."""
    from torch.fx.experimental import proxy_tensor

    original_call = proxy_tensor.proxy_call
    descriptor = torch._C._TensorBase.requires_grad

    # Where torch 1.13's make_fx keeps a tensor's proxies (its __dict__
    # entry); None on torch 2 (which tracks them elsewhere): no shapes-only
    # flags there.
    slot = getattr(proxy_tensor, "proxy_slot", None)

    def proxy_call(mode, func, args, kwargs):
        out = original_call(mode, func, args, kwargs)
        if not isinstance(func, torch._ops.OpOverload):
            return out
        operands = [a for a in pytree.tree_flatten((args, kwargs))[0]
                    if isinstance(a, torch.Tensor)]
        results = pytree.tree_flatten(out)[0]
        if slot is not None:
            _note_shapes_only(func, operands, results, slot)
        if not torch.is_grad_enabled() or \
                func.overloadpacket.__name__ in _DETACHING or \
                (func.overloadpacket.__name__ == "fill" and func._overloadname == "Scalar"):
            return out
        if any(getattr(a, _FLAG, False) for a in operands):
            for result in results:
                if isinstance(result, torch.Tensor) and \
                        (result.is_floating_point() or result.is_complex()):
                    setattr(result, _FLAG, True)
        return out

    leaf_descriptor = torch._C._TensorBase.is_leaf
    grad_fn_descriptor = torch._C._TensorBase.grad_fn

    def traced(t) -> bool:
        """Whether a read of `t`'s autograd state answers from the flags."""
        return torch._is_functional_tensor(t) and from_model(3)

    def get(t):
        real = descriptor.__get__(t)
        if real or not traced(t):
            return real
        return getattr(_inner(t), _FLAG, False)

    def set_(t, value):
        if not set_requires_grad(t, bool(value)):
            descriptor.__set__(t, value)

    def is_leaf(t):
        if not traced(t):
            return leaf_descriptor.__get__(t)
        inner = _inner(t)
        return getattr(inner, _LEAF, False) or not getattr(inner, _FLAG, False)

    def grad_fn(t):
        if not traced(t):
            return grad_fn_descriptor.__get__(t)
        inner = _inner(t)
        flagged = getattr(inner, _FLAG, False) and not getattr(inner, _LEAF, False)
        return _GRAD_FN if flagged else None

    # Tensor.__getitem__ / __setitem__ reach no torch function mode in torch
    # 1.13: a frozen parameter indexed (w[0:4], w[None]) or assigned from
    # gets its detached alias here (the tensor __setitem__ writes is kept).
    getitem, setitem = torch.Tensor.__getitem__, torch.Tensor.__setitem__

    def frozen_getitem(t, index):
        if _FROZEN:
            t, index = _unfrozen(t), pytree.tree_map(_unfrozen, index)
        return getitem(t, index)

    def frozen_setitem(t, index, value):
        if _FROZEN:
            index, value = pytree.tree_map(_unfrozen, index), _unfrozen(value)
        return setitem(t, index, value)

    _FROZEN.clear()
    try:
        with patching.replaced(proxy_tensor, proxy_call=proxy_call), \
                patching.replaced(torch.Tensor, requires_grad=property(get, set_),
                                  is_leaf=property(is_leaf), grad_fn=property(grad_fn),
                                  __getitem__=frozen_getitem, __setitem__=frozen_setitem), \
                _FrozenReads():
            yield
    except BaseException:
        _FROZEN.clear()
        raise
    _refuse_left_frozen()
