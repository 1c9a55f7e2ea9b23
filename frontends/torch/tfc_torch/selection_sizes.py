"""Refuses reading the number of rows of a masked selection while tracing.

x[mask], x.masked_select(mask) and the coordinates of nonzero /
torch.where(mask) have a number of rows k that depends on the data; the
import keeps them as all N rows and a row mask (masked.py), so the compiled
program is right for any mask. A trace records Python numbers as
constants, though: `sel.sum() / sel.shape[0]`, `len(sel)`,
`pos[:sel.shape[0]]`, F.kl_div's 'batchmean' (a division by input.size(0))
would compile the example's k into the program, right for the example
batch only.

While tracing, SelectionSizes marks the tensors that are selections (and
the results the model computes from them that keep their k rows) and gives
their dim 0, to the model's code (not to the tracing machinery's), as a
Count: it serves as dim 0 of a view of a selection (the import checks that
dim 0 stays the rows) and compares with a Count of the same mask (torch's
own shape checks may compare any two), and refuses arithmetic, ordering,
conversion to a number and use as an index or a size of anything else.
len() and numel() of a selection are refused, and so is a view of one
whose dim 0 is a number other than -1. F.cross_entropy with probability
targets, whose mean ATen divides by the input's row count, is computed as
the mean of its per-row losses. Tensor.__getitem__ / __setitem__, size,
shape, numel and __len__ are wrapped meanwhile (they, and the reads inside
torch's functionals, reach no torch function mode); the mode propagates
the marks, and refuses every size read of a tensor that moved the rows
out of dim 0 (sel.T). A mask computed from constants alone (not from the
parameters, the batch, the buffers, random draws or writes of those into
it or its views) selects a known number of rows and is not marked. A
Count used where Python wants an integer (range(sel.shape[0]), numpy,
list slicing) is not caught: torch's argument parsing asks for the integer
the same way.
"""
import contextlib
import inspect
import os
import sys
from fractions import Fraction
from typing import Iterator, Optional, Tuple

import torch
from torch.overrides import TorchFunctionMode

from .errors import DataDependentError
from .trace_hints import DATA_DEPENDENT_MARKERS

_MARK = "_tfc_selected_rows"     # (k, the mask's id) on a selection
_CONSTANT = "_tfc_constant"      # True on a tensor computed from constants alone
# On a constant computed from buffers the trace holds as constants (held()):
# their names, which the trace reports read when it relies on the value.
_SOURCES = "_tfc_constant_sources"
_HINT = ("the compiled program must be right for any mask: count the rows with "
         "mask.sum() (a tensor), average with .mean(), or keep the shape static with "
         "torch.where(mask, x, 0)")
_VIEWS = ("view", "reshape", "expand")
# Calls that may merge the rows with the dims after them or split them, and
# calls that may move them out of dim 0 (their results are marked by where
# the rows went).
_REGROUPS = ("view", "reshape", "flatten", "_reshape_alias", "view_as", "reshape_as",
             "unflatten", "ravel")
_MOVERS = ("t", "T", "mT", "H", "mH", "transpose", "swapaxes", "swapdims", "permute",
           "movedim", "moveaxis", "unsqueeze", "squeeze", "stack", "unbind", "split", "chunk",
           "expand", "expand_as", "broadcast_to", "repeat", "tile", "unfold")
_ALIAS = "_tfc_alias_of"  # a view's or .data's source: the tensor whose storage it shares
# Calls whose results share their first argument's storage (functionalized
# views have no _base): a write into one of them writes into the source.
_ALIASING = _REGROUPS + _MOVERS + ("narrow", "select", "diagonal", "as_strided",
                                   "tensor_split", "real", "imag", "view_as_real",
                                   "view_as_complex", "detach", "detach_", "data", "alias")
# Factories whose values differ per call: a mask drawn from one is data.
_RANDOM = ("rand", "normal", "bernoulli", "multinomial", "dropout", "uniform", "exponential",
           "geometric", "cauchy", "log_normal", "poisson", "gumbel", "rrelu", "fractional")
