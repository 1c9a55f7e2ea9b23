"""From a traced aten graph to a tfc Function.

Walks the graph in order, running every live node on the example tensors
(which gives each node's exact type, and the value of every node computed
only from tensors known at trace time: buffers, constants, factory ops).
Such known nodes are folded; the others are lowered by their registry
entry (registry.py, ops/). Each lowering's result types are checked
against the traced tensors, so a wrong lowering fails here, naming the op,
instead of producing IR that computes something else. A complex tensor is
carried as a Complex pair of real Values, and a node with a complex operand
or result goes to its complex lowering (ops/complex.py).
"""
import dataclasses
import operator
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch
import torch.fx
import torch.utils._pytree as pytree

from . import constants, dtypes, no_grad_writes, registry
from .builder import Builder
from .constants import Known
from .errors import DataDependentError, FrontendError, ModelError, UnsupportedOpError
from .ir import Argument, Function, TensorType, Value
from .source import node_frame
from . import tracing
from .tracing import Traced

# Ops never folded even when their inputs are known: they draw random
# numbers (their lowering decides what to do; with none, the import is
# refused instead of repeating one draw every step). Name prefixes: every
# aten op taking a Generator is covered ("aten.rand" covers random_ too);
# the ones whose names prefix deterministic ops end with "." (poisson_nll_loss,
# _standard_gamma_grad, rrelu_with_noise_backward).
_NEVER_FOLD = ("aten.native_dropout", "aten.dropout", "aten.bernoulli", "aten.rand",
               "aten.randn", "aten.randint", "aten.normal", "aten.uniform",
               "aten.multinomial", "aten.randperm", "aten.rand_like", "aten.randn_like",
               "aten.randint_like", "aten.exponential", "aten.geometric", "aten.log_normal",
               "aten.cauchy", "aten._standard_gamma.", "aten.poisson.", "aten.binomial.",
               "aten._sample_dirichlet.", "aten.rrelu.", "aten.rrelu_.",
               "aten.rrelu_with_noise.", "aten.rrelu_with_noise_.", "aten._fused_dropout",
               "aten.alpha_dropout", "aten.feature_alpha_dropout", "aten.feature_dropout")

# The error for an aten backward op with no lowering (ops/backward.py has
# those tfc lowers), which only a derivative taken inside forward records.
BACKWARD_OP_REASON = ("aten's backward of a layer, recorded by a derivative taken inside "
                      "forward (functorch grad / vmap / jacrev / hessian)")
BACKWARD_OP_HINT = ("tfc lowers the backward ops of the elementwise activations, softmax / "
                    "log_softmax, glu, layer and batch norm, the mse / smooth_l1 / huber / nll "
                    "losses, select, slice, convolution and pooling (docs/frontend.md, Gradient "
                    "control), not those of other layers or losses: differentiate through other "
                    "layers, or take the derivative outside the model")


# Lowerings that take a model-state argument itself and record its update
# (ctx.update_state): the others read the state's current value.
_STATE_UPDATERS = ("aten.native_batch_norm.default",)

# Narrow integers torch computes with and tfc has no arithmetic type for:
# uint8 (`.byte()` masks, images; tfc's ui8 is a storage type only
# arithmetic ops reject, docs/dialect.md), int8 and int16 (16-bit PCM
# audio, CT volumes). Inside the function such a tensor is an i32 Value
# holding its value (lowerings see i32 as its type); uint8 stays ui8 at the
# edges (batch inputs, a forward's outputs), int8 / int16 are i32 there
# (converted by the caller: runtime.Program.set, export's feeds, a
# forward's outputs cast back). The results of the ops that can leave the
# type's range are wrapped into it, as torch's arithmetic and conversions
# (-1.0 and 511 to uint8 255, 40000 to int16 -25536) wrap. Each dtype's
# (lowest value, number of values):
NARROW_INTEGERS = {torch.uint8: (0, 256), torch.int8: (-128, 256),
                   torch.int16: (-32768, 65536)}
NARROW_VALUE = "i32"
_NARROW_WRAPPING = ("aten.add.", "aten.sub.", "aten.rsub.", "aten.mul.", "aten.neg.",
                    "aten.pow.", "aten.square.", "aten.addcmul.", "aten._to_copy.",
                    "aten.to.", "aten.type_as.", "aten.copy.", "aten.sum.", "aten.prod.",
                    "aten.cumsum.", "aten.cumprod.", "aten.mm.", "aten.bmm.", "aten.matmul.",
                    "aten.fill.", "aten.full_like.", "aten.new_full.", "aten.abs.",
                    "aten.div.", "aten.floor_divide.", "aten.lshift.", "aten.__lshift__.",
                    "aten.bitwise_left_shift.")


