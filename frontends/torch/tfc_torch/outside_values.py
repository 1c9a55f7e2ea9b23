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
- Tensors forward stores for later outside the model's parameters and
  buffers: a new attribute (`self.last_mask = mask.detach()`,
  `self.sub.feat = out`), a list a forward hook fills, a helper object's
  field (an AverageMeter's .sum), a module-level list appended to. The
  compiled step writes parameters and buffers only, so such a tensor would
  keep what the trace stored there (a traced tensor, whose values numpy
  reads as garbage), never updated. `guarded()` puts those places back as
  they were (_Stores) and names them in a TracedUpdateWarning, with the way
  to keep the value: a buffer forward writes is carried.
- torch.manual_seed in forward (a fixed perturbation drawn after seeding,
  also inside torch.random.fork_rng): torch repeats the same draws every
  call, the compiled program draws from its own stream, new every call.
  `guarded()` refuses it (a ModelError at the model's line).
"""
import contextlib
import random
import types
import warnings
from collections import deque
from typing import Dict, Iterator, List, Optional, Set, Tuple

import torch

from . import grad_flags, patching
from .errors import DataDependentError, ModelError, TracedUpdateWarning
from .module_state import caller_level
from .python_values import _simple_object
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


_SEED_HINT = ("seed once outside the model (before compiling; compile_train_step's seed option "
              "sets tfc's stream); for the same noise every call, draw it once outside and pass "
              "it as a batch input, or keep it in a registered buffer")


def _refusing_seed(name: str):
    def refuse(*args, **kwargs):
        raise ModelError(
            f"forward seeds torch's generator ({name}): torch then repeats the same draws every "
            "call, but the compiled program draws from tfc's own random stream, new every "
            "call, so the seed would be ignored", stack_frame(), _SEED_HINT)
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


def _drop_traced_leftovers(model: Optional[torch.nn.Module], before) -> List[str]:
    """Puts back the globals and function attributes that now hold a tensor
    of the trace (a cache the traced forward filled): the user's next eager
    call would compute with it. A place the trace created goes away. The
    public globals among them (a function attribute is a cache)."""
    stored = []
    for key, (owner, value) in _python_places(model).items():
        if not _traced_leftover(value):
            continue
        old = before.get(key)
        if isinstance(owner, dict):
            if not key[1].startswith("_"):
                stored.append(f"{owner.get('__name__', '?')}.{key[1]}")
            if old is None:
                owner.pop(key[1], None)
            else:
                owner[key[1]] = old[1]
        elif old is None:
            delattr(owner, key[1])
        else:
            setattr(owner, key[1], old[1])
    return stored


# Where _Stores looks for stored tensors: this deep below a module or a
# global, in containers of at most this many entries, at most this many
# containers in all.
_STORE_DEPTH = 4
_STORE_ITEMS = 1024
_STORE_OBJECTS = 20000
# torch's own entries of a module's __dict__ (its tables, hooks, mode).
_MODULE_KEYS = frozenset(vars(torch.nn.Module()))
# The Python values put back when forward changed them in a dict or object
# (_Stores._put_back_numbers).
_NUMBERS = (bool, int, float, str)
_MISSING = object()


def _contents(obj):
    """A shallow copy of what `obj` holds, when _Stores looks into it: a
    module's attributes (not torch's tables), a list's, tuple's or dict's
    entries, a simple object's attributes (python_values._simple_object);
    else None."""
    try:
        return _shallow_copy(obj)
    except Exception:  # noqa: BLE001 - an object that refuses to be looked into
        return None


def _shallow_copy(obj):
    if isinstance(obj, torch.nn.Module):
        return {k: v for k, v in vars(obj).items() if k not in _MODULE_KEYS}
    if isinstance(obj, (list, tuple)):
        if len(obj) > _STORE_ITEMS:
            return None
        return list(obj) if isinstance(obj, list) else tuple(obj)
    if isinstance(obj, dict):
        return dict(obj) if len(obj) <= _STORE_ITEMS else None
    if _simple_object(obj) and len(vars(obj)) <= _STORE_ITEMS:
        return dict(vars(obj))
    return None


class _Stores:
    """The places reachable from the model's modules (their attributes,
    and the lists, dicts, tuples and simple objects below them) and the
    lists, dicts and simple objects of the code's globals, as they were
    before the trace; put_back() after it."""

    def __init__(self, model: Optional[torch.nn.Module], spaces: List[dict], hooks: list):
        # The tensors there before (the copies keep them, so ids stay theirs).
        self.known: Set[int] = set()
        # id -> (object, path, its contents before, whether the path is private)
        self.copies: Dict[int, tuple] = {}
        # The numbers put back (_put_back_numbers).
        self.changed: List[str] = []
        if model is None:
            return
        self.known.update(id(t) for t in model.parameters())
        self.known.update(id(t) for t in model.buffers())
        queue = deque((m, prefix, 0, False)
                      for prefix, m in model.named_modules(remove_duplicate=False))
        for space in spaces:
            for k, v in list(space.items()):
                if isinstance(k, str) and not k.startswith("__") and not isinstance(
                        v, (torch.nn.Module, torch.Tensor)) and _contents(v) is not None:
                    queue.append((v, f"{space.get('__name__', '?')}.{k}", 1, k.startswith("_")))
        # What forward hooks close over (a dict of activations filled by a
        # hook made in a function: `def hook(m, i, o): features[name] = o`).
        for f in hooks:
            code = getattr(f, "__code__", None)
            cells = getattr(f, "__closure__", None) or ()  # (a hook object has none)
            for name, cell in zip(code.co_freevars if code else (), cells):
                try:
                    v = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                if not isinstance(v, (torch.nn.Module, torch.Tensor)) and \
                        _contents(v) is not None:
                    queue.append((v, name, 1, name.startswith("_")))
        while queue and len(self.copies) < _STORE_OBJECTS:
            obj, path, depth, private = queue.popleft()
            if isinstance(obj, torch.Tensor):
                self.known.add(id(obj))
                continue
            if id(obj) in self.copies or depth > _STORE_DEPTH:
                continue
            old = _contents(obj)
            if old is None:
                continue
            self.copies[id(obj)] = (obj, path, old, private)
            for key, v in (old.items() if isinstance(old, dict) else enumerate(old)):
                queue.append((v, _child(path, obj, key), depth + 1,
                              private or (isinstance(key, str) and key.startswith("_"))))

    def _new(self, value, depth: int = _STORE_DEPTH) -> bool:
        """Whether `value` is a tensor that was not there before, or a new
        container holding one."""
        if isinstance(value, torch.Tensor):
            return id(value) not in self.known
        if id(value) in self.copies or depth == 0 or isinstance(value, torch.nn.Module):
            return False
        held = _contents(value)
        if held is None:
            return False
        return any(self._new(v, depth - 1)
                   for v in (held.values() if isinstance(held, dict) else held))

    def put_back(self) -> List[str]:
        """Puts back each place that now holds a tensor it did not hold
        (a module's attribute: that one; a list's, dict's or simple object's
        contents: all of them, an AverageMeter's count with its sum). The
        public ones' names. A module's public tensor attribute rebound is
        module_state.attributes_kept's (an error when the trace read it)."""
        stored = []
        for obj, path, old, private in list(self.copies.values()):
            if isinstance(obj, tuple):
                continue
            now = _contents(obj)
            if now is None:
                continue
            if isinstance(obj, torch.nn.Module):
                for k, v in now.items():
                    was = old.get(k, _MISSING)
                    if v is was or not self._new(v) or (
                            isinstance(was, torch.Tensor) and not k.startswith("_")):
                        continue
                    if was is _MISSING:
                        del obj.__dict__[k]
                    else:
                        obj.__dict__[k] = was
                    if not _shapes_only(v):
                        stored.append(_child(path, obj, k))
                continue
            if not isinstance(obj, list):
                self._put_back_numbers(obj, path, old, now)
            added = [k for k, v in (now.items() if isinstance(now, dict) else enumerate(now))
                     if not (isinstance(old, dict) and old.get(k, _MISSING) is v)
                     and self._new(v)]
            if not added:
                continue
            # A cache of values computed from shapes alone (RIFE's
            # sampling grid by device and size) is emptied silently: the
            # program computes them itself, and so does torch after.
            harmless = all(_shapes_only(now[k]) for k in added)
            if isinstance(obj, list):
                obj[:] = old
            else:
                target = obj if isinstance(obj, dict) else obj.__dict__
                target.clear()
                target.update(old)
            if harmless:
                continue
            if isinstance(obj, (list, dict)):
                stored.append(path)
            else:
                stored += [_child(path, obj, k) for k in added]
        return stored

    def _put_back_numbers(self, obj, path: str, old: dict, now: dict) -> None:
        """Puts back the Python numbers (and strings) of a dict or simple
        object below the modules or in the code's globals that the trace
        changed (CycleGAN's ImagePool.num_imgs, a helper's step counter), as
        module_state puts back the modules' own attributes: a trace keeps
        what the traced call saw, so a counter would be advanced by compiling
        (and left out of step with the tensors it counts, which are put
        back), then never again. Named in `self.changed`."""
        target = obj if isinstance(obj, dict) else obj.__dict__
        for k, was in old.items():
            v = now.get(k, _MISSING)
            if not isinstance(was, _NUMBERS) or v is was or v is _MISSING or isinstance(
                    v, torch.Tensor):   # (a tensor now: put back with its container)
                continue
            try:
                if bool(v == was) or (v != v and was != was):
                    continue
            except Exception:  # noqa: BLE001 - no number now (an array): a change
                pass
            target[k] = was
            self.changed.append(f"{_child(path, obj, k)} (was {was!r})")


def _shapes_only(value, depth: int = 2) -> bool:
    """Whether `value` is a traced tensor computed from shapes alone, or a
    list, tuple or dict of them (grad_flags.shapes_only)."""
    if isinstance(value, torch.Tensor):
        return grad_flags.shapes_only(value)
    if depth and isinstance(value, (list, tuple, dict)) and value:
        items = value.values() if isinstance(value, dict) else value
        return all(_shapes_only(v, depth - 1) for v in items)
    return False


def _child(path: str, obj, key) -> str:
    """The name of `obj`'s entry `key`, `obj` named `path`."""
    if isinstance(obj, (list, tuple, dict)):
        return f"{path}[{key!r}]"
    return f"{path}.{key}" if path else str(key)


@contextlib.contextmanager
def guarded(model_name: str, model: Optional[torch.nn.Module] = None) -> Iterator[None]:
    """See the module doc: numpy reads and torch.manual_seed refused, host
    random draws warned about and undone, for the duration of the trace; also draws from the
    generators `model`'s modules hold; tensors of the trace left in the
    model code's globals or function attributes taken back, and the tensors
    forward stored in the model's attributes and objects (_Stores)."""
    from .custom_functions import code_globals  # (it imports this module's peers only)
    before = _states()
    held = _held_generators(model)
    held_before = [_generator_state(g) for _, g in held]
    places = _python_places(model)
    hooks = [] if model is None else [
        f for m in model.modules()
        for f in list(m._forward_hooks.values()) + list(m._forward_pre_hooks.values())]
    stores = _Stores(model, code_globals(model, *hooks) if model is not None else [], hooks)
    failed = True
    try:
        with patching.replaced(torch.Tensor, numpy=_refusing(".numpy()"),
                               __array__=_refusing("np.asarray / np.array of a tensor")), \
                patching.replaced(torch, manual_seed=_refusing_seed("torch.manual_seed")), \
                patching.replaced(torch.random, manual_seed=_refusing_seed("torch.manual_seed")), \
                patching.replaced(torch.cuda, manual_seed=_refusing_seed("torch.cuda.manual_seed"),
                                  manual_seed_all=_refusing_seed("torch.cuda.manual_seed_all")):
            yield
        failed = False
    finally:
        after = _states()
        drew = [name for name, moved in (
            ("random", before[0] != after[0]),
            ("numpy.random", not _same_numpy_state(before[1], after[1]))) if moved]
        for (name, g), state in zip(held, held_before):
            if not _same_generator_state(state, _generator_state(g)):
                drew.append(f"the generator {name} ({type(g).__name__})")
            _restore_generator(g, state)
        stored = _drop_traced_leftovers(model, places) + stores.put_back()
        changed = stores.changed
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
        if stored and not failed:
            key = stored[0].rsplit(".", 1)[-1] if len(stored) == 1 else "name"
            key = key if key.isidentifier() else "name"
            warnings.warn(
                f"{model_name}'s forward stores tensors outside the model's parameters and "
                f"buffers ({', '.join(stored)}): the compiled program writes parameters and "
                "buffers only, so these would keep the values of the traced call, never "
                "updated (they are put back as they were before compiling). To keep such a "
                f"value, register it as a buffer (self.register_buffer('{key}', "
                f"torch.zeros(...)), then self.{key} = value or self.{key}.copy_(value) in "
                "forward): the training step carries a buffer forward writes "
                "(step.state_dict() holds its value after each step); or return it from "
                "forward", TracedUpdateWarning, stacklevel=caller_level())
        if changed and not failed:
            warnings.warn(
                f"{model_name}'s forward changes the Python values {', '.join(changed[:6])}"
                f"{', ...' if len(changed) > 6 else ''} of objects the model's code holds: a "
                "trace keeps the values the traced call saw, so every compiled call computes "
                "as that call did (a counter such as an image pool's does not advance); they "
                "are put back as they were before compiling. Keep such values in registered "
                "buffers (updated in place or re-assigned: both are carried) or pass them as "
                "inputs", TracedUpdateWarning, stacklevel=caller_level())
