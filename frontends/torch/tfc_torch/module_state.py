"""What a traced forward does to its module's state besides computing.

trace() calls the module with its parameters and buffers swapped for
traced placeholders (functional_call). Model code reaches and changes that
state in ways functional_call alone does not route to the placeholders:

- `.parameters()` / `.buffers()` and their named forms iterate the
  modules' own tables, not the swapped attributes: MoCo's momentum update
  `for pq, pk in zip(q.parameters(), k.parameters()): pk.mul_(m).add_(pq)`
  would read the user's tensors (constants of the trace) and write them.
  `state_tables(model, state)` puts the placeholders into those tables for
  the call. A parameter's placeholder (trainable or frozen, not a
  buffer's) answers isinstance(t, nn.Parameter) True meanwhile, as the
  parameter does in eager (a "learnable or fixed temperature" branch).
- A buffer rebound in forward (`self.center = self.center * m + c * (1 -
  m)`, DINO; zalando's VQ-VAE EMA) or set through `.data` (`pk.data =
  pk.data * m + pq.data * (1 - m)`, MoCo's official form): functional_call
  records the new tensor in its state dict, and `.data =` swaps a tensor's
  contents out of the graph's sight. `carry_rebindings` and
  `data_writes` turn both into an in-place copy into the placeholder,
  which the import carries as model state (an update the training step
  applies each call, as for in-place writes). A trainable parameter
  rebound or set through `.data` is refused: the optimizer owns it.
- A submodule copied in forward (copy.deepcopy, functorch's
  make_functional): `traced_parameters` makes a deep copy of a traced
  tensor its detached value (torch's copy of a parameter is a new leaf),
  as is nn.Parameter(traced tensor) (fuse_conv_bn_weights in forward),
  and a traced tensor assigned to a parameter's name stands for one.
- Plain Python attributes changed by forward (a step counter for KL
  annealing, an `initialized` flag) are baked into the trace with the
  values of the traced call. `attributes_kept(model)` restores them after
  tracing (compiling leaves the module as it was) and names the changed
  ones in a TracedUpdateWarning; a tensor attribute that is no buffer,
  changed and read by the trace (`self.h = f(self.h).detach()`), is a
  ModelError: torch carries it from call to call, and the compiled program
  would compute with the traced call's value every time.
"""
import contextlib
import os
import sys
import warnings
from typing import Dict, Iterator, List, Optional, Set, Tuple

import torch

from . import grad_flags, patching
from .errors import ModelError, TracedUpdateWarning
from .selection_sizes import _ALIAS, _ALIASING
from .source import Frame, node_frame, stack_frame

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


def tracing() -> bool:
    """Whether a traced forward is running (its placeholders are set)."""
    return bool(_PLACEHOLDERS)


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
    saved, flagged = [], []
    for name, t in state.items():
        module, local = _owner(model, name)
        table = (module._parameters if local in module._parameters
                 else module._buffers if local in module._buffers else None)
        if table is not None:
            saved.append((table, local, table[local]))
            table[local] = t
        if table is module._parameters and isinstance(t, torch.Tensor) \
                and not isinstance(t, torch.nn.Parameter):
            # A parameter's placeholder answers isinstance(t, nn.Parameter)
            # as the parameter does (torch's _ParameterMeta reads the flag):
            # `if isinstance(self.temp, nn.Parameter)` takes eager's branch.
            t._is_param = True
            flagged.append(t)
    try:
        yield
    finally:
        for t in flagged:
            t.__dict__.pop("_is_param", None)
        for table, local, original in reversed(saved):
            table[local] = original
        _PLACEHOLDERS.intersection_update(outer)


def _copy_into(holder: torch.Tensor, value, what: str, frame_hint: str):
    """holder.copy_(value) without recording a gradient, after checking
    that value can stand for holder (same shape and dtype)."""
    if not isinstance(value, torch.Tensor) or tuple(value.shape) != tuple(holder.shape):
        shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
        raise ModelError(f"forward replaces {what} of shape {tuple(holder.shape)} with "
                         f"{shape}; tfc compiles model state of fixed shapes",
                         hint=frame_hint)
    if value.dtype != holder.dtype:
        raise ModelError(f"forward replaces {what} of dtype {holder.dtype} with a {value.dtype} "
                         "tensor; tfc keeps model state in its dtype",
                         hint="convert the new value (.to(old.dtype)), or register the state "
                              "with the dtype it takes")
    with torch.no_grad():
        holder.copy_(value)


