"""tfc_torch: PyTorch models into tfc.

Traces an nn.Module whose forward returns the scalar loss (or whose output
a `loss_fn(output, *batch)` turns into it) with make_fx, maps the aten ops
to tfc ops, recognizes RMSNorm, GELU, cross-entropy and attention, and
prints a `.mlir` module whose `@loss` takes the parameters (`tfc.param` =
state_dict names) and the batch (`tfc.input`); the initial weights go to
safetensors.

    import tfc_torch
    tfc_torch.export(model, (tokens, targets), "model.mlir",
                     weights="model.safetensors")

Works on torch 1.13 and 2.x, CPU only, no dependency beyond torch.
"""
from .errors import DataDependentError, FrontendError, ModelError, UnsupportedOpError
from .export import Exported, export, import_module
from . import safetensors


def supported_ops():
    """The aten op overloads the frontend lowers (sorted names)."""
    from . import ops  # noqa: F401 - fills the registry
    from .registry import supported_ops as names
    return names()


__all__ = ["export", "import_module", "Exported", "supported_ops", "safetensors",
           "FrontendError", "UnsupportedOpError", "DataDependentError", "ModelError"]