def _wrap_narrow(b: Builder, v: Value, dtype: torch.dtype) -> Value:
    """An i32 Value wrapped into narrow integer `dtype`'s range."""
    low, count = NARROW_INTEGERS[dtype]
    if low:
        v = b.sub(v, b.splat(low, v.dtype))
    m = b.sub(v, b.mul(b.div(v, b.splat(count, v.dtype)), b.splat(count, v.dtype)))
    m = b.select(b.compare("lt", m, b.splat(0, v.dtype)), b.add(m, b.splat(count, v.dtype)), m)
    return b.add(m, b.splat(low, v.dtype)) if low else m


class Missing:
    """An output a lowering cannot provide (e.g. the indices of max.dim);
    using it is an error naming the op that produced it and `reason`."""

    def __init__(self, reason: str, hint: str = ""):
        self.reason = reason
        self.hint = hint
        self.op = ""  # the producing aten op, set by the importer


class Masked:
    """x[mask] (boolean-mask indexing over x's leading dims) or
    x.masked_select(mask): a number of rows that depends on the data. It is
    kept as all N candidate rows, `values` (the mask's dims flattened into
    dim 0), and `rows`, N booleans saying which are selected; `source` is
    the mask Value it was made from (x[mask] = f(y[mask]) matches by it);
    `merged`, for rows a view merged with the dims after them, (the
    selection before, the merged dims' sizes). masked.py runs the ops that
    keep rows apart on the full rows; any other use is an error naming
    `op`."""

    def __init__(self, values: Value, rows: Value, op: str = "", source=None, merged=None):
        assert values.rank >= 1 and rows.shape == values.shape[:1] and rows.dtype == "i1"
        self.values = values
        self.rows = rows
        self.op = op
        self.source = source
        self.merged = merged

    def like(self, values: Value) -> "Masked":
        """Other values (N rows) under the same selection."""
        return Masked(values, self.rows, self.op, self.source, self.merged)

    def broadcast_rows(self, b: Builder, shape=None) -> Value:
        """`rows` broadcast along the values' (or `shape`'s) other dims."""
        shape = tuple(shape or self.values.shape)
        rows = b.reshape(self.rows, self.rows.shape + (1,) * (len(shape) - 1))
        return b.broadcast_to(rows, shape)

    def count(self, b: Builder, dtype: str) -> Value:
        """The number of selected rows, a scalar of `dtype`."""
        return b.reduce("sum", b.convert(self.rows, dtype), [0])


class Complex:
    """A complex tensor inside the import: its real and imaginary parts,
    Values of one type of the matching real element type (complex64: f32,
    complex128: f64). The lowerings of ops/complex.py take and return
    these; any other lowering meeting one is an error naming its op."""

    def __init__(self, re: Value, im: Value):
        assert re.type == im.type and dtypes.is_float(re.dtype), (re.type, im.type)
        self.re = re
        self.im = im

    @property
    def type(self) -> TensorType:
        """The parts' type (real element type)."""
        return self.re.type

    @property
    def shape(self):
        return self.re.shape

    def __repr__(self):
        return f"Complex({self.re.type})"


# Complex dtype -> the element type of its parts.
_COMPLEX_PARTS = {torch.complex64: "f32", torch.complex128: "f64"}


def is_complex_arg(x) -> bool:
    """Whether a lowered argument is complex: a Complex pair, a known
    complex tensor or a Python complex number (lists searched)."""
    if isinstance(x, (list, tuple)):
        return any(is_complex_arg(e) for e in x)
    return (isinstance(x, Complex) or isinstance(x, complex)
            or (isinstance(x, Known) and x.tensor.is_complex()))


def tensor_type(t: torch.Tensor, frame=None, what: str = "tensor") -> TensorType:
    """A tensor's type at the function's edges (int8 / int16: i32)."""
    if t.dtype in NARROW_INTEGERS and t.dtype != torch.uint8:
        return TensorType(tuple(t.shape), NARROW_VALUE)
    try:
        return TensorType(tuple(t.shape), dtypes.tfc_dtype(t.dtype))
    except ValueError as e:
        if t.is_complex():
            raise ModelError(f"{what} is a complex tensor ({t.dtype}); tfc's arguments are "
                             "real", frame, "pass real and imaginary parts as real tensors "
                             "(torch.view_as_real(z)) and build the complex value in forward "
                             "with torch.view_as_complex or torch.complex") from None
        raise ModelError(f"{what} has dtype {t.dtype}: {e}", frame) from None


def value_type(t: torch.Tensor, frame=None, what: str = "tensor") -> TensorType:
    """The type of a traced tensor's Value (parts_type; narrow integers:
    NARROW_VALUE)."""
    out = parts_type(t, frame, what)
    return out.with_dtype(NARROW_VALUE) if t.dtype in NARROW_INTEGERS else out


def parts_type(t: torch.Tensor, frame=None, what: str = "tensor") -> TensorType:
    """A traced tensor's type; of a complex one, the type of its parts."""
    if t.is_complex():
        if t.dtype not in _COMPLEX_PARTS:
            raise ModelError(f"{what} has dtype {t.dtype}; tfc lowers complex64 and "
                             "complex128 only", frame)
        return TensorType(tuple(t.shape), _COMPLEX_PARTS[t.dtype])
    return tensor_type(t, frame, what)