_TORCH = os.path.dirname(torch.__file__) + os.sep
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# Frames that only forward a call (Tensor's Python methods, the override
# dispatch): the caller is the frame above them.
_FORWARDING = tuple(_TORCH + f for f in ("_tensor.py", "overrides.py"))
# The tracing machinery's own size reads (make_fx, functionalization,
# decompositions) are bookkeeping, not model semantics.
_MACHINERY = tuple(_TORCH + d for d in ("fx", "_subclasses", "_functorch", "_prims", "_decomp",
                                        "_refs", "utils" + os.sep + "_python_dispatch.py",
                                        "utils" + os.sep + "_pytree.py")) + (_HERE,)
try:
    import functorch
    _MACHINERY += (os.path.dirname(functorch.__file__) + os.sep,)
except ImportError:
    pass
_ABSENT = object()
# Reads of a tensor's value as Python numbers.
_READS = ("item", "tolist", "__float__", "__int__", "__index__", "__bool__")


# tfc's own functions that only pass a call on (other torch function modes,
# wrappers of Tensor.__getitem__ / __setitem__): the caller is above them.
_PASSING = ("__torch_function__", "alias_getitem", "alias_setitem", "no_grad_view_getitem",
            "frozen_getitem", "frozen_setitem")


def _forwards(code) -> bool:
    return code.co_filename.startswith(_FORWARDING) or (
        code.co_filename.startswith(_HERE) and code.co_name in _PASSING)


def _caller(depth: int) -> str:
    """The file of the code that made the call being handled, `depth`
    frames up, past the frames that only forward it."""
    frame = sys._getframe(depth)
    while frame is not None and _forwards(frame.f_code):
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else ""


def from_model(depth: int = 2) -> bool:
    """Whether the call being handled comes from the model's code (the
    user's, or torch's modules and functionals it calls), not from the
    tracing machinery."""
    return not _caller(depth + 1).startswith(_MACHINERY)


# A view of a selection with a number in dim 0: the rows a mask selects are
# not laid out per row of the mask (ReID hard mining's
# dist[is_pos].view(N, -1), as many positives in each row).
_VIEW_HINT = ("keep dim 0 of the view -1 (sel.view(-1, d)); to reduce the entries a mask "
              "selects in each row, reduce the full tensor with the others masked out: "
              "dist.masked_fill(~is_pos, float('-inf')).max(1) (the hardest positive), "
              "masked_fill(~is_neg, float('inf')).min(1), (x * mask).sum(1)")


def _refuse(what: str, hint: str = _HINT):
    raise DataDependentError(
        f"the model reads the number of rows of a masked selection (x[mask], masked_select, "
        f"nonzero): {what}; that number depends on the data, and a trace would keep the "
        "example's as a constant", None, hint)


class Count:
    """The number of rows of a selection in the example (times `factor`
    for rows merged with the dims after them): dim 0 of a view of a
    selection, comparable with a Count of the same mask, refused as a
    number."""

    def __init__(self, k: int, mask: int, factor=1):
        self.k = int(k * factor)  # factor may be a Fraction (rows split back)
        self.mask = mask

    def __index__(self):
        # As a size in torch's argument parsing, which runs in the caller's
        # frame before the mode sees the call: not told apart from other
        # uses as an integer (range(), numpy, list slicing; documented).
        return self.k

    def __repr__(self):
        return f"Count({self.k})"

    def __eq__(self, other):
        if isinstance(other, Count) and other.mask == self.mask:
            return self.k == other.k
        if _caller(2).startswith(_TORCH):  # torch's own shape checks
            return self.k == (other.k if isinstance(other, Count) else other)
        _refuse("its size compared with a number or another mask's")

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.k)

    def _number(self, *args):
        _refuse("arithmetic on its size")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _number
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _number
    __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _number
    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __float__ = __int__ = _number
    __divmod__ = __rdivmod__ = __round__ = _number


class _Sizes(tuple):
    """A selection's shape: a tuple whose dim 0 is a Count (a slice
    without it is a torch.Size)."""

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        if isinstance(index, slice):
            return _Sizes(item) if _has_count(item) else torch.Size(item)
        return item

    def numel(self):
        _refuse("numel() of its shape")


