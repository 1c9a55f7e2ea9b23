"""Tracing an nn.Module's loss (or its inference forward) into an aten graph.

`trace(model, example_args, loss_fn)` runs
    loss = model(*args)                       (loss_fn None), or
    loss = loss_fn(model(*model_args), *args)
and `trace(model, example_args, forward=True)` runs
    output = model(*args)                     (a tensor or a pytree of them)
under make_fx (real tensors), with the module's parameters and buffers
swapped for traced placeholders by functional_call and the whole function
functionalized, so the graph holds no in-place ops or aliasing. In a loss
trace, parameters with requires_grad=False are traced as buffers (constants
of the loss: no gradient, no update). Tied
parameters (one tensor under several state_dict names) become one
placeholder, named by their first name in `named_parameters()` order.

The same code runs on torch 1.13 (functorch.functionalize,
torch.nn.utils.stateless.functional_call) and torch 2.x (torch.func).
"""
import collections.abc
import contextlib
import linecache
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
import torch.utils._pytree as pytree
from torch.fx.experimental.proxy_tensor import make_fx

from . import (custom_functions, functional_calls, grad_flags, grad_modes, index_rewrites,
               module_state, module_sync, no_grad_writes, options, outputs, outside_values,
               packed_sequences, trace_values, traceable)
from .batch_layout import BatchLayout, _unreserved
from .grad_modes import GRAD_OFF, NO_GRAD  # noqa: F401  (importer.py reads them here)
from .trace_hints import (AUTOGRAD_IN_FORWARD_MARKERS, DATA_DEPENDENT_MARKERS, VALUE_READ_HINT,
                          autograd_hint, value_read_hint)
from .trace_hints import (LAZY_HINT, UNINITIALIZED_MARKER, lazy_module_frame,
                          uninitialized_lazy_modules)
from .errors import DataDependentError, FrontendError, ModelError, TracedUpdateWarning
from . import selection_sizes
from .selection_sizes import SelectionSizes, held, values_read
from .source import (TRACE_ENTRY, Frame, exception_frame, node_frame,
                     stack_frame)

try:  # torch >= 2.0
    from torch.func import functional_call as _functional_call
    from torch.func import functionalize as _functionalize
except ImportError:  # torch 1.13
    from torch.nn.utils.stateless import functional_call as _functional_call
    from functorch import functionalize as _functionalize


@dataclass
class Placeholder:
    """What one placeholder of the traced graph stands for."""
    role: str            # "param", "buffer" or "input"
    key: str             # state_dict name (params, buffers) or input name
    tensor: torch.Tensor  # the example value


@dataclass
class Traced:
    """An aten graph of the loss (or of the forward's output) and what its
    placeholders are."""
    graph_module: torch.fx.GraphModule
    placeholders: List[Placeholder]
    aliases: Dict[str, str] = field(default_factory=dict)  # tied name -> argument name
    model_name: str = ""
    # Forward traces only (None for a loss): the pytree TreeSpec of the
    # model's output, whose leaves the graph returns as a flat list in
    # tree_flatten order (outputs.flatten), with None for each leaf that is
    # not a tensor; `output_constants` holds those the output keeps as
    # constants (None, numbers, strings) by flat index, `output_leaves`
    # describes the others (None for tensor and constant leaves), and
    # `return_frame` is forward's return statement, for errors about them.
    output_spec: Optional[pytree.TreeSpec] = None
    output_leaves: List[Optional[str]] = field(default_factory=list)
    output_constants: Dict[int, Any] = field(default_factory=dict)
    return_frame: Optional[Frame] = None
    # Loss traces only: the buffers carried as model state (_state_writes:
    # placeholder node -> its first writer).
    carried: Dict[torch.fx.Node, torch.fx.Node] = field(default_factory=dict)
    # Called with each call's batch leaves before a compiled program runs
    # (packed_sequences.LengthCheck), or None.
    batch_check: Optional[Callable] = None
    # The buffers (and frozen parameters of a loss) whose values the trace
    # read as constants (selection_sizes.held: .item() of one, the row
    # count of a selection by a mask computed from them): the program
    # holds them as constants even where its graph no longer reads them.
    values_read: List[str] = field(default_factory=list)
    # Tensors the trace does not follow (a plain tensor attribute, a
    # global, a loss_fn module's buffer) that the model's code read as
    # Python numbers (trace_values.plain_values_read): constants of the program, which
    # the module watch guards like the tensors it folds in.
    outside_read: List[torch.Tensor] = field(default_factory=list)
    # The parameters and buffers whose names the program reserves, renamed
    # in it (_program_names): program name -> the module's name.
    renamed: Dict[str, str] = field(default_factory=dict)

    def user_name(self, key: str) -> str:
        """The module's name of the placeholder key `key`."""
        return self.renamed.get(key, key)


def _alias_groups(model: torch.nn.Module, kind: str) -> "OrderedDict[str, List[str]]":
    """First name -> all names of each distinct parameter (or buffer)."""
    named = model.named_parameters() if kind == "param" else model.named_buffers()
    first = OrderedDict((id(t), name) for name, t in named)
    groups = OrderedDict((name, []) for name in first.values())
    for prefix, module in model.named_modules(remove_duplicate=False):
        table = module._parameters if kind == "param" else module._buffers
        for local, t in table.items():
            if t is None or id(t) not in first:
                continue
            full = f"{prefix}.{local}" if prefix else local
            names = groups[first[id(t)]]
            if full not in names:
                names.append(full)
    return groups


