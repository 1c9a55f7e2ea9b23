"""The aten -> tfc lowerings, one module per op family; importing this
package fills registry.py's table."""
from . import elementwise, shape, linalg, reduction, nn, loss, attention  # noqa: F401
