"""Prints a Function as MLIR text in the tfc dialect's custom assembly
formats (dialects/tfc/*.td; build/docs/tfc/TfcOps.md), one syntax rule per
op name in SYNTAX. Values get readable names from their hints (the fx node
or parameter they come from); locations point at the user's Python source.
"""
import re
from typing import Callable, Dict, List

from . import dtypes, elementwise_ops
from .ir import Function, Op, Value

# Elementwise ops of the plain syntax (elementwise_ops.py, the one list).
_UNARY = elementwise_ops.names(1, plain=True)
_BINARY = elementwise_ops.names(2, plain=True)
_REDUCE = ("reduce_sum", "reduce_mean", "reduce_max")


def _ints(values) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def _types(values: List[Value]) -> str:
    return ", ".join(str(v.type) for v in values)


def _functional(op: Op, n) -> str:
    ins = ", ".join(str(v.type) for v in op.operands)
    outs = ", ".join(str(r.type) for r in op.results)
    if len(op.results) > 1:
        outs = f"({outs})"
    return f"({ins}) -> {outs}"


def _unary(op, n):
    return f"{op.name} {n(op.operands[0])} : {op.operands[0].type}"


def _binary(op, n):
    a, b = op.operands
    return f"{op.name} {n(a)}, {n(b)} : {a.type}, {b.type}"


def _straight_through(op, n):
    value, source = op.operands
    return f"{op.name} {n(value)}, {n(source)} : {op.result.type}"


def _reduce(op, n):
    x = op.operands[0]
    keep = " keepdim" if op.attrs.get("keepdim") else ""
    return f"{op.name} {n(x)} dims {_ints(op.attrs['dims'])}{keep} : {x.type} -> {op.result.type}"


def _sort(op, n):
    x = op.operands[0]
    flag = " descending" if op.attrs.get("descending") else ""
    values, indices = op.results
    return f"{op.name} {n(x)}{flag} : {x.type} -> {values.type}, {indices.type}"


def _arrow(op, n):
    x = op.operands[0]
    return f"{op.name} {n(x)} : {x.type} -> {op.result.type}"


def _constant(op, n):
    return f"tfc.constant {op.attrs['value']} : {op.result.type}"


def _gelu(op, n):
    x = op.operands[0]
    approx = " approximate tanh" if op.attrs.get("approximate") == "tanh" else ""
    return f"tfc.gelu {n(x)}{approx} : {x.type}"


def _gelu_grad(op, n):
    dy, x = op.operands
    approx = " approximate tanh" if op.attrs.get("approximate") == "tanh" else ""
    return f"tfc.gelu_grad {n(dy)}, {n(x)}{approx} : {x.type}"


def _pow(op, n):
    x = op.operands[0]
    return f"tfc.pow {n(x)}, {dtypes.attr_float_text(op.attrs['exponent'])} : {x.type}"


def _compare(op, n):
    a, b = op.operands
    return f"tfc.compare {op.attrs['direction']}, {n(a)}, {n(b)} : {a.type}, {b.type}"


def _select(op, n):
    c, t, f = op.operands
    return f"tfc.select {n(c)}, {n(t)}, {n(f)} : {c.type}, {t.type}, {f.type}"


def _transpose(op, n):
    x = op.operands[0]
    return f"tfc.transpose {n(x)}, {_ints(op.attrs['permutation'])} : {x.type} -> {op.result.type}"


def _slice(op, n):
    x = op.operands[0]
    step = op.attrs.get("step")
    step_text = f" step {_ints(step)}" if step and any(s != 1 for s in step) else ""
    return (f"tfc.slice {n(x)} {_ints(op.attrs['start'])} to {_ints(op.attrs['limit'])}"
            f"{step_text} : {x.type} -> {op.result.type}")


def _concat(op, n):
    return (f"tfc.concat {', '.join(n(v) for v in op.operands)} dim {op.attrs['dim']}"
            f" : {_types(op.operands)} -> {op.result.type}")


def _pad(op, n):
    x = op.operands[0]
    return (f"tfc.pad {n(x)} low {_ints(op.attrs['low'])} high {_ints(op.attrs['high'])}"
            f" value {dtypes.attr_float_text(op.attrs['value'])} : {x.type} -> {op.result.type}")


def _iota(op, n):
    return f"tfc.iota dim {op.attrs['dim']} : {op.result.type}"


