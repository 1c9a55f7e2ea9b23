"""Refuses reading the number of rows of a masked selection while tracing.

x[mask] and x.masked_select(mask) have a number of rows k that depends on
the data; the import keeps them as all N rows and a row mask (masked.py),
so the compiled program is right for any mask. A trace records Python
numbers as constants, though: `sel.sum() / sel.shape[0]`, `len(sel)`,
F.kl_div's 'batchmean' (a division by input.size(0)) would compile the
example's k into the program, right for the example batch only.

While tracing, SelectionSizes marks the tensors that are selections (and
the results the model computes from them that keep their k rows) and
gives their dim 0, to the model's code (not to the tracing machinery's), as
a Count: it serves as a size (a view's; the import checks that dim 0 stays
the rows) and compares equal to another Count (torch's shape checks), and
refuses arithmetic, ordering and conversion to a number; len() and numel()
of a selection are refused. Tensor.__getitem__, size, shape, numel and
__len__ are wrapped meanwhile (x[mask] and the reads inside torch's own
functionals reach no torch function mode); the mode propagates the marks.
A Count used as a loop bound (range(sel.shape[0])) is not caught.
"""
import os
import sys
from typing import Optional

import torch
from torch.overrides import TorchFunctionMode

from .errors import DataDependentError

_MARK = "_tfc_selected_rows"
_HINT = ("the compiled program must be right for any mask: count the rows with "
         "mask.sum() (a tensor), average with .mean(), or keep the shape static with "
         "torch.where(mask, x, 0)")
# Functions that may take a Count as a size: the import checks that dim 0
# stays the selection's rows.
_SIZED = {"view", "reshape", "expand", "size", "dim"}
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


def _from_model(depth: int = 2) -> bool:
    """Whether the call being handled (`depth` frames up) comes from the
    model's code (the user's, or torch's modules and functionals it
    calls), not from the tracing machinery."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(_FORWARDING):
        frame = frame.f_back
    return frame is None or not frame.f_code.co_filename.startswith(_MACHINERY)


def _refuse(what: str):
    raise DataDependentError(
        f"the model reads the number of rows of a masked selection (x[mask] or "
        f"masked_select): {what}; that number depends on the data, and a trace would "
        "keep the example's as a constant", None, _HINT)


class Count:
    """The number of rows of a selection in the example: an index (a
    size) and comparable with another Count, refused as a number."""

    def __init__(self, k: int):
        self.k = k

    def __index__(self):
        return self.k

    def __repr__(self):
        return f"Count({self.k})"

    def __eq__(self, other):
        if isinstance(other, Count):
            return self.k == other.k
        _refuse("its size compared with a number")

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
    """A selection's shape: a tuple whose dim 0 is a Count."""

    def numel(self):
        _refuse("numel() of its shape")


def _has_count(tree) -> bool:
    if isinstance(tree, Count):
        return True
    if isinstance(tree, (list, tuple)):
        return any(_has_count(t) for t in tree)
    if isinstance(tree, dict):
        return any(_has_count(t) for t in tree.values())
    return False


def _tensors(tree):
    if isinstance(tree, torch.Tensor):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [t for x in tree for t in _tensors(x)]
    if isinstance(tree, dict):
        return [t for x in tree.values() for t in _tensors(x)]
    return []


def _bool_index(index) -> bool:
    index = index if isinstance(index, (tuple, list)) else (index,)
    return any(isinstance(i, torch.Tensor) and i.dtype in (torch.bool, torch.uint8)
               for i in index)


def _mark(t: torch.Tensor):
    if isinstance(t, torch.Tensor) and t.dim() >= 1:
        setattr(t, _MARK, t.shape[0])


def _rows(t) -> Optional[int]:
    """k when `t` is a selection read by the model's code, else None."""
    k = getattr(t, _MARK, None) if isinstance(t, torch.Tensor) else None
    return k if k is not None and _from_model(3) else None


class SelectionSizes(TorchFunctionMode):
    """Active while tracing: see the module doc."""

    def __enter__(self):
        tensor = torch.Tensor
        self._saved = {name: tensor.__dict__.get(name, _ABSENT)
                       for name in ("__getitem__", "size", "shape", "numel", "nelement",
                                    "__len__")}
        getitem, size, numel, length = (tensor.__getitem__, tensor.size, tensor.numel,
                                        tensor.__len__)
        shape = torch._C._TensorBase.shape

        def selecting_getitem(t, index):
            out = getitem(t, index)
            if _bool_index(index):
                _mark(out)
            return out

        def rows_size(t, *args, **kwargs):
            k = _rows(t)
            if k is None:
                return size(t, *args, **kwargs)
            dim = args[0] if args else kwargs.get("dim")
            if dim is None:
                return _Sizes((Count(k),) + tuple(size(t)[1:]))
            return Count(k) if dim % t.dim() == 0 else size(t, dim)

        def rows_shape(t):
            k = _rows(t)
            real = shape.__get__(t)
            return real if k is None else _Sizes((Count(k),) + tuple(real[1:]))

        def rows_numel(t):
            if _rows(t) is not None:
                _refuse("numel() of it")
            return numel(t)

        def rows_len(t):
            if _rows(t) is not None:
                _refuse("len() of it")
            return length(t)
        tensor.__getitem__ = selecting_getitem
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
        if name not in _SIZED and _has_count((args, kwargs)) and _from_model():
            _refuse(f"{name or func} takes its size as a number")
        out = func(*args, **kwargs)
        if name == "masked_select":
            _mark(out)
            return out
        selected = [getattr(t, _MARK) for t in _tensors((args, kwargs))
                    if getattr(t, _MARK, None) is not None]
        if selected:
            # Results that keep the selection's rows are selections too.
            for t in _tensors(out):
                if t.dim() >= 1 and t.shape[0] == selected[0]:
                    setattr(t, _MARK, selected[0])
        return out
