"""What a caller changes on a compiled module between calls, which the
compiled program cannot follow: it was traced once, and it holds its own
parameters and state (the module is read when compiling and written only
when the caller loads step.state_dict() into it).

ModuleWatch, checked at every call of a TrainStep or CompiledModule
(errors unless said otherwise):

- the submodules: one replaced (`model.head = nn.Linear(...)`), added or
  removed is an error (the program computes with and trains the old ones);
- the modules' train / eval mode (the program keeps the traced mode);
- requires_grad of a parameter (freezing or unfreezing after compiling:
  the program trains what was trainable when it was compiled): a
  TracedUpdateWarning (once per step), as a GAN's steps toggle it on
  purpose around compiling each;
- forward hooks and forward pre-hooks added or removed;
- a parameter or buffer changed in place (with torch.no_grad(): p.clamp_(),
  tau.fill_(), a scheduler writing a buffer) or rebound (model.tau = ...):
  its version counter or identity moved. It is accepted when the module now
  holds the program's current value (model.load_state_dict(step.state_dict())
  to evaluate mid-training) or the compiled one; anything else is an error,
  since the program would silently keep computing with its own copy;
  A training step's arguments (its parameters and model state) are the
  exception: module_sync.py keeps them in step with the program both ways,
  so only their rebinding is checked here (`managed`);
- writes through .data, which move no version counter (a frozen
  parameter's p.data.clamp_()): the values are compared with the compiled ones
  at calls 1, 2, 4, 8, ... (a full read of the module's tensors each time,
  log2(calls) times in all), and at every call for the program's
  constants of up to _SMALL elements (a buffer's temperature read with
  .item(), a mask);
- plain Python numbers (a KL-annealing beta, a temperature), attributes of
  the modules, private ones included (the model's and a loss_fn module's:
  the instance's value, else the class's, as forward reads it, so a
  class-level default set on the instance or the class later counts; and
  the properties forward read while tracing, read again at each call:
  Lightning's global_step / current_epoch over self._trainer) or in their dicts,
  lists, tuples and objects (`self.loss_weights["l2"]`,
  `self.cfg.loss_weight`: SimpleNamespace, argparse.Namespace, dataclasses,
  any object of the user's classes holding its data in its __dict__;
  _NESTED_DEPTH levels, containers of at most _NESTED_ITEMS entries;
  a functools.partial's arguments), and the values the model's code reads
  from outside the modules (_code_roots): numbers, bools and strings in the
  globals that the code of the modules' classes, of the user's functions
  and lambdas the modules hold, of loss_fn and of the user's functions
  they call names (a number, `CONFIG["scale"]`, a yacs-style or argparse
  config, a global object's attribute), the attributes that code names of
  the user's Python modules and classes (`myconfig.SCALE`,
  `class CFG: alpha = ...`), and those functions' closures (objects of
  the standard library's classes, a logger, hold no settings; installed
  packages' functions and Python modules are not followed), whose value
  changed: a TracedUpdateWarning, once per value, since the trace baked in
  the value it saw if forward read it (tfc cannot tell whether it did);
- tensors the program folded in from outside the modules' tables
  (_ModelState.outside: plain tensor attributes such as `self.beta =
  torch.tensor(0.)` or CE class weights, a teacher hidden from
  .parameters() as `self._teacher = [teacher]`, a loss_fn module's, module
  globals, a tensor forward only read as a number, self.k.item(): see
  trace_values.plain_values_read): each is found where the model (its
  attributes, objects it holds, its classes' attributes and their methods'
  closures), loss_fn or the code's globals hold it, and a change in place
  or a rebinding there is an error, as for a buffer. Identity and version
  are checked at every call, the values of tensors up to _SMALL elements
  too, larger ones' at calls 1, 2, 4, 8, ...

python_values.py finds the Python values watched (numbers in attributes,
containers and simple objects; the values the code reads from outside the
modules); this module compares them and the tensors.

A frozen tensor (a buffer, a frozen parameter, an outside tensor) whose new
value equals the compiled one within float rounding (within_rounding: loralib's
merge on eval() and unmerge on train() leave the frozen weight one rounding
step off) is accepted: the program keeps its value, which it still equals.
"""
import types
import warnings
from collections import deque
from typing import Dict, List, Optional, Tuple

import torch