class Context:
    """What a lowering sees: the builder, the node being lowered and helpers
    to turn its arguments into Values."""

    def __init__(self, fn: Function, b: Builder):
        self.fn = fn
        self.b = b
        self.node: Optional[torch.fx.Node] = None
        self.name = ""
        self.frame = None
        self.out_types: List[Optional[TensorType]] = []
        # Per result: whether the traced tensor is complex (its out_types
        # entry is then the type of its parts).
        self.out_complex: List[bool] = []
        self.real_args: tuple = ()
        self.dropout_counters = 0
        # (id(known), dtype) -> (known, its Value); holding the Known keeps
        # its id from being reused by a lowering's next temporary Known.
        self._materialized: Dict[tuple, tuple] = {}
        self._extra_inputs: Dict[str, Argument] = {}
        # Forward outputs of int8 / int16 leaves: name -> dtype (Imported).
        self.narrow_outputs: Dict[str, torch.dtype] = {}
        # Model state (`tfc.state` arguments) -> its new value.
        self.state_updates: "OrderedDict[str, Value]" = OrderedDict()
        # The nodes whose traced value is a narrow integer tensor
        # (NARROW_VALUE), with its torch dtype.
        self.narrow_nodes: Dict[torch.fx.Node, torch.dtype] = {}

    # -- the node's result types -------------------------------------------------------
    @property
    def uint8_nodes(self):
        """The nodes whose traced value is a uint8 tensor."""
        return {n for n, d in self.narrow_nodes.items() if d == torch.uint8}

    def out(self, i: Optional[int] = None) -> TensorType:
        """The traced type of the node's result (or of its i-th result)."""
        if i is None:
            assert len(self.out_types) == 1, f"{self.name} has {len(self.out_types)} results"
            i = 0
        return self.out_types[i]

    # -- arguments -------------------------------------------------------------------------
    def tensor(self, x, dtype: Optional[str] = None, shape=None) -> Value:
        """`x` (a Value, a Known tensor or a Python scalar) as a Value of
        element type `dtype` (converted when it differs)."""
        if isinstance(x, Missing):
            self.missing(x)
        if isinstance(x, Masked):
            self.masked(x)
        if is_complex_arg(x):
            self.unsupported("a complex operand reaches a lowering of real tensors")
        if isinstance(x, Value):
            return self.b.convert(x, dtype) if dtype else x
        if isinstance(x, Known):
            if dtype is None and x.tensor.dtype in NARROW_INTEGERS:
                dtype = NARROW_VALUE
            key = (id(x), dtype)
            if key not in self._materialized:
                v = constants.materialize(self.b, x.tensor, dtype)
                v.known = x.tensor
                self._materialized[key] = (x, v)
            return self._materialized[key][1]
        if isinstance(x, (bool, int, float)):
            assert dtype is not None, "a scalar needs an element type"
            return self.b.splat(x, dtype, shape or ())
        raise AssertionError(f"{self.name}: cannot use {x!r} as a tensor")

    def static(self, x, what: str):
        """`x` as a value known at trace time (Known -> torch tensor)."""
        if isinstance(x, Known):
            return x.tensor
        if isinstance(x, Value):
            self.unsupported(f"{what} must be known at trace time, but it is computed "
                             "from the parameters or the batch")
        return x

    def example(self, i: int):
        """The example value of the node's i-th positional argument."""
        return self.real_args[i] if i < len(self.real_args) else None

    def is_static(self, x) -> bool:
        return not isinstance(x, (Value, Missing, Masked, Complex))

    def unsupported(self, reason: str, hint: str = ""):
        raise UnsupportedOpError(self.name, self.frame, reason, hint)

    def masked(self, m: "Masked"):
        """Raises the error for a use of a masked selection that needs its
        (data-dependent) number of rows."""
        self.refuse_masked(m, f"{self.name} needs that number")

    def refuse_masked(self, m: "Masked", reason: str):
        raise DataDependentError(
            f"{m.op} selects a data-dependent number of rows (boolean mask), and {reason}",
            self.frame,
            "tfc keeps a masked selection through ops that treat its rows apart "
            "(elementwise ops, ops over its other dims, linear layers, losses, sums and means "
            "over its rows, x[mask] = f(y[mask])); otherwise keep the shape static with "
            "torch.where(mask, x, 0) or masked_fill and reduce with a mask-weighted sum")

    def missing(self, m: "Missing"):
        """Raises the error for using a result tfc cannot compute."""
        raise UnsupportedOpError(m.op or self.name, self.frame,
                                 f"{m.reason}, and {self.name} uses it here", m.hint)

    @staticmethod
    def is_state(value) -> bool:
        """Whether `value` is a model-state argument (`tfc.state`)."""
        return isinstance(value, Argument) and value.role == "state"

    def state_value(self, state):
        """The current value of `state`: its last recorded update when it is
        model state updated earlier in the forward (a batch norm module
        applied again), else `state` itself."""
        if self.is_state(state):
            return self.state_updates.get(state.key, state)
        return state

    def update_state(self, state, value: Value) -> bool:
        """Records `value` as the new value of `state` when it is model
        state (a buffer the loss import carries, e.g. a training-mode batch
        norm's running mean); False (nothing recorded) for anything else,
        such as a buffer folded into a constant."""
        if not self.is_state(state):
            return False
        if value.type != state.type:
            value = self.b.convert(value, state.dtype)
        assert value.type == state.type, f"{state.key}: {value.type} != {state.type}"
        self.state_updates[state.key] = value
        return True

    def batch_input(self, key: str, type: TensorType) -> Value:
        """An extra `tfc.input` argument (e.g. the dropout seed)."""
        if key not in self._extra_inputs:
            hint = key
            self._extra_inputs[key] = self.fn.add_argument(type, "input", key, hint)
        return self._extra_inputs[key]


