"""The Python values the module watch follows (module_watch.ModuleWatch,
its one user; outside_values reads _simple_object): numbers, bools and
strings in module attributes and the containers and simple objects they
hold (_numbers, _simple_object), numbers a user's class defines
(_class_numbers), and the values the model's code reads from outside the
modules (_code_roots, _code_values): the globals that the code of the
modules' classes, of the user's functions and lambdas they hold, of loss_fn
and of the user's functions they call names, the attributes that code
names of the user's Python modules and classes, and those functions'
closures. Library code (_installed: torch, numpy, the standard library,
installed packages) is not followed."""
import argparse
import contextlib
import dataclasses
import dis
import functools
import os
import sys
import types
import weakref
from collections import deque
from typing import Callable, Dict, Iterator, List, Optional, Set, Tuple

import torch

_PLAIN = (bool, int, float)
# What is watched of the values the model's code reads through globals,
# Python modules, classes and closures (_code_roots): numbers, and strings
# (an activation's or mode's name), of at most _CODE_VALUES places, found
# in the code of at most _CODE_FUNCTIONS functions.
_CODE_KINDS = (bool, int, float, str)
_CODE_VALUES = 1024
_CODE_FUNCTIONS = 64
# How deep and how wide numbers in containers of module attributes are
# looked for (a loss-weight dict, a config namespace; not a vocabulary).
_NESTED_DEPTH = 3
_NESTED_ITEMS = 64
# Containers of at most this many entries are looked into (module_watch's
# search for outside tensors uses the same bound).
_SEARCH_ITEMS = 1024
_MISSING = object()
# torch's own entries of a module's __dict__ (its tables, hooks, mode): no
# settings of the user's. Other names starting with "_" are watched as the
# public ones (Lightning's self._hparams, self._trainer).
_MODULE_INTERNALS = frozenset(vars(torch.nn.Module()))


# Objects whose attributes are no data of the user's (their classes' modules).
_LIBRARIES = ("torch", "numpy", "tfc_torch", "builtins", "functools", "collections", "typing")


def _simple_object(value) -> bool:
    """A plain record whose attributes are its data (SimpleNamespace,
    argparse.Namespace, a dataclass instance), or an object of a user's
    class with a __dict__ (a loss or box-coder helper holding weights): no
    module, tensor, class, Python module or function, nor an object of
    torch's, numpy's or the standard library's classes."""
    if isinstance(value, (types.SimpleNamespace, argparse.Namespace)):
        return True
    if isinstance(value, type):
        return False
    if dataclasses.is_dataclass(value):
        return True
    return (isinstance(_probe(value, "__dict__"), dict)
            and not isinstance(value, (torch.nn.Module, torch.Tensor, types.ModuleType,
                                       types.FunctionType, types.MethodType,
                                       types.BuiltinFunctionType))
            and not _installed(type(value).__module__, packages=False))


@functools.lru_cache(maxsize=None)
def _installed(module: Optional[str], packages: bool = True) -> bool:
    """Whether the Python module named `module` is a library's, not the
    user's code: _LIBRARIES, the standard library (a logger's level is no
    setting of the model), or (`packages`) a package installed in
    site-packages (whose functions' globals and module attributes are not
    watched; objects of its classes are, a Hugging Face config)."""
    root = (module or "builtins").split(".")[0]
    if root in _LIBRARIES or root in getattr(sys, "stdlib_module_names", ()):
        return True
    if not packages:
        return False
    path = getattr(sys.modules.get(root), "__file__", None) or ""
    parts = os.path.normpath(path).split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


def _probe(obj, name: str):
    """getattr(obj, name, None), also when the object's __getattr__ raises
    something else than AttributeError (an AttrDict config's KeyError)."""
    try:
        return getattr(obj, name, None)
    except Exception:  # noqa: BLE001 - no such attribute, as far as a search goes
        return None


def _class_numbers(cls: type) -> Dict[str, object]:
    """The public Python numbers the classes of `cls`'s MRO that are no
    library's (_LIBRARIES) define, the most derived one's for each name."""
    out: Dict[str, object] = {}
    for c in cls.__mro__:
        if (c.__module__ or "builtins").split(".")[0] in _LIBRARIES:
            continue
        for k, v in vars(c).items():
            if not k.startswith("_") and isinstance(v, _PLAIN) and k not in out:
                out[k] = v
    return out


