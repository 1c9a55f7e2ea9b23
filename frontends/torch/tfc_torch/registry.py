"""The table from aten ops to their tfc lowerings: the one place where each
op's mapping lives.

A lowering is registered with `@lowers("aten.addmm.default", ...)` under
the op overload names fx prints (`str(torch.ops.aten.addmm.default)`); it
is called as `fn(ctx, *args, **kwargs)` with the node's arguments, in which
traced tensors are ir.Values, tensors known at trace time are
constants.Known, and everything else is what the node holds (ints, floats,
lists, None). It returns a Value (or a tuple for multi-output ops) whose
type the importer checks against the traced tensor's.

A lowering whose tfc form depends on its surroundings emits a
frontend-internal `torch.*` op (ir.py) and registers, next to it, the
expansion into tfc ops with `@expands("torch.nll_loss")`;
passes/legalize.py applies it when no pattern claimed the op.

Ops that can never be lowered because their result's shape depends on
tensor values are listed with `refuse`, so their error says what to write
instead.

A node with a complex operand or result is lowered by the entry registered
with `@lowers_complex(...)` instead (ops/complex.py): it receives complex
tensors as importer.Complex pairs of real Values and returns such pairs.
"""
from typing import Callable, Dict, List, Optional, Tuple

_LOWERINGS: Dict[str, Callable] = {}
_REFUSED: Dict[str, Tuple[str, str]] = {}
_EXPANSIONS: Dict[str, Callable] = {}
_COMPLEX_LOWERINGS: Dict[str, Callable] = {}


def op_name(target) -> str:
    """The registry key of an fx call_function target."""
    if hasattr(target, "_schema") or type(target).__name__ == "OpOverload":
        return str(target)
    module = getattr(target, "__module__", "") or ""
    return f"{module}.{getattr(target, '__name__', repr(target))}".lstrip(".")


def _registrar(table: Dict[str, Callable], names, what: str):
    def register(fn):
        for name in names:
            if name in table:
                raise AssertionError(f"{name} lowered twice{what} ({table[name].__name__}, "
                                     f"{fn.__name__})")
            table[name] = fn
        return fn
    return register


def lowers(*names: str):
    """Registers the decorated function as the lowering of `names`."""
    return _registrar(_LOWERINGS, names, "")


def takes_masked(fn):
    """Marks a lowering that handles importer.Masked selections among its
    arguments itself (others get them through masked.py)."""
    fn.takes_masked = True
    return fn


def lowers_complex(*names: str):
    """Registers the decorated function as the lowering of `names` for
    nodes with a complex operand or result."""
    return _registrar(_COMPLEX_LOWERINGS, names, " for complex operands")


def lookup_complex(name: str) -> Optional[Callable]:
    return _COMPLEX_LOWERINGS.get(name)


def refuse(names, reason: str, hint: str) -> None:
    """Marks `names` as ops whose output shape depends on tensor values."""
    for name in names:
        _REFUSED[name] = (reason, hint)


def lookup(name: str) -> Optional[Callable]:
    return _LOWERINGS.get(name)


def refusal(name: str) -> Optional[Tuple[str, str]]:
    return _REFUSED.get(name)


def supported_ops() -> List[str]:
    """Every aten op overload the frontend lowers (for real or complex
    operands), sorted (the frontend's own tfc_torch ops left out)."""
    return sorted(n for n in set(_LOWERINGS) | set(_COMPLEX_LOWERINGS) if n.startswith("aten."))


def expands(name: str):
    """Registers the decorated `fn(builder, op) -> [Value]` as the tfc
    expansion of the frontend op `name` (results in order)."""
    def register(fn):
        assert name not in _EXPANSIONS, f"{name} expanded twice"
        _EXPANSIONS[name] = fn
        return fn
    return register


def expansion(name: str) -> Optional[Callable]:
    return _EXPANSIONS.get(name)