from . import module_sync
from .custom_functions import code_globals
from .errors import ModelError, TracedUpdateWarning
from .python_values import (_MISSING, _NESTED_DEPTH, _SEARCH_ITEMS, _class_numbers,
                            _code_roots, _code_values, _numbers, _probe, _same,
                            _simple_object, _user_classes)

# Outside tensors of at most this many elements have their values compared
# at every call; larger ones (a hidden teacher's weights) when their
# identity, version or storage moved, and at calls 1, 2, 4, 8, ...
_SMALL = 1 << 16
# Where outside tensors are looked for: at most this deep from a root, in
# containers of at most this many entries, visiting at most this many objects.
_SEARCH_DEPTH = 8
_SEARCH_OBJECTS = 100000
# A frozen tensor within this relative distance of its compiled value (per
# element, and of the tensor's largest magnitude) is unchanged: float
# rounding, not an update.
_ROUNDING = 1e-6
_RECOMPILE = ("compile again after the change (model.load_state_dict(step.state_dict()) "
              "first carries the trained values over)")


def _tables(model: torch.nn.Module):
    """(state_dict key, owner module, table name, local name) of every
    parameter and buffer, tied names included."""
    out = []
    for prefix, module in model.named_modules(remove_duplicate=False):
        where = prefix + "." if prefix else ""
        for table in ("_parameters", "_buffers"):
            for local, t in getattr(module, table).items():
                if t is not None:
                    out.append((where + local, module, table, local))
    return out


