"""The aten -> tfc lowerings, one module per op family; importing this
package fills registry.py's table."""
from . import (activation, attention, autograd, backward, complex, conv,  # noqa: F401
               elementwise, grid, indexing, linalg, loss, nn, order, power, quantize,
               random, reduction, resample, rounding, scatter, shape, solve, special,
               transcendental)
