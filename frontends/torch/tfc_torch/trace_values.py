"""How the trace treats values read from tensors while tracing.

The contexts tracing.py enters around make_fx for reads of values: empty
factories zeroed (initialized_empties), values computed from constants
kept readable (constant_values), plain tensors read as numbers noted for
the module watch (plain_values_read), and asserts on tensor values taken
to hold (unchecked_asserts).
"""
import ast
import contextlib
import dis
import functools
import linecache
import os
import sys
import sysconfig
import warnings
from typing import Dict, Iterator, List, Optional, Tuple

import torch
import torch.utils._pytree as pytree

from . import patching, source
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
    int(self.k) as topk's k, self.sizes.tolist() as split sizes, and aten
    converting one given for a number (add(alpha=self.alpha), F.leaky_relu(h,
    SLOPE)), a conversion in C++ seen as aten._local_scalar_dense. The value
    read is a constant of the program, so the module watch checks them at
    every call as it does the tensors the trace folds in. (A value computed
    from one, self.sizes[0] or self.a * 2, is traced: reading it is refused.)"""
    from torch.fx.experimental import proxy_tensor
    plain_read.clear()
    original_call = proxy_tensor.proxy_call

    def proxy_call(mode, func, args, kwargs):
        # A 0-d tensor given where aten takes a number (add's alpha=, a
        # leaky_relu slope): aten reads it in C++ (_local_scalar_dense, no
        # Python .item()), a constant of the program all the same.
        if func is torch.ops.aten._local_scalar_dense.default and args and \
                type(args[0]) in (torch.Tensor, torch.nn.Parameter) and \
                not torch._is_functional_tensor(args[0]) and _model_converts() and \
                all(args[0] is not seen for seen in plain_read):
            plain_read.append(args[0])
        return original_call(mode, func, args, kwargs)

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
                                            for name in _NUMBER_READS}), \
            patching.replaced(proxy_tensor, proxy_call=proxy_call):
        yield


_TORCH = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


def _model_converts() -> bool:
    """Whether the running conversion of a tensor to a number is the
    model's (aten converting an argument of a call from the model's code):
    the innermost frame outside torch and tfc's function modes is not
    tfc's (whose reads of values are its own)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_HERE):
            if frame.f_code.co_name not in ("__torch_function__", "proxy_call"):
                return False
        elif not name.startswith(_TORCH):
            return True
        frame = frame.f_back
    return False


_STDLIB = sysconfig.get_paths()["stdlib"] + os.sep


@contextlib.contextmanager
def formatted_placeholders() -> Iterator[None]:
    """Formatting a traced tensor (print(h), f"h = {h}" for a log call, even
    one whose level is off, str / repr / format of it) gives a placeholder,
    tensor(<traced: shape [4, 8], float32>), where reading its values failed
    as an `if` on data does: the compiled step runs no Python, so logging in
    forward shows no values there. A TracedUpdateWarning names the model's
    line that formats it, once per line. (.item() of it in a log call stays a
    DataDependentError, whose hint says to log the value outside the step.)"""
    original_repr, original_format = torch.Tensor.__repr__, torch.Tensor.__format__
    warned = set()

    def placeholder(t) -> str:
        text = f"tensor(<traced: shape {list(t.shape)}, {str(t.dtype).replace('torch.', '')}>)"
        # The line that formats it, past tfc's and the standard library's
        # frames (logging formatting a "%s" argument): the model's line is
        # named; torch's own formatting (an error message) is not.
        frame, level = sys._getframe(1), 2
        while frame is not None and (frame.f_code.co_filename.startswith(_HERE)
                                     or frame.f_code.co_filename.startswith(_STDLIB)):
            frame, level = frame.f_back, level + 1
        if frame is not None and not source._is_library(frame.f_code.co_filename) and \
                (frame.f_code.co_filename, frame.f_lineno) not in warned:
            warned.add((frame.f_code.co_filename, frame.f_lineno))
            warnings.warn(
                "logging in forward shows no values in the compiled step: this line formats a "
                f"traced tensor (print, logging, an f-string, str()), which reads {text} while "
                "tfc traces and runs no Python at each step; log the value outside the step "
                "from what it returns (the training step returns the loss; return others as "
                "outputs)", TracedUpdateWarning, stacklevel=level)
        return text

    def __repr__(self, *args, **kwargs):
        if torch._is_functional_tensor(self):
            return placeholder(self)
        return original_repr(self, *args, **kwargs)

    def __format__(self, format_spec):
        if torch._is_functional_tensor(self):
            return placeholder(self)
        return original_format(self, format_spec)

    with patching.replaced(torch.Tensor, __repr__=__repr__, __format__=__format__):
        yield


