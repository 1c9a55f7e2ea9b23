"""Finding the user's source line behind a traced op.

make_fx records, per fx node, the Python stack that created it (fx's
`record_stack_traces`). The frame worth showing is the innermost one that
is neither PyTorch's nor tfc_torch's own code: the line of the user's
model (or loss function) that called the op. torch 1.13 lists frames
innermost first, torch 2.x outermost first; the order is told apart by
which side of the frame of tracing.TRACE_ENTRY (the frontend's call into
the model) holds the frontend's call of make_fx.
"""
import ast
import inspect
import os
import re
import textwrap
import traceback
from dataclasses import dataclass
from typing import List, Optional

import torch

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
# Frames of these packages are library code, never the user's line.
_LIBRARY_DIRS = [_TORCH_DIR, _OWN_DIR]
for _name in ("functorch",):
    try:
        _mod = __import__(_name)
        _LIBRARY_DIRS.append(os.path.dirname(os.path.abspath(_mod.__file__)))
    except ImportError:
        pass

# The frontend's function that calls the user's model; see tracing.py.
TRACE_ENTRY = "_tfc_traced_loss"

_FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)\s*$')


@dataclass(frozen=True)
class Frame:
    """One Python stack frame: file, line, function and the source text."""
    file: str
    line: int
    function: str
    code: str = ""

    def __str__(self):
        where = f"{self.file}:{self.line} in {self.function}"
        return f"{where}: {self.code}" if self.code else where


def _is_library(path: str) -> bool:
    path = os.path.abspath(path)
    return any(path.startswith(d + os.sep) for d in _LIBRARY_DIRS) or path.startswith("<")


def parse_stack(text: str) -> List[Frame]:
    """The frames of a formatted stack (traceback.format_list's text)."""
    frames, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        m = _FRAME_RE.match(line)
        if not m:
            continue
        code = ""
        if i + 1 < len(lines) and not _FRAME_RE.match(lines[i + 1]):
            code = lines[i + 1].strip()
        frames.append(Frame(m["file"], int(m["line"]), m["func"], code))
    return frames


def _is_outer(frame: Frame) -> bool:
    """The frontend's own call of make_fx (tracing.trace): the side of the
    stack that is not the model's."""
    return frame.function == "trace" and os.path.abspath(frame.file).startswith(_OWN_DIR + os.sep)


def user_frame(frames: List[Frame]) -> Optional[Frame]:
    """The innermost user frame of `frames` (in either order), else the
    innermost frame on the model's side of the stack."""
    entry = [i for i, f in enumerate(frames) if f.function == TRACE_ENTRY]
    if entry:
        i = entry[0]
        before, after = frames[:i], frames[i + 1:]
        if any(_is_outer(f) for f in after):
            inner = list(before)             # torch 1.13: innermost first
        elif any(_is_outer(f) for f in before):
            inner = list(reversed(after))    # torch 2.x: outermost first
        else:
            inner = list(before) if before else list(reversed(after))
    else:
        inner = list(frames)
    for f in inner:
        if not _is_library(f.file):
            return f
    return inner[0] if inner else None


def node_frame(node) -> Optional[Frame]:
    """The user's source line of an fx node, when tracing recorded it."""
    text = getattr(node, "stack_trace", None) or node.meta.get("stack_trace")
    if not text:
        return None
    return user_frame(parse_stack(text))


def exception_frame(exc: BaseException) -> Optional[Frame]:
    """The innermost user frame of an exception's traceback."""
    found = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if not _is_library(fs.filename):
            found = Frame(fs.filename, fs.lineno, fs.name, (fs.line or "").strip())
    return found


def stack_frame() -> Optional[Frame]:
    """The innermost user frame of the current Python stack (the model's
    line that called into the frontend's replacement running now)."""
    found = None
    for fs in traceback.extract_stack():
        if not _is_library(fs.filename):
            found = Frame(fs.filename, fs.lineno, fs.name, (fs.line or "").strip())
    return found


def return_frame(fn) -> Optional[Frame]:
    """The return statement of the user's function `fn` (e.g. a module's
    forward): its line when `fn` has one return, else its `def` line; None
    for library code or when the source is unavailable. Errors about what
    a function returns point here (no traced op stands for a Python value)."""
    try:
        file = inspect.getsourcefile(fn)
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (TypeError, OSError, SyntaxError, IndentationError):
        return None
    if not file or _is_library(file) or not tree.body:
        return None
    definition = tree.body[0]
    returns = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                continue  # a nested function's returns are not fn's
            if isinstance(child, ast.Return):
                returns.append(child)
            visit(child)

    visit(definition)
    # The def line, past any decorators.
    line = returns[0].lineno if len(returns) == 1 else definition.lineno
    number = first + line - 1
    code = lines[line - 1].strip() if line - 1 < len(lines) else ""
    return Frame(file, number, getattr(fn, "__name__", "forward"), code)