def _program_names(params, buffers, taken: Sequence[str]) -> Dict[str, str]:
    """The program's names of the parameters and buffers (_alias_groups'
    `params`, `buffers`: first name -> names) the program reserves for
    tensors of its own (a warm-up counter register_buffer("step", ...), an
    LSQ step size named `step`, a buffer `lr`): first name -> "<name>_param"
    or "<name>_buffer" (+ "_" until no name in `taken` has it). The
    argument is bound to the module's tensor through the trace's aliases, so
    state_dict, load_state_dict and the module watch keep the module's
    names."""
    taken = set(taken) | {a for groups in (params, buffers) for g in groups.values() for a in g}
    out = {}
    for groups, suffix in ((params, "_param"), (buffers, "_buffer")):
        for name in groups:
            if name in options.RESERVED_NAMES:
                out[name] = _unreserved(name, taken, suffix)
                taken.add(out[name])
    return out


def _create_name(self, candidate: str, obj) -> str:
    """torch.fx's _Namespace.create_name (torch 1.13), remembering per base
    name the last suffix it gave: torch 1.13 counts up from 1 past every
    name taken before, which makes a long unrolled loop's trace (an LSTM
    over 1000 steps: ~10^5 nodes named select_N, add_N, ...) quadratic."""
    if obj is not None and obj in self._obj_to_name:
        return self._obj_to_name[obj]
    candidate = self._illegal_char_regex.sub("_", candidate)
    if candidate[0].isdigit():
        candidate = f"_{candidate}"
    match = self._name_suffix_regex.match(candidate)
    base, num = (candidate, 0) if match is None else (match.group(1), int(match.group(2)))
    last = self.__dict__.setdefault("_tfc_last_suffix", {})
    if candidate in self._used_names or self._is_illegal_name(candidate, obj):
        num = max(num, last.get(base, 0))
        while True:
            num += 1
            candidate = f"{base}_{num}"
            if candidate not in self._used_names and not self._is_illegal_name(candidate, obj):
                break
        last[base] = num
    self._used_names.setdefault(candidate, 0)
    if obj is None:
        self._unassociated_names.add(candidate)
    else:
        self._obj_to_name[obj] = candidate
    return candidate


@contextlib.contextmanager
def _linear_fx_names():
    """torch.fx names nodes through _create_name meanwhile, on torch 1.13
    (later versions keep a count per base name themselves)."""
    from torch.fx import graph
    namespace = getattr(graph, "_Namespace", None)
    # torch 1.13's namespace has no per-base count (later ones do).
    fits = namespace is not None and not hasattr(namespace(), "_base_count")
    if not fits:
        yield
        return
    original = namespace.create_name
    namespace.create_name = _create_name
    try:
        yield
    finally:
        namespace.create_name = original


AUTOGRAD_FUNCTION_PROBLEM = ("tfc derives every gradient from the traced forward ops "
                             "and cannot use a Python backward")
AUTOGRAD_FUNCTION_HINT = ("write the forward with differentiable torch ops (tfc differentiates "
                          "them; torch.utils.checkpoint is supported: tfc calls the function and "
                          "recomputes with recompute=cheap|blocks)")

@contextlib.contextmanager
def _traceable_functions():
    """Torch functions whose implementation reads tensor values (or that
    make_fx cannot trace), replaced while tracing (and while no_grad_writes
    runs the model eagerly, so both runs take the same code) by traceable.py's
    value-free equivalents."""
    # Only what this torch has: torch >= 2.1 has no
    # checkpoint._checkpoint_without_reentrant, for one.
    present = [(owner, name, replacement) for owner, name, replacement in traceable.REPLACEMENTS
               if hasattr(owner, name)]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in present]
    for owner, name, replacement in present:
        setattr(owner, name, replacement)
    # torch.distributions checks its arguments' constraints by default
    # (`constraint.check(value).all()`: a tensor's value in Python control
    # flow); a debugging aid that no trace can record, off while tracing.
    distribution = torch.distributions.Distribution
    validate = distribution._validate_args
    distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        distribution.set_default_validate_args(validate)
        for owner, name, original in originals:
            setattr(owner, name, original)