class ModuleWatch:
    """The module as compiled; check() raises or warns about changes."""

    def __init__(self, model: torch.nn.Module, model_state, program, loss_fn=None,
                 forward: bool = False):
        """Only the tensors the program reads are watched (model_state's
        arguments, state and folded constants, and the outside tensors it
        folded in, looked for in `model`, `loss_fn` and the code's globals):
        the module's others (an EMA copy kept beside the model) are free to
        change. `forward`: the watch of a compiled forward, which takes the
        values of its parameters that a training step trains from the
        module (_follow_step)."""
        self.model = model
        self.forward = forward
        self.model_state = model_state
        self.program = program
        self.modes = [m.training for m in model.modules()]
        self.tree = list(model.named_modules(remove_duplicate=False))
        ms = model_state
        self.entries: List[Tuple[str, torch.nn.Module, str, str]] = _tables(model)

        def read_by_program(key: str) -> bool:
            arg = ms.argument(key)
            return ((arg is not None and arg in ms.in_program) or ms.state_name(key) is not None
                    or ms.aliases.get(key, key) in ms.constants)
        # The tensors whose writes are checked: those the program reads.
        self.read = {e[0] for e in self.entries if read_by_program(e[0])}
        self.seen: Dict[str, Tuple[torch.Tensor, int, bool]] = {}
        for key, module, table, local in self.entries:
            t = getattr(module, table)[local]
            self.seen[key] = (t, t._version, t.requires_grad)
        # Tensors accepted as synced from the program: no longer compared
        # with their compiled values.
        self.synced = set()
        # The keys a training step's ModuleSync keeps in step with its
        # program (its writes and the caller's are no change; a rebinding
        # still is, unless to a known value: then `rebound(key, tensor)`).
        self.managed = set()
        self.rebound = None
        self.hooks = self._hooks()
        self.loss_fn = loss_fn
        self.attributes = self._attributes()
        self.code_roots = _code_roots(model, loss_fn)
        self.code_values = _code_values(self.code_roots)
        self.warned = set()
        self.calls = 0
        self.outside = _outside_tensors(model, loss_fn, model_state.outside)

    def _hooks(self):
        def users(hooks):
            return tuple(k for k, f in hooks.items() if not getattr(f, "tfc_internal", False))
        return [(prefix, users(m._forward_hooks), users(m._forward_pre_hooks))
                for prefix, m in self.model.named_modules(remove_duplicate=False)]

    def _attributes(self):
        """(module prefix, path) -> value of the numbers reachable from the
        modules' attributes, private ones too, and the properties the trace
        read (python_values.module_values; _numbers)."""
        from .python_values import module_values
        out = {}
        modules = list(self.model.named_modules(remove_duplicate=False))
        loss_fn = self.loss_fn
        if isinstance(loss_fn, torch.nn.Module):
            modules += list(loss_fn.named_modules(prefix="loss_fn", remove_duplicate=False))
        else:  # a loss object, or a bound method of one
            loss_fn = getattr(loss_fn, "__self__", loss_fn)
            if _simple_object(loss_fn):
                modules.append(("loss_fn", loss_fn))
        for prefix, m in modules:
            # What forward reads as self.<key>: the instance's attribute, else
            # its class's (a setting with a class-level default,
            # `width_mult = 1.0`, that the training loop later sets on the
            # instance or the class), and the properties forward read.
            values = _class_numbers(type(m))
            values.update(module_values(m))
            for key, value in values.items():
                _numbers(value, key, _NESTED_DEPTH, lambda path, v: out.__setitem__(
                    (prefix, path), v))
        return out

    def check(self) -> None:
        # Reading the module's tensors here wakes none (module_sync).
        with torch._C.DisableTorchFunction():
            self._check()

    def _check(self) -> None:
        self.calls += 1
        self._check_tree()
        if [m.training for m in self.model.modules()] != self.modes:
            traced = "train" if self.modes[0] else "eval"
            raise ModelError(
                f"the module's train / eval mode changed since it was compiled (traced in "
                f"{traced} mode): the compiled program keeps the mode it was traced in "
                "(dropout, batch norm's statistics)",
                hint="set the mode before compiling and keep it (model.train() for "
                     "compile_train_step, model.eval() for tfc_torch.compile), or compile "
                     "one program per mode")
        toggled = []
        held = module_sync.held_ids() if self.forward else ()
        for key, module, table, local in self.entries:
            t = getattr(module, table).get(local)
            t0, version, trainable = self.seen[key]
            if table == "_parameters" and t is not None and t.requires_grad != trainable:
                toggled.append(key)
            if t is not None and id(t) in held and key in self.read:
                self._follow_step(key, table, t, t0, version)
                continue
            if (t is t0 and (t._version == version or key in self.managed)) or \
                    key not in self.read:
                continue
            if t is None or not self._holds_known_value(key, t):
                what = "parameter" if table == "_parameters" else "buffer"
                raise ModelError(
                    f"{what} '{key}' of the module was changed since it was compiled (in "
                    "place or rebound): the compiled program holds its own copy and keeps "
                    "computing with it", hint=self._hint(key))
            if t is not t0 and key in self.managed and self.rebound is not None:
                self.rebound(key, t)
            self.seen[key] = (t, t._version, t.requires_grad)
            if not self._holds_compiled_value(key, t):
                self.synced.add(key)
        if toggled and "requires_grad" not in self.warned:
            # A warning, not an error: freezing the other network while
            # compiling each of a GAN's steps toggles it on purpose.
            self.warned.add("requires_grad")
            warnings.warn(
                f"requires_grad of parameters {', '.join(toggled[:4])}"
                f"{', ...' if len(toggled) > 4 else ''} changed since the module was compiled: "
                "the compiled step keeps training the parameters that were trainable when it "
                "was compiled; to freeze or unfreeze (gradual unfreezing), " + _RECOMPILE,
                TracedUpdateWarning, stacklevel=3)
        everything = self.calls & (self.calls - 1) == 0
        self._compare_values(everything)
        for entry in self.outside:
            entry.check(everything)
        if self._hooks() != self.hooks:
            raise ModelError(
                "forward hooks or forward pre-hooks of the module were added or removed since "
                "it was compiled: the compiled program runs the hooks it traced",
                hint=_RECOMPILE)
        for (prefix, key), value in self._attributes().items():
            old = self.attributes.get((prefix, key), value)
            if old != value and (prefix, key) not in self.warned:
                self.warned.add((prefix, key))
                where = prefix + "." if prefix else ""
                warnings.warn(
                    f"attribute {where}{key} changed since the module was compiled ({old!r} -> "
                    f"{value!r}): if forward reads it, the compiled program keeps {old!r} (a "
                    "trace bakes Python values in); keep a value that changes between calls "
                    "in a 0-d tensor batch argument, or compile again", TracedUpdateWarning,
                    stacklevel=3)
        if self.code_roots:
            for (kind, path), value in _code_values(self.code_roots).items():
                old = self.code_values.get((kind, path), value)
                if _same(old, value) or (kind, path) in self.warned:
                    continue
                self.warned.add((kind, path))
                warnings.warn(
                    f"{kind} {path} changed since the module was compiled ({old!r} -> "
                    f"{value!r}): if the model's code reads it, the compiled program keeps "
                    f"{old!r} (a trace bakes Python values in); keep a value that changes "
                    "between calls in a 0-d tensor batch argument, or compile again",
                    TracedUpdateWarning, stacklevel=3)

    def _check_tree(self) -> None:
        """Raises when a submodule was replaced, added or removed since
        compiling (fine-tuning's `model.head = nn.Linear(...)`): the program
        trains the modules it was compiled with, and loading its state_dict
        would write the old submodule's values into the new one."""
        tree = list(self.model.named_modules(remove_duplicate=False))
        if len(tree) == len(self.tree) and all(
                p == p0 and m is m0 for (p, m), (p0, m0) in zip(tree, self.tree)):
            return
        old, new = dict(self.tree), dict(tree)
        changed = [p for p in new if p in old and new[p] is not old[p]]
        added = [p for p in new if p not in old]
        removed = [p for p in old if p not in new]
        def names(prefixes):
            return ", ".join(f"'{p}'" for p in prefixes[:4]) + (", ..." if len(prefixes) > 4
                                                               else "")
        what = ("replaced: " + names(changed) if changed else "added: " + names(added) if added
                else "removed: " + names(removed) if removed else "reordered")
        raise ModelError(
            f"submodules of the module changed since it was compiled ({what}): the compiled "
            "program keeps computing with (and training) the submodules it was compiled with, "
            "and step.state_dict() holds their values",
            hint="compile again after the change; to keep the values trained so far, load "
                 "them into the model (model.load_state_dict(step.state_dict())) before "
                 "replacing the submodule")

    def _follow_step(self, key: str, table: str, t: torch.Tensor, t0, version: int) -> None:
        """A compiled forward's tensor that a training step keeps in step
        with its program (module_sync: a train / eval loop evaluating with
        the forward between steps): filled in if stale, and taken into the
        forward's program when it changed; a constant of the forward (a
        buffer it reads, batch norm's running statistics) that changed is
        an error."""
        module_sync.refresh(t)
        if t is t0 and t._version == version:
            return
        ms = self.model_state
        arg = ms.argument(key)
        if arg is not None and arg in ms.in_program:
            self.program.set(arg, t.detach())
        elif not self._holds_compiled_value(key, t):
            what = "parameter" if table == "_parameters" else "buffer"
            raise ModelError(
                f"{what} '{key}' of the module was changed since the forward was compiled (a "
                "compiled training step updates it): the compiled forward holds it as a "
                "constant (a buffer it reads such as batch norm's running statistics, a "
                "frozen parameter) and keeps computing with the old value",
                hint="compile the forward again after training (tfc_torch.compile(model, "
                     "...)) to evaluate with the new values")
        self.seen[key] = (t, t._version, t.requires_grad)
        self.synced.add(key)

    def _holds_known_value(self, key: str, t: torch.Tensor) -> bool:
        """Whether `t` equals the program's current value of `key` (a sync
        from the step) or the compiled one."""
        current = self._program_value(key)
        if current is not None and _equal(t, current):
            return True
        return self._holds_compiled_value(key, t)

    def _holds_compiled_value(self, key: str, t: torch.Tensor) -> bool:
        """Whether `t` equals the compiled value of `key` (a frozen tensor's
        within float rounding)."""
        compiled = self._compiled_value(key)
        if compiled is None:
            return False
        return within_rounding(t, compiled) if self._is_constant(key) else _equal(t, compiled)

    def _is_constant(self, key: str) -> bool:
        """Whether the program folded `key` in (a buffer or frozen
        parameter it does not update)."""
        ms = self.model_state
        return ms.argument(key) is None and ms.state_name(key) is None

    def _program_value(self, key: str):
        ms = self.model_state
        arg, state = ms.argument(key), ms.state_name(key)
        name = arg if arg is not None and arg in ms.in_program else state
        if name is None:
            return None
        return self.program.get(name)

    def _compiled_value(self, key: str):
        """The value compiled in (the model state's copies of the module)."""
        ms = self.model_state
        arg, state = ms.argument(key), ms.state_name(key)
        if arg is not None:
            return ms.initial[arg]
        if state is not None:
            return ms.state[state]
        return ms.buffers.get(key)

    def _compare_values(self, everything: bool) -> None:
        """Compares the module's tensors the program read with their
        compiled values: all of them (`everything`), else the constants of
        up to _SMALL elements (a held temperature or mask, whose .item() the
        trace baked in: cheap, and stale from the first call after a
        change)."""
        held = module_sync.held_ids() if self.forward and everything else ()
        for key, module, table, local in self.entries:
            if key in self.managed or key not in self.read:
                continue
            t = getattr(module, table).get(local)
            if t is not None and id(t) in held:
                # written through .data since the step ran (no version moved)
                current = self._program_value(key)
                if current is not None:
                    if not _equal(t, current):
                        self.program.set(self.model_state.argument(key), t.detach())
                    continue
            if key in self.synced:
                continue
            if t is None or not (everything or (t.numel() <= _SMALL and self._is_constant(key))):
                continue
            want = self._compiled_value(key)
            if want is None or self._holds_compiled_value(key, t):
                continue
            what = "parameter" if table == "_parameters" else "buffer"
            raise ModelError(
                f"{what} '{key}' of the module holds other values than when it was compiled "
                "(written through .data, e.g. weight clipping p.data.clamp_()): the compiled "
                "program holds its own copy and keeps computing with it", hint=self._hint(key))

    def _hint(self, key: str) -> str:
        """How to change `key` between calls: through the step for what it
        holds as arguments (parameters, carried state); a constant of the
        program (a frozen parameter, a buffer) must become state first."""
        ms = self.model_state
        if self.forward:
            if ms.argument(key) is not None and ms.argument(key) in ms.in_program:
                return ("load the new values into the compiled forward "
                        "(fast.load_state_dict(model.state_dict()), or "
                        "fast.load_state_dict(step.state_dict()) after training), or compile "
                        "it again")
            return ("it is a constant of the compiled forward (a buffer it reads, a frozen "
                    "parameter): compile the forward again after the change")
        if ms.argument(key) is not None or ms.state_name(key) is not None:
            return ("change it through the step (sd = step.state_dict(); ...; "
                    "step.load_state_dict(sd)), e.g. weight clipping: "
                    "sd[name].clamp_(-c, c); or " + _RECOMPILE)
        return ("it is a constant of the compiled program: for a frozen network or a buffer "
                "updated between steps (an EMA target, a momentum teacher, NoisyNet's noise) "
                "compile with frozen=\"state\": the step then takes what is written into the "
                "module's tensor (or set with step.load_state_dict(...)); pass another value "
                "that changes between calls as a batch argument (a 0-d tensor); or " + _RECOMPILE)


