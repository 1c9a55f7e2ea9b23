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

and trains or runs it in this process with the compiler and runtime
libraries of the build (libtfc_compiler.so, libtfcrt.so, through ctypes):

    step = tfc_torch.compile_train_step(model, (tokens, targets), lr=1e-3)
    loss = step(tokens, targets)
    model.load_state_dict(step.state_dict())
    fast = tfc_torch.compile(model, (tokens,))     # the inference forward

Works on torch 1.13 and 2.x, CPU only, no dependency beyond torch.
"""
from .errors import (DataDependentError, FrontendError, ModelError, TracedUpdateWarning,
                     UnsupportedOpError)
from .batch_layout import BatchBindingWarning
from .export import Exported, export, import_module
from . import safetensors
from .native import LibraryNotFound, NativeError
from .options import OptionError
from .train import AccumulationWarning, TrainStep, compile_train_step
from .compiled import CompiledModule, compile


def supported_ops():
    """The aten op overloads the frontend lowers (sorted names)."""
    from . import ops  # noqa: F401 - fills the registry
    from .registry import supported_ops as names
    return names()


__all__ = ["export", "import_module", "Exported", "supported_ops", "safetensors",
           "compile_train_step", "TrainStep", "AccumulationWarning", "compile", "CompiledModule",
           "FrontendError", "UnsupportedOpError", "DataDependentError", "ModelError",
           "TracedUpdateWarning", "BatchBindingWarning",
           "NativeError", "LibraryNotFound", "OptionError"]
