"""In-place ops run under torch.no_grad() on tensors that require grad.

Autograd does not record such an op, but the tensor keeps its history: it
takes the new value and its gradient flows back as if the op were the
identity (a straight-through estimator). `F.cosine_similarity` does this
(it clamps the squared norms in place under a C++ NoGradGuard), as does
user code like `with torch.no_grad(): h.clamp_(-1, 1)`. The functionalized
trace cannot tell these from functional ops under no_grad (whose results
carry no gradient): both are one functional node recorded with grad off.

`mark(fn, args, gm)` tells them apart by running `fn(*args)` once eagerly
under a dispatch mode that sees each aten op as called (in-place ops
included) and whether the tensor it writes requires grad; the k-th such op
named N (its functional name, `clamp_min` for `clamp_min_`) is the k-th
grad-off node of target N in the trace. Those nodes get the meta key
INPLACE_NO_GRAD, and the importer makes their results
`tfc.straight_through(result, first argument)` instead of
`tfc.stop_gradient(result)`. Where the written ops, or the grad-off ops
reading their results, do not pair up with the eager run's (a write
through a view into a base read elsewhere, which functionalization turns
into extra grad-off view and scatter ops), the model is refused with the
op's source line: importing it either way could give wrong gradients.
"""
import contextlib
import traceback
from collections import defaultdict
from typing import Callable, Dict, List, Sequence, Tuple

import torch
import torch.utils._pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

from .errors import ModelError
from .source import parse_stack, user_frame

# node.meta key of a grad-off node that is an in-place op on a tensor that
# requires grad (see the module docstring); its value is True.
INPLACE_NO_GRAD = "tfc_inplace_no_grad"
# node.meta key of a grad-off view that such an op writes through (`h[:,
# 0].clamp_(...)`), read by nothing recorded with grad on, and of
# functionalization's grad-off write-back of such a write into the view's
# base (a *_scatter): imported without tfc.stop_gradient, so the write's
# gradient reaches the base (their other grad-off readers stop their own
# results).
WRITTEN_VIEW = "tfc_written_view"


def functional_name(op) -> str:
    """The name functionalization traces an aten overload under: the
    overload packet's name without an in-place op's trailing underscore."""
    packet = getattr(op, "overloadpacket", None)
    name = getattr(packet, "__name__", None) or str(op).split(".")[-2]
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