class _NoFastPaths(torch.overrides.TorchFunctionMode):
    """Calls every torch function as it is. Its presence alone makes
    torch.overrides.has_torch_function true, which turns off the fused
    inference fast paths of nn.TransformerEncoderLayer and
    nn.MultiheadAttention in eval mode (aten._transformer_encoder_layer_fwd,
    _native_multi_head_attention: single opaque ops); the trace records the
    standard path's ops instead, which compute the same."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class _TrainableWrites(torch.overrides.TorchFunctionMode):
    """Notes the trainable parameters forward writes in place (p.copy_(...)
    under no_grad, a view of .data written, w.data[:, :, -1].zero_()) and
    the line of the first write: functionalization refuses the write only
    after the call, writing it back into the parameter, where no line of
    the model's is on the stack. `parameters`: the traced placeholders by
    name; a write is one through them, their .data / detach() aliases or a
    view of either."""

    def __init__(self, parameters: Dict[str, torch.Tensor]):
        super().__init__()
        self.names = {id(t): n for n, t in parameters.items()}
        self.kept = list(parameters.values())  # no id reused meanwhile
        self.written: List[str] = []
        self.frame: Optional[Frame] = None

    def _name(self, t) -> Optional[str]:
        while isinstance(t, torch.Tensor):
            if id(t) in self.names:
                return self.names[id(t)]
            source = getattr(t, selection_sizes._ALIAS, None)  # a view's (basic indexing)
            t = source if source is not None else t._base
        return None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = self._name(args[0]) if args else None
        if name is not None:
            op = getattr(func, "__name__", "")
            # (__setitem__ arrives under the names of the wrappers of it)
            if (op.endswith("_") and not op.endswith("__")) or op.endswith("setitem") or \
                    (op.startswith("__i") and op.endswith("__")) or "out" in kwargs:
                if name not in self.written:
                    self.written.append(name)
                self.frame = self.frame or stack_frame()
        out = func(*args, **kwargs)
        if name is not None and getattr(func, "__name__", "") in ("detach", "__get__") \
                and isinstance(out, torch.Tensor):
            self.names[id(out)] = name   # .data's alias (module_state.data_writes)
            self.kept.append(out)
        return out

    def refine(self, e: FrontendError) -> None:
        """Names the parameters and the line in `e`, _make_fx's refusal of
        a trainable parameter written in place (which has neither)."""
        if not self.written or e.frame is not None or \
                e.hint != module_state.TRAINABLE_WRITE_HINT:
            return
        what = ", ".join(f"'{n}'" for n in self.written)
        e.message = e.message.replace("in place (", f"in place: {what} (", 1)
        e.frame = self.frame
        e.args = (e._render(),)


def _roles(traced: Traced) -> Dict[torch.fx.Node, Placeholder]:
    """Each placeholder node's Placeholder."""
    return dict(zip([n for n in traced.graph_module.graph.nodes if n.op == "placeholder"],
                    traced.placeholders))


def _placeholder_writes(traced: Traced, holders) -> Dict[torch.fx.Node, List[torch.fx.Node]]:
    """The nodes writing each of the placeholder nodes `holders` in place,
    in graph order: an op whose schema marks the argument Tensor(a!)
    (functionalization leaves a copy_ per updated input), and training-mode
    native_batch_norm, which writes its running statistics without
    declaring it."""
    writes: Dict[torch.fx.Node, List[torch.fx.Node]] = {}
    for node in traced.graph_module.graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if node.op != "call_function" or schema is None:
            continue
        written = [value for arg, value in zip(schema.arguments, node.args)
                   if arg.alias_info is not None and arg.alias_info.is_write]  # copy_'s
        if node.target is torch.ops.aten.native_batch_norm.default and node.args[5]:
            written += node.args[3:5]
        for value in written:
            if value in holders:
                writes.setdefault(value, []).append(node)
    return writes


def _state_writes(writes, role) -> Dict[torch.fx.Node, torch.fx.Node]:
    """The buffers a loss import carries as model state (`tfc.state`
    arguments whose new values the function returns): each written once
    by a copy_ of a new value (functionalization's write-back: spectral
    norm's weight_u / weight_v, num_batches_tracked), or as the running
    statistics of training-mode native_batch_norms, any number of them (a
    batch norm module applied several times updates its statistics once
    per call, each from the last: ops/nn.py reads ctx.state_value);
    placeholder node -> its (first) writer, from _placeholder_writes'
    `writes` and _roles' `role`."""
    carried = {}
    for holder, writers in writes.items():
        if role[holder].role != "buffer":
            continue
        writer = writers[0]
        if (len(writers) == 1 and writer.target is torch.ops.aten.copy_.default
                and writer.args[0] is holder):
            carried[holder] = writer
        elif (all(w.target is torch.ops.aten.native_batch_norm.default for w in writers)
              and role[holder].tensor.is_floating_point()):
            carried[holder] = writer
    return carried


def _warn_dropped_updates(traced: Traced, writes, role):
    """Warns when the traced call updates a buffer or a batch input in
    place (`writes`, `role`: as _state_writes') and the import does not
    carry the update (traced.carried: the placeholders a loss import makes
    model state): tfc compiles buffers as constants and never writes its
    inputs, so each call computes with the values they had at import time."""
    written = sorted(f"{role[holder].role} '{traced.user_name(role[holder].key)}'"
                     for holder in writes
                     if role[holder].role != "param" and holder not in traced.carried)
    inputs = [w for w in written if w.startswith("input ")]
    written = [w for w in written if not w.startswith("input ")]
    if inputs:
        warnings.warn(
            f"{traced.model_name} writes its {', '.join(inputs)} in place: the compiled program "
            "computes with the written values but leaves the tensors passed to it as they are "
            "(torch's forward changes them; compiling changes nothing either)",
            TracedUpdateWarning, stacklevel=3)
    if written:
        where = ("a forward import (import_forward, compile) does not carry them"
                 if traced.output_spec is not None else
                 "the training step carries buffers written once by a copy_ and batch "
                 "norm's running statistics")
        warnings.warn(
            f"{traced.model_name} updates {', '.join(written)} in place (e.g. batch norm's "
            "running statistics, spectral norm's power iteration): tfc compiles buffers as "
            "constants and does not write its inputs, so the update is not applied and every "
            f"call uses the values at import time ({where}; the module itself is left "
            "unchanged)", TracedUpdateWarning, stacklevel=3)


