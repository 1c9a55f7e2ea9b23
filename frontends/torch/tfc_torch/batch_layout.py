"""The batch a model is traced and called with, as tfc inputs.

The example batch is a sequence of positional arguments (`model(*batch)`),
or a dict passed as keyword arguments (`model(**batch)`, HF's style): a
dict given as the example batch itself, or as its only argument when its
keys are all names of forward's parameters or forward takes no positional
argument (`forward(self, **batch)`). A dict forward takes as one argument
(a dict of features) stays one positional argument.

Each argument is a tensor (one input, named by the argument), a list, tuple
or dict of tensors (one input per leaf, "<argument>.<i>" in
torch.utils._pytree's leaf order), or None (no input: a constant None
argument, as HF's token_type_ids=None; each call passes None there too).
Argument names are forward's parameter names (then loss_fn's), or the
dict's keys.

With a loss_fn and positional arguments, the loss is
loss_fn(model(*batch[:k]), *batch), torch's `loss_fn(model(x), y)`: forward
gets its parameters without default, and a parameter with a default (a
seq2seq's `target=None`, an LSTM's `hidden=None`) only the batch tensor that
input_names or loss_fn's parameters name as it (loss_fn=lambda out, x,
target: ...). A batch tensor that could fill such a parameter and that no
name says anything of warns (BatchBindingWarning). A forward(self, *args)
(a wrapper) gets the batch less the trailing tensors loss_fn's code reads
(_varargs_argc), all of them with the warning when that cannot be told.
A batch tensor loss_fn(output, *batch) would put into a loss_fn parameter
with a default (a torch loss passed as loss_fn: target=x, weight=y) is a
ModelError unless input_names names it so (_check_loss_defaults).
"""
import warnings
import inspect
import os
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import torch
import torch.utils._pytree as pytree

from . import options
from .errors import ModelError

NONE = "None"   # the spec of an argument passed as None: no input

_NUMBER_HINT = ("pass a number that changes between calls (mixup's lam, a temperature) as a "
                "0-d tensor, torch.tensor(lam); close over constant ones (functools.partial "
                "or a wrapper module): a closed-over value is fixed when compiled")


def _parameters(fn) -> Optional[List[inspect.Parameter]]:
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _positional_names(fn, skip: int = 0) -> List[str]:
    params = _parameters(fn) or []
    names = [p.name for p in params
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names[skip:]


def _accepts(fn) -> Optional[int]:
    """How many positional arguments `fn` takes (None: any number)."""
    params = _parameters(fn)
    if params is None:
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class BatchBindingWarning(UserWarning):
    """A batch tensor left out of forward's call although forward has a
    parameter with a default it could fill (see the module docstring)."""


def _model_argc(forward, n: int, loss_fn, given: Optional[Sequence[str]]) -> Tuple[int, str]:
    """How many leading batch tensors of `n` forward takes with a loss_fn,
    and a warning's text when a tensor that could fill a parameter with a
    default is left out without a name saying so ("" if none)."""
    params = _parameters(forward)
    if params is None:
        return n, ""
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return _varargs_argc(params, n, loss_fn)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    argc = min(n, sum(p.default is p.empty for p in positional))
    names = list(given) if given is not None else _positional_names(loss_fn, skip=1)
    while argc < min(n, len(positional)) and argc < len(names) and \
            names[argc] == positional[argc].name:
        argc += 1
    if argc >= min(n, len(positional)) or argc < len(names):
        return argc, ""
    left = positional[argc].name
    signature = ", ".join(p.name + ("" if p.default is p.empty else "=...") for p in positional)
    return argc, (
        f"forward({signature}) is called with the first {argc} batch tensors (its parameters "
        f"without default) and loss_fn with all {n}: batch tensor {argc} does not go to "
        f"forward's '{left}', as in torch's loss_fn(model(x), y). If it should, name it "
        f"'{left}' among loss_fn's parameters (loss_fn=lambda out, "
        f"{', '.join(p.name for p in positional[:argc + 1])}, ...: ...) or in input_names=")


def _loss_reads(loss_fn, n: int) -> Optional[List[bool]]:
    """Which of the `n` batch tensors loss_fn(output, *batch) reads: a
    Python function (or lambda) whose parameters after the output are named
    (none of them `*args`) reads the ones its code loads; None when that
    cannot be told (a module, a partial, a builtin, `*batch`)."""
    code = getattr(loss_fn, "__code__", None)
    params = _parameters(loss_fn)
    if code is None or params is None or any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)][1:]
    if len(positional) < n:
        return None
    import dis
    loaded = {i.argval for i in dis.get_instructions(code)
              if i.opname in ("LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE")}
    loaded |= set(code.co_cellvars)   # read by a nested function or comprehension
    return [name in loaded for name in positional[:n]]


