"""How the trace treats values read from tensors while tracing.

The contexts tracing.py enters around make_fx for reads of values: empty
factories zeroed (initialized_empties), values computed from constants
kept readable (constant_values), plain tensors read as numbers noted for
the module watch (plain_values_read), and asserts on tensor values taken
to hold (unchecked_asserts).
"""
import contextlib
import functools
import linecache
import os
import sys
import warnings
from typing import Iterator, List

import torch
import torch.utils._pytree as pytree

from . import patching
from .errors import TracedUpdateWarning
from .trace_hints import DATA_DEPENDENT_MARKERS


@contextlib.contextmanager
def initialized_empties() -> Iterator[None]:
    """torch.empty and its kin zero their tensors meanwhile: the trace
    computes with the values it sees, and a tensor filled piece by piece in
    forward (out = torch.empty(...); out[i] = ...) would otherwise bake the
    uninitialized memory of the parts known at trace time into the import
    (a different module on every import)."""
    def zeroed(factory):
        @functools.wraps(factory)
        def make(*args, **kwargs):
            with torch.no_grad():
                return factory(*args, **kwargs).zero_()
        return make

    with patching.replaced(torch, empty=zeroed(torch.empty), empty_like=zeroed(torch.empty_like),
                           empty_strided=zeroed(torch.empty_strided)), \
            patching.replaced(torch.Tensor, new_empty=zeroed(torch.Tensor.new_empty)):
        yield


# Tensors of at most this many elements computed only from constants
# (torch.tensor literals, factories of shapes) keep their values while
# tracing, so reading one as a number works (below).
CONSTANT_ELEMENTS = 1 << 20
# Factories whose tensor operand gives only a dtype and device.
_FACTORIES_OF_LIKE = ("new_ones", "new_zeros", "new_full", "new_empty", "ones_like",
                      "zeros_like", "full_like", "empty_like")


@contextlib.contextmanager
def constant_values() -> Iterator[None]:
    """Values computed from constants only can be read while tracing: a
    mask built from shapes (Transformer-XL's `if attn_mask.any().item()`),
    Deformable DETR's spatial_shapes = torch.as_tensor([(H, W), ...]) used
    as sizes, a sampler's torch.linspace(...).tolist(). make_fx tracks the
    values of torch.tensor literals of one element through the ops on them
    (reading them is then allowed); here any tensor of at most
    CONSTANT_ELEMENTS elements from a factory (no tensor operand, or only
    one giving a dtype: new_ones, zeros_like, ...; random factories
    excluded) starts such a value, and the ops on them carry it up to that
    size. Nothing read from a parameter, buffer or batch is a constant."""
    from torch.fx.experimental import proxy_tensor

    original = proxy_tensor.proxy_call

    def proxy_call(mode, func, args, kwargs):
        out = original(mode, func, args, kwargs)
        if not isinstance(out, torch.Tensor) or out.numel() > CONSTANT_ELEMENTS or \
                not isinstance(func, torch._ops.OpOverload) or \
                torch.Tag.nondeterministic_seeded in func.tags:
            return out
        tensors = [a for a in pytree.tree_flatten((args, kwargs))[0]
                   if isinstance(a, torch.Tensor)]
        if tensors and func.overloadpacket.__name__ not in _FACTORIES_OF_LIKE:
            return out
        slot = proxy_tensor.get_proxy_slot(out, mode.tracer, None)
        if slot is not None and slot.constant is None:
            proxy_tensor.set_proxy_slot(out, mode.tracer,
                                        proxy_tensor._ProxyTensor(slot.proxy, out.detach().clone()))
        return out

    original_tolist = torch.Tensor.tolist

    def tolist(self):
        # A functional tensor has no storage for tolist() to read: its
        # elements one by one (a constant's values, or the data-dependent
        # error of any other tensor). A plain tensor (a module's tensor
        # attribute) reads as always.
        if not torch._is_functional_tensor(self):
            return original_tolist(self)
        if self.dim() == 0:
            return self.item()
        return [t.tolist() for t in self.unbind(0)]

    with patching.replaced(proxy_tensor, proxy_call=proxy_call,
                           CONSTANT_NUMEL_LIMIT=CONSTANT_ELEMENTS), \
            patching.replaced(torch.Tensor, tolist=tolist):
        yield


# Reads of a tensor's value as Python numbers (plain_values_read).
_NUMBER_READS = ("item", "tolist", "__float__", "__int__", "__index__", "__bool__")
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
plain_read: List[torch.Tensor] = []  # the running trace's (plain_values_read)


def _caller_file() -> str:
    """The file of the code that read a value (plain_values_read), past
    tfc's other replacements of the reading methods (unchecked_asserts'
    __bool__, constant_values' tolist)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_HERE) \
            and frame.f_code.co_name in _NUMBER_READS:
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else ""


@contextlib.contextmanager
def plain_values_read() -> Iterator[None]:
    """Notes in plain_read the tensors that the trace does not follow
    (neither traced nor computed while tracing: a plain tensor attribute, a
    module global, a loss_fn module's buffer) which the model's code (not
    tfc's) reads as Python numbers: self.beta.item(), float(self.tau),
    int(self.k) as topk's k, self.sizes.tolist() as split sizes. The value
    read is a constant of the program, so the module watch checks them at
    every call as it does the tensors the trace folds in. (A value computed
    from one, self.sizes[0] or self.a * 2, is traced: reading it is refused.)"""
    plain_read.clear()

    def reading(original):
        # Named as the method: torch function modes get it as `func`.
        @functools.wraps(original)
        def read(t, *args, **kwargs):
            if (type(t) in (torch.Tensor, torch.nn.Parameter)
                    and not torch._is_functional_tensor(t)
                    and not _caller_file().startswith(_HERE)
                    and all(t is not seen for seen in plain_read)):
                plain_read.append(t)
            return original(t, *args, **kwargs)
        return read
    with patching.replaced(torch.Tensor, **{name: reading(getattr(torch.Tensor, name))
                                            for name in _NUMBER_READS}):
        yield


@contextlib.contextmanager
def unchecked_asserts() -> Iterator[None]:
    """`assert <tensor condition>` in model code (DETR's generalized_box_iou:
    assert (boxes[:, 2:] >= boxes[:, :2]).all()) passes while tracing: a
    compiled program has no Python to stop, so the condition holds as far
    as it is concerned, and a TracedUpdateWarning says it is not checked.
    Any other bool() of a traced tensor fails as before (an `if` on data)."""
    original = torch.Tensor.__bool__

    def __bool__(self):
        try:
            return original(self)
        except RuntimeError as e:
            caller = sys._getframe(1)
            lines = [linecache.getline(caller.f_code.co_filename, n).strip()
                     for n in (caller.f_lineno, caller.f_lineno - 1)]
            if not any(m in str(e) for m in DATA_DEPENDENT_MARKERS) or \
                    not any(line.startswith("assert ") for line in lines):
                raise
            warnings.warn(
                "an assert on tensor values is not checked by the compiled program (it has "
                "no Python to stop); it is taken to hold", TracedUpdateWarning, stacklevel=2)
            return True

    with patching.replaced(torch.Tensor, __bool__=__bool__):
        yield