def _walk(tree):
    """The leaves of nested lists, tuples, dicts and slices."""
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in _walk(t)]
    if isinstance(tree, dict):
        return [x for t in tree.values() for x in _walk(t)]
    if isinstance(tree, slice):
        return _walk([tree.start, tree.stop, tree.step])
    return [tree]


def _has_count(tree) -> bool:
    return any(isinstance(x, Count) for x in _walk(tree))


def _tensors(tree):
    return [x for x in _walk(tree) if isinstance(x, torch.Tensor)]


def _selection(t) -> Optional[Tuple[int, int, Optional[int]]]:
    """(k, mask id, factor) of a selection (dim 0 holds k * factor rows;
    factor None: a tensor that moved the rows out of dim 0), else None."""
    return getattr(t, _MARK, None) if isinstance(t, torch.Tensor) else None


def _flag(t: torch.Tensor) -> bool:
    """t's own constant mark. A tensor the trace does not see (no
    functional tensor: a plain tensor attribute, a global, or computed in
    forward from those alone) is a constant of the program: the trace folds
    its value in, and the module watch refuses a change of it after
    compiling."""
    flag = getattr(t, _CONSTANT, None)
    if flag is None:
        return not (torch._is_functional_tensor(t) or isinstance(t, torch.nn.Parameter)
                    or t.requires_grad)
    return flag


def _constant(t) -> bool:
    """Whether `t` holds constants: it was computed from constants alone,
    and neither it nor a tensor it views was written from data since (a
    write through another view of the same source counts)."""
    while isinstance(t, torch.Tensor):
        if not _flag(t):
            return False
        source = getattr(t, _ALIAS, None)
        t = source if source is not None else t._base
    return True


def held(t: torch.Tensor, name: str) -> None:
    """Marks `t`, the traced copy of buffer (or frozen parameter) `name`,
    as a constant the trace may read: the trace reports it read
    (values_read()) where the count of a selection by it or its value as a
    number is taken, and the caller refuses that when the step carries it
    as model state."""
    if _holding:
        setattr(t, _CONSTANT, True)
        setattr(t, _SOURCES, frozenset([name]))


_holding = True


@contextlib.contextmanager
def holding(hold: bool) -> Iterator[None]:
    """held() marks meanwhile (hold) or does nothing (not hold: the trace
    again when a value read turned out to be model state)."""
    global _holding
    saved, _holding = _holding, hold
    try:
        yield
    finally:
        _holding = saved


def _sources(tensors) -> frozenset:
    """The held buffers the constants `tensors` were computed from."""
    out = frozenset()
    for t in tensors:
        while isinstance(t, torch.Tensor):
            out |= getattr(t, _SOURCES, frozenset())
            source = getattr(t, _ALIAS, None)
            t = source if source is not None else t._base
    return out


_read = set()  # the held buffers the running trace relied on


def values_read() -> frozenset:
    """The held buffers (held()) whose values the last trace read: as a
    number, or as a mask whose selection's size it took as static."""
    return frozenset(_read)


def _real_value(t: torch.Tensor) -> torch.Tensor:
    """The value of a traced tensor (make_fx traces real tensors)."""
    from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing
    if torch._is_functional_tensor(t):
        torch._sync(t)
        t = torch._from_functional_tensor(t)
    with disable_proxy_modes_tracing():
        return t.detach().clone()


def _unconstant(t):
    """`t` was written in place from data: it, and every tensor it is a
    view or alias of, no longer holds constants."""
    while isinstance(t, torch.Tensor):
        if _flag(t):
            setattr(t, _CONSTANT, False)
        source = getattr(t, _ALIAS, None)
        t = source if source is not None else t._base


