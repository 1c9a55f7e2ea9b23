"""The frontend's in-memory form of a tfc function: typed values, ops with
attributes, and a function holding them in order.

It is deliberately tiny: ops are (name, operands, attributes, results), a
value knows the op that defines it, and use lists are computed when a pass
asks for them. Names starting with `tfc.` are ops of the dialect (printed
by printer.py); names starting with `torch.` are frontend-internal ops that
lowering emits when the tfc form depends on what surrounds it (e.g.
`torch.nll_loss`, which becomes tfc.cross_entropy next to a log_softmax or
a decomposition elsewhere). passes/legalize.py removes the latter before
printing.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class TensorType:
    """A statically shaped tensor type: shape and tfc element type name."""
    shape: Tuple[int, ...]
    dtype: str

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(s) for s in self.shape))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def with_shape(self, shape) -> "TensorType":
        return TensorType(tuple(shape), self.dtype)

    def with_dtype(self, dtype: str) -> "TensorType":
        return TensorType(self.shape, dtype)

    def __str__(self) -> str:
        dims = "".join(f"{s}x" for s in self.shape)
        return f"tensor<{dims}{self.dtype}>"


class Value:
    """An SSA value: a function argument or an op result."""

    def __init__(self, type: TensorType, hint: str = "v"):
        self.type = type
        self.hint = hint
        self.op: Optional["Op"] = None  # defining op; None for arguments
        self.index = 0
        # The tensor this value equals when it was built from a tensor known
        # at trace time (constants.py); patterns read masks from it.
        self.known = None
        # The ops that have it among their operands (kept by Op.operands'
        # setter; an op dropped from its function may stay listed).
        self.users: Dict["Op", None] = {}

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def rank(self):
        return self.type.rank

    def __repr__(self):
        return f"<{self.hint}: {self.type}>"


class Argument(Value):
    """A function argument: a parameter (`tfc.param`), a batch tensor
    (`tfc.input`) or model state the training forward updates (`tfc.state`,
    a buffer such as batch norm's running mean), named `key`."""

    def __init__(self, type: TensorType, role: str, key: str, hint: str):
        super().__init__(type, hint)
        assert role in ("param", "input", "state")
        self.role = role
        self.key = key
        # A parameter's group settings, f64 attributes printed beside
        # tfc.param: tfc.lr_scale, tfc.weight_decay (optimizers.py).
        self.settings: Dict[str, float] = {}


class Op:
    """One operation. `source` is the user's source line it came from (a
    source.Frame or None), printed as its MLIR location."""

    def __init__(self, name: str, operands: Sequence[Value], attrs: Dict,
                 result_types: Sequence[TensorType], hint: str = "v", source=None):
        self.name = name
        self.operands = operands
        self.attrs = dict(attrs)
        self.source = source
        self.results: List[Value] = []
        for i, t in enumerate(result_types):
            v = Value(t, hint)
            v.op, v.index = self, i
            self.results.append(v)

    @property
    def operands(self) -> List[Value]:
        """The operand list; assign a new list to change it (the values'
        users follow), never mutate it in place."""
        return self._operands

    @operands.setter
    def operands(self, values: Sequence[Value]) -> None:
        for v in getattr(self, "_operands", ()):
            v.users.pop(self, None)
        self._operands = list(values)
        for v in self._operands:
            v.users[self] = None

    @property
    def result(self) -> Value:
        assert len(self.results) == 1, f"{self.name} has {len(self.results)} results"
        return self.results[0]

    def __repr__(self):
        return f"<{self.name} {self.attrs}>"


class Function:
    """A function `@name(arguments) -> returns` whose body is `ops` in
    program order."""

    def __init__(self, name: str):
        self.name = name
        self.arguments: List[Argument] = []
        self.ops: List[Op] = []
        self.returns: List[Value] = []
        # The results' `tfc.output` names (printed as result attributes);
        # empty for a loss function, whose one result the runtime calls "loss".
        self.result_names: List[str] = []
        # A loss function's results after the loss: the new values of its
        # `tfc.state` arguments of these names (printed as `tfc.update`).
        self.updates: List[str] = []
        self.comments: List[str] = []

    def add_argument(self, type: TensorType, role: str, key: str, hint: str) -> Argument:
        arg = Argument(type, role, key, hint)
        self.arguments.append(arg)
        return arg

    def uses(self) -> Dict[Value, List[Tuple[Optional[Op], int]]]:
        """Every value's uses as (op, operand index); a return is (None, i)."""
        table: Dict[Value, List[Tuple[Optional[Op], int]]] = {}
        for op in self.ops:
            for i, v in enumerate(op.operands):
                table.setdefault(v, []).append((op, i))
        for i, v in enumerate(self.returns):
            table.setdefault(v, []).append((None, i))
        return table

    def replace_all_uses(self, old: Value, new: Value) -> None:
        """Every use of `old` (by its users, and among the returns) becomes
        a use of `new`."""
        assert old.type == new.type, f"replacing {old.type} with {new.type}"
        for op in list(old.users):
            op.operands = [new if v is old else v for v in op.operands]
        self.returns = [new if v is old else v for v in self.returns]

    def insert_before(self, anchor: Op, ops: Sequence[Op]) -> None:
        at = self.ops.index(anchor)
        self.ops[at:at] = list(ops)

    def dce(self) -> int:
        """Removes ops none of whose results are used; returns how many."""
        live = set(self.returns)
        kept = []
        for op in reversed(self.ops):
            if any(r in live for r in op.results):
                kept.append(op)
                live.update(op.operands)
        removed = len(self.ops) - len(kept)
        self.ops = list(reversed(kept))
        return removed