def carry_rebindings(state: Dict[str, torch.Tensor], placeholders: Dict[str, torch.Tensor],
                     trainable: Set[str]):
    """After the call: every name whose entry in functional_call's `state`
    no longer is its placeholder was rebound by forward; a buffer's (or a
    frozen parameter's) new value is copied into the placeholder, a
    trainable parameter's is refused. Values that are placeholders
    themselves (buffers swapped, a shift register h2 = h1; h1 = new) are
    read before any is written."""
    holders = {id(t) for t in placeholders.values()}
    rebound = {name: state[name] for name, holder in placeholders.items()
               if name in state and state[name] is not holder}
    for name, value in rebound.items():
        if isinstance(value, torch.Tensor) and id(value) in holders:
            with torch.no_grad():
                rebound[name] = value.clone()
    for name, value in rebound.items():
        holder = placeholders[name]
        if name in trainable:
            raise ModelError(
                f"forward replaces the trainable parameter '{name}' (self.{name.split('.')[-1]}"
                " = ...); tfc's training step updates trainable parameters through the "
                "optimizer only",
                hint=TRAINABLE_WRITE_HINT)
        _copy_into(holder, value, f"buffer '{name}'",
                   "keep the state's shape, or compute the value in forward without storing it")
        state[name] = holder


_PARAMETER_NEW = torch.nn.Parameter.__new__


def _traced_parameter(cls, data=None, requires_grad=True):
    """nn.Parameter(x) of a traced tensor (`self.f = nn.Parameter(self.f *
    m, requires_grad=False)`; torch.nn.utils.fusion's fuse_conv_bn_weights
    and fuse_linear_bn_weights in a training forward): x detached, as
    torch's Parameter is a new leaf that passes no gradient back to x's
    inputs (reporting requires_grad as asked). A Parameter made of it
    would be cut from the trace: its value a constant."""
    if isinstance(data, torch.Tensor) and torch._is_functional_tensor(data):
        leaf = data.detach()
        grad_flags.mark_trainable([leaf] if requires_grad else [])
        return leaf
    return _PARAMETER_NEW(cls, data, requires_grad)


_MODULE_SETATTR = torch.nn.Module.__setattr__
# (id(module), name) -> the model's line that first rebound the module's
# plain tensor attribute `name` in the call being traced.
_REBOUND: Dict[tuple, Optional[Frame]] = {}


def _traced_setattr(module, name, value):
    """A traced tensor assigned to a parameter's name stands for a
    parameter, as nn.Parameter(traced tensor) is one (a module copied in
    forward, `w -= lr * g` on its weight under no_grad). A plain tensor
    attribute rebound to a tensor is noted with the model's line, for
    attributes_kept's error."""
    if isinstance(value, torch.Tensor) and isinstance(module.__dict__.get(name), torch.Tensor) \
            and (id(module), name) not in _REBOUND:
        _REBOUND[(id(module), name)] = stack_frame()
    table = module.__dict__.get("_parameters")
    if table is not None and name in table and isinstance(value, torch.Tensor) and \
            torch._is_functional_tensor(value):
        table[name] = value
    elif isinstance(value, torch.Tensor) and value.__dict__.get("_is_param") and \
            not (table is not None and name in table):
        # A parameter's placeholder (state_tables) stored under another
        # name (`self.last_w = self.l.weight`) is the plain traced tensor it
        # is, not a parameter torch would register for good. (Written back
        # to a parameter's own name, as the eager run's `w -= lr * g` on a
        # copied module does, it stays one.)
        del value._is_param
        try:
            _MODULE_SETATTR(module, name, value)
        finally:
            value._is_param = True
    else:
        _MODULE_SETATTR(module, name, value)