def _with_numbers(func, name: str, args, kwargs, error: RuntimeError):
    """`func` called again with its 0-d tensor arguments that hold
    constants (a held buffer, or computed from held buffers and constants:
    GPT-NeoX's baddbmm(..., alpha=torch.tensor(1.0) / self.norm_factor))
    as the Python numbers they hold, after the call failed reading a value:
    aten converts a tensor given for a number (alpha=, value=, a slope, an
    arange's end) in C++, past the Python reads that take such a value as a
    constant (.item()). Other 0-d tensor arguments are named in the error."""
    def zero_dim(a) -> bool:
        return isinstance(a, torch.Tensor) and a.dim() == 0 and \
            torch._is_functional_tensor(a)
    places = [(i, a) for i, a in enumerate(args) if zero_dim(a)] + \
        [(k, a) for k, a in kwargs.items() if zero_dim(a)]
    held_places = [(at, a) for at, a in places if _sources([a]) and _constant(a)]
    if held_places:
        args, kwargs = list(args), dict(kwargs)
        for at, a in held_places:
            _read.update(_sources([a]))
            value = _real_value(a).item()
            if isinstance(at, int):
                args[at] = value
            else:
                kwargs[at] = value
        return func(*args, **kwargs)
    if not places:
        raise error
    named = ", ".join(f"argument {at + 1}" if isinstance(at, int) else f"{at}="
                      for at, _ in places)
    raise DataDependentError(
        f"{name or func} takes a Python number where it is given a 0-d tensor ({named}) "
        "computed from the parameters, the batch or model state: aten reads it as a number, "
        "a value the compiled program cannot hold fixed", None,
        "pass a Python number there (a constant: float(cfg.scale), or a buffer forward does "
        "not write, whose value is then a constant of the program), or apply the tensor with "
        "tensor ops: torch.baddbmm(z, a, b, alpha=s) is z + s * (a @ b), torch.add(x, y, "
        "alpha=s) is x + s * y, F.leaky_relu(x, s) is torch.where(x >= 0, x, s * x)") from error


def _mark(out, mask):
    """Marks the tensors of `out` as selections by `mask` (one of them with
    rows: dim 0, the row count)."""
    for t in _tensors(out):
        if t.dim() >= 1:
            setattr(t, _MARK, (t.shape[0], id(mask), 1))


def _norm(d, rank: int) -> int:
    d = int(d)
    return d + rank if d < 0 else d


def _moves_rows(name, args, kwargs) -> bool:
    """Whether a call of _MOVERS on a selection (args[0], or the first of
    stack's tensors) moves its rows out of dim 0 (by its arguments, not by
    the result's shape, where another dim may have k elements too)."""
    first = args[0] if args else None
    if name == "stack":
        first = first[0] if first else None
    if not isinstance(first, torch.Tensor):
        return True
    rank = first.dim()

    def arg(i, key, default=None):
        return args[i] if len(args) > i else kwargs.get(key, default)
    if name in ("t", "T", "H"):
        return rank >= 2
    if name in ("mT", "mH"):
        return rank == 2
    if name in ("transpose", "swapaxes", "swapdims"):
        a, c = _norm(arg(1, "dim0"), rank), _norm(arg(2, "dim1"), rank)
        return a != c and 0 in (a, c)
    if name == "permute":
        dims = args[1:] if len(args) > 2 else arg(1, "dims")
        return _norm(list(dims)[0], rank) != 0
    if name == "unsqueeze":
        return _norm(arg(1, "dim"), rank + 1) == 0
    if name == "squeeze":
        dim = arg(1, "dim")
        return first.shape[0] == 1 and (dim is None or _norm(dim, rank) == 0)
    if name == "stack":
        return _norm(arg(1, "dim", 0), rank + 1) == 0
    if name in ("unbind", "split", "chunk", "unfold"):
        dim = arg(2, "dim", 0) if name in ("split", "chunk") else arg(1, "dim", 0)
        return _norm(dim, rank) == 0
    return True  # expand / repeat / tile / movedim / broadcast_to: assume so


