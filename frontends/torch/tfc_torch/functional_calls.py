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

A module copied while swapped (`copy.deepcopy(self.net)`, functorch's
make_functional in forward) is a module of the original class holding the
tensors the module reads meanwhile (module_state.traced_parameters copies
traced ones); a shallow copy of its __dict__ (learn2learn's clone_module)
reads its own tables: a swap applies to the module it was made on only.
"""
import contextlib
import copy
from typing import Dict, Iterator

import torch

from . import patching

_STATELESS = torch.nn.utils.stateless
# torch 1.13's class-swapping implementation (replaced); absent on torch 2.x.
_CLASS_SWAPPING = hasattr(_STATELESS, "_change_class")
# The instance entries of a swapped module: its layers, its own class, the
# id of the module swapped (a copy of the entries is not).
_LAYERS, _CLASS, _OWNER = "_tfc_stateless_layers", "_tfc_stateless_class", "_tfc_stateless_owner"
_ENTRIES = (_LAYERS, _CLASS, _OWNER)
_SWAPPED: Dict[type, type] = {}


def _layers(module) -> list:
    """The swap layers of `module`, outermost first ([] for a copy)."""
    state = object.__getattribute__(module, "__dict__")
    return state[_LAYERS] if state.get(_OWNER) == id(module) else []


def _copy(module, cls: type, memo: dict):
    """copy.deepcopy of a swapped module: one of class `cls` whose tables
    hold (copies of) the tensors the module reads meanwhile."""
    new = cls.__new__(cls)
    memo[id(module)] = new
    state = object.__getattribute__(module, "__dict__")
    for key, value in state.items():
        if key not in _ENTRIES:
            object.__setattr__(new, key, copy.deepcopy(value, memo))
    for values, names in _layers(module):
        for local, full in names.items():
            value = copy.deepcopy(values[full], memo)
            table = (new._parameters if local in new._parameters
                     else new._buffers if local in new._buffers else None)
            if table is not None:
                table[local] = value
            else:
                object.__setattr__(new, local, value)
    # The copy's parameters are parameters, as torch's copy's are (the
    # eager run's stand-ins are plain tensors; a traced tensor stands for
    # one as it is: module_state.traced_parameters).
    made: Dict[int, torch.nn.Parameter] = {}
    for module in new.modules():
        for name, t in module._parameters.items():
            if isinstance(t, torch.Tensor) and not isinstance(t, torch.nn.Parameter) and \
                    not torch._is_functional_tensor(t):
                if id(t) not in made:
                    made[id(t)] = torch.nn.Parameter(t, t.requires_grad)
                module._parameters[name] = made[id(t)]
    return new


def _swapped(cls: type) -> type:
    """The stand-in class of modules of class `cls` while swapped (named
    like torch's, StatelessReplacer<cls>, which error messages skip)."""
    if cls not in _SWAPPED:
        def __getattribute__(self, name):
            for values, names in reversed(_layers(self)):
                if name in names:
                    return values[names[name]]
            return cls.__getattribute__(self, name)

        def __setattr__(self, name, value):
            for values, names in reversed(_layers(self)):
                if name in names:
                    values[names[name]] = value
                    return
            cls.__setattr__(self, name, value)

        def __deepcopy__(self, memo):
            return _copy(self, cls, memo)

        _SWAPPED[cls] = type(f"StatelessReplacer{cls.__name__}", (cls,),
                             {"__getattribute__": __getattribute__,
                              "__setattr__": __setattr__, "__deepcopy__": __deepcopy__})
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
        if state.get(_OWNER) != id(owner):
            state[_LAYERS], state[_CLASS], state[_OWNER] = [], type(owner), id(owner)
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
                owner.__class__ = state[_CLASS]
                for key in _ENTRIES:
                    del state[key]


def nested():
    """functional_call nests meanwhile (a context manager; on torch 2.x
    it does already)."""
    if not _CLASS_SWAPPING:
        return contextlib.nullcontext()
    return patching.replaced(_STATELESS, _reparametrize_module=_reparametrize_module)
