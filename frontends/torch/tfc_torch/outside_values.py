"""Values a traced forward takes from outside torch's ops.

A trace records torch ops only. Two other ways model code gets values
would compile silently wrong programs:

- A tensor's values read into numpy (`h.detach().cpu().numpy()`,
  `np.asarray(h)`: a monotonic alignment search in numpy, a period picked
  from a numpy FFT). While tracing, the tensors hold no values numpy can
  read (it reads uninitialized memory), and whatever numpy computes from
  them would be a constant of the program anyway. `guarded()` makes
  Tensor.numpy and Tensor.__array__ raise a DataDependentError at the
  model's line meanwhile.
- Draws from Python's `random` or numpy's global generator (a SpecAugment
  mask placed by random.randint), or from a generator a module holds
  (random.Random, numpy's RandomState / Generator): drawn once while
  tracing, they are constants of the program, the same mask every call. `guarded()` notices
  that the generators' states moved, warns (TracedUpdateWarning) and puts
  the states back (compiling consumes none of the user's draws).
"""
import contextlib
import random
import types
import warnings
from typing import Dict, Iterator, List, Optional, Tuple

import torch

from . import patching
from .errors import DataDependentError, TracedUpdateWarning
from .module_state import caller_level
from .source import stack_frame

try:
    import numpy
except ImportError:  # numpy is optional for torch
    numpy = None

_HINT = ("compute it with torch ops on the tensor (torch.where, cumsum, max over a dim, ...), "
         "or move the numpy step out of the model: into data preparation, or a "
         "precomputed input")


def _refusing(what: str):
    def refuse(t, *args, **kwargs):
        raise DataDependentError(
            f"the model reads a tensor's values into numpy ({what}): a trace records torch "
            "ops only, so numpy's result would be a constant of the compiled program (and "
            "while tracing the tensor holds no values numpy can read)", stack_frame(), _HINT)
    return refuse


def _states():
    return (random.getstate(), numpy.random.get_state() if numpy is not None else None)


def _same_numpy_state(a, b) -> bool:
    if a is None:
        return True
    return a[0] == b[0] and bool((a[1] == b[1]).all()) and a[2:] == b[2:]


def _held_generators(model: Optional[torch.nn.Module]) -> List[Tuple[str, object]]:
    """(name, generator) of the random generators the model's modules hold
    as attributes (NeMo's SpecAugment: self._rng = random.Random(seed);
    numpy's RandomState and Generator), directly or in a list or dict."""
    if model is None:
        return []
    kinds = (random.Random,)
    if numpy is not None:
        kinds += (numpy.random.RandomState, numpy.random.Generator)
    found = []
    for path, module in model.named_modules():
        for attr, value in vars(module).items():
            values = [(attr, value)]
            if isinstance(value, (list, tuple)):
                values = [(f"{attr}[{i}]", v) for i, v in enumerate(value[:64])]
            elif isinstance(value, dict):
                values = [(f"{attr}[{k!r}]", v) for k, v in list(value.items())[:64]]
            for name, v in values:
                if isinstance(v, kinds) and not isinstance(v, random.SystemRandom):
                    found.append((f"{path}.{name}" if path else name, v))
    return found


def _generator_state(g):
    if isinstance(g, random.Random):
        return g.getstate()
    if isinstance(g, numpy.random.RandomState):
        return g.get_state()
    return g.bit_generator.state


def _restore_generator(g, state):
    if isinstance(g, random.Random):
        g.setstate(state)
    elif isinstance(g, numpy.random.RandomState):
        g.set_state(state)
    else:
        g.bit_generator.state = state


def _same_generator_state(a, b) -> bool:
    if isinstance(a, tuple) and len(a) == 5 and isinstance(a[0], str):  # RandomState
        return _same_numpy_state(a, b)
    if isinstance(a, dict):  # a Generator's bit generator
        return repr(a) == repr(b)
    return a == b


def _python_places(model: Optional[torch.nn.Module]) -> Dict[Tuple[int, str], tuple]:
    """(owner, name) -> (owner, value) of the globals of the model code's
    namespaces and the attributes of the functions among them: where a
    forward may keep a tensor across calls (fairseq's buffered_arange caches
    one on itself)."""
    from .custom_functions import code_globals  # (it imports this module's peers only)
    places = {}
    if model is None:
        return places
    for space in code_globals(model):
        for name, value in list(space.items()):
            places[(id(space), name)] = (space, value)
            if isinstance(value, types.FunctionType):
                for attr, v in list(vars(value).items()):
                    places[(id(value), attr)] = (value, v)
    return places


def _traced_leftover(value) -> bool:
    return isinstance(value, torch.Tensor) and torch._is_functional_tensor(value)


def _drop_traced_leftovers(model: Optional[torch.nn.Module], before) -> None:
    """Puts back the globals and function attributes that now hold a tensor
    of the trace (a cache the traced forward filled): the user's next eager
    call would compute with it. A place the trace created goes away."""
    for key, (owner, value) in _python_places(model).items():
        if not _traced_leftover(value):
            continue
        old = before.get(key)
        if isinstance(owner, dict):
            if old is None:
                owner.pop(key[1], None)
            else:
                owner[key[1]] = old[1]
        elif old is None:
            delattr(owner, key[1])
        else:
            setattr(owner, key[1], old[1])


@contextlib.contextmanager
def guarded(model_name: str, model: Optional[torch.nn.Module] = None) -> Iterator[None]:
    """See the module doc: numpy reads refused, host random draws warned
    about and undone, for the duration of the trace; also draws from the
    generators `model`'s modules hold; tensors of the trace left in the
    model code's globals or function attributes taken back."""
    before = _states()
    held = _held_generators(model)
    held_before = [_generator_state(g) for _, g in held]
    places = _python_places(model)
    try:
        with patching.replaced(torch.Tensor, numpy=_refusing(".numpy()"),
                               __array__=_refusing("np.asarray / np.array of a tensor")):
            yield
    finally:
        after = _states()
        drew = [name for name, moved in (
            ("random", before[0] != after[0]),
            ("numpy.random", not _same_numpy_state(before[1], after[1]))) if moved]
        for (name, g), state in zip(held, held_before):
            if not _same_generator_state(state, _generator_state(g)):
                drew.append(f"the generator {name} ({type(g).__name__})")
            _restore_generator(g, state)
        _drop_traced_leftovers(model, places)
        random.setstate(before[0])
        if numpy is not None:
            numpy.random.set_state(before[1])
        if drew:
            warnings.warn(
                f"{model_name}'s forward draws from {' and '.join(drew)}: the trace keeps the "
                "values drawn while importing, so every compiled call uses the same draws (a "
                "SpecAugment mask placed by random.randint stays put); draw with torch "
                "(torch.rand, torch.randint, torch.randperm: tfc's own stream, new each call)",
                TracedUpdateWarning, stacklevel=caller_level())
