"""The exact GELU written with erf (`x * 0.5 * (1 + erf(x / sqrt(2)))`, as
older BERT code does) becomes `tfc.gelu` (approximate none): one op with
its own backward instead of an erf and three multiplications. aten.erf is
imported as the frontend op torch.erf for this match; legalize turns the
erfs it leaves into tfc.erf.

Matched: e = erf(x / c | x * (1/c)) with c = sqrt(2); a = add(e, 1); then
mul(a, mul(x, 0.5)) or mul(mul(a, x), 0.5), operands in either order."""
import math

from .match import collect_before, defining, is_splat, other, replace, single_use, splice

_SQRT2 = math.sqrt(2.0)


def _erf_input(e):
    """x when the erf's operand is x / sqrt(2) or x * (1/sqrt(2))."""
    arg = e.operands[0]
    op = defining(arg, "tfc.div", "tfc.mul")
    if op is None:
        return None
    a, b = op.operands
    if op.name == "tfc.div":
        return a if is_splat(b, _SQRT2) else None
    if is_splat(b, 1 / _SQRT2):
        return a
    if is_splat(a, 1 / _SQRT2):
        return b
    return None


def _half_of(v, x) -> bool:
    m = defining(v, "tfc.mul")
    return m is not None and x in m.operands and is_splat(other(m, x), 0.5)


def run(fn) -> int:
    fired = 0
    uses = fn.uses()
    for e in list(fn.ops):
        if e.name != "torch.erf":
            continue
        x = _erf_input(e)
        add = single_use(uses, e.result)
        if x is None or add is None or add.name != "tfc.add" or not is_splat(other(add, e.result), 1.0):
            continue
        outer = single_use(uses, add.result)
        if outer is None or outer.name != "tfc.mul":
            continue
        partner = other(outer, add.result)
        result = None
        if _half_of(partner, x):
            result = outer.result
        elif partner is x:
            last = single_use(uses, outer.result)
            if last is not None and last.name == "tfc.mul" and is_splat(other(last, outer.result), 0.5):
                result = last.result
        if result is None or result.type != x.type:
            continue
        b = collect_before(fn, result.op)
        y = b.gelu(x, "none")
        splice(fn, result.op, b)
        replace(fn, result, y)
        fired += 1
        uses = fn.uses()
    return fired
