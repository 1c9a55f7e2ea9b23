"""Helpers shared by the lowerings: type promotion over lowered arguments,
index tensors, dimension arithmetic and which results the trace reads."""
import operator

import torch

from ..builder import torch_result_type
from ..constants import Known
from ..dtypes import tfc_dtype
from ..ir import Value


def promoted(*xs) -> str:
    """torch's promoted element type of lowered arguments (Values, Known
    tensors, Python scalars), as the element type of a Value of it."""
    reps = []
    for x in xs:
        if isinstance(x, Known):
            reps.append(x.tensor)
        elif isinstance(x, (Value, bool, int, float)):
            reps.append(x)
    if not reps:
        raise AssertionError("no operands to promote")
    tensors = [torch.empty((1,) * r.dim() if r.dim() else (), dtype=r.dtype)
               if isinstance(r, torch.Tensor) else r for r in reps]
    result = torch_result_type(*tensors)
    # A narrow integer tensor's Value is i32 (importer.NARROW_VALUE).
    return "i32" if result in (torch.uint8, torch.int8, torch.int16) else tfc_dtype(result)


def index_ids(ctx, index, size, dtype=None, wrap_traced=False):
    """An index tensor as a Value; known indices have negative entries
    wrapped (torch counts them from the back, tfc.embedding does not), and
    with `wrap_traced` traced ones too (x[idx] does; index_select and
    gather reject them)."""
    if ctx.is_static(index) and hasattr(ctx.static(index, "the index"), "dtype"):
        t = ctx.static(index, "the index")
        if not t.is_floating_point() and t.dtype != torch.bool:
            t = t.remainder(size) if bool((t < 0).any()) else t
            index = Known(t)
    elif wrap_traced:
        ids, b = ctx.tensor(index, dtype), ctx.b
        if ids.dtype in ("i32", "i64"):
            return b.select(b.compare("lt", ids, ctx.tensor(0, ids.dtype)),
                            b.add(ids, ctx.tensor(size, ids.dtype)), ids)
        return ids
    return ctx.tensor(index, dtype)


def range_checked(ctx, ids, size):
    """The i64 index Value `ids` made to depend on a run-time check that
    each id lies in [0, size): a zero (from a tfc.embedding of a [size, 1]
    zero table at the ids, whose host kernel refuses an id out of range:
    'op 'embedding': id 7 ... outside [0, 3)', as torch's index errors) is
    added to them. For the lowerings that select by comparing ids with an
    iota (gather, scatter), where an id out of range would silently select
    nothing. Known ids were checked while tracing, so they are returned
    as they are; on the GPU tfc.embedding clamps ids (no check)."""
    b = ctx.b
    if getattr(ids, "known", None) is not None:
        return ids
    flat = b.reshape(ids, (ids.type.numel,))
    looked = b.stop_gradient(b.embedding(b.splat(0.0, "f32", (size, 1)), flat))
    zero = b.convert(b.mul(b.reduce("sum", looked, [0, 1]), b.splat(0.0, "f32")), ids.dtype)
    return b.add(ids, zero)


def norm_dim(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def norm_dims(dims, rank: int):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({norm_dim(d, rank) for d in dims})


def constant_along(ctx, values, v, dim):
    """A constant of v's element type holding the floats `values` along
    `dim` (size 1 in the dims after it, so it broadcasts against v): per-row
    weights, divisors or scales of a lowering."""
    shape = (len(values),) + (1,) * (v.rank - dim - 1)
    t = torch.tensor(values, dtype=torch.float64 if v.dtype == "f64" else torch.float32)
    return ctx.tensor(Known(t.view(shape)), v.dtype)


def result_used(ctx, i):
    """Whether the traced graph reads result i of the node being lowered
    (an optional result, such as max pooling's indices, is computed only
    then)."""
    return any(u.target is operator.getitem and u.args[1] == i and u.users
               for u in ctx.node.users)