def _comparable(a: torch.Tensor, b: torch.Tensor):
    """a and b (in a's dtype, on the host) in forms elementwise comparisons
    take: two sparse COO tensors (a fixed graph adjacency kept as a buffer)
    as their values when their coalesced indices are equal (else None),
    other layouts dense."""
    a, b = a.detach().cpu(), b.detach().to(a.dtype).cpu()
    if a.shape != b.shape:
        return None
    if a.layout == torch.sparse_coo and b.layout == torch.sparse_coo:
        a, b = a.coalesce(), b.coalesce()
        if not torch.equal(a.indices(), b.indices()):
            return None
        return a.values(), b.values()
    if a.layout != torch.strided:
        a = a.to_dense()
    if b.layout != torch.strided:
        b = b.to_dense()
    return a, b


def _storage(t: torch.Tensor):
    """t's data pointer; for a tensor without one (sparse), its values'."""
    if t.layout == torch.sparse_coo:
        return t._values().data_ptr()
    return t.data_ptr() if t.layout == torch.strided else None


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """a (the module's tensor) equals b in a's dtype (a program's f32 master
    copy of a 16-bit parameter rounds to it)."""
    pair = _comparable(a, b)
    if pair is None:
        return False
    a, b = pair
    if a.is_floating_point():  # NaN equals NaN here: an unchanged NaN is no change
        return bool(torch.allclose(a, b, rtol=0.0, atol=0.0, equal_nan=True))
    return bool(torch.equal(a, b))