def _matmul(op, n):
    a, b = op.operands
    flags = "".join(f" {f}" for f in ("transpose_a", "transpose_b") if op.attrs.get(f))
    return f"tfc.matmul {n(a)}, {n(b)}{flags} : {a.type}, {b.type} -> {op.result.type}"


def _softmax(op, n):
    x = op.operands[0]
    return f"{op.name} {n(x)} dim {op.attrs['dim']} : {x.type}"


def _softmax_grad(op, n):
    dy, y = op.operands
    return f"{op.name} {n(dy)}, {n(y)} dim {op.attrs['dim']} : {y.type}"


def _norm(op, n):
    x, rest = op.operands[0], list(op.operands[1:])
    text = f"{op.name} {n(x)}"
    for role in ("weight", "bias"):
        if op.attrs.get(f"has_{role}"):
            text += f" {role} {n(rest.pop(0))}"
    if op.attrs.get("normalized_rank", 1) != 1:
        text += f" normalized_rank {op.attrs['normalized_rank']}"
    text += f" eps {dtypes.attr_float_text(op.attrs['eps'])}"
    return f"{text} : {_functional(op, n)}"


def _layer_norm_grad(op, n):
    dy, x, mean, rstd = op.operands[:4]
    text = f"tfc.layer_norm_grad {n(dy)}, {n(x)}, {n(mean)}, {n(rstd)}"
    if op.attrs.get("has_weight"):
        text += f" weight {n(op.operands[4])}"
    if op.attrs.get("normalized_rank", 1) != 1:
        text += f" normalized_rank {op.attrs['normalized_rank']}"
    return f"{text} : {_functional(op, n)}"


def _embedding(op, n):
    t, ids = op.operands
    return f"{op.name} {n(t)}, {n(ids)} : {t.type}, {ids.type} -> {op.result.type}"


def _cross_entropy(op, n):
    logits, labels = op.operands
    text = f"tfc.cross_entropy {n(logits)}, {n(labels)}"
    if op.attrs.get("ignore_index", -100) != -100:
        text += f" ignore_index {op.attrs['ignore_index']}"
    if op.attrs.get("label_smoothing", 0.0):
        text += f" label_smoothing {dtypes.attr_float_text(op.attrs['label_smoothing'])}"
    if op.attrs.get("reduction", "mean") != "mean":
        text += f" reduction {op.attrs['reduction']}"
    return f"{text} : {logits.type}, {labels.type} -> {op.result.type}"


def _attention(op, n):
    q, k, v = op.operands[:3]
    mask = op.operands[3] if op.attrs.get("has_mask") else None
    text = f"tfc.attention {n(q)}, {n(k)}, {n(v)}"
    if op.attrs.get("causal"):
        text += " causal"
    if mask is not None:
        text += f" mask {n(mask)}"
    if op.attrs.get("scale") is not None:
        text += f" scale {dtypes.attr_float_text(op.attrs['scale'])}"
    if op.attrs.get("dropout"):
        seed, offset = op.operands[-2:]
        text += (f" dropout {dtypes.attr_float_text(op.attrs['dropout'])}"
                 f" seed {n(seed)} offset {n(offset)}")
    types = f"{q.type}, {k.type}, {v.type}" + (f", {mask.type}" if mask is not None else "")
    return f"{text} : {types} -> {op.result.type}"


def _dropout(op, n):
    x, seed, offset = op.operands
    return (f"tfc.dropout {n(x)}, {n(seed)}, {n(offset)} p "
            f"{dtypes.attr_float_text(op.attrs['p'])} : {x.type}")


def _random(op, n):
    seed, offset = op.operands
    return f"tfc.random {n(seed)}, {n(offset)} {op.attrs['distribution']} : {op.result.type}"


SYNTAX: Dict[str, Callable] = {
    **{f"tfc.{u}": _unary for u in _UNARY},
    **{f"tfc.{b}": _binary for b in _BINARY},
    **{f"tfc.{r}": _reduce for r in _REDUCE},
    "tfc.sort": _sort,
    "tfc.constant": _constant,
    "tfc.gelu": _gelu,
    "tfc.gelu_grad": _gelu_grad,
    "tfc.pow": _pow,
    "tfc.compare": _compare,
    "tfc.select": _select,
    "tfc.convert": _arrow,
    "tfc.reshape": _arrow,
    "tfc.broadcast_to": _arrow,
    "tfc.transpose": _transpose,
    "tfc.slice": _slice,
    "tfc.concat": _concat,
    "tfc.pad": _pad,
    "tfc.iota": _iota,
    "tfc.matmul": _matmul,
    "tfc.softmax": _softmax,
    "tfc.log_softmax": _softmax,
    "tfc.softmax_grad": _softmax_grad,
    "tfc.log_softmax_grad": _softmax_grad,
    "tfc.layer_norm": _norm,
    "tfc.rms_norm": _norm,
    "tfc.layer_norm_grad": _layer_norm_grad,
    "tfc.embedding": _embedding,
    "tfc.embedding_grad": _embedding,
    "tfc.cross_entropy": _cross_entropy,
    "tfc.attention": _attention,
    "tfc.dropout": _dropout,
    "tfc.random": _random,
    "tfc.straight_through": _straight_through,
}