def _plain_tensor_attributes(model: torch.nn.Module, code: str) -> List[str]:
    """The names of the modules' tensor attributes that are no parameters
    or buffers (`self.centers = torch.zeros(...)`), those named on the
    source line `code` when any is."""
    found = [(f"{prefix}.{key}" if prefix else key, key)
             for prefix, module in model.named_modules()
             for key, value in vars(module).items() if isinstance(value, torch.Tensor)]
    named = [full for full, key in found if f".{key}" in code]
    return named or [full for full, _ in found]


def _refuse_lazy(model: torch.nn.Module) -> None:
    """A ModelError naming the lazy modules (nn.LazyLinear, LazyBatchNorm3d)
    whose parameters or buffers are not materialized yet, if any."""
    lazy = uninitialized_lazy_modules(model)
    if lazy:
        many = len(lazy) > 1
        raise ModelError(
            f"the lazy module{'s' if many else ''} "
            f"{', '.join(f'{name!r} ({kind})' if name else kind for name, kind in lazy)} "
            f"{'have' if many else 'has'} no parameters or buffers yet: a lazy module sizes "
            "them at its first call, and tfc traces with their shapes",
            lazy_module_frame(model, [name for name, _ in lazy]), LAZY_HINT)


def _make_fx(fn, args, spaces, model: Optional[torch.nn.Module] = None):
    """make_fx of functionalized `fn` on `args` under the tracing contexts
    (`spaces`: the model code's globals, for custom_functions); a failure
    re-raised as the FrontendError that explains it (naming `model`'s
    tensor attributes where one is the cause)."""
    try:
        # Grad mode on while tracing, so only the model's own no_grad regions
        # count (a caller's `with torch.no_grad():` around the import would
        # otherwise mark every node).
        with _linear_fx_names(), grad_modes.annotating_nodes(), _traceable_functions(), \
                custom_functions.applied(spaces=spaces), packed_sequences.replaced(), \
                _NoFastPaths(), index_rewrites.rewritten(), SelectionSizes(), \
                grad_modes.NoGradViews(), trace_values.formatted_placeholders(), \
                trace_values.initialized_empties(), trace_values.plain_values_read(), \
                trace_values.unchecked_asserts(), trace_values.constant_values(), \
                grad_flags.tracked(), torch.enable_grad():
            gm = make_fx(_functionalize(fn))(*args)
    except Exception as e:  # noqa: BLE001 - re-raised with context below
        text = f"{type(e).__name__}: {e}"
        if isinstance(e, FrontendError):  # from a replacement or a guard
            if e.frame is None:
                e.frame = exception_frame(e)
                e.args = (e._render(),)
            raise
        if any(m in text for m in DATA_DEPENDENT_MARKERS):
            frame = exception_frame(e)
            raise DataDependentError(
                "the model's Python control flow depends on a tensor's value "
                "(an `if`/`while` on a tensor, .item(), .tolist(), int()/bool() of a tensor)",
                frame, value_read_hint(frame)) from e
        if UNINITIALIZED_MARKER in text and model is not None:
            _refuse_lazy(model)
        if "for tensor of size [0" in text or "with size 0" in text:
            raise ModelError(
                "tracing the model with make_fx failed on an empty tensor "
                f"({text.splitlines()[0]}): "
                "the example batch selects no element somewhere (a mixture-of-experts expert "
                "routed no token, an empty mask), and this torch cannot trace indexing into "
                "it", exception_frame(e),
                "compile from an example batch that selects at least one element everywhere "
                "(every expert one token); the compiled program then runs any batch") from e
        if "support the use of autograd.Function" in text:  # functorch of torch 1.13
            raise ModelError(
                f"a torch.autograd.Function cannot be traced ({AUTOGRAD_FUNCTION_PROBLEM}; "
                "this torch traces no Function at all)", exception_frame(e),
                AUTOGRAD_FUNCTION_HINT) from e
        if "leaf Variable that requires grad is being used in an in-place" in text:
            # functorch propagates a write into an input after the call: no
            # line of the model's is on the stack then.
            raise ModelError(
                "forward writes a trainable parameter in place (p.copy_(...), p.clamp_(), "
                "p.data.mul_(...) under torch.no_grad(): weight clipping, weight "
                "normalization, masking); tfc's training step updates trainable parameters "
                "through the optimizer only", None, module_state.TRAINABLE_WRITE_HINT) from e
        if "mutating a non-functional tensor with a functional tensor" in text and model:
            # A tensor functionalization did not wrap (no parameter, buffer or
            # input: a plain attribute) written with a traced value.
            frame = exception_frame(e)
            names = _plain_tensor_attributes(model, frame.code if frame else "")
            what = (f"the plain tensor attribute{'s' if len(names) > 1 else ''} "
                    f"{', '.join(names[:4])}" if names else "a tensor")
            key = names[0].split(".")[-1] if len(names) == 1 else "name"
            raise ModelError(
                f"forward writes {what} (no parameter, buffer or input) in place, or hands it "
                "to an op that this torch traces as writing it (nn.GRU / nn.LSTM given it as "
                "the initial hidden state): tfc traces and carries the writes of registered "
                "buffers only", frame,
                f"register it as a buffer, self.register_buffer('{key}', tensor): the training "
                "step carries a buffer forward updates in place or re-assigns (a memory bank, "
                "center-loss centers, a truncated-BPTT hidden state self.hidden = h.detach()) "
                "as model state; or pass it as a batch argument") from e
        if "support saved tensor hooks" in text:  # torch 1.13, e.g. save_on_cpu
            raise ModelError(
                "a saved-tensor hook (torch.autograd.graph.saved_tensors_hooks, save_on_cpu) "
                "cannot be traced by this torch's functorch", exception_frame(e),
                "remove the hook: tfc places and recomputes activations itself "
                "(recompute=cheap|blocks)") from e
        if any(m in text for m in AUTOGRAD_IN_FORWARD_MARKERS):
            frame = exception_frame(e)
            raise ModelError(
                "forward takes a derivative with torch.autograd (torch.autograd.grad, "
                ".backward(), requires_grad_(), torch.autograd.functional), which cannot be "
                "traced: tfc traces under functionalization, where tensors carry no autograd "
                "history", frame, autograd_hint(frame)) from e
        if "argument of type: <class 'torch._C.Generator'>" in text:  # torch 1.13 make_fx
            raise ModelError(
                "a random draw with an explicit torch.Generator (generator=...) cannot be traced: "
                "tfc draws its own stream", exception_frame(e),
                "drop generator= (compile_train_step's seed option, or torch.manual_seed before "
                "compiling, keys tfc's stream); to fix the noise exactly, draw it outside the "
                "model and pass it as a batch argument") from e
        if "aten::alias() Expected a value of type 'Tensor'" in text:  # torch 1.13 functorch
            raise ModelError(
                "this torch's functorch cannot trace forward-mode differentiation (hessian, "
                "jacfwd, jvp) through an op with a Python number operand (SIREN's "
                "omega_0 * x)", exception_frame(e),
                "take second derivatives in reverse mode, jacrev(jacrev(f)) instead of "
                "hessian(f), or make the number a tensor (x * torch.tensor(30.0))") from e
        if "automatic differentiation for outputs with complex dtype" in text:  # torch 1.13
            raise ModelError(
                f"this torch cannot trace an in-place write into a complex tensor that needs a "
                f"gradient ({text.splitlines()[0]})", exception_frame(e),
                "build the complex tensor out of place: torch.cat with zeros, F.pad of "
                "torch.view_as_real(z), or torch.fft.irfft(z, n=...), which pads the dropped "
                "frequencies with zeros itself") from e
        if "Caffe2 uses a lazy allocation" in text:  # torch 1.13: a tensor without storage
            raise ModelError(
                "forward builds a tensor without dense storage (a sparse tensor: "
                "torch.sparse_coo_tensor, .to_sparse()), which this torch cannot trace and tfc "
                "does not compute with", exception_frame(e),
                "build it dense, A = torch.zeros(n, n).index_put((rows, cols), values, "
                "accumulate=True), and multiply densely (A @ h for torch.sparse.mm(A, h)); or "
                "pass the sparse tensor as a batch argument, which tfc feeds densely") from e
        raise ModelError(f"tracing the model with make_fx failed: {text.splitlines()[0]}",
                         exception_frame(e)) from e

    return gm


