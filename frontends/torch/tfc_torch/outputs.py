"""The structure of a forward's output (import_forward, compile): its
leaves in torch.utils._pytree's tree_flatten order and a TreeSpec that
rebuilds it.

Containers torch's pytree takes (tuple, list, dict, namedtuple) flatten as
it does. Dataclass instances (HF's ModelOutput: a dataclass subclassing
OrderedDict) flatten by field, other dict subclasses (an OrderedDict
subclass) by item; both rebuild as their own class. Leaves that are no
tensors and that the trace saw as plain values (None: HF's loss at
inference, nanoGPT's `logits, None`; numbers, strings, dtypes) are
constants of the program: `rebuild` puts them back at each call.
"""
import ast
import dataclasses
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
import torch.utils._pytree as pytree

from .source import Frame, function_returns, return_frame

# Leaves kept as constants of the output: values the trace saw, which
# cannot depend on the batch's values (a static trace has no other).
CONSTANT_TYPES = (type(None), bool, int, float, complex, str, bytes, torch.dtype,
                  torch.device, torch.Size)


class _Node:
    """A dataclass or dict subclass in the output: its class, its keys
    (field names or dict keys) and its values, flattened by pytree."""

    def __init__(self, cls, keys, values, kind):
        self.cls, self.keys, self.values, self.kind = cls, list(keys), list(values), kind


def _flatten_node(node: _Node):
    return node.values, (node.cls, tuple(node.keys), node.kind)


def _unflatten_node(values, context):
    cls, keys, kind = context
    return _rebuild(cls, keys, list(values), kind)


pytree._register_pytree_node(_Node, _flatten_node, _unflatten_node)


def _rebuild(cls, keys, values, kind):
    items = dict(zip(keys, values))
    if kind == "dataclass":
        init = {f.name for f in dataclasses.fields(cls) if f.init}
        out = cls(**{k: v for k, v in items.items() if k in init})
        for k, v in items.items():
            if k not in init:
                object.__setattr__(out, k, v)
        return out
    try:
        out = cls(items)
        if list(out.keys()) == list(keys):
            return out
    except Exception:  # a constructor of other arguments: fill an empty one
        pass
    out = cls.__new__(cls)
    for k, v in items.items():
        out[k] = v
    return out


def _wrap(obj):
    """`obj` with its dataclasses and dict subclasses as _Nodes (pytree
    flattens the rest itself)."""
    if isinstance(obj, torch.Tensor):
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
        return _Node(type(obj), names, [_wrap(getattr(obj, n)) for n in names], "dataclass")
    if isinstance(obj, dict) and type(obj) not in pytree.SUPPORTED_NODES:
        return _Node(type(obj), obj.keys(), [_wrap(v) for v in obj.values()], "dict")
    if type(obj) in (tuple, list):
        return type(obj)(_wrap(x) for x in obj)
    if type(obj) in (dict, OrderedDict):
        return type(obj)((k, _wrap(v)) for k, v in obj.items())
    if pytree._is_namedtuple_instance(obj):
        return type(obj)(*[_wrap(x) for x in obj])
    return obj   # a leaf, or torch's return types (pytree flattens them)


def flatten(out) -> Tuple[List[Any], pytree.TreeSpec]:
    """The output's leaves and the TreeSpec that rebuilds it."""
    return pytree.tree_flatten(_wrap(out))


def is_constant(leaf) -> bool:
    return isinstance(leaf, CONSTANT_TYPES)


def describe(leaf) -> str:
    """A leaf that is no tensor, for error messages."""
    if isinstance(leaf, CONSTANT_TYPES):
        return f"{type(leaf).__name__} ({leaf!r})"
    return type(leaf).__name__


def rebuild(spec: pytree.TreeSpec, tensors: Sequence[torch.Tensor],
            constants: Dict[int, Any]):
    """The output of TreeSpec `spec` from the program's results `tensors`
    (the tensor leaves in order) and the constant leaves by flat index."""
    tensors = iter(tensors)
    leaves = [constants[i] if i in constants else next(tensors)
              for i in range(spec.num_leaves)]
    return pytree.tree_unflatten(leaves, spec)


def _returns(fn):
    """fn's source file, first line, lines and the return statements of
    its own body; None when the source is unavailable."""
    parsed = function_returns(fn)
    if parsed is None:
        return None
    file, first, lines, _, returns = parsed
    return file, first, lines, returns


def _matches(value: Optional[ast.expr], out) -> bool:
    """Whether a return statement's expression can have produced `out`
    (its literal form: a tuple of that length, a dict of those keys, a
    call of the output's class, None)."""
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return out is None
    if isinstance(value, (ast.Tuple, ast.List)):
        return isinstance(out, (tuple, list)) and len(value.elts) == len(out)
    if isinstance(value, ast.Dict):
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
        return isinstance(out, dict) and keys == list(out.keys())
    if isinstance(value, ast.Call):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else \
            getattr(value.func, "id", None)
        return name == type(out).__name__
    return False


def output_frame(forward, out) -> Optional[Frame]:
    """The return statement of `forward` that returned `out`: the only
    one, or the only one whose literal form fits `out`; else the def line
    (source.return_frame)."""
    fn = getattr(forward, "__func__", forward)
    frame = return_frame(fn)
    found = _returns(fn) if frame is not None else None
    if found is None:
        return frame
    file, first, lines, returns = found
    fitting = [r for r in returns if _matches(r.value, out)]
    if len(returns) < 2 or len(fitting) != 1:
        return frame
    line = fitting[0].lineno
    return Frame(file, first + line - 1, getattr(fn, "__name__", "forward"),
                 lines[line - 1].strip())