# Reading which value of a bool() lets the assert statement evaluating it
# pass (unchecked_asserts): the bytecode of the frame from the instruction
# that called __bool__, within the instructions of that assert statement.
_UNCONDITIONAL_JUMPS = ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP",
                        "JUMP_NO_INTERRUPT", "JUMP_BACKWARD_NO_INTERRUPT")
_TRUTH_CALLS = ("bool", "all", "any")  # builtins whose result has their operand's truth


def _span(ins) -> Optional[Tuple[int, Optional[int], int, Optional[int]]]:
    """(line, column, end line, end column) of an instruction's source;
    the columns are None where Python (< 3.11) records lines only."""
    pos = getattr(ins, "positions", None)
    if pos is not None:
        if pos.lineno is None or pos.col_offset is None:
            return None
        return pos.lineno, pos.col_offset, pos.end_lineno, pos.end_col_offset
    line = ins.starts_line
    return (line, None, line, None) if line else None


def _spans(instructions) -> list:
    spans, line = [], None
    for ins in instructions:
        span = _span(ins)
        if span is None and getattr(ins, "positions", None) is None:
            span = (line, None, line, None) if line else None  # a line's later instructions
        if span is not None:
            line = span[0]
        spans.append(span)
    return spans


def _inside(span, node: ast.AST) -> bool:
    if span is None:
        return False
    line, column, end_line, end_column = span
    if column is None:
        return node.lineno <= line <= node.end_lineno
    return (node.lineno, node.col_offset) <= (line, column) and \
        (end_line, end_column) <= (node.end_lineno, node.end_col_offset)


def _enclosing_assert(tree: ast.AST, span) -> Optional[ast.Assert]:
    """The assert statement whose source holds `span`; on lines only, one
    that no other statement shares a line with (`x = t; assert x` is
    ambiguous without columns)."""
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Assert) and _inside(span, n)]
    if len(found) != 1:
        return None
    node = found[0]
    if span[1] is None:
        for other in ast.walk(tree):
            if isinstance(other, ast.stmt) and other is not node and \
                    other.lineno <= node.end_lineno and node.lineno <= other.end_lineno and \
                    not any(inner is node for inner in ast.walk(other)):  # no block around it
                return None
    return node


def _loads_assertion_error(ins) -> bool:
    return ins.opname == "LOAD_ASSERTION_ERROR" or \
        (ins.opname == "LOAD_GLOBAL" and ins.argval == "AssertionError")  # Python 3.8


def _outcomes(instructions, index, start: int, region) -> Tuple[bool, bool]:
    """Whether the assert statement of the instructions `region` can pass
    (leave them, or return) and can fail (reach its AssertionError) from
    instruction `start` on, whatever the bool()s on the way give."""
    can_pass = can_fail = False
    todo, seen = [start], set()
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        if i is None or i not in region:
            can_pass = True
            continue
        ins = instructions[i]
        if _loads_assertion_error(ins) or ins.opname in ("RAISE_VARARGS", "RERAISE"):
            can_fail = True
        elif ins.opname.startswith("RETURN"):
            can_pass = True
        elif ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            todo.append(index.get(ins.argval))
            if ins.opname not in _UNCONDITIONAL_JUMPS:
                todo.append(i + 1)
        else:
            todo.append(i + 1)
    return can_pass, can_fail