def _same(a, b) -> bool:
    """a == b, NaN equal to NaN (an unchanged NaN is no change)."""
    return a == b or (a != a and b != b)


def _numbers(value, path: str, depth: int, found: Callable[[str, object], None],
             kinds: tuple = _PLAIN, items: int = _NESTED_ITEMS) -> None:
    """Calls found(path, number) for `value` if it is a Python number (of
    `kinds`), else for the numbers in it when it is a dict, list, tuple,
    simple object or functools.partial (its arguments) of at most `items`
    entries, `depth` levels down."""
    if isinstance(value, kinds):
        found(path, value)
        return
    if depth == 0:
        return
    try:  # a container or object that refuses to be looked into holds nothing here
        if isinstance(value, dict) and len(value) <= items:
            entries = [(f"{path}[{k!r}]", v) for k, v in list(value.items())
                       if isinstance(k, (str, int))]
        elif isinstance(value, (list, tuple)) and len(value) <= items:
            entries = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        elif isinstance(value, functools.partial):
            entries = [(f"{path}.args", value.args), (f"{path}.keywords", value.keywords)]
        elif _simple_object(value) and len(vars(value)) <= items:
            entries = [(f"{path}.{k}", v) for k, v in list(vars(value).items())
                       if not k.startswith("_")]
            entries += [(f"{path}.{k}", v) for k, v in properties_now(value).items()]
        else:
            return
    except Exception:  # noqa: BLE001
        return
    for where, v in entries:
        _numbers(v, where, depth - 1, found, kinds, items)


def module_values(obj) -> Dict[str, object]:
    """What forward reads as self.<key> of a module (or of a loss object),
    beside its class's numbers (_class_numbers): the instance's attributes,
    public and private, but torch's own (_MODULE_INTERNALS), and the
    properties of it that the trace read (properties_read: a Lightning
    module's global_step and current_epoch over self._trainer, hparams over
    self._hparams)."""
    values = {k: v for k, v in vars(obj).items() if k not in _MODULE_INTERNALS}
    values.update(properties_now(obj))
    return values


# The properties the traces read (properties_read): id of the object ->
# (a reference to it, the names read).
_PROPERTIES: Dict[int, Tuple[Callable[[], object], Set[str]]] = {}


def _reference(obj) -> Callable[[], object]:
    try:
        return weakref.ref(obj)
    except TypeError:  # an object without weak references: kept
        return lambda: obj


def _recording(fget, name: str):
    """A property getter that notes which object's property `name` was read,
    when its value is watched (a number, a string, a container or simple
    object that may hold some)."""
    @functools.wraps(fget)
    def get(obj):
        value = fget(obj)
        if _watched(value):
            entry = _PROPERTIES.get(id(obj))
            if entry is None or entry[0]() is not obj:
                entry = _PROPERTIES[id(obj)] = (_reference(obj), set())
            entry[1].add(name)
        return value
    return get


def properties_now(obj) -> Dict[str, object]:
    """name -> current value of the properties of `obj` a trace read (and
    recorded: properties_read); one that now raises is left out."""
    entry = _PROPERTIES.get(id(obj))
    if entry is None or entry[0]() is not obj:
        return {}
    out = {}
    for name in sorted(entry[1]):
        try:
            out[name] = getattr(obj, name)
        except Exception:  # noqa: BLE001 - not readable now (a trainer detached)
            continue
    return out


def _watched_classes(model: torch.nn.Module, loss_fn) -> List[type]:
    """The classes whose properties properties_read records: the modules'
    and loss_fn's (_user_classes), and those of the simple objects their
    attributes hold, _NESTED_DEPTH levels down (a Lightning module's
    trainer, self._trainer.global_step)."""
    out = _user_classes(model, loss_fn)
    holders = list(model.modules())
    if isinstance(loss_fn, torch.nn.Module):
        holders += list(loss_fn.modules())
    queue = deque((v, 1) for m in holders for k, v in list(vars(m).items())
                  if k not in _MODULE_INTERNALS)
    seen = set()
    while queue and len(seen) < _SEARCH_ITEMS:
        value, depth = queue.popleft()
        if id(value) in seen or depth > _NESTED_DEPTH:
            continue
        seen.add(id(value))
        try:
            if isinstance(value, dict) and len(value) <= _NESTED_ITEMS:
                children = list(value.values())
            elif isinstance(value, (list, tuple)) and len(value) <= _NESTED_ITEMS:
                children = list(value)
            elif _simple_object(value):
                for cls in type(value).__mro__:
                    if cls not in out and not _installed(cls.__module__, packages=False):
                        out.append(cls)
                children = list(vars(value).values())[:_NESTED_ITEMS]
            else:
                continue
        except Exception:  # noqa: BLE001 - an object that refuses to be looked into
            continue
        queue.extend((v, depth + 1) for v in children)
    return out