def _varargs_argc(params, n: int, loss_fn) -> Tuple[int, str]:
    """_model_argc for forward(self, *args) (a wrapper passing them on):
    the batch less the trailing tensors loss_fn reads (torch's
    loss_fn(model(x), y): a target read by the loss is not forward's), at
    least forward's parameters before *args and one; all of them, with a
    warning, when what loss_fn reads cannot be told."""
    named = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    least = max(1, sum(p.default is p.empty for p in named))
    reads = _loss_reads(loss_fn, n)
    if reads is not None:
        argc = n
        while argc > least and reads[argc - 1]:
            argc -= 1
        return argc, ""
    if n <= least:
        return n, ""
    rest = next(p.name for p in params if p.kind == p.VAR_POSITIONAL)
    signature = ", ".join([p.name for p in named] + ["*" + rest])
    return n, (
        f"forward({signature}) takes any number of batch tensors in its "
        f"'*{rest}', and loss_fn does not tell "
        f"which of the {n} it reads (it takes *args, or is a module or a partial): forward is "
        f"called with all {n}, the last (a target, in torch's loss_fn(model(x), y)) too. If "
        "forward should not get the target, give forward named parameters (forward(self, x)) "
        "or pass a loss_fn naming the batch (loss_fn=lambda out, x, y: criterion(out, y)): "
        "forward then gets the batch less the trailing tensors loss_fn reads")


def _check_loss_defaults(loss_fn, n: int, given: Optional[Sequence[str]]) -> None:
    """A ModelError when loss_fn(output, *batch) would put a batch tensor
    into a parameter of loss_fn that has a default (a torch loss given as
    loss_fn: F.binary_cross_entropy_with_logits(input, target, weight=None)
    called with (out, x, y) takes x as the target and y as the weight),
    unless input_names names that tensor as the parameter."""
    target = loss_fn.forward if isinstance(loss_fn, torch.nn.Module) else loss_fn
    params = _parameters(target)
    if params is None:
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    filled = [(i, p) for i, p in enumerate(positional[1:n + 1]) if p.default is not p.empty]
    if given is not None and all(i < len(given) and given[i] == p.name for i, p in filled):
        filled = []
    if not filled:
        return
    i, p = filled[0]
    fn = getattr(loss_fn, "func", loss_fn)   # a functools.partial's function
    what = getattr(fn, "__name__", None) or type(loss_fn).__name__
    if getattr(fn, "__module__", None) == "torch.nn.functional":
        what = "F." + what
    call = "criterion" if isinstance(loss_fn, torch.nn.Module) else what
    takes = ", ".join(q.name for q in positional[:n + 1])
    raise ModelError(
        f"loss_fn is called as loss_fn(output, *batch), the output then all {n} batch tensors: "
        f"{what}({takes}, ...) would take batch tensor {i} as its '{p.name}', a parameter with "
        f"a default ({p.default!r}); a torch loss given as loss_fn takes the batch's input as "
        "its target that way",
        hint=f"take the batch after the output and pass the loss what it needs: loss_fn=lambda "
             f"out, x, y: {call}(out, y); if batch tensor {i} is meant for '{p.name}', name it "
             f"so in input_names=")


