"""Replaces the frontend ops no pattern claimed by their tfc expansion
(registry.expands), and refuses those that have none with the user's
source line (e.g. an erf outside an exact GELU)."""
from .. import registry
from ..errors import UnsupportedOpError
from .match import collect_before, replace, splice

_NO_EXPANSION_HINTS = {
    "torch.erf": ("tfc has no erf op; erf is only supported as part of an exact GELU "
                  "x * 0.5 * (1 + erf(x / sqrt(2)))",
                  "use torch.nn.functional.gelu (or nn.GELU) instead"),
}


def run(fn) -> int:
    expanded = 0
    for op in list(fn.ops):
        if not op.name.startswith("torch."):
            continue
        expand = registry.expansion(op.name)
        if expand is None:
            reason, hint = _NO_EXPANSION_HINTS.get(op.name, ("no tfc expansion", ""))
            aten = "aten." + op.name.split(".", 1)[1] + ".default"
            raise UnsupportedOpError(aten, op.source, reason, hint)
        b = collect_before(fn, op)
        news = expand(b, op)
        splice(fn, op, b)
        for old, new in zip(op.results, news):
            replace(fn, old, new)
        expanded += 1
    fn.dce()
    return expanded
