"""functional_call inside the traced forward (MAML's fast weights,
hypernetworks: `functional_call(self.learner, fast_weights, (x,))`).

trace() runs the model under torch's functional_call itself. torch 1.13's
functional_call cannot be nested: it swaps each module's class for one
that reads the given tensors out of the outer call's dictionary, and an
inner call on a module the outer one swapped (any module with parameters
below the model) adds its names to that dictionary's lookup (KeyError
'0.weight') and, when done, restores the module's original class, undoing
the outer swap. `nested()` replaces its reparametrization meanwhile by one
that stacks: each module swapped keeps a list of (tensors, names) layers,
attribute reads and writes of a name go to the innermost layer naming it,
and each call removes only its own layer. torch 2.x's functional_call
(torch.func) swaps the tensors into the modules and back, which nests: it
is left as it is.
"""
import contextlib
from typing import Dict, Iterator

import torch

from . import patching

_STATELESS = torch.nn.utils.stateless
# torch 1.13's class-swapping implementation (replaced); absent on torch 2.x.
_CLASS_SWAPPING = hasattr(_STATELESS, "_change_class")
# The instance entries of a swapped module: its layers, its own class.
_LAYERS, _CLASS = "_tfc_stateless_layers", "_tfc_stateless_class"
_SWAPPED: Dict[type, type] = {}


def _swapped(cls: type) -> type:
    """The stand-in class of modules of class `cls` while swapped (named
    like torch's, StatelessReplacer<cls>, which error messages skip)."""
    if cls not in _SWAPPED:
        def __getattribute__(self, name):
            for values, names in reversed(object.__getattribute__(self, "__dict__")[_LAYERS]):
                if name in names:
                    return values[names[name]]
            return cls.__getattribute__(self, name)

        def __setattr__(self, name, value):
            for values, names in reversed(object.__getattribute__(self, "__dict__")[_LAYERS]):
                if name in names:
                    values[names[name]] = value
                    return
            cls.__setattr__(self, name, value)

        _SWAPPED[cls] = type(f"StatelessReplacer{cls.__name__}", (cls,),
                             {"__getattribute__": __getattribute__,
                              "__setattr__": __setattr__})
    return _SWAPPED[cls]


@contextlib.contextmanager
def _reparametrize_module(module: torch.nn.Module,
                          parameters_and_buffers: Dict[str, torch.Tensor]) -> Iterator[None]:
    """torch 1.13's stateless._reparametrize_module, nested-safe: the
    attribute named by each key of `parameters_and_buffers` (a
    state_dict-style name below `module`) reads that entry, and assigning
    it rebinds the entry, until the block ends."""
    owners = {}
    for full in parameters_and_buffers:
        *path, local = full.split(".")
        owner = module
        for part in path:
            owner = getattr(owner, part)
        owners.setdefault(id(owner), (owner, {}))[1][local] = full
    layers = []
    for owner, names in owners.values():
        state = owner.__dict__
        if _LAYERS not in state:
            state[_LAYERS], state[_CLASS] = [], type(owner)
            owner.__class__ = _swapped(type(owner))
        layer = (parameters_and_buffers, names)
        state[_LAYERS].append(layer)
        layers.append((owner, layer))
    try:
        yield
    finally:
        for owner, layer in reversed(layers):
            state = owner.__dict__
            stack = state[_LAYERS]
            del stack[next(i for i in range(len(stack) - 1, -1, -1) if stack[i] is layer)]
            if not stack:
                owner.__class__ = state.pop(_CLASS)
                del state[_LAYERS]


def nested():
    """functional_call nests meanwhile (a context manager; on torch 2.x
    it does already)."""
    if not _CLASS_SWAPPING:
        return contextlib.nullcontext()
    return patching.replaced(_STATELESS, _reparametrize_module=_reparametrize_module)