@contextlib.contextmanager
def traced_parameters() -> Iterator[None]:
    """nn.Parameter(traced tensor) is that tensor meanwhile, a traced
    tensor assigned to a parameter's name takes its place, and
    copy.deepcopy of one is its detached value (_traced_deepcopy)."""
    with patching.replaced(torch.nn.Parameter, __new__=_traced_parameter), \
            patching.replaced(torch.nn.Module, __setattr__=_traced_setattr), \
            patching.replaced(torch.Tensor, __deepcopy__=_traced_deepcopy):
        yield


_DEEPCOPY = torch.Tensor.__deepcopy__


def _traced_deepcopy(t, memo):
    """copy.deepcopy of a traced tensor (a submodule copied in forward:
    `fast = copy.deepcopy(self.net)`, functorch's make_functional): its
    value, detached, as torch's copy of a parameter is a new leaf that
    passes no gradient back (and reports requires_grad as t does)."""
    if not torch._is_functional_tensor(t):
        return _DEEPCOPY(t, memo)
    if id(t) not in memo:
        with torch.no_grad():
            memo[id(t)] = t.detach().clone()
        grad_flags.mark_trainable([memo[id(t)]] if grad_flags.flagged(t) else [])
    return memo[id(t)]


# Python's in-place operators and item assignment (in-place methods end in "_").
_INPLACE_OPERATORS = {"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
                      "__idiv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
                      "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"}


def _writes_in_place(func) -> bool:
    name = getattr(func, "__name__", "")
    return name in _INPLACE_OPERATORS or (name.endswith("_") and not name.startswith("_"))


def _takes_view(func) -> bool:
    return getattr(func, "__name__", "") in _ALIASING


class _AliasWrites(torch.overrides.TorchFunctionMode):
    """An in-place op on `.data` of a tensor that is not model state runs on
    the tensor itself under torch.no_grad(): torch's `h.data.clamp_(...)`
    changes h's value and leaves its autograd history as it was, so h's
    gradient flows on as through the identity, which is what an in-place op
    under no_grad on a tensor that requires grad does (no_grad_writes.py
    pairs it with the eager run's). Written through the detached alias, the
    trace would cut h's gradient instead. A view of such an alias
    (`h.data[:, 0]`) is the view of the tensor taken under no_grad, and an
    in-place op on it runs under no_grad too (a write through a view)."""

    def __init__(self, sources: Dict[int, tuple]):
        super().__init__()
        self.sources = sources

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        entry = self.sources.get(id(args[0])) if args else None
        if entry is None or entry[0] is not args[0]:
            return func(*args, **kwargs)
        alias, source = entry
        if _writes_in_place(func):
            with torch.no_grad():
                out = func(source, *args[1:], **kwargs)
            return alias if out is source else out
        if not _takes_view(func):
            return func(*args, **kwargs)
        return self._view(func, source, *args[1:], **kwargs)

    def _view(self, func, source, *args, **kwargs):
        with torch.no_grad():
            out = func(source, *args, **kwargs)
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor):
                self.sources[id(t)] = (t, t)
        return out

    def indexing(self):
        """Tensor.__getitem__ / __setitem__ on such aliases likewise (they
        reach no torch function mode), as a context manager."""
        getitem, setitem = torch.Tensor.__getitem__, torch.Tensor.__setitem__

        def alias_getitem(t, index):
            entry = self.sources.get(id(t))
            if entry is None or entry[0] is not t:
                return getitem(t, index)
            return self._view(getitem, entry[1], index)

        def alias_setitem(t, index, value):
            entry = self.sources.get(id(t))
            if entry is None or entry[0] is not t:
                return setitem(t, index, value)
            with torch.no_grad():
                setitem(entry[1], index, value)
        return patching.replaced(torch.Tensor, __getitem__=alias_getitem,
                                 __setitem__=alias_setitem)


