"""What a traced forward does to its module's state besides computing.

trace() calls the module with its parameters and buffers swapped for
traced placeholders (functional_call). Model code reaches and changes that
state in ways functional_call alone does not route to the placeholders:

- `.parameters()` / `.buffers()` and their named forms iterate the
  modules' own tables, not the swapped attributes: MoCo's momentum update
  `for pq, pk in zip(q.parameters(), k.parameters()): pk.mul_(m).add_(pq)`
  would read the user's tensors (constants of the trace) and write them.
  `state_tables(model, state)` puts the placeholders into those tables for
  the call.
- A buffer rebound in forward (`self.center = self.center * m + c * (1 -
  m)`, DINO; zalando's VQ-VAE EMA) or set through `.data` (`pk.data =
  pk.data * m + pq.data * (1 - m)`, MoCo's official form): functional_call
  records the new tensor in its state dict, and `.data =` swaps a tensor's
  contents out of the graph's sight. `carry_rebindings` and
  `data_writes` turn both into an in-place copy into the placeholder,
  which the import carries as model state (an update the training step
  applies each call, as for in-place writes). A trainable parameter
  rebound or set through `.data` is refused: the optimizer owns it.
- Plain Python attributes changed by forward (a step counter for KL
  annealing, an `initialized` flag) are baked into the trace with the
  values of the traced call. `attributes_kept(model)` restores them after
  tracing (compiling leaves the module as it was) and names the changed
  ones in a TracedUpdateWarning.
"""
import contextlib
import os
import sys
import warnings
from typing import Dict, Iterator, Set

import torch

from . import patching
from .errors import ModelError, TracedUpdateWarning

# What to do instead of writing a trainable parameter in forward.
TRAINABLE_WRITE_HINT = ("use the new value functionally (F.conv2d(x, self.weight * self.mask)), "
                        "write the parameter outside the compiled step "
                        "(TrainStep.load_state_dict), or freeze it (requires_grad=False) to "
                        "make it model state")
# Attribute values compared before and after the trace.
_PLAIN = (bool, int, float, str, type(None))


def _owner(model: torch.nn.Module, name: str):
    """(submodule, local name) of a state_dict-style name."""
    *path, local = name.split(".")
    module = model
    for part in path:
        module = getattr(module, part)
    return module, local


# The ids of the traced placeholders of the call being traced (the tensors
# that are model state themselves, not views or copies of it).
_PLACEHOLDERS: Set[int] = set()


def is_state(t) -> bool:
    """Whether `t` is a parameter's or buffer's traced placeholder itself
    in the call being traced (a view or a temporary is not)."""
    return id(t) in _PLACEHOLDERS


@contextlib.contextmanager
def state_tables(model: torch.nn.Module, state: Dict[str, torch.Tensor]) -> Iterator[None]:
    """The modules' _parameters / _buffers entries named in `state` hold
    its tensors meanwhile, so iterating them (`.parameters()`, `.buffers()`)
    sees what attribute reads see; is_state() knows them."""
    outer = set(_PLACEHOLDERS)
    _PLACEHOLDERS.update(id(t) for t in state.values())
    saved = []
    for name, t in state.items():
        module, local = _owner(model, name)
        table = (module._parameters if local in module._parameters
                 else module._buffers if local in module._buffers else None)
        if table is not None:
            saved.append((table, local, table[local]))
            table[local] = t
    try:
        yield
    finally:
        for table, local, original in reversed(saved):
            table[local] = original
        _PLACEHOLDERS.intersection_update(outer)


def _copy_into(holder: torch.Tensor, value, what: str, frame_hint: str):
    """holder.copy_(value) without recording a gradient, after checking
    that value can stand for holder (same shape; dtype converted)."""
    if not isinstance(value, torch.Tensor) or tuple(value.shape) != tuple(holder.shape):
        shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
        raise ModelError(f"forward replaces {what} of shape {tuple(holder.shape)} with "
                         f"{shape}; tfc compiles model state of fixed shapes",
                         hint=frame_hint)
    with torch.no_grad():
        holder.copy_(value)


def carry_rebindings(state: Dict[str, torch.Tensor], placeholders: Dict[str, torch.Tensor],
                     trainable: Set[str]):
    """After the call: every name whose entry in functional_call's `state`
    no longer is its placeholder was rebound by forward; a buffer's (or a
    frozen parameter's) new value is copied into the placeholder, a
    trainable parameter's is refused."""
    for name, holder in placeholders.items():
        value = state.get(name, holder)
        if value is holder:
            continue
        if name in trainable:
            raise ModelError(
                f"forward replaces the trainable parameter '{name}' (self.{name.split('.')[-1]}"
                " = ...); tfc's training step updates trainable parameters through the "
                "optimizer only",
                hint=TRAINABLE_WRITE_HINT)
        _copy_into(holder, value, f"buffer '{name}'",
                   "keep the state's shape, or compute the value in forward without storing it")
        state[name] = holder


@contextlib.contextmanager
def data_writes(placeholders: Dict[str, torch.Tensor], trainable: Set[str]) -> Iterator[None]:
    """`t.data = value` on a placeholder meanwhile: an in-place copy for a
    buffer or frozen parameter, refused for a trainable parameter; on any
    other tensor torch's own `.data` assignment."""
    names = {id(t): n for n, t in placeholders.items()}
    prop = torch._C._TensorBase.data

    def set_data(t, value):
        name = names.get(id(t))
        if name is None:
            return prop.__set__(t, value)
        if name in trainable:
            raise ModelError(
                f"forward sets the trainable parameter '{name}' through .data; tfc's training "
                "step updates trainable parameters through the optimizer only",
                hint=TRAINABLE_WRITE_HINT)
        _copy_into(t, value, f"'{name}' (through .data)",
                   "keep the state's shape")
    with patching.replaced(torch.Tensor, data=property(prop.__get__, set_data)):
        yield


def caller_level() -> int:
    """warnings.warn's stacklevel of the first frame outside the frontend
    (and contextlib): the user's call of export / compile."""
    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    skip = (here, os.path.dirname(contextlib.__file__) + os.sep + "contextlib.py")
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(skip):
        frame, level = frame.f_back, level + 1
    return level


def _plain_attributes(model: torch.nn.Module):
    return {(prefix, key): value
            for prefix, module in model.named_modules(remove_duplicate=False)
            for key, value in vars(module).items()
            if isinstance(value, _PLAIN) and not key.startswith("_")}


@contextlib.contextmanager
def attributes_kept(model: torch.nn.Module, model_name: str) -> Iterator[None]:
    """Restores the modules' plain attributes (numbers, flags, strings)
    after the block and warns about those the traced forward changed."""
    before = _plain_attributes(model)
    try:
        yield
    finally:
        changed = []
        for (prefix, key), value in before.items():
            module = model.get_submodule(prefix) if prefix else model
            now = vars(module).get(key, value)
            if now is not value and now != value:
                changed.append(f"{prefix + '.' if prefix else ''}{key} (was {value!r})")
                setattr(module, key, value)
        if changed:
            warnings.warn(
                f"{model_name}'s forward changes the Python attributes {', '.join(changed)}: "
                "a trace keeps the values the traced call saw, so every compiled call computes "
                "as that call did (a step counter does not advance, an init-once branch runs "
                "every time); the module's attributes are restored. Keep such values in "
                "registered buffers (updated in place or re-assigned: both are carried) or "
                "pass them as inputs",
                TracedUpdateWarning, stacklevel=caller_level())
