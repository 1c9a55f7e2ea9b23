"""Which nodes of a trace were recorded with autograd off.

make_fx traces below autograd, so the grad mode of each op is visible only
while its node is created: `annotating_nodes()` records it there (GRAD_OFF,
which the importer turns into tfc.stop_gradient), with the Python stack
that created the node (source.STACK) and packed_sequences' length marks.
A view that functionalization only replays under no_grad (_replayed_view)
is not marked: the model made it earlier with grad on. The converse, a view
the model makes under no_grad and reads later with grad on, is read
detached (NoGradViews): functionalization rebuilds it at that read.
"""
import contextlib
import inspect
import os
import sys

import torch
import torch.utils._pytree as pytree

from . import packed_sequences
from .source import STACK, stack_of

# node.meta key set on nodes traced with autograd off: NO_GRAD under
# torch.no_grad() / inference_mode / set_grad_enabled(False), else the
# torch.autograd.Function whose forward was running (autograd runs every
# Function's forward with grad off).
GRAD_OFF = "tfc_grad_off"
NO_GRAD = "no_grad"


def _autograd_function(frame):
    """The torch.autograd.Function whose forward the Python stack from
    `frame` is in (its forward's first argument is the Function's ctx, a
    BackwardCFunction), or None."""
    while frame is not None:
        code = frame.f_code
        if code.co_argcount:
            first = frame.f_locals.get(code.co_varnames[0])
            if isinstance(first, torch.autograd.function.BackwardCFunction):
                return getattr(type(first), "_forward_cls", type(first))
        frame = frame.f_back
    return None


# Torch functions whose result is a view of their input: a view op they
# record under no_grad is the model's own view, made without gradient.
_VIEW_CALLS = frozenset((
    "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "ravel", "t",
    "transpose", "swapaxes", "swapdims", "permute", "movedim", "moveaxis", "squeeze",
    "unsqueeze", "expand", "expand_as", "broadcast_to", "narrow", "select", "__getitem__",
    "split", "split_with_sizes", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit",
    "diagonal", "as_strided", "unfold", "real", "imag", "view_as_real", "view_as_complex",
    "detach", "alias", "__get__"))
_FRONTEND = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _replayed_view(target, frame) -> bool:
    """Whether a view op recorded under no_grad only replays a view the
    model made earlier with grad on: functionalization rebuilds a view of a
    tensor written in place since (h += 1; z = h.view(-1)) at its next
    read, and a first read under no_grad (a logged statistic, a no_grad
    clone) records the rebuilt view there, though the loss after it reads
    it too. Told apart by the torch function the model is calling (seen
    by the tracing's torch function modes): one that returns no view."""
    schema = getattr(target, "_schema", None)
    returns = schema.returns if schema is not None else ()
    alias = returns[0].alias_info if returns else None
    # _unsafe_view: a view whose schema says it is none (matmul's reshape).
    if (alias is None or alias.is_write) and \
            getattr(getattr(target, "overloadpacket", None), "__name__", "") != "_unsafe_view":
        return False
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__torch_function__" and code.co_filename.startswith(_FRONTEND):
            name = getattr(frame.f_locals.get("func"), "__name__", "")
            return bool(name) and name not in _VIEW_CALLS
        frame = frame.f_back
    return False


@contextlib.contextmanager
def annotating_nodes():
    """Records on each node make_fx creates the Python stack that created it
    (source.STACK: frames only, cheaper than fx's formatted
    record_stack_traces, which reads every frame's source line) and marks
    the nodes recorded while autograd is off (GRAD_OFF): make_fx traces
    below autograd, so grad mode is visible only here."""
    from torch.fx.experimental import proxy_tensor
    tracer = proxy_tensor.PythonKeyTracer
    had = "create_node" in tracer.__dict__
    original = tracer.create_node

    def create_node(self, *args, **kwargs):
        node = original(self, *args, **kwargs)
        node.meta[STACK] = stack_of(inspect.currentframe())
        if packed_sequences.MARKING[0] is not None and node.target is torch.ops.aten.max.default:
            node.meta[packed_sequences.MAX_OF_LENGTHS] = packed_sequences.MARKING[0]
        if not torch.is_grad_enabled() and \
                not _replayed_view(node.target, inspect.currentframe()):
            node.meta[GRAD_OFF] = _autograd_function(inspect.currentframe()) or NO_GRAD
        return node

    tracer.create_node = create_node
    try:
        yield
    finally:
        if had:
            tracer.create_node = original
        else:
            del tracer.create_node


