"""Small helpers for matching op patterns on the frontend IR."""
import math
from typing import Optional

from .. import elementwise_ops
from ..ir import Op, Value

# The element-local elementwise ops (elementwise_ops.py, the one list).
ELEMENTWISE_UNARY = {f"tfc.{n}" for n in elementwise_ops.names(1, local=True)}
ELEMENTWISE_BINARY = {f"tfc.{n}" for n in elementwise_ops.names(2, local=True)}


def defining(v: Value, *names: str) -> Optional[Op]:
    """The op defining `v` when its name is one of `names`."""
    if v.op is not None and (not names or v.op.name in names):
        return v.op
    return None


def splat(v: Value) -> Optional[float]:
    """The value of a splat constant (through reshape/broadcast)."""
    while v.op is not None and v.op.name in ("tfc.reshape", "tfc.broadcast_to"):
        v = v.op.operands[0]
    if v.op is not None and v.op.name == "tfc.constant" and "splat" in v.op.attrs:
        return v.op.attrs["splat"]
    if v.known is not None and v.known.numel() >= 1:
        flat = v.known.reshape(-1)
        if bool((flat == flat[0]).all()):
            return flat[0].item()
    return None


def is_splat(v: Value, value: float, rel: float = 1e-6) -> bool:
    s = splat(v)
    return s is not None and math.isclose(float(s), value, rel_tol=rel, abs_tol=0.0)


def other(op: Op, v: Value) -> Value:
    """The operand of binary `op` that is not `v`."""
    a, b = op.operands
    return b if a is v else a


def single_use(uses, v: Value) -> Optional[Op]:
    """The only user of `v` (None when it has none, several, or is returned)."""
    users = uses.get(v, [])
    if len(users) != 1 or users[0][0] is None:
        return None
    return users[0][0]


def replace(fn, old: Value, new: Value) -> None:
    fn.replace_all_uses(old, new)


def collect_before(fn, anchor: Op):
    """A builder whose ops get spliced before `anchor` by `splice`."""
    from ..builder import Builder
    b = Builder(fn).collect()
    b.source, b.hint = anchor.source, anchor.results[0].hint
    return b


def splice(fn, anchor: Op, b) -> None:
    fn.insert_before(anchor, b.collected)