def within_rounding(a: torch.Tensor, b: torch.Tensor) -> bool:
    """_equal, or for floats equal within float rounding: each element
    within _ROUNDING of b's value and of b's largest finite magnitude (a
    weight near zero rounds on the scale of the tensor it was computed
    with); same shape, NaNs and infinities in the same places."""
    if _equal(a, b):
        return True
    pair = _comparable(a, b)
    if pair is None:
        return False
    a, b = pair
    if not a.is_floating_point() or a.numel() == 0:
        return False
    a, b = a.double(), b.double()
    finite = torch.isfinite(b)
    scale = float(b[finite].abs().max()) if bool(finite.any()) else 0.0
    return bool(torch.allclose(a, b, rtol=_ROUNDING, atol=_ROUNDING * scale, equal_nan=True))


# A step of a path from a root object: (how, key). how: "attr" (the
# object's __dict__), "item" (obj[key]), "get" (getattr(obj, key)), "cell"
# (the contents of a closure's cell), or a module's table ("_parameters",
# "_buffers", "_modules").
_Step = Tuple[str, object]
_TABLES = ("_parameters", "_buffers", "_modules")


def _follow(root, steps) -> object:
    """The object at `steps` from `root` now, or _MISSING."""
    obj = root
    for how, key in steps:
        try:
            if how == "attr":
                obj = vars(obj).get(key, _MISSING)
            elif how == "item":
                obj = obj[key]
            elif how == "get":
                obj = getattr(obj, key)
            elif how == "cell":
                obj = obj.__closure__[key].cell_contents
            else:
                obj = getattr(obj, how).get(key, _MISSING)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            return _MISSING
        if obj is _MISSING:
            return _MISSING
    return obj