# Calls that write their first argument: it stays as it is (torch refuses
# an in-place op with grad on on a view made under no_grad anyway).
_IN_PLACE_DUNDERS = frozenset(f"__i{op}__" for op in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift")) | {"__setitem__"}
# Properties (reached as __get__) that are views of the tensor.
_VIEW_PROPERTIES = frozenset(("T", "mT", "H", "mH", "real", "imag"))
_CUSTOM_FUNCTIONS = _FRONTEND + "custom_functions.py"


def _name(func) -> str:
    name = getattr(func, "__name__", "")
    if name == "__get__":
        return "." + getattr(getattr(func, "__self__", None), "__name__", "")
    return name


def _model_caller(depth: int) -> bool:
    """Whether the call handled `depth` frames up comes from the model's
    code (the user's, or torch's modules it calls), outside a custom
    Function's forward: views made there are the Function's business."""
    from .selection_sizes import from_model
    if not from_model(depth + 1):
        return False
    frame = sys._getframe(1)
    if _autograd_function(frame) is not None:
        return False
    while frame is not None:
        if frame.f_code.co_filename == _CUSTOM_FUNCTIONS:
            return False
        frame = frame.f_back
    return True


class NoGradViews(torch.overrides.TorchFunctionMode):
    """A view the model makes under no_grad and reads later with grad on
    carries no gradient in torch (t = h.view(-1) under no_grad is a new
    leaf). Its node is marked GRAD_OFF, but functionalization rebuilds a
    view of a tensor written in place since (F.linear's bias add on a
    non-contiguous 3-d input, h.mul_(2)) at its next read, with grad on
    then, and later ops read that new node, through which the gradient
    flows (attention weights computed under no_grad from a linear's output
    would be trained on). Active while tracing: the views the model makes
    under no_grad are noted, and every later call with grad on reads them
    detached."""

    def __init__(self):
        super().__init__()
        self.views = {}  # id -> a view made under no_grad

    def _detached(self, value):
        if isinstance(value, torch.Tensor) and self.views.get(id(value)) is value:
            return value.detach()
        return value

    def _note(self, out):
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor):
                self.views[id(t)] = t

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = _name(func)
        if torch.is_grad_enabled():
            if self.views and (not name.startswith(".") or name[1:] in _VIEW_PROPERTIES):
                written = name in _IN_PLACE_DUNDERS or (
                    name.endswith("_") and not name.endswith("__"))
                kept, read = (args[:1], args[1:]) if written else ((), args)
                args = kept + tuple(pytree.tree_map(self._detached, list(read)))
                kwargs = {k: v if k == "out" else pytree.tree_map(self._detached, v)
                          for k, v in kwargs.items()}
            return func(*args, **kwargs)
        out = func(*args, **kwargs)
        if (name in _VIEW_CALLS or name[1:] in _VIEW_PROPERTIES) and _model_caller(2):
            self._note(out)
        return out

    def __enter__(self):
        # Tensor.__getitem__ reaches no torch function mode in torch 1.13.
        self._saved = torch.Tensor.__dict__.get("__getitem__")
        getitem = torch.Tensor.__getitem__

        def no_grad_view_getitem(t, index):
            if torch.is_grad_enabled():
                return getitem(self._detached(t), pytree.tree_map(self._detached, index))
            out = getitem(t, index)
            basic = not any(isinstance(i, torch.Tensor) for i in pytree.tree_flatten(index)[0])
            if basic and _model_caller(2):  # a view of t (tensor indices copy)
                self._note(out)
            return out
        torch.Tensor.__getitem__ = no_grad_view_getitem
        return super().__enter__()

    def __exit__(self, *exc):
        if self._saved is None:
            del torch.Tensor.__getitem__
        else:
            torch.Tensor.__getitem__ = self._saved
        return super().__exit__(*exc)