class _GradOffOps(TorchDispatchMode):
    """Records each op dispatched with autograd off, in order: (functional
    name, whether it writes a tensor that requires grad, the user's source
    frame when it does)."""

    def __init__(self):
        super().__init__()
        self.ops: List[Tuple[str, bool, object]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not torch.is_grad_enabled():
            written = []
            for i, arg in enumerate(func._schema.arguments):
                info = arg.alias_info
                if info is None or not info.is_write:
                    continue
                value = args[i] if i < len(args) else kwargs.get(arg.name)
                written += [t for t in pytree.tree_flatten(value)[0]
                            if isinstance(t, torch.Tensor)]
            graded = [t for t in written if t.requires_grad]
            frame = (user_frame(parse_stack("".join(traceback.format_stack())))
                     if graded else None)
            self.ops.append((functional_name(func), bool(graded), frame))
        return func(*args, **kwargs)


def _fresh(value):
    """A copy of a traced argument for the eager run: the run must not
    write into the model's parameters and buffers (BatchNorm's running
    statistics, or the very in-place ops this module looks for)."""
    if not isinstance(value, torch.Tensor):
        return value
    copy = value.detach().clone()
    return copy.requires_grad_(value.requires_grad)


def mark(fn: Callable, args: Sequence, grad_off: Sequence[torch.fx.Node],
         tracing_context: Callable = contextlib.nullcontext) -> bool:
    """Sets INPLACE_NO_GRAD on those of `grad_off` (the nodes of the trace of
    `fn(*args)` recorded under torch.no_grad(), in graph order) that are
    in-place ops on tensors requiring grad; raises ModelError where that
    cannot be decided. Runs `fn` once eagerly, under `tracing_context()` (the
    tracer's, so the same code paths run), and only when `grad_off` is not
    empty; returns whether it ran `fn`."""
    traced: Dict[str, List[torch.fx.Node]] = defaultdict(list)
    grad_off_set = set(grad_off)
    for node in grad_off:
        # Only aten ops pair up with the eager run's dispatches; the
        # getitems that pick a multi-result op's outputs are no dispatch.
        if isinstance(node.target, torch._ops.OpOverload):
            traced[functional_name(node.target)].append(node)
    if not traced:
        return False
    recorder = _GradOffOps()
    fresh = pytree.tree_map(_fresh, list(args))
    with torch.random.fork_rng(devices=[]), tracing_context(), torch.enable_grad(), recorder:
        fn(*fresh)
    eager: Dict[str, List[Tuple[bool, object]]] = defaultdict(list)
    for name, graded, frame in recorder.ops:
        eager[name].append((graded, frame))
    writes = {name: [k for k, (graded, _) in enumerate(calls) if graded]
              for name, calls in eager.items()}
    writes = {name: ks for name, ks in writes.items() if ks}
    if not writes:
        return True
    # The names that must pair up: those written, and those of the grad-off
    # nodes reading a written one other than functionalization's write-backs
    # (scatters into the base of a written view), which the eager run lacks.
    check = set(writes)
    for name in writes:
        for k in writes[name]:
            if k < len(traced[name]):
                check |= {functional_name(u.target) for u in traced[name][k].users
                          if u in grad_off_set and not _is_write_back(u)}
    for name in sorted(check):
        if len(traced[name]) != len(eager[name]):
            first = name if name in writes else next(iter(writes))
            frame = eager[first][writes[first][0]][1]
            why = (f"the trace has no grad-off {name} op for it (functionalization replaced "
                   "the written tensor by the op's source)" if not traced[name] else
                   f"the trace's {len(traced[name])} grad-off {name} ops do not pair up with "
                   f"the {len(eager[name])} the model runs")
            raise ModelError(
                f"an in-place {first}_ under torch.no_grad() writes a tensor that requires "
                f"grad, so its gradient flows on as through the identity, but {why}; tfc "
                "cannot give it PyTorch's gradient", frame,
                "write the straight-through form out of place, h = h + (new - h).detach(), "
                "or apply the op without no_grad")
    work = []
    for name, ks in writes.items():
        for k in ks:
            traced[name][k].meta[INPLACE_NO_GRAD] = True
            work.append(traced[name][k])
    # The views written through, and the write-backs of a write through a
    # view recorded under no_grad (with their own base views), carry the
    # gradient on to the written tensor's base.
    while work:
        node = work.pop()
        _keep_view_chain(node.args[0], grad_off_set)
        for user in node.users:
            if user in grad_off_set and _is_write_back(user) and WRITTEN_VIEW not in user.meta:
                user.meta[WRITTEN_VIEW] = True
                work.append(user)
    return True


def _keep_view_chain(view, grad_off_set) -> None:
    """Marks WRITTEN_VIEW on the grad-off views `view` is taken through
    (read by nothing recorded with grad on)."""
    while (isinstance(view, torch.fx.Node) and view in grad_off_set
           and _is_view(view) and all(u in grad_off_set for u in view.users)):
        view.meta[WRITTEN_VIEW] = True
        view = view.args[0]


def _is_write_back(node: torch.fx.Node) -> bool:
    """A functionalized write through a view: `select_scatter`,
    `slice_scatter`, `as_strided_scatter`, `diagonal_scatter` (the base with
    the written view's new values)."""
    return functional_name(node.target).endswith("_scatter")


def _is_view(node: torch.fx.Node) -> bool:
    """Whether the node's aten op returns a view of its first argument."""
    schema = getattr(node.target, "_schema", None)
    return bool(schema and schema.returns and schema.returns[0].alias_info is not None
                and node.args and isinstance(node.args[0], torch.fx.Node))