@contextlib.contextmanager
def properties_read(model: torch.nn.Module, loss_fn=None) -> Iterator[None]:
    """While tracing `model`: the properties of _watched_classes record the
    objects whose property forward reads (a Lightning module's global_step,
    current_epoch or hparams: properties over self._trainer and
    self._hparams, used for KL annealing and warm-ups), so the module watch
    follows their values as it does attributes' (module_values,
    properties_now)."""
    wrapped = []
    for cls in _watched_classes(model, loss_fn):
        for name, prop in list(vars(cls).items()):
            if type(prop) is property and prop.fget is not None:
                try:
                    setattr(cls, name, property(_recording(prop.fget, name), prop.fset,
                                                prop.fdel, prop.__doc__))
                except (AttributeError, TypeError):  # a class that refuses
                    continue
                wrapped.append((cls, name, prop))
    try:
        yield
    finally:
        for cls, name, prop in wrapped:
            setattr(cls, name, prop)


def _user_classes(model: torch.nn.Module, loss_fn) -> List[type]:
    """The classes of the model's modules and of loss_fn that are no
    library's (_LIBRARIES), bases included."""
    objects = list(model.modules())
    if isinstance(loss_fn, torch.nn.Module):
        objects += list(loss_fn.modules())
    elif loss_fn is not None:
        objects.append(getattr(loss_fn, "__self__", loss_fn))
    out: List[type] = []
    for obj in objects:
        for cls in type(obj).__mro__:
            if (cls.__module__ or "builtins").split(".")[0] not in _LIBRARIES \
                    and cls not in out:
                out.append(cls)
    return out


def _codes(code) -> List[types.CodeType]:
    """`code` and the code objects nested in it (lambdas, comprehensions)."""
    out = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out += _codes(const)
    return out


def _user_code(obj) -> bool:
    """Whether `obj` (a function, class or Python module) is the user's
    code (not _installed)."""
    name = _probe(obj, "__name__" if isinstance(obj, types.ModuleType) else "__module__")
    return not _installed(name if isinstance(name, str) else None)


def _code_functions(model: torch.nn.Module, loss_fn) -> List[types.FunctionType]:
    """The functions whose code the traced forward may have run: the
    methods (and properties) of the modules' classes and loss_fn's, the
    user's functions and lambdas the modules and loss_fn hold as attributes
    (`self.fn = lambda t: t * SCALES[0]`, a functools.partial's), loss_fn
    itself, and the user's functions their code names as globals (a
    `get_scale()` helper), transitively; at most _CODE_FUNCTIONS."""
    methods = []
    for cls in _user_classes(model, loss_fn):
        for value in list(vars(cls).values()):
            if isinstance(value, property):
                methods += [value.fget, value.fset]
            methods.append(getattr(value, "__func__", value))  # staticmethod, classmethod
    start = []
    holders = list(model.modules())
    if isinstance(loss_fn, torch.nn.Module):
        holders += list(loss_fn.modules())
    elif loss_fn is not None:
        start.append(getattr(loss_fn, "__func__", loss_fn))
        holders.append(_probe(loss_fn, "__self__"))
    for obj in holders:
        attributes = _probe(obj, "__dict__")
        for value in list(attributes.values()) if isinstance(attributes, dict) else ():
            start.append(value.func if isinstance(value, functools.partial) else value)
    out: List[types.FunctionType] = []
    seen = set()
    queue = deque([f for f in methods if isinstance(f, types.FunctionType)]
                  + [f for f in start if isinstance(f, types.FunctionType) and _user_code(f)])
    while queue and len(out) < _CODE_FUNCTIONS:
        f = queue.popleft()
        if id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        for name in _names(f)[0]:
            value = f.__globals__.get(name)
            if isinstance(value, types.FunctionType) and _user_code(value):
                queue.append(value)
    return out