def _straight_through_into(t: torch.Tensor, value) -> None:
    """`t.data = value` on a tensor that is not model state (BinaryNet's
    `input.data = Binarize(input.data)`): torch gives t the new value and
    keeps t's autograd history, so the gradient reaching t flows on to its
    old value unchanged (a straight-through estimator). In place: t becomes
    value + (t - t.detach()), value's own history dropped, as .data drops
    it."""
    if not isinstance(value, torch.Tensor) or value.shape != t.shape or value.dtype != t.dtype:
        got = (f"{tuple(value.shape)} {value.dtype}" if isinstance(value, torch.Tensor)
               else type(value).__name__)
        raise ModelError(f"forward sets .data of a {tuple(t.shape)} {t.dtype} tensor to {got}; "
                         "tfc replaces .data by a value of the same shape and dtype only",
                         hint="compute the new tensor out of place, t = new")
    if t._is_view() or getattr(t, _ALIAS, None) is not None:
        raise ModelError("forward sets .data of a view of another tensor, which torch gives new "
                         "storage of its own; tfc would write the new value into the base too",
                         hint="write the straight-through form out of place, "
                              "t = t + (new - t).detach()")
    with torch.enable_grad():
        t.copy_(value.detach() + (t - t.detach()))


@contextlib.contextmanager
def data_writes(placeholders: Dict[str, torch.Tensor], trainable: Set[str]) -> Iterator[None]:
    """`.data` meanwhile. Read, it is `t.detach()` (torch's detached alias:
    no gradient flows back through it; the trace records the detach); an
    in-place op on it writes `t` (_AliasWrites). `t.data = value` on a
    placeholder is an in-place copy for a buffer or frozen parameter,
    refused for a trainable parameter; on any other tensor the
    straight-through write of _straight_through_into."""
    names = {id(t): n for n, t in placeholders.items()}
    sources: Dict[int, tuple] = {}

    def get_data(t):
        alias = t.detach()
        if id(t) in sources:
            sources[id(alias)] = (alias, sources[id(t)][1])
        elif id(t) not in names:
            sources[id(alias)] = (alias, t)
        return alias

    def set_data(t, value):
        name = names.get(id(t))
        if name is None:
            return _straight_through_into(t, value)
        if name in trainable:
            raise ModelError(
                f"forward sets the trainable parameter '{name}' through .data; tfc's training "
                "step updates trainable parameters through the optimizer only",
                hint=TRAINABLE_WRITE_HINT)
        _copy_into(t, value, f"'{name}' (through .data)",
                   "keep the state's shape")
    writes = _AliasWrites(sources)
    with patching.replaced(torch.Tensor, data=property(get_data, set_data)), writes, \
            writes.indexing():
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


_MISSING = object()


def _same_tensor(a, b) -> bool:
    try:
        return (a.shape == b.shape and a.dtype == b.dtype
                and bool(torch.equal(a.detach().cpu(), b.detach().cpu())))
    except (RuntimeError, TypeError):  # e.g. a traced tensor left behind
        return False


def _snapshot(model: torch.nn.Module) -> list:
    """What forward may change of each module besides its parameters and
    buffers: its public attributes (plain values; tensors with a copy of
    their values; lists and dicts with a shallow copy), its submodule
    table, and its buffers registered as None."""
    entries = []
    for prefix, module in model.named_modules(remove_duplicate=False):
        for key, value in vars(module).items():
            if key.startswith("_"):
                continue
            if isinstance(value, _PLAIN):
                entries.append((module, prefix, key, value, None))
            elif isinstance(value, torch.Tensor) and value.layout == torch.strided:
                entries.append((module, prefix, key, value, value.detach().clone()))
            elif isinstance(value, (list, dict)):
                entries.append((module, prefix, key, value, type(value)(value)))
        entries.append((module, prefix, "_modules", module._modules, dict(module._modules)))
        for key, value in module._buffers.items():
            if value is None:
                entries.append((module, prefix, ("buffer", key), None, None))
    return entries


