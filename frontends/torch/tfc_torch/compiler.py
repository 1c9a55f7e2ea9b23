"""Compiling tfc model text in this process, through the compiler's C
embedding API (libtfc_compiler.so; compiler/capi/include/tfc/compiler.h).

    artifact = compile_source(mlir_text, ["--train-step=optimizer=adamw",
                                          "--target=host"], name="model.mlir")
    artifact.directory        # ready for runtime.Program.load

The flags are tfc-run's (--function, --grad, --train-step, --fusion,
--target, --precision, --pad, --no-cache); the library checks them before it
compiles, so a bad one fails at once with a message naming it. Artifacts go
through the on-disk cache ($TFC_CACHE_DIR, default ~/.cache/tfc).
"""
import ctypes
from dataclasses import dataclass
from typing import Sequence

from . import native
from .options import OptionError


@dataclass
class Artifact:
    """A compiled program on disk."""
    directory: str
    cache_hit: bool
    accumulate_steps: int
    wall_ms: float


def compile_source(source: str, flags: Sequence[str], name: str = "model.mlir") -> Artifact:
    """Compiles the model text `source` with `flags`; `name` names it in
    diagnostics. Raises OptionError for a bad flag (before compiling) and
    native.NativeError with the compiler's diagnostics otherwise."""
    lib = native.compiler()
    session = lib.tfc_compiler_session_create()
    try:
        argv = (ctypes.c_char_p * len(flags))(*[f.encode() for f in flags])
        error = lib.tfc_compiler_session_set_flags(session, len(flags), argv)
        if error:
            message = lib.tfc_compiler_error_message(error).decode("utf-8", "replace")
            lib.tfc_compiler_error_destroy(error)
            raise OptionError(message)
        out = ctypes.c_void_p()
        data = source.encode()
        native.check_compiler_error(
            lib.tfc_compiler_compile_source(session, name.encode(), data, len(data),
                                            ctypes.byref(out)),
            f"compiling {name}")
        try:
            return Artifact(lib.tfc_compiler_output_artifact_dir(out).decode(),
                            bool(lib.tfc_compiler_output_cache_hit(out)),
                            int(lib.tfc_compiler_output_accumulate_steps(out)),
                            float(lib.tfc_compiler_output_wall_ms(out)))
        finally:
            lib.tfc_compiler_output_destroy(out)
    finally:
        lib.tfc_compiler_session_destroy(session)
