"""The module's tensors that a training step holds, kept in step with it.

A compiled step trains its own copy of the parameters and carries the model
state (batch norm's running statistics, frozen="state" tensors) in the
runtime. Torch code that reads the module between steps expects the
trained values there: CleanRL's DQN target update
`t.data.copy_(tau * q.data + (1 - tau) * t.data)`, an EMA or
`AveragedModel.update_parameters(model)` over `model.parameters()`, an
evaluation, `model.state_dict()` for a checkpoint, a forward compiled after
training. ModuleSync makes the module the values' home, lazily in both
directions:

- program -> module: after each run (and a load into the program) the
  module's parameters the step trains and its model state are marked
  stale: their class is swapped for a subclass (_StaleParameter,
  _StaleTensor) whose __torch_function__ copies the program's values into
  the tensors of that step at the first torch function that reads one
  (an op, `.data`, `.detach()`, `copy_`, a forward, `state_dict()`,
  deepcopy, pickling) and puts the classes back; metadata reads (shape,
  dtype, requires_grad, hash, ...) copy nothing. A loop that never looks
  at the module pays nothing but the flag.
- module -> program: before the next run (or a load into the program), each
  of those tensors woken since (so possibly written: a target network
  updated in place or through `.data`, NoisyNet's reset_noise() writing
  noise buffers, WGAN's `p.data.clamp_()`) is compared with the program's
  value and, when it differs, set into the program, as torch's next
  forward would read it.

Tensors the caller holds that share these tensors' storage (a `.data`
list kept for weight clipping, a view `w[0]`, `p.detach()`: taken before
compiling, found once among the live objects; or while stale, from the
result of the torch function that woke them) see no torch function of
theirs: while one lives, the sync keeps all its tensors current (filled in
after every run, compared before each), and is lazy again once they are
gone. Aliases taken while the tensors are awake (after some read, before
the next run) are not seen.

A compiled forward of the module (compiled.py) takes the values of the
tensors a live step holds (held_ids(), refresh()) at each call.

A step deleted with its tensors stale fills them in (its finalizer), and
a trace fills in the stale tensors of the module it traces first (wake), so
compiling again after training starts from the trained values.

The module watch (module_watch.py) leaves these tensors' writes to this
module; a tensor rebound (a new object) stays its error. A tensor of a
class other than nn.Parameter or torch.Tensor (a user's subclass) cannot
be swapped: it is compared at every call and filled in after every run.
"""
import gc
import warnings
import weakref
from typing import Dict, List, Set, Tuple

import torch
from torch.utils import _pytree as pytree

from .errors import ModelError, TracedUpdateWarning


