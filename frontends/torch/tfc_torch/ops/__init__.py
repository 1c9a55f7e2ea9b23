"""The aten -> tfc lowerings, one module per op family; importing this
package fills registry.py's table."""
from . import (activation, attention, conv, elementwise, linalg, loss, nn, reduction,  # noqa: F401
               resample, rounding, scatter, shape)
