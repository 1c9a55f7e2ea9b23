"""The aten -> tfc lowerings, one module per op family; importing this
package fills registry.py's table."""
from . import (activation, attention, conv, elementwise, grid, linalg, loss, nn,  # noqa: F401
               order, random, reduction, resample, rounding, scatter, shape, solve, special)