def _run_eagerly(fn, args, gm, spaces):
    """The eager run of `fn` that pairs in-place no_grad writes with the
    trace's nodes (no_grad_writes.py) and checks custom Functions and packed
    sequences."""
    grad_off = [n for n in gm.graph.nodes
                if n.op == "call_function" and n.meta.get(GRAD_OFF) == NO_GRAD]
    # The eager run also checks custom Functions' backwards (elementwise)
    # and the padding of packed sequences; a trace that padded one without
    # total_length (packed_sequences.py) gets an eager forward of its own
    # when that run did not happen.
    try:
        with _traceable_functions(), custom_functions.applied(check=True, spaces=spaces), \
                packed_sequences.replaced(check=True):
            ran = no_grad_writes.mark(fn, args, grad_off, _NoFastPaths)
            custom_functions.run_checks()
            if packed_sequences.unchecked() and not ran:
                with torch.random.fork_rng(devices=[]), torch.no_grad(), _NoFastPaths():
                    fn(*pytree.tree_map(
                        lambda t: t.detach().clone() if isinstance(t, torch.Tensor) else t,
                        list(args)))
    except FrontendError as e:
        if e.frame is None:  # from the eager run of a replacement: the model's line
            e.frame = exception_frame(e)
            e.args = (e._render(),)
        raise
    except RuntimeError as e:
        if "mutating a non-functional tensor with a functional tensor" not in str(e):
            raise
        # The trace left a traced tensor in Python state outside the model
        # (a cache on a function attribute or a global, fairseq's
        # buffered_arange), and the eager run after it computed with it.
        raise ModelError(
            "forward keeps a tensor it created across calls outside the module (a cache on a "
            "function attribute or a global, as fairseq's buffered_arange), and the trace "
            "created it: the run after the trace met the traced value there",
            exception_frame(e),
            "call the model once eagerly before compiling, so the cache holds a real tensor "
            "(its values become constants of the program), or compute the tensor in forward "
            "(torch.arange(n))") from e