def _names(f: types.FunctionType) -> Tuple[List[str], List[str]]:
    """The names f's code (and the code nested in it) reads as globals, and
    those it names at all (globals and attributes: `myconfig.SCALE`), in
    order, once each. An attribute that shares a global's name (forward's
    `self.out` beside a script's `out` list) is no read of the global."""
    codes = _codes(f.__code__)
    read = (i.argval for code in codes for i in dis.get_instructions(code)
            if i.opname in _GLOBAL_READS)
    return (list(dict.fromkeys(n for n in read if isinstance(n, str))),
            list(dict.fromkeys(n for code in codes for n in code.co_names)))


# The instructions that read a global by name.
_GLOBAL_READS = ("LOAD_GLOBAL", "LOAD_NAME")


def _class_attribute(cls: type, name: str):
    """What cls.<name> reads from the classes' dicts (no descriptor run)."""
    for c in cls.__mro__:
        if name in vars(c):
            return vars(c)[name]
    return _MISSING


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _MISSING


def _watched(value) -> bool:
    """Whether a value the code reaches is watched: a Python number or
    string, or a container, simple object or functools.partial that may
    hold some (no tensor, module, class, function or Python module)."""
    return (isinstance(value, _CODE_KINDS + (dict, list, tuple, functools.partial))
            or _simple_object(value))


# A value the model's code reads from outside the modules: (what it is, its
# name, how to read it now).
_CodeRoot = Tuple[str, str, Callable[[], object]]


def _code_roots(model: torch.nn.Module, loss_fn) -> List[_CodeRoot]:
    """Where the code of _code_functions reads Python values from outside
    the modules: the globals it names (a number, `CONFIG["scale"]`, a
    yacs-style or argparse config, a global object's attribute), the
    attributes it names of the user's Python modules (`myconfig.SCALE`)
    and classes (`Settings.scale`, `class CFG: alpha = ...`), and the
    functions' closures."""
    roots: List[_CodeRoot] = []
    seen = set()

    def add(key, kind, label, read):
        if key not in seen and _watched(read()):
            seen.add(key)
            roots.append((kind, label, read))
    for f in _code_functions(model, loss_fn):
        space = f.__globals__
        module = space.get("__name__", "?")
        globals_read, names = _names(f)
        for name in globals_read:
            value = space.get(name, _MISSING)
            if name.startswith("__") or value is _MISSING:
                continue
            if isinstance(value, types.ModuleType):
                if not _user_code(value):
                    continue
                attributes = vars(value)
                for attr in names:
                    if not attr.startswith("__") and attr in attributes:
                        add((id(attributes), attr), "global", f"{value.__name__}.{attr}",
                            lambda d=attributes, a=attr: d.get(a, _MISSING))
            elif isinstance(value, type):
                if not _user_code(value):
                    continue
                for attr in names:
                    if not attr.startswith("__") and \
                            _class_attribute(value, attr) is not _MISSING:
                        add((id(value), attr), "class attribute",
                            f"{value.__module__}.{value.__qualname__}.{attr}",
                            lambda c=value, a=attr: _class_attribute(c, a))
            else:
                add((id(space), name), "global", f"{module}.{name}",
                    lambda d=space, n=name: d.get(n, _MISSING))
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            add((id(cell),), "value", f"{f.__qualname__}.<closure {name}>",
                lambda c=cell: _cell(c))
    return roots


def _code_values(roots: List[_CodeRoot]) -> Dict[Tuple[str, str], object]:
    """(kind, path) -> value of the numbers, bools and strings at `roots`
    (at most _CODE_VALUES, 4 levels down, containers of at most
    _SEARCH_ITEMS entries)."""
    out: Dict[Tuple[str, str], object] = {}

    def found(kind, path, value):
        if len(out) < _CODE_VALUES:
            out[(kind, path)] = value
    for kind, label, read in roots:
        if len(out) >= _CODE_VALUES:
            break
        value = read()
        if value is not _MISSING:
            _numbers(value, label, _NESTED_DEPTH + 1, functools.partial(found, kind),
                     _CODE_KINDS, _SEARCH_ITEMS)
    return out