def _derive(out, inputs, name: str = "", random: bool = False, moved: bool = False):
    """Propagates the marks to `out` from `inputs`: constant when every
    input is (and no random draw made it); a selection when an input is
    and dim 0 keeps its rows (a view may merge them with the dims after
    them: a factor); a tensor that moved the rows (a view or transpose
    that does not keep them in dim 0) refuses every size read."""
    constant = not random and all(_constant(t) for t in inputs)
    sources = _sources(inputs) if constant else None
    selected = [_selection(t) for t in inputs if _selection(t) is not None]
    for t in _tensors(out):
        if constant:
            setattr(t, _CONSTANT, True)
            if sources:
                setattr(t, _SOURCES, sources)
        elif _constant(t):
            _unconstant(t)  # written in place from data
        if not selected or t.dim() == 0:
            continue
        k, mask, factor = selected[0]
        rows = k * factor if factor is not None else None
        if moved:
            setattr(t, _MARK, (k, mask, None))
        elif rows is not None and t.shape[0] == rows:
            setattr(t, _MARK, selected[0])
        elif name in _REGROUPS and factor is not None and t.shape[0] % k == 0:
            setattr(t, _MARK, (k, mask, t.shape[0] // k))
        elif name in _REGROUPS and factor is not None and 0 < t.shape[0] < rows \
                and rows % t.shape[0] == 0:
            # Rows split back into groups (elements selected by a mask
            # expanded along the trailing dims, viewed as rows of them:
            # SSD's loc[pos_idx].view(-1, 4)); the import checks the mask
            # was such an expansion.
            setattr(t, _MARK, (k, mask, Fraction(factor) * t.shape[0] / rows))
        elif name in _REGROUPS:
            setattr(t, _MARK, (k, mask, None))


def _rows(t):
    """(k, mask id, factor) when `t` is a selection read by the model's
    code; a read of a tensor that moved the rows is refused."""
    mark = _selection(t)
    if mark is None or not from_model(3):
        return None
    if mark[2] is None:
        _refuse("a size of a tensor that moved its rows out of dim 0")
    return mark


def _view_sizes(args, kwargs):
    sizes = kwargs.get("size", kwargs.get("shape"))
    if sizes is None and len(args) > 1:
        sizes = args[1] if isinstance(args[1], (tuple, list)) else args[1:]
    return list(sizes) if sizes is not None else []


def _mean_of_rows(func, args, kwargs):
    """F.cross_entropy(sel, probabilities): ATen's mean divides by the
    input's row count (a constant in the trace); the mean of the per-row
    losses is the same number, by a division the import keeps."""
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    call = dict(bound.arguments)
    if call.get("size_average") is not None or call.get("reduce") is not None \
            or call.get("reduction") != "mean":
        return None
    call["reduction"] = "none"
    return func(**call).mean()


def _byte_masks_as_bool(index):
    """`index` with its uint8 tensors as bool ones: torch indexes with a
    uint8 tensor as with a mask (the legacy form, `scores[byte_mask] =
    -inf`), the trace records it as an integer index tensor."""
    def mask(i):
        return i.bool() if isinstance(i, torch.Tensor) and i.dtype == torch.uint8 else i
    if isinstance(index, tuple):
        return tuple(mask(i) for i in index)
    if isinstance(index, list) and any(isinstance(i, torch.Tensor) for i in index):
        return [mask(i) for i in index]
    return mask(index)


class SelectionSizes(TorchFunctionMode):
    """Active while tracing: see the module doc."""

    def __enter__(self):
        _read.clear()
        tensor = torch.Tensor
        self._saved = {name: tensor.__dict__.get(name, _ABSENT)
                       for name in ("__getitem__", "__setitem__", "size", "shape", "numel",
                                    "nelement", "__len__")}
        getitem, setitem, size, numel, length = (
            tensor.__getitem__, tensor.__setitem__, tensor.size, tensor.numel, tensor.__len__)
        shape = torch._C._TensorBase.shape

        def selecting_getitem(t, index):
            if _has_count(index) and from_model():
                _refuse("indexing with its size")
            index = _byte_masks_as_bool(index)
            out = getitem(t, index)
            if not _tensors(index):  # basic indexing: a view of t
                setattr(out, _ALIAS, t)
            masks = [i for i in _tensors(index) if i.dtype in (torch.bool, torch.uint8)]
            live = [m for m in masks if not _constant(m)]
            if live:
                _mark(out, live[0])
            else:
                _read.update(_sources(masks))
                _derive(out, [t] + _tensors(index))
            return out

        def tracking_setitem(t, index, value):
            index = _byte_masks_as_bool(index)
            setitem(t, index, value)
            if not all(_constant(x) for x in _tensors((index, value))):
                _unconstant(t)

        def rows_size(t, *args, **kwargs):
            mark = _rows(t)
            if mark is None:
                return size(t, *args, **kwargs)
            dim = args[0] if args else kwargs.get("dim")
            if dim is None:
                return _Sizes((Count(*mark),) + tuple(size(t)[1:]))
            return Count(*mark) if dim % t.dim() == 0 else size(t, dim)

        def rows_shape(t):
            mark = _rows(t)
            real = shape.__get__(t)
            return real if mark is None else _Sizes((Count(*mark),) + tuple(real[1:]))

        def rows_numel(t):
            if _rows(t) is not None:
                _refuse("numel() of it")
            return numel(t)

        def rows_len(t):
            if _rows(t) is not None:
                _refuse("len() of it")
            return length(t)
        tensor.__getitem__, tensor.__setitem__ = selecting_getitem, tracking_setitem
        tensor.size, tensor.numel, tensor.nelement = rows_size, rows_numel, rows_numel
        tensor.shape = property(rows_shape)
        tensor.__len__ = rows_len
        return super().__enter__()

    def __exit__(self, *exc):
        for name, saved in self._saved.items():
            if saved is _ABSENT:
                delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, saved)
        return super().__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "").split(".")[0]
        if name == "__get__":  # a property: .T, .data, .shape (the last patched)
            name = getattr(getattr(func, "__self__", None), "__name__", name)
        first = args[0] if args else None
        if name in _READS and isinstance(first, torch.Tensor) and _sources([first]) \
                and _constant(first):
            # The value of a held buffer (RotatE's self.gamma.item()): a
            # constant of the program.
            _read.update(_sources([first]))
            return getattr(_real_value(first), name)(*args[1:], **kwargs)
        if from_model():
            if name in _VIEWS and _selection(first) is not None:
                sizes = _view_sizes(args, kwargs)
                if sizes and not isinstance(sizes[0], Count) and sizes[0] != -1:
                    _refuse(f"{name} with {sizes[0]} as dim 0 (dim 0 of a view of a "
                            "selection holds its rows: -1 or sel.shape[0])", _VIEW_HINT)
            elif _has_count((args, kwargs)):
                _refuse(f"{name or func} takes its size as a number")
            if name == "numel" and _selection(first) is not None:
                _refuse("numel() of it")
            if name == "cross_entropy" and _selection(first) is not None and len(args) > 1 \
                    and isinstance(args[1], torch.Tensor) and args[1].is_floating_point():
                out = _mean_of_rows(func, args, kwargs)
                if out is not None:
                    return out
        try:
            out = func(*args, **kwargs)
        except RuntimeError as e:
            if name in _READS or not any(m in str(e) for m in DATA_DEPENDENT_MARKERS):
                raise
            out = _with_numbers(func, name, args, kwargs, e)
        inputs = _tensors((args, kwargs))
        if name == "masked_select" or name in ("nonzero", "argwhere") or (
                name == "where" and len(args) == 1 and not kwargs):
            mask = inputs[-1] if inputs else None
            if mask is not None and not _constant(mask):
                _mark(out, mask)
                return out
            _read.update(_sources([mask]))
        if name in _ALIASING and isinstance(first, torch.Tensor):
            for t in _tensors(out):
                if t is not first:
                    setattr(t, _ALIAS, first)
        written = kwargs.get("out", first if name.endswith("_") else None)
        if isinstance(written, torch.Tensor) and not all(_constant(t) for t in inputs):
            _unconstant(written)
        moved = name in _MOVERS and any(_selection(t) is not None for t in inputs) \
            and _moves_rows(name, args, kwargs)
        _derive(out, inputs, name, random=any(r in name for r in _RANDOM), moved=moved)
        return out