def _first_failure(first: FrontendError, retry: FrontendError, read) -> FrontendError:
    """The error to report when a trace that read the values of the held
    buffers `read` failed (`first`) and so did the trace again without
    holding them (`retry`). The retry's error is at a read of one; it
    explains `first` only where the held value led the trace astray (MoCo's
    pointer, read then written, slicing the queue it writes): not where
    `first` is a value read of its own (a legal `if not self.initted:`
    read before the real `if torch.any(y > 5):`), nor where it writes
    trainable parameters (Glow's ActNorm initializing itself from the data
    behind a flag buffer), nor where the retry failed for another reason
    than a read."""
    if isinstance(first, DataDependentError) or not isinstance(retry, DataDependentError):
        return first
    if first.hint == module_state.TRAINABLE_WRITE_HINT:
        names = ", ".join(sorted(read))
        first.message += (f" (after reading the value of {names}: a data-dependent "
                          "initialization behind a flag, as Glow's ActNorm, writes them at the "
                          "first call)")
        first.hint = ("run one batch eagerly before compiling (model(*example_args)), so the "
                      f"initialization is done and {names} set; otherwise "
                      + first.hint)
        first.args = (first._render(),)
        return first
    return retry


def _refuse_gradient_hooks(model: torch.nn.Module, params: Dict[str, torch.Tensor]) -> None:
    """Gradient hooks (p.register_hook(lambda g: g.clamp(-c, c)), a module's
    register_full_backward_hook) change what the optimizer gets in torch;
    tfc derives the gradients itself and runs no Python during the step,
    so a model with one is refused rather than trained on other
    gradients."""
    hooked, hooks = [], []
    for n, p in params.items():
        if p.requires_grad and p._backward_hooks:
            hooked.append(n)
            hooks += list(p._backward_hooks.values())
    for n, m in model.named_modules():
        table = dict(getattr(m, "_backward_hooks", None) or {})
        table.update(getattr(m, "_backward_pre_hooks", None) or {})
        if table:
            hooked.append(f"module {n or type(m).__name__}")
            hooks += list(table.values())
    if hooked:
        # The first hook's source (the lambda written where it is
        # registered), when it is Python.
        code = getattr(hooks[0], "__code__", None)
        frame = None
        if code is not None:
            line = linecache.getline(code.co_filename, code.co_firstlineno).strip()
            frame = Frame(code.co_filename, code.co_firstlineno, code.co_name, line)
        raise ModelError(
            f"gradient hooks on {', '.join(hooked)}: tfc derives the gradients itself and "
            "runs no Python hook during the step, so it would train on other gradients", frame,
            "clip with max_grad_norm (clip_grad_norm_'s rule), mask with a frozen parameter "
            "or a multiply in forward, or remove the hook")


def _refuse_quantized(gm: torch.fx.GraphModule) -> None:
    """A real quantize (torch.quantize_per_tensor(x, s, z, torch.quint8),
    then .dequantize(): int8 emulation) makes a quantized tensor, whose
    dtype tfc has no element type for; its fake-quantize is the same round
    trip in float, which tfc lowers."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and str(node.target).startswith("aten.quantize_per_"):
            raise ModelError(
                f"forward quantizes with {node.target} into a quantized dtype (torch.quint8, "
                "qint8, qint32), which tfc has no element type for", node_frame(node),
                "quantize and dequantize in one op in float: torch.quantize_per_tensor(x, "
                "scale, zero_point, torch.quint8).dequantize() is "
                "torch.fake_quantize_per_tensor_affine(x, scale, zero_point, 0, 255) (qint8: "
                "-128, 127; per channel torch.fake_quantize_per_channel_affine), with torch's "
                "straight-through gradient (zero where it clamps)")


def _refuse_script_modules(model: torch.nn.Module) -> None:
    """TorchScript modules (torch.jit.ScriptModule subclasses, script or
    trace results) run compiled TorchScript, which make_fx and
    functional_call cannot see into (RWKV-LM's default RWKV_JIT_ON=1)."""
    for name, module in model.named_modules():
        if isinstance(module, torch.jit.ScriptModule):
            what = f"submodule '{name}'" if name else "the model"
            raise ModelError(
                f"{what} is a TorchScript module ({type(module).__name__}): tfc traces Python "
                "modules, and TorchScript runs its own compiled code",
                hint="use the plain nn.Module (without torch.jit.script / trace, or with "
                     "the model's JIT switch off, e.g. RWKV_JIT_ON=0); scripted functions "
                     "called from Python forward code are fine")


def _refuse_trained_loss_fn(loss_fn) -> None:
    """A loss_fn that is a module with trainable parameters (ArcFace /
    CosFace margin heads, CenterLoss, learned loss weights): the trace
    would read them as constants, so the step would never train them."""
    if not isinstance(loss_fn, torch.nn.Module):
        return
    names = [n for n, p in loss_fn.named_parameters() if p.requires_grad]
    if names:
        shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
        raise ModelError(
            f"loss_fn ({type(loss_fn).__name__}) has trainable parameters ({shown}): tfc "
            "trains the parameters of the model passed to compile, and would fold these "
            "into constants",
            hint="make the loss module part of the model (a wrapper module holding both, "
                 "whose forward returns the loss), or freeze them (requires_grad_(False))")


def _output_loss(out):
    """The loss of a forward that returns it with other outputs, as HF's
    Trainer takes it: a dict (a ModelOutput) with a 0-d tensor "loss"
    entry, or an object (a dataclass, a namedtuple) with a 0-d tensor
    `loss` attribute; anything else as it is."""
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, collections.abc.Mapping):
        loss = out.get("loss")
    else:
        try:
            loss = getattr(out, "loss", None)
        except Exception:  # noqa: BLE001 - no such attribute
            loss = None
    if isinstance(loss, torch.Tensor) and loss.dim() == 0:
        return loss
    return out


