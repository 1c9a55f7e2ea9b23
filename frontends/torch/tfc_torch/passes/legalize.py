"""Replaces the frontend ops no pattern claimed by their tfc expansion
(registry.expands: an erf outside an exact GELU becomes tfc.erf), and
refuses those that have none with the user's source line."""
from .. import registry
from ..errors import UnsupportedOpError
from .match import collect_before, replace, splice


def run(fn) -> int:
    expanded = 0
    for op in list(fn.ops):
        if not op.name.startswith("torch."):
            continue
        expand = registry.expansion(op.name)
        if expand is None:
            aten = "aten." + op.name.split(".", 1)[1] + ".default"
            raise UnsupportedOpError(aten, op.source, "no tfc expansion")
        b = collect_before(fn, op)
        news = expand(b, op)
        splice(fn, op, b)
        for old, new in zip(op.results, news):
            replace(fn, old, new)
        expanded += 1
    fn.dce()
    return expanded