def _path_text(root_name: str, steps) -> str:
    text = root_name
    for how, key in steps:
        if how == "item" and text.endswith("."):
            text += str(key)  # a global: "<module>.<name>"
        elif how in ("item", "cell"):
            text += f"[{key!r}]" if how == "item" else f".<closure {key}>"
        else:
            text += f".{key}"
    return text


def _children(obj, functions: bool) -> List[Tuple[_Step, object]]:
    """The objects a search for outside tensors looks into below `obj`:
    a module's tables and attributes, containers' entries, simple objects'
    attributes, and (`functions`: below a loss_fn) a function's closure,
    defaults, bound object and a functools.partial's function and
    arguments."""
    out: List[Tuple[_Step, object]] = []
    if isinstance(obj, torch.nn.Module):
        for table in _TABLES:
            out += [((table, k), v) for k, v in getattr(obj, table).items()]
        out += [(("attr", k), v) for k, v in vars(obj).items() if k not in _TABLES]
    elif isinstance(obj, dict):
        if len(obj) <= _SEARCH_ITEMS:
            out += [(("item", k), v) for k, v in list(obj.items()) if isinstance(k, (str, int))]
    elif isinstance(obj, (list, tuple)):
        if len(obj) <= _SEARCH_ITEMS:
            out += [(("item", i), v) for i, v in enumerate(obj)]
    elif _simple_object(obj):
        out += [(("attr", k), v) for k, v in vars(obj).items()]
    elif functions and callable(obj):
        for name in ("__self__", "__defaults__", "__kwdefaults__", "func", "args", "keywords"):
            value = _probe(obj, name)
            if value is not None:
                out.append((("get", name), value))
        for i, cell in enumerate(getattr(obj, "__closure__", None) or ()):
            try:
                out.append((("cell", i), cell.cell_contents))
            except ValueError:  # an empty cell
                pass
    return out


def _searched(value) -> bool:
    """Whether the search looks at `value`: tensors, modules, containers,
    simple objects and functions (not Python modules, classes or plain
    values)."""
    return (isinstance(value, (torch.Tensor, torch.nn.Module, dict, list, tuple))
            or _simple_object(value)
            or (callable(value) and not isinstance(value, (type, types.ModuleType))))


# Where the search starts: (name, root, steps from the root, the object
# there, whether to look into functions).
_Root = Tuple[str, object, list, object, bool]


def _locate(roots: List[_Root], wanted: Dict[int, torch.Tensor]):
    """id of each tensor of `wanted` -> (name, root, steps) where a
    breadth-first search from `roots` first finds it."""
    found: Dict[int, Tuple[str, object, list]] = {}
    seen = set()
    queue = deque(roots)
    visited = 0
    while queue and len(found) < len(wanted) and visited < _SEARCH_OBJECTS:
        name, root, steps, obj, functions = queue.popleft()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        visited += 1
        if isinstance(obj, torch.Tensor):
            if id(obj) in wanted:
                found[id(obj)] = (name, root, steps)
            continue
        if len(steps) >= _SEARCH_DEPTH:
            continue
        for step, child in _children(obj, functions):
            if _searched(child):
                queue.append((name, root, steps + [step], child, functions))
    return found