def trace(model: torch.nn.Module, example_args: Sequence[torch.Tensor],
          loss_fn: Optional[Callable] = None,
          names: Optional[Sequence[str]] = None, forward: bool = False,
          frozen_state: bool = False, added_loss_weight: float = 1.0) -> Traced:
    """Traces the scalar loss of `model` on `example_args`, or with
    `forward` the model's output (see the module docstring); raises
    ModelError / DataDependentError with the user's source line when the
    model cannot be traced into one static graph. `added_loss_weight`
    weights the loss terms of custom Functions' constant gradients
    (custom_functions.added_loss): K under gradient accumulation, whose
    seed 1/K torch's Function backward does not see."""
    assert not (forward and loss_fn is not None), "a forward trace has no loss_fn"
    # What forward reads of requires_grad (grad_flags.py): a training step
    # differentiates the trainable parameters; an imported forward computes
    # no gradient, as under torch.no_grad() (where inference runs): nothing
    # in it requires grad.
    differentiated = not forward
    _refuse_script_modules(model)
    _refuse_lazy(model)   # (an uninitialized buffer fails its clone below)
    module_sync.wake(model)   # a compiled step's values, when one trained the module
    layout = BatchLayout.of(model, example_args, loss_fn, names)
    layout.warn_unbound()
    params = _alias_groups(model, "param")
    buffers = _alias_groups(model, "buffer")
    param_tensors = dict(model.named_parameters())
    buffer_tensors = dict(model.named_buffers())
    if not forward:
        # Frozen parameters (requires_grad=False) are constants of the
        # loss, as buffers are: never differentiated, never updated.
        frozen = [n for n in params if not param_tensors[n].requires_grad]
        frozen_names = {a for n in frozen for a in params[n]}
        for n in frozen:
            buffers[n] = params.pop(n)
            buffer_tensors[n] = param_tensors.pop(n)
    batch_names = layout.leaf_names()
    if not forward:
        _refuse_gradient_hooks(model, param_tensors)
        _refuse_trained_loss_fn(loss_fn)
    batch_leaves = layout.flatten(*layout.example)
    taken = set(params) | set(buffers)
    for n in batch_names:
        if n in taken:
            others = [m if m != n else f"batch_{n}" for m in batch_names]
            raise ModelError(f"batch tensor name '{n}' is also the name of a parameter or "
                             "buffer of the model (the program names its arguments by them)",
                             hint="name the batch tensors with input_names= (an option of "
                                  "tfc_torch.export, import_module, compile and "
                                  f"compile_train_step), e.g. input_names={others}")
    output = {"spec": None, "leaves": []}  # the forward's output, when tracing one

    trainable = {a for group in params.values() for a in group}
    watch: Dict[str, _TrainableWrites] = {}  # the last call's

    def _tfc_traced_loss(param_list, buffer_list, *leaves):
        batch = layout.unflatten(leaves)
        state = {}
        for aliases, t in zip(params.values(), param_list):
            for name in aliases:
                state[name] = t
        for (key, aliases), t in zip(buffers.items(), buffer_list):
            held(t, key)
            for name in aliases:
                state[name] = t
        holders = dict(state)
        if differentiated:
            grad_flags.mark_trainable(t for n, t in zip(params, param_list)
                                      if param_tensors[n].requires_grad)
        watch["writes"] = _TrainableWrites({n: t for n, t in zip(params, param_list)
                                            if param_tensors[n].requires_grad})
        with watch["writes"], module_state.state_tables(model, holders), \
                functional_calls.nested(), \
                module_state.data_writes(holders, trainable), module_state.traced_parameters():
            out = _functional_call(model, state, *layout.model_call(batch))
            module_state.carry_rebindings(state, holders, trainable)
        if loss_fn is not None:
            args, kwargs = layout.loss_call(batch)
            out = loss_fn(out, *args, **kwargs)
        elif not forward:
            out = _output_loss(out)
        if forward:
            # The leaves in tree_flatten order (outputs.py); a leaf that is
            # not a tensor is returned as None: a constant (None, a number)
            # the program's caller puts back, or described for the
            # importer's error.
            leaves, output["spec"] = outputs.flatten(out)
            output["constants"] = {i: x for i, x in enumerate(leaves)
                                   if outputs.is_constant(x)}
            output["leaves"] = [None if isinstance(x, torch.Tensor) or outputs.is_constant(x)
                                else outputs.describe(x) for x in leaves]
            if "frame" not in output:
                output["frame"] = outputs.output_frame(model.forward, out)
            return [x if isinstance(x, torch.Tensor) else None for x in leaves]
        if not isinstance(out, torch.Tensor):
            return out
        return custom_functions.added_loss(out, added_loss_weight)

    # The function's name marks the model's side of recorded stacks (source.py).
    assert _tfc_traced_loss.__name__ == TRACE_ENTRY
    # Buffers are traced as copies: a forward that updates one in place
    # (batch norm's running statistics, spectral norm's power iteration)
    # writes the copy, so importing leaves the user's module as it was, and
    # the constants folded from buffers are their values before the call.
    # So is the batch: a forward that writes an input in place (fast
    # neural style's batch.div_(255)) leaves the caller's tensors as they were.
    args = ([param_tensors[n] for n in params],
            [buffer_tensors[n].clone() for n in buffers],
            *[t.clone() if isinstance(t, torch.Tensor) else t for t in batch_leaves])
    # The traced and the eager call both run forward on the user's module:
    # its plain attributes are restored after them (module_state.py).
    def run(hold: bool):
        with selection_sizes.holding(hold), custom_functions.gradients(differentiated), \
                module_state.attributes_kept(model, type(model).__name__, not forward,
                                             loss_fn) as kept, \
                outside_values.guarded(type(model).__name__, model):
            spaces = custom_functions.code_globals(model, loss_fn)
            try:
                gm = _make_fx(_tfc_traced_loss, args, spaces, model)
            except FrontendError as e:
                if "writes" in watch:
                    watch["writes"].refine(e)
                raise
            kept.read_by(gm)
            _run_eagerly(_tfc_traced_loss, args, gm, spaces)
        return gm

    def run_unheld(state: List[str]):
        """The trace again with buffers not held constant: a value read
        as a constant that is model state (MoCo's queue pointer, read, then
        written) fails at the read, with the state named."""
        try:
            return run(False)
        except FrontendError as e:
            if state:
                e.hint += (f" ({', '.join(state)}: model state, which forward writes or "
                           "frozen=\"state\" sets between calls, so no constant)")
                e.args = (e._render(),)
            raise

    try:
        gm = run(True)
    except FrontendError as first:
        read = values_read()
        if not read:
            raise
        try:
            gm = run_unheld([])  # the failure may follow from a value read
        except FrontendError as retry:
            raise _first_failure(first, retry, read)
    _refuse_quantized(gm)

    renamed = _program_names(params, buffers, batch_names)
    placeholders = [Placeholder("param", renamed.get(n, n), param_tensors[n]) for n in params]
    placeholders += [Placeholder("buffer", renamed.get(n, n), buffer_tensors[n])
                     for n in buffers]
    placeholders += [Placeholder("input", n, t) for n, t in zip(batch_names, batch_leaves)]
    aliases = {a: renamed.get(n, n) for groups in (params, buffers)
               for n, group in groups.items() for a in group if a != renamed.get(n, n)}
    traced = Traced(gm, placeholders, aliases, type(model).__name__)
    traced.renamed = {p: n for n, p in renamed.items()}
    traced.batch_check = packed_sequences.length_check(gm, placeholders)
    if forward:
        traced.output_spec, traced.output_leaves = output["spec"], output["leaves"]
        traced.output_constants = output["constants"]
        traced.return_frame = output["frame"]
    role = _roles(traced)
    writes = _placeholder_writes(traced, set(role))
    if not forward:  # a loss import carries the buffers of _state_writes as model state
        traced.carried = _state_writes(writes, role)
        if frozen_state:
            # Frozen parameters and floating-point buffers as model state
            # the forward does not write (None: no writer), so the step's
            # load_state_dict, or a write to the module, sets them between
            # calls (a target network's Polyak update, NoisyNet's
            # reset_noise() writing its noise buffers); a buffer whose value
            # the trace read as a number stays a constant.
            numbers = values_read()
            for holder, placeholder in role.items():
                buffer = (placeholder.role == "buffer" and placeholder.tensor.is_floating_point()
                          and traced.user_name(placeholder.key) not in numbers)
                if (placeholder.key in frozen_names or buffer) and holder not in traced.carried:
                    traced.carried[holder] = None
    read = values_read()   # by the module's names
    carried = sorted(traced.user_name(role[h].key) for h in traced.carried
                     if traced.user_name(role[h].key) in read)
    if carried:
        run_unheld(carried)
        raise DataDependentError(  # not reached where the read fails unheld
            f"forward reads the value of {', '.join(carried)} (model state: forward writes it, "
            "or frozen=\"state\") as a number or a mask's row count", None, VALUE_READ_HINT)
    traced.values_read = sorted(renamed.get(n, n) for n in read)
    traced.outside_read = list(trace_values.plain_read)
    _warn_dropped_updates(traced, writes, role)
    return traced