@dataclass
class Imported:
    """The imported function and the tensors its arguments bind to."""
    function: Function
    params: "OrderedDict[str, torch.Tensor]"
    inputs: "OrderedDict[str, torch.Tensor]"
    aliases: Dict[str, str] = field(default_factory=dict)
    buffers: List[str] = field(default_factory=list)
    outputs: List[str] = field(default_factory=lambda: ["loss"])  # result names
    # Model state: buffers the training forward updates (tfc.state
    # arguments, their new values returned after the loss), by state_dict
    # name, with their values at import time.
    state: "OrderedDict[str, torch.Tensor]" = field(default_factory=OrderedDict)
    # The tensors from outside the module's tables that the function folded
    # in (the trace's get_attr constants: plain tensor attributes, globals,
    # a hidden module's parameters), the objects themselves (module_watch.py
    # checks them at every call of a compiled step or forward).
    outside: List[torch.Tensor] = field(default_factory=list)
    # Outputs of an int8 / int16 leaf (an i32 result), by name, with the
    # dtype a caller casts them back to.
    narrow_outputs: Dict[str, torch.dtype] = field(default_factory=dict)


def _live_nodes(graph: torch.fx.Graph, roots=()) -> set:
    out = [n for n in graph.nodes if n.op == "output"]
    live, stack = set(), list(out) + list(roots)
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(n.all_input_nodes)
    return live


def _flat_nodes(args) -> List[torch.fx.Node]:
    found = []
    torch.fx.node.map_arg(args, lambda n: found.append(n))
    return found


def _map(args, fn):
    return torch.fx.node.map_arg(args, fn)


# The functional scatters with which functionalization writes an in-place op
# on a view (x.diagonal().add_(1), x[:, ::2] = 0, x.fill_diagonal_(v)) back
# into its base, and the view each writes through. It emits them (and the
# views of their bases again) only when the base is next read, so their
# recorded stack is that later line's.
_WRITE_BACKS = {"aten.slice_scatter.default": "aten.slice.Tensor",
                "aten.select_scatter.default": "aten.select.int",
                "aten.diagonal_scatter.default": "aten.diagonal.default",
                "aten.as_strided_scatter.default": "aten.as_strided.default"}
_VIEWS = set(_WRITE_BACKS.values()) | {
    "aten.view.default", "aten._reshape_alias.default", "aten.transpose.int",
    "aten.permute.default", "aten.t.default", "aten.unsqueeze.default", "aten.squeeze.dim",
    "aten.expand.default", "aten.alias.default", "aten.unfold.default"}


def _write_frames(nodes) -> Dict[torch.fx.Node, object]:
    """The user's line of each scatter that writes an in-place op back
    (above): that of the last view taken, before it, of the same tensor
    with the same arguments (the view written through, taken where the
    write is; views are told apart by their op, arguments and what they
    view, as the emitted ones are new nodes); or, for a scatter into an
    outer view, its inner scatter's; else the written value's (a second
    in-place op on a view taken once: diagonal(c).add_(-1).pow_(2)). A
    scatter the model calls itself (its line names it) keeps its line."""
    keys: Dict[torch.fx.Node, object] = {}
    last_view: Dict[object, torch.fx.Node] = {}
    frames: Dict[torch.fx.Node, object] = {}

    def key(x):
        if isinstance(x, (list, tuple)):
            return tuple(key(a) for a in x)
        return keys.get(x, x) if isinstance(x, torch.fx.Node) else x

    for node in nodes:
        if node.op != "call_function":
            continue
        name = registry.op_name(node.target)
        args = tuple(key(a) for a in node.args)
        if name in _VIEWS and not node.kwargs:
            keys[node] = (name,) + args
            last_view[keys[node]] = node
        view = _WRITE_BACKS.get(name)
        if view is None or len(node.args) < 2 or node.kwargs:
            continue
        own = node_frame(node)
        if own and "_scatter(" in own.code:
            continue
        written = node.args[1]
        taken = last_view.get((view, args[0]) + args[2:])
        if written in frames:
            frames[node] = frames[written]
        elif taken is not None:
            frames[node] = node_frame(taken)
        elif isinstance(written, torch.fx.Node) and written.op == "call_function":
            frames[node] = node_frame(written)
    return frames


