"""Errors the frontend raises. Each names what went wrong, where in the
user's code (file:line and the source text, when known) and what to change.
"""
from typing import Optional

from .source import Frame


class FrontendError(Exception):
    """Base class: a model tfc_torch cannot import, with the reason."""

    def __init__(self, message: str, frame: Optional[Frame] = None, hint: str = ""):
        self.message = message
        self.frame = frame
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        text = self.message
        if self.frame is not None:
            text += f"\n  at {self.frame}"
        if self.hint:
            text += f"\n  {self.hint}"
        return text


class UnsupportedOpError(FrontendError):
    """An aten op with no tfc lowering, or a use of it tfc cannot express."""

    def __init__(self, op: str, frame: Optional[Frame] = None, reason: str = "", hint: str = ""):
        self.op = op
        message = f"unsupported PyTorch op {op}"
        if reason:
            message += f": {reason}"
        if not hint:
            hint = ("tfc_torch has no lowering for it; tfc_torch.supported_ops() "
                    "lists the ops it maps (docs/frontend.md)")
        super().__init__(message, frame, hint)


class DataDependentError(FrontendError):
    """Python control flow or a shape that depends on tensor values."""


class ModelError(FrontendError):
    """The model or its example batch does not fit what tfc imports (e.g.
    forward returns no scalar loss)."""


class TracedUpdateWarning(UserWarning):
    """The model updates a buffer or a batch input in place (batch norm's
    running statistics, spectral norm's power iteration), which the compiled
    program does not carry out: it computes with the values at import time."""
