"""tfc's elementwise ops as the frontend writes them (dialects/tfc/
TfcElementwiseOps.td): the one table that the printer (each op's syntax) and
passes/canonicalize (which ops move through reshapes and broadcasts, through
passes/match.py) read. A new tfc elementwise op is one line here, next to
its lowering in ops/."""
from typing import Dict, FrozenSet, NamedTuple


class Elementwise(NamedTuple):
    # Operands: 1, or 2 (numpy broadcasting, one element type).
    arity: int
    # Printed `tfc.op %x : T` / `tfc.op %a, %b : A, B`; otherwise the printer
    # has a rule of its own (an attribute, or a result type of its own).
    plain: bool
    # Element i is a function of the operands' elements i alone, so the op
    # may move through reshape / broadcast_to (passes/canonicalize).
    local: bool


OPS: Dict[str, Elementwise] = {
    "abs": Elementwise(1, True, True),
    "exp": Elementwise(1, True, True),
    "log": Elementwise(1, True, True),
    "neg": Elementwise(1, True, True),
    "relu": Elementwise(1, True, True),
    "rsqrt": Elementwise(1, True, True),
    "sigmoid": Elementwise(1, True, True),
    "silu": Elementwise(1, True, True),
    "sin": Elementwise(1, True, True),
    "cos": Elementwise(1, True, True),
    "sqrt": Elementwise(1, True, True),
    "tanh": Elementwise(1, True, True),
    "erf": Elementwise(1, True, True),
    "bitwise_not": Elementwise(1, True, True),
    "stop_gradient": Elementwise(1, True, False),  # stays where detach() was
    "gelu": Elementwise(1, False, True),  # approximate
    "pow": Elementwise(1, False, True),  # exponent
    "convert": Elementwise(1, False, True),  # its own result type
    "add": Elementwise(2, True, True),
    "sub": Elementwise(2, True, True),
    "mul": Elementwise(2, True, True),
    "div": Elementwise(2, True, True),
    "maximum": Elementwise(2, True, True),
    "minimum": Elementwise(2, True, True),
    "atan2": Elementwise(2, True, True),
    "fmod": Elementwise(2, True, True),
    "bitwise_and": Elementwise(2, True, True),
    "bitwise_or": Elementwise(2, True, True),
    "bitwise_xor": Elementwise(2, True, True),
    "shift_left": Elementwise(2, True, True),
    "shift_right": Elementwise(2, True, True),
}


def names(arity: int, plain: bool = None, local: bool = None) -> FrozenSet[str]:
    """The ops of `arity` operands (bare names, without `tfc.`), those
    printed plainly or element-local when `plain` / `local` are given."""
    return frozenset(n for n, op in OPS.items() if op.arity == arity
                     and (plain is None or op.plain == plain)
                     and (local is None or op.local == local))