def _is_known(x) -> bool:
    if isinstance(x, (list, tuple)):
        return all(_is_known(e) for e in x)
    return not isinstance(x, (Value, Missing, Masked, Complex))


def _as_known(value):
    if isinstance(value, torch.Tensor):
        return Known(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_as_known(v) for v in value)
    return value


def _check_types(name, produced, traced, frame):
    """Asserts a lowering produced the traced result types."""
    if isinstance(produced, Masked):
        want = value_type(traced, frame)
        rows = 1 + getattr(produced, "lead", 0)  # masked.Behind: x[None, ids]
        if getattr(produced, "columns", False):
            # masked.Columns: the rows along dim 1 of the traced [c, k].
            want = dataclasses.replace(want, shape=want.shape[::-1])
        if produced.values.dtype != want.dtype or produced.values.shape[1:] != want.shape[rows:]:
            raise AssertionError(f"lowering of {name} selected rows {produced.values.type}, "
                                 f"traced {want}")
        return
    if isinstance(traced, torch.Tensor) and traced.is_complex():
        want = parts_type(traced, frame)
        if not isinstance(produced, Complex) or produced.type != want:
            raise AssertionError(f"lowering of {name} returned {produced!r} for a complex "
                                 f"result of parts {want} (at {frame})")
    elif isinstance(traced, torch.Tensor):
        if isinstance(produced, Known) and traced.numel() == 0 \
                and tuple(produced.tensor.shape) == tuple(traced.shape):
            return  # no elements: a constant (an empty slice)
        if not isinstance(produced, Value):
            raise AssertionError(f"lowering of {name} returned {produced!r} for a tensor result")
        want = value_type(traced, frame)
        if produced.type != want:
            raise AssertionError(f"lowering of {name} produced {produced.type}, traced {want}"
                                 f" (at {frame})")
    elif isinstance(traced, (list, tuple)):
        if not isinstance(produced, (list, tuple)) or len(produced) != len(traced):
            raise AssertionError(f"lowering of {name} returned {produced!r} for {len(traced)} results")
        for p, t in zip(produced, traced):
            if not isinstance(p, Missing):
                _check_types(name, p, t, frame)


def _traced_types(value, frame, name) -> List[Optional[TensorType]]:
    what = f"the result of {name}"
    if isinstance(value, torch.Tensor):
        return [value_type(value, frame, what)]
    if isinstance(value, (list, tuple)):
        return [value_type(v, frame, what) if isinstance(v, torch.Tensor) else None
                for v in value]
    return []


def _traced_complex(value) -> List[bool]:
    if isinstance(value, torch.Tensor):
        return [value.is_complex()]
    if isinstance(value, (list, tuple)):
        return [isinstance(v, torch.Tensor) and v.is_complex() for v in value]
    return []


def _hint(name: str) -> str:
    return name.replace(".", "_")


def output_names(spec) -> List[str]:
    """The result names of a forward's output of TreeSpec `spec`: "output"
    for a single tensor, else "output.<i>" by flat (tree_flatten) index."""
    if isinstance(spec, pytree.LeafSpec):
        return ["output"]
    return [f"output.{i}" for i in range(spec.num_leaves)]


def _loss_result(node, env, b: Builder) -> List[Value]:
    """The scalar loss the traced loss function returns; a loss of one
    element in any shape (`loss = torch.zeros(1); loss += ...`, which
    torch's backward() accepts) as a 0-d tensor."""
    outs = pytree.tree_flatten(node.args[0])[0]
    if len(outs) != 1 or not isinstance(outs[0], torch.fx.Node):
        raise ModelError(f"the traced function returns {len(outs)} values; it must "
                         "return the scalar loss alone",
                         hint="return only the loss from forward, or pass "
                              "loss_fn=lambda out, *args: out[i] to pick it")
    result = env[outs[0]]
    frame = node_frame(outs[0])
    if isinstance(result, Known) or not isinstance(result, Value):
        raise ModelError("the loss does not depend on the parameters or the batch",
                         frame)
    if result.type.numel != 1 or not dtypes.is_float(result.dtype):
        raise ModelError(f"the model returns {result.type}, not a scalar loss", frame,
                         "forward must return the loss (a float tensor of one element); pass "
                         "loss_fn=(output, *batch) -> loss to compute it from the output")
    return [result if result.rank == 0 else b.reshape(result, ())]