def assert_holding_value(frame, trees: Dict[str, Optional[ast.AST]]) -> Optional[bool]:
    """The value that the bool() which `frame`'s current instruction takes
    of a tensor must have for the assert statement evaluating it to pass
    (False for `assert not t.isnan().any()`, True for `assert (h == h).all()`,
    each operand's in `assert a.all() and not b.any()`, bool / all / any of it
    included); None when no assert statement of the frame's code takes it
    (an `if` or `while`, a line after an assert, a helper's bool()).
    `trees`: parsed sources by file name, a cache."""
    code = frame.f_code
    instructions = list(dis.get_instructions(code))
    index = {ins.offset: i for i, ins in enumerate(instructions)}
    at = index.get(frame.f_lasti)
    spans = _spans(instructions)
    if at is None or spans[at] is None:
        return None
    file = code.co_filename
    if file not in trees:
        try:
            trees[file] = ast.parse("".join(linecache.getlines(file, frame.f_globals)))
        except (SyntaxError, ValueError):
            trees[file] = None
    node = _enclosing_assert(trees[file], spans[at]) if trees[file] is not None else None
    if node is None:
        return None
    region = {i for i, span in enumerate(spans) if _inside(span, node)}
    if not any(_loads_assertion_error(instructions[i]) for i in region):
        return None  # code inside the assert's text but not its own (a lambda)
    # From the instruction that took the bool() to the jump on its truth,
    # through `not` and the builtins that keep it.
    if instructions[at].opname == "PRECALL":  # 3.11: a quickened PRECALL makes the call
        at += 1
    negated, i = False, at
    while _truth_jump(instructions[i]) is None:
        ins = instructions[i]
        if ins.opname == "UNARY_NOT":
            negated = not negated
        elif not (ins.opname == "TO_BOOL" or (i == at and _truth_call(ins, spans[i], node))):
            return None
        i += 1
        if i not in region:
            return None
    jumps_on = _truth_jump(instructions[i])
    successors = {jumps_on: index.get(instructions[i].argval), not jumps_on: i + 1}
    results = {value: _outcomes(instructions, index, successors[value], region)
               for value in (True, False)}
    # The value after which the assert surely passes, else one after which it can.
    for value in (True, False):
        if results[value] == (True, False):
            return value != negated
    for value in (True, False):
        if results[value][0]:
            return value != negated
    return None


def _truth_jump(ins) -> Optional[bool]:
    """The truth on which `ins` jumps, when it is a jump on a value's truth."""
    name = ins.opname
    if "JUMP" not in name or "NONE" in name:
        return None
    return True if "IF_TRUE" in name else False if "IF_FALSE" in name else None


def _truth_call(ins, span, node: ast.Assert) -> bool:
    """Whether `ins` is a call of bool / all / any in the assert `node`
    (their result has the truth their operand's bool() gives)."""
    if not ins.opname.startswith("CALL") or span is None or span[1] is None:
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id in _TRUTH_CALLS
               and (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) == span
               for n in ast.walk(node.test))


@contextlib.contextmanager
def unchecked_asserts() -> Iterator[None]:
    """`assert <tensor condition>` in model code (DETR's generalized_box_iou:
    assert (boxes[:, 2:] >= boxes[:, :2]).all(); a NaN guard, assert not
    torch.isnan(h).any()) passes while tracing: a compiled program has no
    Python to stop, so the condition holds as far as it is concerned: each
    bool() the assert statement takes of a traced tensor gives the value
    that lets it pass (assert_holding_value), and a TracedUpdateWarning says
    it is not checked. Any other bool() of a traced tensor fails as before
    (an `if` on data, also on the line after an assert)."""
    original = torch.Tensor.__bool__
    trees: Dict[str, Optional[ast.AST]] = {}
    values: Dict[Tuple[object, int], Optional[bool]] = {}

    def __bool__(self):
        try:
            return original(self)
        except RuntimeError as e:
            if not any(m in str(e) for m in DATA_DEPENDENT_MARKERS):
                raise
            caller = sys._getframe(1)
            key = (caller.f_code, caller.f_lasti)
            if key not in values:
                values[key] = assert_holding_value(caller, trees)
            if values[key] is None:
                raise
            warnings.warn(
                "an assert on tensor values is not checked by the compiled program (it has "
                "no Python to stop); it is taken to hold", TracedUpdateWarning, stacklevel=2)
            return values[key]

    with patching.replaced(torch.Tensor, __bool__=__bool__):
        yield