def _restore(entry, read: Set[int]) -> str:
    """Puts one snapshot entry back; what changed (for the warning), or "".
    A tensor attribute counts when the trace read its old value (its
    storage among `read`): one recomputed from the parameters on every
    call (the old spectral_norm's weight, set by a forward pre-hook) is
    no state."""
    module, prefix, key, value, copy = entry
    where = prefix + "." if prefix else ""
    if isinstance(key, tuple):  # a buffer registered as None
        if module._buffers.get(key[1]) is None:
            return ""
        module._buffers[key[1]] = None
        return f"buffer {where}{key[1]} (None before)"
    if key == "_modules":
        if len(value) == len(copy) and all(value.get(k) is m for k, m in copy.items()):
            return ""
        value.clear()
        value.update(copy)
        return f"{where}submodules"
    now = vars(module).get(key, _MISSING)
    if isinstance(value, _PLAIN):
        if now is value or now == value:
            return ""
        object.__setattr__(module, key, value)
        return f"{where}{key} (was {value!r})"
    if isinstance(value, torch.Tensor):
        if now is value and _same_tensor(value, copy):
            return ""
        changed = not (isinstance(now, torch.Tensor) and _same_tensor(now, copy))
        object.__setattr__(module, key, value)
        if not _same_tensor(value, copy):
            with torch.no_grad():
                value.copy_(copy)
        return f"{where}{key} (a tensor)" if changed and value.data_ptr() in read else ""
    if now is value and (value == copy if isinstance(value, dict) else
                         len(value) == len(copy) and all(a is b for a, b in zip(value, copy))):
        return ""
    object.__setattr__(module, key, value)
    if isinstance(value, list):
        value[:] = copy
    else:
        value.clear()
        value.update(copy)
    return f"{where}{key} (a {type(value).__name__})"


class _Kept:
    """attributes_kept's handle: read_by(gm) records the tensors a traced
    graph reads as constants."""

    def __init__(self):
        self.read: Set[int] = set()
        # storage -> the model's line of the first op reading it
        self.frames: Dict[int, Optional[Frame]] = {}

    def read_by(self, gm: torch.fx.GraphModule) -> None:
        for value in list(vars(gm).values()) + [v for _, v in gm.named_buffers()]:
            if isinstance(value, torch.Tensor) and value.layout == torch.strided:
                self.read.add(value.data_ptr())
        for node in gm.graph.nodes:
            value = getattr(gm, node.target, None) if node.op == "get_attr" else None
            if isinstance(value, torch.Tensor) and value.layout == torch.strided:
                users = [u for u in node.users if u.op == "call_function"]
                self.frames.setdefault(value.data_ptr(),
                                       node_frame(users[0]) if users else None)


def _plain_trainables(model: torch.nn.Module, read: Set[int],
                      loss_fn=None) -> List[Tuple[str, int]]:
    """The names of the tensors held by the modules' attributes (directly
    or in a list, tuple or dict) or by the globals the model's code (and
    `loss_fn`'s) reads that are no parameters but leaves that require grad
    (functorch's ensembling: `p.requires_grad_()` of stacked weights kept on
    the module; CleanRL SAC's global `log_alpha = torch.zeros(1,
    requires_grad=True)`), among the storages a trace read, with their
    storages."""
    from .custom_functions import code_globals
    found = []
    for space in code_globals(model, *([loss_fn] if loss_fn is not None else [])):
        for key, t in list(space.items()):
            if (isinstance(t, torch.Tensor) and not isinstance(t, torch.nn.Parameter)
                    and t.requires_grad and t.is_leaf and t.layout == torch.strided
                    and t.data_ptr() in read):
                found.append((f"{space.get('__name__', '?')}.{key}", t.data_ptr()))
    for prefix, module in model.named_modules():
        where = prefix + "." if prefix else ""
        for key, value in vars(module).items():
            if key in ("_parameters", "_buffers", "_modules"):
                continue
            items = [(key, value)]
            if isinstance(value, (list, tuple)):
                items = [(f"{key}[{i}]", v) for i, v in enumerate(value[:64])]
            elif isinstance(value, dict):
                items = [(f"{key}[{k!r}]", v) for k, v in list(value.items())[:64]]
            for name, t in items:
                if (isinstance(t, torch.Tensor) and not isinstance(t, torch.nn.Parameter)
                        and t.requires_grad and t.is_leaf and t.layout == torch.strided
                        and t.data_ptr() in read):
                    found.append((where + name, t.data_ptr()))
    return found