class _Stale:
    """The stale classes' behaviour: wake on any torch function that may
    read values."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _METADATA:
            with torch._C.DisableTorchFunction():
                return func(*args, **kwargs)
        woken = []
        for t in pytree.tree_flatten((args, kwargs))[0]:
            if type(t) in _BASE:
                woken.append((t, _owner(t)))
                _wake(t)
        out = func(*args, **kwargs)
        _note_aliases(woken, out)
        return out

    def __deepcopy__(self, memo):
        _wake(self)
        return self.__deepcopy__(memo)

    def set_(self, *args, **kwargs):
        # (reaches no __torch_function__ in torch 1.13: p.set_(t) under
        # no_grad between steps, then taken by the next push)
        for t in [self] + [a for a in args if isinstance(a, torch.Tensor)]:
            if type(t) in _BASE:
                _wake(t)
        return torch.Tensor.set_(self, *args, **kwargs)

    def __reduce_ex__(self, protocol):
        _wake(self)
        return self.__reduce_ex__(protocol)


class _StaleParameter(_Stale, torch.nn.Parameter):
    pass


class _StaleTensor(_Stale, torch.Tensor):
    pass


_STALE = {torch.nn.Parameter: _StaleParameter, torch.Tensor: _StaleTensor}
_BASE = {stale: base for base, stale in _STALE.items()}


def _metadata():
    """The torch functions that read no values (the tensor's metadata, its
    autograd flags, its identity): a stale tensor stays asleep."""
    base = torch._C._TensorBase
    out = set()
    for name in ("shape", "dtype", "device", "requires_grad", "_version", "is_leaf", "grad",
                 "grad_fn", "ndim", "layout", "is_cuda", "is_sparse", "is_quantized",
                 "is_meta", "names", "_base", "output_nr", "is_mkldnn", "is_nested"):
        if hasattr(base, name):
            prop = getattr(base, name)
            out.add(prop.__get__)
            if name in ("requires_grad", "grad"):
                out.add(prop.__set__)
    for name in ("size", "dim", "numel", "nelement", "stride", "is_contiguous",
                 "is_floating_point", "is_complex", "element_size", "storage_offset",
                 "data_ptr", "get_device", "_is_view", "requires_grad_", "register_hook",
                 "__hash__", "__len__"):
        for owner in (torch.Tensor, base):
            if name in owner.__dict__:
                out.add(owner.__dict__[name])
    return out


_METADATA = _metadata()
# id(tensor) -> (the ModuleSync that marked it stale last (weak), whether
# its program updates the tensor).
_OWNER: Dict[int, Tuple["weakref.ref", bool]] = {}
# Bumped by every mark: a sync whose tensors another one marked since its
# own mark looks at them again.
_MARKS = [0]
# The live syncs (held_ids()).
_SYNCS: "weakref.WeakSet[ModuleSync]" = weakref.WeakSet()


def _owner(t: torch.Tensor):
    """The live sync that marked `t` stale last, or None."""
    ref = _OWNER.get(id(t))
    return ref[0]() if ref is not None else None


def _storage_key(t: torch.Tensor):
    """(device, address of t's storage), or None (no storage: sparse)."""
    try:
        with torch._C.DisableTorchFunction():
            # (torch 2 warns on .storage())
            storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
            ptr = storage.data_ptr()
    except Exception:   # no storage (sparse, a tracing wrapper left alive)
        return None
    return (t.device, ptr) if ptr else None


def _note_aliases(woken, out) -> None:
    """Results of a torch function on stale tensors that share their
    storage (`p.data`, `p.detach()`, a view `w[0]`): the caller may hold
    them across steps (a WGAN clip list of `.data`), so their tensors are
    kept current while they live (ModuleSync.aliases)."""
    if not woken:
        return
    results = [r for r in pytree.tree_flatten(out)[0] if isinstance(r, torch.Tensor)]
    if not results:
        return
    keys = {}
    for t, sync in woken:
        if sync is not None:
            key = _storage_key(t)
            if key is not None:
                keys[key] = (t, sync)
    for r in results:
        found = keys.get(_storage_key(r)) if keys else None
        if found is not None and found[0] is not r:
            found[1].note_alias(found[0], r)


def _wake(t: torch.Tensor) -> None:
    """A stale tensor is read: its owner fills in its tensors."""
    ref = _OWNER.get(id(t))
    sync = ref[0]() if ref is not None else None
    if sync is None:
        _OWNER.pop(id(t), None)
        t.__class__ = _BASE[type(t)]
        return
    sync.pull()


def held_ids() -> Set[int]:
    """The ids of the tensors live steps' syncs keep in step with their
    programs (a compiled forward of the module takes their values from the
    module, refresh(t) first)."""
    syncs = list(_SYNCS)
    if not syncs:
        return set()
    return set().union(*(sync.ids for sync in syncs))


def refresh(t: torch.Tensor) -> None:
    """Fills in `t` if it is stale (its step ran since it was last read)."""
    if type(t) in _BASE:
        _wake(t)


def wake(model: torch.nn.Module) -> None:
    """Fills in every stale tensor of `model` (a trace reads them through
    paths that may not run a torch function: compiling again after
    training starts from the trained values)."""
    for t in list(model.parameters()) + list(model.buffers()):
        if type(t) in _BASE:
            _wake(t)


def _release(entries: List[Tuple[str, torch.Tensor]], get, changed: List[bool]) -> None:
    """A sync is gone (its step deleted: a training function returned): its
    tensors no live sync marked since get the program's values if it ran
    since they last did (`changed[0]`), and are plain again."""
    for name, t in entries:
        ref = _OWNER.get(id(t))
        if ref is not None and ref[0]() is not None:
            continue
        _OWNER.pop(id(t), None)
        if type(t) in _BASE:
            t.__class__ = _BASE[type(t)]
            if changed[0]:
                with torch.no_grad():
                    t.copy_(get(name).to(dtype=t.dtype, device=t.device))


class ModuleSync:
    """Keeps `model`'s tensors that `program` holds and updates (the
    parameters whose ids are in `trains`, the model state of
    `model_state`) in step with the program (module docstring)."""

    def __init__(self, model: torch.nn.Module, model_state, program, trains: Set[int]):
        from .module_watch import _tables
        ms = model_state
        self.program = program
        # (program name, tensor, whether the program updates it)
        self.tensors: List[Tuple[str, torch.Tensor, bool]] = []
        self.keys: Dict[str, str] = {}   # state_dict name (tied ones too) -> program name
        held = set()
        for key, module, table, local in _tables(model):
            t = getattr(module, table)[local]
            arg, state = ms.argument(key), ms.state_name(key)
            if arg is not None and arg in ms.in_program:
                name, updates = arg, id(t) in trains
            elif state is not None:
                # frozen="state" tensors forward does not write: the program
                # passes them through, so another step training them (a
                # GAN's discriminator, frozen while the generator step was
                # compiled) holds their values, not this one.
                name, updates = state, state not in getattr(ms, "unwritten", ())
            else:
                continue
            self.keys[key] = name
            if id(t) not in held:
                held.add(id(t))
                self.tensors.append((name, t, updates))
        # Whether the program holds values the module does not (a list: the
        # finalizer shares it).
        self._changed = [False]
        self.asleep = False     # every tensor marked by this sync since its last pull
        self.mark_count = -1
        self.busy = False
        run, set_, restore, get = program.run, program.set, program.restore, program.get
        self.get = get
        names = {name for name, _, _ in self.tensors}
        this = weakref.ref(self)
        # The values the program handed out (step.state_dict()'s), with
        # their versions: written in place before the next run, they are
        # copies torch's would not be (_warn_handed_out).
        self.handed_out: List[Tuple["weakref.ref", int]] = []
        self.warned = False

        def run_synced(entry):
            sync = this()
            if sync is not None:
                sync.push()
                sync.warn_handed_out()
            run(entry)
            if sync is not None:
                sync.changed()

        def set_synced(name, value):
            sync = this()
            if sync is None or name not in names or sync.busy:
                return set_(name, value)
            sync.push()
            set_(name, value)
            sync.changed()
            sync.handed_out.clear()     # a load (step.load_state_dict(sd))

        def get_synced(name):
            value = get(name)
            sync = this()
            if sync is not None and name in names and not sync.busy:
                sync.handed_out.append((weakref.ref(value), value._version))
            return value

        def restore_synced(*args, **kwargs):
            sync = this()
            if sync is not None:
                sync.push()
            restore(*args, **kwargs)
            if sync is not None:
                sync.changed()

        self.ids = {id(t) for _, t, _ in self.tensors}
        # id(tensor) -> weak references to tensors the caller holds that
        # share its storage (a `.data` list, a view, `p.detach()`): while one
        # lives, the tensors are kept current (filled in after every run,
        # compared before each), as aliases of torch's would see them.
        self.aliases: Dict[int, List["weakref.ref"]] = {}
        self.current: Set[int] = set()     # the ids kept current now
        if self.tensors:
            self._find_held_aliases()
            _SYNCS.add(self)
            program.run, program.set, program.restore = run_synced, set_synced, restore_synced
            program.get = get_synced
            self.mark()
            done = weakref.finalize(self, _release, [(n, t) for n, t, _ in self.tensors],
                                    get, self._changed)
            done.atexit = False

    def note_alias(self, t: torch.Tensor, alias: torch.Tensor) -> None:
        if id(t) in self.ids:
            self.aliases.setdefault(id(t), []).append(weakref.ref(alias))

    def _find_held_aliases(self) -> None:
        """Tensors alive now that share storage with this sync's (taken
        before compiling: `held = [p.data for p in model.parameters()]`,
        a view `w[0]`): found once, among the objects the garbage collector
        tracks (~0.3 us each)."""
        keys = {}
        for _, t, _ in self.tensors:
            key = _storage_key(t)
            if key is not None:
                keys[key] = t
        if not keys:
            return
        with torch._C.DisableTorchFunction():
            for obj in gc.get_objects():
                if isinstance(obj, torch.Tensor) and id(obj) not in self.ids:
                    t = keys.get(_storage_key(obj))
                    if t is not None:
                        self.note_alias(t, obj)

    def _kept_current(self) -> Set[int]:
        """The ids of the tensors kept current: all of this sync's while
        the caller holds an alias of one of them (the others' aliases, taken
        once the first read woke them, pass no torch function here)."""
        for key in list(self.aliases):
            live = [ref for ref in self.aliases[key] if ref() is not None]
            if live:
                self.aliases[key] = live
            else:
                del self.aliases[key]
        return set(self.ids) if self.aliases else set()

    @property
    def dirty(self) -> bool:
        return self._changed[0]

    @dirty.setter
    def dirty(self, value: bool) -> None:
        self._changed[0] = value

    def mark(self) -> None:
        """The module's tensors are stale from now on until read."""
        if self.asleep and self.mark_count == _MARKS[0]:
            return
        _MARKS[0] += 1
        me = weakref.ref(self)
        for _, t, updates in self.tensors:
            kind = _BASE.get(type(t), type(t))
            if kind not in _STALE or id(t) in self.current:
                continue
            owner = _OWNER.get(id(t))
            if not updates and owner is not None and owner[1] and owner[0]() not in (None, self):
                continue   # another step trains it (a GAN's): its values are the module's
            t.__class__ = _STALE[kind]
            _OWNER[id(t)] = (me, updates)
        # (a tensor that cannot be swapped is never asleep: compared at
        # every push)
        self.asleep = all(_BASE.get(type(t), type(t)) in _STALE and id(t) not in self.current
                          for _, t, _ in self.tensors)
        self.mark_count = _MARKS[0]

    def changed(self) -> None:
        """The program's values changed (a run, a load into it). A tensor
        whose class cannot be swapped (a user's Parameter subclass) gets
        them now."""
        self.dirty = True
        self.current = self._kept_current() if self.aliases else set()
        if self.current:
            self._wake_current()
        self.mark()
        unswappable = [(n, t) for n, t, _ in self.tensors
                       if _BASE.get(type(t), type(t)) not in _STALE or id(t) in self.current]
        if unswappable:
            with torch.no_grad(), torch._C.DisableTorchFunction():
                for name, t in unswappable:
                    t.copy_(self.get(name).to(dtype=t.dtype, device=t.device))

    def _wake_current(self) -> None:
        """Puts back the class of the tensors kept current that this sync
        left stale (it fills them in then, with the others it gets)."""
        for _, t, _ in self.tensors:
            if id(t) in self.current and type(t) in _BASE:
                ref = _OWNER.get(id(t))
                if ref is not None and ref[0]() is self:
                    del _OWNER[id(t)]
                t.__class__ = _BASE[type(t)]

    def rebind(self, key: str, t: torch.Tensor) -> None:
        """The module's tensor under `key` was replaced by `t` holding the
        program's or the compiled value (the module watch accepted it): `t`
        is the one kept in step from now on."""
        name = self.keys.get(key)
        if name is None:
            return
        self.tensors = [(n, t if n == name else old, u) for n, old, u in self.tensors]
        self.ids = {id(t) for _, t, _ in self.tensors}
        self.asleep = False

    def pull(self) -> None:
        """One of the tensors is read: all of this sync's are woken and, if
        the program changed since the last pull, get its values."""
        mine = []
        for name, t, _ in self.tensors:
            ref = _OWNER.get(id(t))
            if ref is not None and ref[0]() is self:
                del _OWNER[id(t)]
                if type(t) in _BASE:
                    t.__class__ = _BASE[type(t)]
                mine.append((name, t))
            elif type(t) not in _BASE and type(t) not in _STALE and id(t) not in self.current:
                mine.append((name, t))   # never marked: filled in on every pull
        self.asleep = False
        if not self.dirty:
            return
        self.dirty = False
        with torch.no_grad():
            for name, t in mine:
                t.copy_(self.get(name).to(dtype=t.dtype, device=t.device))

    def push(self) -> None:
        """Sets into the program the tensors woken since the last mark that
        now hold other values than the program's (written by the caller)."""
        if self.busy or (self.asleep and self.mark_count == _MARKS[0]):
            return
        self.busy = True
        try:
            with torch._C.DisableTorchFunction():
                for name, t, updates in self.tensors:
                    if type(t) in _BASE:
                        owner = _owner(t)
                        if updates or owner is None or owner is self:
                            continue   # asleep: not read since
                        # What this step only reads and another step updates
                        # (a GAN's discriminator under frozen="state"): its
                        # current values, as torch's next forward reads them.
                        owner.pull()
                    current = self.get(name)
                    value = t.detach()
                    if value.shape != current.shape:
                        self._refuse_resized(name, value, current)
                    if not torch.equal(value.cpu(), current.to(value.dtype)):
                        self.program.set(name, value)
        finally:
            self.busy = False

    def _refuse_resized(self, name: str, value: torch.Tensor, current: torch.Tensor) -> None:
        """A tensor of the module given another shape between steps
        (`p.data = torch.zeros(...)`, a layer widened in place)."""
        key = next((k for k, n in self.keys.items() if n == name), name)
        raise ModelError(
            f"'{key}' of the module was given shape {list(value.shape)} since the step ran "
            f"(through .data or set_()): the compiled step has the shapes it was compiled "
            f"with ({list(current.shape)})",
            hint="compile the step again after resizing (the module then holds the trained "
                 "values to start from)")

    def warn_handed_out(self) -> None:
        """Warns (once) when a value the program handed out since the last
        run (step.state_dict()'s) was written in place and not loaded back:
        torch's state_dict values alias the parameters, so an in-place
        Polyak update through them (`sd["t.weight"].lerp_(sd["q.weight"],
        tau)`) changes the module; tfc's are copies."""
        written = any(ref() is not None and ref()._version != version
                      for ref, version in self.handed_out)
        self.handed_out.clear()
        if written and not self.warned:
            self.warned = True
            warnings.warn(
                "a tensor of step.state_dict() was written in place and not loaded back: "
                "the step's state_dict() holds copies (torch's alias the parameters), so the "
                "step goes on with its own values; load the changed values with "
                "step.load_state_dict(sd), or write the module's tensors (the step takes "
                "what is written there before its next call)", TracedUpdateWarning,
                stacklevel=4)