class _Outside:
    """One tensor the program folded in from outside the modules' tables,
    with its value then and where the model's code finds it."""

    def __init__(self, tensor: torch.Tensor, where: Optional[Tuple[str, object, list]]):
        self.value = tensor.detach().clone()
        self.small = tensor.numel() <= _SMALL
        self.where = where
        self._see(tensor)

    def _see(self, tensor: torch.Tensor) -> None:
        self.tensor, self.version, self.ptr = tensor, tensor._version, _storage(tensor)

    def name(self) -> str:
        if self.where is None:
            return (f"of shape {list(self.value.shape)} (held by no attribute of the model or "
                    "loss_fn that tfc found: a closure's, a global of other code)")
        root_name, _, steps = self.where
        return f"'{_path_text(root_name, steps)}'"

    def check(self, everything: bool) -> None:
        """Raises when the tensor changed in place or was rebound to other
        values (see the module doc); `everything`: compare the values of
        large tensors too."""
        now = self.tensor if self.where is None else _follow(self.where[1], self.where[2])
        if now is _MISSING:  # removed: forward could not read it either
            return
        if (now is self.tensor and now._version == self.version and _storage(now) == self.ptr
                and not (self.small or everything)):
            return
        if not isinstance(now, torch.Tensor) or not within_rounding(now, self.value):
            raise ModelError(
                f"tensor {self.name()} was changed since the module was compiled (in place, "
                "through .data or rebound): it is no parameter or buffer of the model, so the "
                "trace folded its value into a constant of the compiled program, which keeps "
                "computing with the old value", hint=_OUTSIDE_HINT)
        self._see(now)


_OUTSIDE_HINT = (
    "pass a value that changes between calls as a batch argument (a 0-d tensor for a loss "
    "weight such as a KL beta, the class-weight tensor); for a frozen network updated between "
    "steps (an EMA teacher, a new teacher checkpoint) make it a submodule of the model with "
    "requires_grad=False, compile with frozen=\"state\" and set it with "
    "step.load_state_dict(...); or " + _RECOMPILE)


def _outside_tensors(model: torch.nn.Module, loss_fn, tensors) -> List[_Outside]:
    """An _Outside for each of `tensors`, found from the model, loss_fn
    and the globals of their code (module-level tensors, a global teacher)."""
    if not tensors:
        return []
    roots: List[_Root] = [("model", model, [], model, False)]
    functions = []
    if loss_fn is not None:
        roots.append(("loss_fn", loss_fn, [], loss_fn, True))
        functions.append(getattr(type(loss_fn), "forward", None)
                         if isinstance(loss_fn, torch.nn.Module) else loss_fn)
    # Class attributes of the modules' classes (a tensor shared by all
    # instances, M.W = torch.tensor(...)), and the closures of their methods
    # (a class defined in a function).
    for cls in _user_classes(model, loss_fn):
        roots += [(cls.__qualname__, cls, [("attr", k)], v, False)
                  for k, v in list(vars(cls).items())
                  if not k.startswith("__") and isinstance(v, (torch.Tensor, dict, list, tuple))]
        for k, f in list(vars(cls).items()):
            for i, cell in enumerate(getattr(f, "__closure__", None) or ()):
                try:
                    roots.append((f"{cls.__qualname__}.{k}", f, [("cell", i)],
                                  cell.cell_contents, False))
                except ValueError:  # an empty cell
                    pass
    wanted = {id(t): t for t in tensors}
    found = _locate(roots, wanted)
    # Then the globals, for the tensors the model and loss_fn do not hold.
    wanted = {k: t for k, t in wanted.items() if k not in found}
    if wanted:
        roots = []
        for space in code_globals(model, *[f for f in functions if f is not None]):
            module = space.get("__name__", "?")
            roots += [(f"{module}.", space, [("item", k)], v, False)
                      for k, v in list(space.items())
                      if isinstance(k, str) and not k.startswith("__")
                      and isinstance(v, (torch.Tensor, torch.nn.Module, dict, list, tuple))]
        found.update(_locate(roots, wanted))
    return [_Outside(t, found.get(id(t))) for t in tensors]