@contextlib.contextmanager
def attributes_kept(model: torch.nn.Module, model_name: str,
                    training: bool = False, loss_fn=None) -> Iterator[_Kept]:
    """Restores what the traced forward changed of the modules besides
    their parameters and buffers (_snapshot) after the block and says
    so: a TracedUpdateWarning naming the attributes (a tensor rebound to
    equal values, as `self.pe = self.pe.to(x.dtype)`, is no change), a
    ModelError for a buffer registered as None and set in forward (the
    compiled program would compute its first value every call) and for a
    tensor attribute that is no buffer, changed (rebound or written) and
    read by the trace (the program would compute with its traced value
    every call). Yields a _Kept: tell it the traced graph (read_by) so
    that tensor attributes the trace never read are no state. `training`
    (a loss import): a tensor attribute (or a global of the model's or
    `loss_fn`'s code) the trace read that requires grad but is no parameter
    (_plain_trainables) is a ModelError."""
    before = _snapshot(model)
    # The parameters' requires_grad: the eager run after the trace runs
    # forward on them, and a freeze in forward (grad_flags.set_requires_grad)
    # writes theirs.
    flags = [(p, p.requires_grad) for p in model.parameters()]
    kept = _Kept()
    failed = True
    _REBOUND.clear()
    try:
        yield kept
        failed = False
    finally:
        for p, flag in flags:
            if p.requires_grad != flag:
                p.requires_grad_(flag)
        restored = [(entry, _restore(entry, kept.read)) for entry in before]
        changed = [c for _, c in restored if c]
        lazy = [c for c in changed if c.startswith("buffer ")]
        tensors = [(entry, c) for entry, c in restored if c.endswith(" (a tensor)")]
        changed = [c for c in changed if not c.endswith(" (a tensor)")]
        frames = [_REBOUND.get((id(entry[0]), entry[2])) for entry, _ in tensors]
        _REBOUND.clear()
        trainables = (_plain_trainables(model, kept.read, loss_fn) if training and not failed
                      else [])
        many = len(trainables) > 1
        if trainables:
            raise ModelError(
                f"{model_name} reads the tensor{'s' if many else ''} "
                f"{', '.join(n for n, _ in trainables)} "
                f"that require{'' if many else 's'} grad but {'are' if many else 'is'} no "
                "nn.Parameter: the training step trains the module's parameters only, so the "
                f"trace would read {'them' if many else 'it'} as a constant, never updated",
                kept.frames.get(trainables[0][1]), hint="to train it, make it a parameter (self.w = nn.Parameter(w), or "
                     "register_parameter); to keep it constant, detach it "
                     "(w.detach(), w.requires_grad_(False)) or register it as a buffer")
        if tensors and not lazy and not failed:
            names = [c[:-len(" (a tensor)")] for _, c in tensors]
            key = tensors[0][0][2] if len(names) == 1 else "name"
            raise ModelError(
                f"{model_name}'s forward changes the plain tensor attribute"
                f"{'s' if len(names) > 1 else ''} {', '.join(names)} (no parameter, buffer or "
                "input), which torch carries from call to call: a trace reads it as a constant, "
                "so every compiled call would compute with the value the traced call saw",
                next((f for f in frames if f is not None), None),
                f"register it as a buffer, self.register_buffer('{key}', tensor): the training "
                "step carries a buffer forward re-assigns or updates in place (a running "
                "statistic, a truncated-BPTT hidden state self.hidden = h.detach()) as model "
                "state; or pass it as a batch argument")
        if lazy and not failed:
            raise ModelError(
                f"{model_name}'s forward sets {', '.join(lazy)}: tfc carries the updates of "
                "buffers that exist when the model is compiled, so the compiled program would "
                "compute the buffer's first value on every call",
                hint="call the model once eagerly before compiling (model(*batch): a cache "
                     "forward fills on its first call then exists, and the program reads it); "
                     "for state forward updates on every call, register the buffer with its "
                     "initial tensor in __init__ and update it in place or re-assign it")
        if changed and not lazy and not failed:
            warnings.warn(
                f"{model_name}'s forward changes the Python attributes {', '.join(changed)}: "
                "a trace keeps the values the traced call saw, so every compiled call computes "
                "as that call did (a step counter does not advance, an init-once branch runs "
                "every time, a list keeps the traced call's entries); the module's attributes "
                "are restored. Keep such values in registered buffers (updated in place or "
                "re-assigned: both are carried) or pass them as inputs",
                TracedUpdateWarning, stacklevel=caller_level())