def _forward_results(node, env, ctx: Context, traced: Traced):
    """Every tensor leaf of a traced forward's output, in tree_flatten
    order, and its result name. A leaf known at trace time (computed from
    buffers and constants only) becomes a constant; a parameter or input
    returned as it is stays the argument (the lowering copies it to its
    output). Leaves that are plain values (None, numbers, strings:
    traced.output_constants) are no results: the caller puts them back."""
    leaves = list(node.args[0])
    names = output_names(traced.output_spec)
    assert len(leaves) == len(names) == len(traced.output_leaves)
    constants = traced.output_constants
    if len(constants) == len(leaves):
        raise ModelError("the model's forward returns no tensors", traced.return_frame,
                         "return a tensor, or a tuple, list, dict or dataclass of tensors")
    results, kept = [], []
    for i, (name, leaf, kind) in enumerate(zip(names, leaves, traced.output_leaves)):
        if i in constants:
            continue
        if kind is not None or not isinstance(leaf, torch.fx.Node):
            raise ModelError(f"the model's output {name} is a {kind or type(leaf).__name__}, "
                             "not a tensor", traced.return_frame,
                             "a compiled forward returns tensors and plain values (None, "
                             "numbers, strings) in tuples, lists, dicts and dataclasses: "
                             "return the tensors an object holds, or keep the object outside "
                             "the model")
        value, frame = env[leaf], node_frame(leaf)
        if isinstance(value, Complex) or is_complex_arg(value):
            raise ModelError(f"the model's output {name} is a complex tensor; tfc functions "
                             "return real tensors", frame,
                             "return torch.view_as_real(z) (or z.real and z.imag)")
        if isinstance(value, Missing):
            raise UnsupportedOpError(value.op, frame,
                                     f"{value.reason}, and the model returns it as {name}",
                                     value.hint)
        if isinstance(value, Masked):
            raise DataDependentError(
                f"{value.op} selects a data-dependent number of elements (boolean mask), "
                f"and the model returns the selection as {name}", frame,
                "tfc outputs have static shapes: return torch.where(mask, x, 0) or the "
                "values and the mask instead")
        if isinstance(value, Known):
            ctx.b.source, ctx.b.hint = frame, leaf.name
            try:
                value = ctx.tensor(value)
            except ValueError as e:
                raise ModelError(f"the model's output {name} is a constant tfc cannot "
                                 f"express: {e}", frame) from e
        assert isinstance(value, Value), f"output {name}: {value!r}"
        if ctx.narrow_nodes.get(leaf) == torch.uint8:
            value = ctx.b.convert(value, "ui8")
        elif leaf in ctx.narrow_nodes:
            ctx.narrow_outputs[name] = ctx.narrow_nodes[leaf]
        results.append(value)
        kept.append(name)
    return results, kept


def _results(node, env, ctx: Context, traced: Traced):
    """The function's results and their names, from the graph's output
    node: the scalar loss ("loss"), or for a forward every output leaf
    ("output" / "output.<i>", also set as the results' tfc.output names)."""
    if traced.output_spec is None:
        return _loss_result(node, env, ctx.b), ["loss"]
    results, ctx.fn.result_names = _forward_results(node, env, ctx, traced)
    return results, list(ctx.fn.result_names)


def _without_gradient(b: Builder, lowered, grad_off, frame):
    """A node traced with autograd off: under no_grad (or inference_mode)
    its float results carry no gradient (tfc.stop_gradient); inside an
    autograd.Function (a torch whose make_fx traces them) it is refused,
    since the Function's Python backward cannot be imported
    (torch.utils.checkpoint runs no Function while tracing: traceable.py)."""
    if grad_off != tracing.NO_GRAD:
        name = getattr(grad_off, "__qualname__", str(grad_off))
        raise ModelError(f"custom torch.autograd.Function '{name}': "
                         f"{tracing.AUTOGRAD_FUNCTION_PROBLEM}", frame,
                         tracing.AUTOGRAD_FUNCTION_HINT)

    def stop(v):
        if isinstance(v, Value) and dtypes.is_float(v.dtype):
            return b.stop_gradient(v)
        if isinstance(v, Masked) and dtypes.is_float(v.values.dtype):
            return v.like(b.stop_gradient(v.values))
        if isinstance(v, Complex):
            return Complex(b.stop_gradient(v.re), b.stop_gradient(v.im))
        return v
    if isinstance(lowered, (list, tuple)):
        return type(lowered)(stop(v) for v in lowered)
    return stop(lowered)


def _straight_through(b: Builder, lowered, written, name, frame):
    """An in-place op under no_grad on a tensor that requires grad
    (no_grad_writes.py): the tensor takes the new value and keeps its
    history, so the gradient flows to `written` (the op's first argument)
    as through the identity (of a masked selection: of its full rows)."""
    if isinstance(lowered, Masked) and isinstance(written, Masked) \
            and lowered.values.type == written.values.type:
        return lowered.like(b.straight_through(lowered.values, written.values))
    if not (isinstance(lowered, Value) and isinstance(written, Value)
            and lowered.type == written.type):
        raise ModelError(f"{name}: an in-place op under torch.no_grad() on a tensor that "
                         "requires grad, of a form tfc cannot differentiate as PyTorch does",
                         frame, "apply the op without no_grad, or detach() its result")
    return b.straight_through(lowered, written)


