"""One small module per group of aten ops the frontend lowers, each
returning a scalar loss that depends on its parameters through the ops
under test (check_ops.py compares loss and gradients with PyTorch).
The groups mirror the lowering files of frontends/torch/tfc_torch/ops/
(elementwise.py, activation.py, ...), plus masked.py for masked
selections (tfc_torch/masked.py) and gradient.py for gradient control;
common.py holds their shared helpers. CASES maps a case name to a factory
returning (module, example batch); PATTERNS, the patterns a case's import
must recognize. Both merge the groups' own, in GROUPS' order."""
from . import (activation, backward, complex, conv, elementwise, gradient, grid, indexing,
               linalg, loss, masked, nn, order, quantize, reduction, resample, rounding, scatter,
               shape, solve, special)

GROUPS = (elementwise, activation, rounding, shape, indexing, conv, resample, grid, scatter,
          linalg, solve, reduction, order, nn, loss, special, complex, quantize, masked, gradient,
          backward)

CASES = {}
PATTERNS = {}
_OWNER = {}
for _group in GROUPS:
    for _name, _factory in _group.CASES.items():
        if _name in CASES:
            raise ValueError(f"case '{_name}' is defined twice: in {_OWNER[_name].__name__} "
                             f"and {_group.__name__}")
        CASES[_name] = _factory
        _OWNER[_name] = _group
    for _name, _patterns in getattr(_group, "PATTERNS", {}).items():
        if _name not in _group.CASES:
            raise ValueError(f"{_group.__name__}.PATTERNS names '{_name}', not one of its cases")
        PATTERNS[_name] = _patterns
