"""The aten -> tfc lowerings, one module per op family; importing this
package fills registry.py's table."""
from . import (activation, attention, autograd, complex, conv, elementwise, grid, linalg,  # noqa: F401
               loss, nn, order, quantize, random, reduction, resample, rounding, scatter, shape,
               solve, special)