def import_traced(traced: Traced, function_name: str = "loss") -> Imported:
    """Lowers the traced graph to a tfc Function (before the passes): the
    scalar loss, or every leaf of a forward trace's output."""
    from . import ops  # noqa: F401 - fills the registry
    from . import masked  # uses this module's Masked: imported once it is loaded

    gm = traced.graph_module
    fn = Function(function_name)
    b = Builder(fn)
    ctx = Context(fn, b)
    env: Dict[torch.fx.Node, object] = {}
    real: Dict[torch.fx.Node, object] = {}
    # A loss import carries the buffers its forward updates as model state;
    # the copy_ writing one back is live (it gives the new value).
    carried = traced.carried
    write_backs = {w for w in carried.values()
                   if w is not None and w.target is torch.ops.aten.copy_.default}
    live = _live_nodes(gm.graph, write_backs)
    nodes = list(gm.graph.nodes)
    write_frames = _write_frames(nodes)
    last_use = {}
    for i, n in enumerate(nodes):
        for m in n.all_input_nodes:
            last_use[m] = i
    params, inputs, buffers, state = OrderedDict(), OrderedDict(), [], OrderedDict()
    outside: List[torch.Tensor] = []
    state_args: List[Argument] = []
    placeholders = iter(traced.placeholders)
    results, outputs = [], []

    for i, node in enumerate(nodes):
        if node.op == "placeholder":
            ph = next(placeholders)
            # The nodes run on real values too; a buffer's is a copy, so an
            # op updating it in place (training-mode native_batch_norm's
            # running statistics) leaves the user's module as it was.
            real[node] = ph.tensor.clone() if ph.role == "buffer" else ph.tensor
            if node not in live:
                if ph.role == "param":  # unused parameters stay arguments
                    params[ph.key] = ph.tensor
                    fn.add_argument(tensor_type(ph.tensor, None, f"parameter {ph.key}"),
                                    "param", ph.key, _hint(ph.key))
                continue
            if ph.role == "buffer" and node in carried:
                t = tensor_type(ph.tensor, None, f"buffer {ph.key}")
                env[node] = fn.add_argument(t, "state", ph.key, _hint(ph.key))
                state_args.append(env[node])
                state[ph.key] = ph.tensor
                continue
            if ph.role == "buffer":
                env[node] = Known(ph.tensor.detach())
                buffers.append(ph.key)
                continue
            what = f"parameter {ph.key}" if ph.role == "param" else f"input {ph.key}"
            t = tensor_type(ph.tensor, None, what)
            if ph.role == "input" and 0 in t.shape:
                raise ModelError(f"{what} has shape {list(t.shape)}: an empty batch (a dimension "
                                 "of size 0); a tfc program has the example's static shapes and "
                                 "computes on non-empty tensors",
                                 hint="skip empty batches (and compile with a non-empty "
                                      "example): torch's loss over 0 samples is 0 or NaN with "
                                      "zero gradients, a step with nothing to learn")
            if ph.role == "param" and not dtypes.is_float(t.dtype):
                raise ModelError(f"{what} has dtype {ph.tensor.dtype}; tfc parameters are floats",
                                 hint="register integer tensors as buffers")
            env[node] = fn.add_argument(t, ph.role, ph.key, _hint(ph.key))
            (params if ph.role == "param" else inputs)[ph.key] = ph.tensor
            if ph.tensor.dtype in NARROW_INTEGERS:
                b.source, b.hint = None, node.name
                env[node] = b.convert(env[node], NARROW_VALUE)
                ctx.narrow_nodes[node] = ph.tensor.dtype
            continue
        if node not in live:
            continue
        if node.op == "get_attr":
            value = getattr(gm, node.target)
            real[node] = value
            if isinstance(value, torch.Tensor) and all(value is not t for t in outside):
                outside.append(value)
            env[node] = Known(value.detach()) if isinstance(value, torch.Tensor) else value
            continue
        if node.op == "output":
            results, outputs = _results(node, env, ctx, traced)
            break
        if node.op != "call_function":
            raise ModelError(f"unexpected fx node kind {node.op} ({node.target})",
                             node_frame(node))

        frame = write_frames.get(node) or node_frame(node)
        if node in write_backs:  # buffer.copy_(new): the state's new value
            state_arg, new = env[node.args[0]], env[node.args[1]]
            b.source, b.hint = frame, node.name
            new = ctx.tensor(new)  # update_state converts it to the state's type
            if new.shape != state_arg.shape:
                new = b.broadcast_to(new, state_arg.shape)
            ctx.update_state(state_arg, new)
            continue
        name = registry.op_name(node.target)
        real_args = _map(node.args, lambda n: real[n])
        real_kwargs = _map(node.kwargs, lambda n: real[n])
        with torch.no_grad():
            value = node.target(*real_args, **real_kwargs)
        real[node] = value
        if isinstance(value, torch.Tensor) and value.dtype in NARROW_INTEGERS:
            ctx.narrow_nodes[node] = value.dtype
        # Model state updated earlier in the forward (a training batch norm's
        # running statistics) is read at its current value; the batch norm
        # itself takes the state argument, whose update it chains.
        if name in _STATE_UPDATERS:
            args = _map(node.args, lambda n: env[n])
            kwargs = _map(node.kwargs, lambda n: env[n])
        else:
            args = _map(node.args, lambda n: ctx.state_value(env[n]))
            kwargs = _map(node.kwargs, lambda n: ctx.state_value(env[n]))

        if node.target is operator.getitem:
            container, index = args
            env[node] = container[index]
        elif _is_known((args, kwargs)) and not name.startswith(_NEVER_FOLD):
            env[node] = _as_known(value)
        else:
            out_types = _traced_types(value, frame, name)
            out_complex = _traced_complex(value)
            if any(out_complex) or is_complex_arg((args, list(kwargs.values()))):
                lowering = registry.lookup_complex(name)
                if lowering is None:
                    raise UnsupportedOpError(
                        name, frame, "tfc_torch lowers it for real tensors only, and here it "
                        "has a complex operand or result",
                        "the ops lowered for complex values are listed in docs/frontend.md "
                        "(Complex numbers and FFTs); take torch.view_as_real(z) (or z.real, "
                        "z.imag) before this op")
            else:
                lowering = registry.lookup(name)
            if lowering is None:
                refused = registry.refusal(name)
                if refused:
                    raise DataDependentError(f"{name}: {refused[0]}", frame, refused[1])
                if "_backward" in name:
                    raise UnsupportedOpError(name, frame, BACKWARD_OP_REASON, BACKWARD_OP_HINT)
                raise UnsupportedOpError(name, frame)
            ctx.node, ctx.name, ctx.frame = node, name, frame
            ctx.out_types = out_types
            ctx.out_complex = out_complex
            ctx.real_args = real_args
            b.source, b.hint = frame, node.name
            for x in _flat_nodes((node.args, node.kwargs)):
                if isinstance(env[x], Missing):
                    ctx.missing(env[x])
            try:
                if masked.selections((args, kwargs)) and \
                        not getattr(lowering, "takes_masked", False):
                    lowered = masked.lower(ctx, lowering, args, kwargs)
                else:
                    lowered = lowering(ctx, *args, **kwargs)
            except FrontendError:
                raise
            except ValueError as e:  # e.g. a known tensor with no tfc form
                raise UnsupportedOpError(name, frame, str(e)) from e
            if isinstance(value, torch.Tensor) and value.dtype in NARROW_INTEGERS \
                    and isinstance(lowered, Value) and name.startswith(_NARROW_WRAPPING):
                lowered = _wrap_narrow(b, lowered, value.dtype)
            _check_types(name, lowered, value, frame)
            for m in (lowered if isinstance(lowered, (list, tuple)) else [lowered]):
                if isinstance(m, (Missing, Masked)) and not m.op:
                    m.op = name
            if node.meta.get(no_grad_writes.INPLACE_NO_GRAD):
                lowered = _straight_through(b, lowered, env[node.args[0]], name, frame)
            elif tracing.GRAD_OFF in node.meta and not node.meta.get(no_grad_writes.WRITTEN_VIEW):
                lowered = _without_gradient(b, lowered, node.meta[tracing.GRAD_OFF], frame)
            env[node] = lowered
        # Free example values nothing needs any more.
        for m in node.all_input_nodes:
            if last_use.get(m) == i and m in real:
                del real[m]

    if state_args:
        # The new values of the model state follow the loss (an update
        # never computed, e.g. of a batch norm the loss does not read,
        # returns the state as it was).
        fn.updates = [a.key for a in state_args]
        results = results + [ctx.state_updates.get(a.key, a) for a in state_args]
    fn.returns = results
    # Buffers whose values the trace read as numbers are constants of the
    # program too (the module watch guards them), read by the graph or not.
    buffers += [k for k in traced.values_read if k not in buffers]
    # So are the tensors from outside the module's tables read as numbers.
    outside += [t for t in traced.outside_read if all(t is not o for o in outside)]
    for key, arg in ctx._extra_inputs.items():  # e.g. dropout_seed: example value 0
        inputs[key] = torch.zeros(arg.shape, dtype=dtypes.torch_dtype(arg.dtype))
    return Imported(fn, params, inputs, dict(traced.aliases), buffers, outputs, state, outside,
                    dict(ctx.narrow_outputs))