class _Names:
    """Unique, readable SSA names from value hints."""

    def __init__(self):
        self.names: Dict[Value, str] = {}
        self.taken = set()
        # base -> the suffix to try next: every smaller one is taken (the
        # names stay the smallest free ones, without rescanning them).
        self.next: Dict[str, int] = {}

    def assign(self, value: Value) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", value.hint) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, i = base, self.next.get(base, 1)
        while name in self.taken:
            name = f"{base}_{i}"
            i += 1
        self.next[base] = i
        self.taken.add(name)
        self.names[value] = "%" + name
        return self.names[value]

    def __call__(self, value: Value) -> str:
        return self.names[value]


class _Locations:
    """Location aliases (#locN) for user source frames, printed at the end."""

    def __init__(self):
        self.aliases: Dict[tuple, str] = {}

    def __call__(self, frame) -> str:
        if frame is None:
            return ""
        key = (frame.file, frame.line)
        if key not in self.aliases:
            self.aliases[key] = f"#loc{len(self.aliases) + 1}"
        return f" loc({self.aliases[key]})"

    def definitions(self) -> List[str]:
        return [f'{alias} = loc("{file}":{line}:0)'
                for (file, line), alias in self.aliases.items()]


def print_function(fn: Function, locations: bool = True) -> str:
    """The MLIR text of `fn` (a top-level func.func, as examples/models)."""
    names, locs = _Names(), _Locations()
    lines = [f"// {c}" if c else "//" for c in fn.comments]
    args = []
    for a in fn.arguments:
        attr = {"param": "tfc.param", "state": "tfc.state"}.get(a.role, "tfc.input")
        settings = "".join(f", {k} = {v:.17e} : f64" for k, v in sorted(a.settings.items()))
        args.append(f"    {names.assign(a)}: {a.type} {{{attr} = \"{a.key}\"{settings}}}")
    if fn.result_names:
        assert len(fn.result_names) == len(fn.returns), "one tfc.output name per result"
        results = [f'{v.type} {{tfc.output = "{name}"}}'
                   for v, name in zip(fn.returns, fn.result_names)]
        # One result per line, as the arguments, when there are several.
        result_types = ("(" + results[0] + ")" if len(results) == 1
                        else "(\n" + ",\n".join(f"    {r}" for r in results) + ")")
    elif fn.updates:
        assert len(fn.updates) == len(fn.returns) - 1, "one tfc.update name per state result"
        results = [str(fn.returns[0].type)] + [f'{v.type} {{tfc.update = "{name}"}}'
                                               for v, name in zip(fn.returns[1:], fn.updates)]
        result_types = "(\n" + ",\n".join(f"    {r}" for r in results) + ")"
    else:
        result_types = ", ".join(str(v.type) for v in fn.returns)
        if len(fn.returns) != 1:
            result_types = f"({result_types})"
    lines.append(f"func.func @{fn.name}(\n" + ",\n".join(args) + f") -> {result_types} {{")
    for op in fn.ops:
        if op.name not in SYNTAX:
            raise AssertionError(f"no syntax for {op.name} (a frontend op left unlegalized?)")
        body = SYNTAX[op.name](op, lambda v: names(v) if v in names.names else _undefined(v))
        results = ", ".join(names.assign(r) for r in op.results)
        loc = locs(op.source) if locations else ""
        lines.append(f"  {results} = {body}{loc}")
    rets = ", ".join(names(v) for v in fn.returns)
    lines.append(f"  return {rets} : {', '.join(str(v.type) for v in fn.returns)}")
    lines.append("}")
    if locations:
        lines.extend(locs.definitions())
    return "\n".join(lines) + "\n"


def _undefined(v: Value) -> str:
    raise AssertionError(f"value {v!r} used before its definition")