def _keywords(fn, skip: int = 0) -> Tuple[List[str], bool]:
    """The names `fn` takes as keywords (past its first `skip`
    parameters), and whether it takes any (**kwargs)."""
    params = _parameters(fn)
    if params is None:
        return [], True
    named = [p.name for p in params[skip:]
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return named, any(p.kind == p.VAR_KEYWORD for p in params)


def input_names(model, n: int, loss_fn=None, given: Optional[Sequence[str]] = None,
                model_argc: Optional[int] = None) -> List[str]:
    """Names of the `n` batch tensors: `given`, else forward's parameter
    names (of the `model_argc` it takes, with a loss_fn; then loss_fn's,
    after its first), else arg0, arg1, ..."""
    if given is not None:
        names = list(given)
        if len(names) != n:
            raise ModelError(f"input_names has {len(names)} names for {n} example tensors")
    else:
        names = _positional_names(model.forward)
        if loss_fn is not None:
            # loss_fn(output, *args) names every batch tensor when it spells
            # them out; otherwise the model's names come first.
            from_loss = _positional_names(loss_fn, skip=1)
            if len(from_loss) >= n:
                names = from_loss
            else:
                names = names[:n if model_argc is None else model_argc]
                names += from_loss[len(names):]
        names = (names + [f"arg{i}" for i in range(len(names), n)])[:n]
    return _unique(names)


def _unique(names: List[str]) -> List[str]:
    if len(set(names)) != len(names):
        raise ModelError(f"batch tensor names are not unique: {names}; pass input_names=")
    return [_unreserved(name, names) for name in names]


def _unreserved(name: str, names: Sequence[str], suffix: str = "_input") -> str:
    """`name`, or when the program reserves it (options.RESERVED_NAMES:
    a super-resolution model's forward(self, lr, hr)) `name` + `suffix` (+
    "_" until no other name in `names` has it): the batch is set by
    position, so only the program's name of the input changes."""
    if name not in options.RESERVED_NAMES:
        return name
    name += suffix
    while name in names or name in options.RESERVED_NAMES:
        name += "_"
    return name


def _as_keywords(model, example) -> Optional[Mapping]:
    """The dict of keyword arguments the example batch stands for, or None
    for positional arguments."""
    if isinstance(example, Mapping):
        return example
    if not (isinstance(example, (tuple, list)) and len(example) == 1
            and isinstance(example[0], Mapping) and example[0]):
        return None
    named, _ = _keywords(model.forward)
    keys = list(example[0])
    if all(isinstance(k, str) for k in keys) and (
            set(keys) <= set(named) or _accepts(model.forward) == 0):
        return example[0]
    return None


class BatchLayout:
    """The batch's arguments as tfc inputs (see the module docstring)."""

    def __init__(self, args: Sequence, names: Sequence[str],
                 keys: Optional[Sequence[str]] = None):
        self.names = list(names)
        self.keys = None if keys is None else list(keys)   # keyword arguments
        self.specs: List[Any] = [self._spec(i, a) for i, a in enumerate(args)]
        self.model_argc = len(self.specs)      # positional: how many forward takes
        self.model_keys = list(self.keys or [])   # keywords: those forward takes
        self.loss_keys: List[str] = []            # and those loss_fn takes
        self.unbound = ""     # a BatchBindingWarning's text (_model_argc)
        # The example batch as a call's (args, kwargs) (flatten's arguments).
        self.example: Tuple[Sequence, Optional[Dict]] = (tuple(args), None)

    @classmethod
    def of(cls, model, example, loss_fn=None, given: Optional[Sequence[str]] = None):
        """The layout of the example batch `example` of `model` (a tensor,
        a sequence of arguments, or a dict of keyword arguments)."""
        if isinstance(example, torch.Tensor):
            example = (example,)
        keywords = _as_keywords(model, example)
        if keywords is None:
            example = tuple(example)
            layout = cls(example, [f"arg{i}" for i in range(len(example))])
            if loss_fn is not None:
                _check_loss_defaults(loss_fn, len(example), given)
                layout.model_argc, layout.unbound = _model_argc(model.forward, len(example),
                                                                loss_fn, given)
            layout.names = input_names(model, len(example), loss_fn, given, layout.model_argc)
            layout.example = (example, None)
            return layout
        keys = list(keywords)
        bad = [k for k in keys if not isinstance(k, str)]
        if bad:
            raise ModelError(f"the example batch is a dict with the key {bad[0]!r}: a dict "
                             "batch is passed as keyword arguments, model(**batch), so its "
                             "keys are forward's parameter names")
        layout = cls([keywords[k] for k in keys], keys, keys)
        if given is not None:
            if len(given) != len(keys):
                raise ModelError(f"input_names has {len(given)} names for the {len(keys)} "
                                 f"entries of the dict batch ({', '.join(keys)})")
            layout.names = _unique(list(given))
        else:
            layout.names = _unique(keys)
        layout._split(model, loss_fn)
        layout.example = ((), dict(keywords))
        return layout

    def warn_unbound(self) -> None:
        """Warns once per trace when a batch tensor is left out of a
        parameter with a default without a name saying so."""
        if not self.unbound:
            return
        here, frame, level = os.path.dirname(__file__), sys._getframe(1), 2
        while frame is not None and frame.f_code.co_filename.startswith(here):
            frame, level = frame.f_back, level + 1
        warnings.warn(self.unbound, BatchBindingWarning, stacklevel=level)

    def _split(self, model, loss_fn) -> None:
        """Which keys forward takes, and loss_fn(output, **batch)."""
        named, anything = _keywords(model.forward)
        signature = f"{type(model).__name__}.forward({', '.join(named)})"
        if loss_fn is None:
            unknown = [k for k in self.keys if k not in named and not anything]
            if unknown:
                raise ModelError(
                    f"the example batch is a dict passed as keyword arguments, model(**batch), "
                    f"and {signature} takes no argument {', '.join(map(repr, unknown))}",
                    hint="use forward's parameter names as the keys, or pass the tensors "
                         "as a tuple (positional arguments)")
            self._check_required(model, self.keys, signature)
            return
        self.model_keys = [k for k in self.keys if anything or k in named]
        loss_named, loss_anything = _keywords(loss_fn, skip=1)
        self.loss_keys = [k for k in self.keys if loss_anything or k in loss_named]
        self._check_required(model, self.model_keys, signature)
        unused = [k for k in self.keys if k not in self.model_keys and k not in self.loss_keys]
        if unused:
            raise ModelError(
                f"the example batch is a dict passed as keyword arguments: model(**batch) "
                f"takes the keys forward names, loss_fn(output, **batch) those it names, and "
                f"neither {signature} nor loss_fn takes {', '.join(map(repr, unused))}",
                hint="name them in loss_fn's parameters (loss_fn(out, x, y)), or pass the "
                     "tensors as a tuple: loss_fn(model(*batch[:n]), *batch)")

    @staticmethod
    def _check_required(model, given: Sequence[str], signature: str) -> None:
        """A ModelError when forward has parameters without default the
        dict batch does not give."""
        params = _parameters(model.forward) or []
        missing = [p.name for p in params
                   if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                   and p.default is p.empty and p.name not in given]
        if missing:
            raise ModelError(
                f"the example batch is a dict passed as keyword arguments, model(**batch), "
                f"and it has no entry for {signature}'s {', '.join(map(repr, missing))}",
                hint="name the entries as forward's parameters, or pass the tensors as a "
                     "tuple (positional arguments: loss_fn(model(*batch[:n]), *batch))")

    def _label(self, i: int) -> str:
        return f"'{self.keys[i]}'" if self.keys is not None else str(i)

    def _spec(self, i: int, a):
        if isinstance(a, torch.Tensor):
            return None
        if a is None:
            return NONE
        leaves, spec = pytree.tree_flatten(a)
        if isinstance(a, (list, tuple, dict)) and leaves and \
                all(isinstance(x, torch.Tensor) for x in leaves):
            return spec
        odd = next((x for x in leaves if not isinstance(x, torch.Tensor)), None) \
            if isinstance(a, (list, tuple, dict)) and leaves else None
        what = type(a).__name__ if odd is None else \
            f"{type(a).__name__} holding a {type(odd).__name__} ({odd!r:.40})"
        raise ModelError(f"example argument {self._label(i)} is a {what}, not a tensor (or a "
                         "list, tuple or dict of tensors, or None)", hint=_NUMBER_HINT)

    def leaf_names(self) -> List[str]:
        out = []
        for name, spec in zip(self.names, self.specs):
            if spec is NONE:
                continue
            out += [name] if spec is None else [f"{name}.{i}" for i in range(spec.num_leaves)]
        return out

    def _arguments(self, args: Sequence, kwargs: Optional[Dict]) -> List:
        """A call's arguments in the example's order."""
        if self.keys is None:
            if kwargs:
                raise TypeError(f"the program was compiled with positional batch arguments "
                                f"({', '.join(self.names)}); got keywords "
                                f"{', '.join(kwargs)}")
            if len(args) != len(self.specs):
                raise TypeError(f"expected {len(self.specs)} batch tensors "
                                f"({', '.join(self.names)}), got {len(args)}")
            return list(args)
        if kwargs and not args:
            given = kwargs
        elif not kwargs and len(args) == 1 and isinstance(args[0], Mapping):
            given = args[0]
        else:
            raise TypeError(f"the program was compiled with a dict batch of the keys "
                            f"{', '.join(self.keys)} (keyword arguments): call it with one "
                            "dict, step(batch), or with keywords, step(**batch)")
        missing = [k for k in self.keys if k not in given]
        unexpected = [k for k in given if k not in self.keys]
        if missing or unexpected:
            raise TypeError(f"the batch's keys differ from the example's ({', '.join(self.keys)})"
                            f": missing {missing}, unexpected {unexpected}")
        return [given[k] for k in self.keys]

    def flatten(self, args: Sequence, kwargs: Optional[Dict] = None) -> List[torch.Tensor]:
        """The leaves of a call's batch (positional `args`, or the dict
        batch as `args[0]` or `kwargs`), which must have the example's
        structure, None where the example had None."""
        out = []
        for i, (name, spec, a) in enumerate(zip(self.names, self.specs,
                                                 self._arguments(args, kwargs))):
            if spec is NONE:
                if a is not None:
                    raise TypeError(
                        f"batch argument {self._label(i)} ({name}) is a {type(a).__name__}; "
                        "the program was compiled with None there (a constant None "
                        "argument): pass None, or compile with a tensor there")
                continue
            if a is None:
                raise TypeError(f"batch argument {self._label(i)} ({name}) is None; the "
                                "program was compiled with a tensor there")
            if spec is None:
                out.append(a)
                continue
            leaves, got = pytree.tree_flatten(a)
            if got != spec:
                raise TypeError(f"batch argument '{name}' has the structure {got}; the "
                                f"compiled program was traced with {spec}")
            out += leaves
        return out

    def unflatten(self, leaves: Sequence) -> list:
        """The arguments (None where the example had None) from the leaves."""
        out, at = [], 0
        for spec in self.specs:
            if spec is NONE:
                out.append(None)
            elif spec is None:
                out.append(leaves[at])
                at += 1
            else:
                out.append(pytree.tree_unflatten(list(leaves[at:at + spec.num_leaves]), spec))
                at += spec.num_leaves
        return out

    def model_call(self, values: Sequence) -> Tuple[tuple, Dict[str, Any]]:
        """forward's positional and keyword arguments from unflatten()'s
        values."""
        if self.keys is None:
            return tuple(values[:self.model_argc]), {}
        given = dict(zip(self.keys, values))
        return (), {k: given[k] for k in self.model_keys}

    def loss_call(self, values: Sequence) -> Tuple[tuple, Dict[str, Any]]:
        """loss_fn's arguments after the output: the whole batch, or the
        keys it names of a dict batch."""
        if self.keys is None:
            return tuple(values), {}
        given = dict(zip(self.keys, values))
        return (), {k: given[k] for k in self.loss_keys}
