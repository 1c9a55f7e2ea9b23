"""The two native libraries the Python API runs on, loaded with ctypes:

- libtfc_compiler.so, the compiler's C embedding API
  (compiler/capi/include/tfc/compiler.h): model text -> artifact directory,
  through the on-disk cache;
- libtfcrt.so, the runtime's C API (runtime/include/tfc/runtime.h): load an
  artifact on a device, set tensors, run entries, read results.

Both are found in the build tree next to this checkout (build/lib after
./scripts/build), or in $TFC_BUILD_DIR/lib, or as $TFC_COMPILER_LIB /
$TFC_RUNTIME_LIB given as paths. Nothing here depends on anything but the
standard library; the prototypes below mirror the C headers one to one.
"""
import ctypes
import os
from typing import List, Optional

from .errors import FrontendError


class NativeError(FrontendError):
    """An error reported by the compiler or the runtime library."""


class LibraryNotFound(NativeError):
    """libtfc_compiler.so or libtfcrt.so is not where tfc_torch looks."""


_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _candidates(name: str, override: str) -> List[str]:
    paths = []
    if os.environ.get(override):
        paths.append(os.environ[override])
    if os.environ.get("TFC_BUILD_DIR"):
        paths.append(os.path.join(os.environ["TFC_BUILD_DIR"], "lib", name))
    paths.append(os.path.join(_REPO, "build", "lib", name))
    return paths


def _load(name: str, override: str) -> ctypes.CDLL:
    tried = _candidates(name, override)
    for path in tried:
        if os.path.isfile(path):
            try:
                return ctypes.CDLL(path)
            except OSError as e:
                raise LibraryNotFound(f"cannot load {path}: {e}") from None
    raise LibraryNotFound(
        f"{name} not found (looked in {', '.join(tried)})",
        hint="build tfc first (./scripts/build), or point TFC_BUILD_DIR at a build "
             f"directory, or {override} at the library")


_c = ctypes
_P = _c.c_void_p


class Binding(_c.Structure):
    """tfc_binding."""
    _fields_ = [("name", _c.c_char_p), ("role", _c.c_int), ("dtype", _c.c_int),
                ("rank", _c.c_size_t), ("shape", _c.POINTER(_c.c_int64)),
                ("bytes", _c.c_size_t)]


def _declare(lib, name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_compiler: Optional[ctypes.CDLL] = None
_runtime: Optional[ctypes.CDLL] = None

COMPILER_API_VERSION = 1


def compiler() -> ctypes.CDLL:
    """libtfc_compiler.so, loaded once, with its prototypes declared."""
    global _compiler
    if _compiler is None:
        lib = _load("libtfc_compiler.so", "TFC_COMPILER_LIB")
        _declare(lib, "tfc_compiler_api_version", _c.c_int)
        version = lib.tfc_compiler_api_version()
        if version != COMPILER_API_VERSION:
            raise NativeError(f"libtfc_compiler.so has API version {version}; tfc_torch "
                              f"speaks {COMPILER_API_VERSION}",
                              hint="rebuild tfc (./scripts/build) from this checkout")
        _declare(lib, "tfc_compiler_error_message", _c.c_char_p, _P)
        _declare(lib, "tfc_compiler_error_destroy", None, _P)
        _declare(lib, "tfc_compiler_session_create", _P)
        _declare(lib, "tfc_compiler_session_destroy", None, _P)
        _declare(lib, "tfc_compiler_session_set_flags", _P, _P, _c.c_int,
                 _c.POINTER(_c.c_char_p))
        _declare(lib, "tfc_compiler_session_flags", _c.c_char_p, _P)
        _declare(lib, "tfc_compiler_compile_file", _P, _P, _c.c_char_p, _c.POINTER(_P))
        _declare(lib, "tfc_compiler_compile_source", _P, _P, _c.c_char_p, _c.c_char_p,
                 _c.c_size_t, _c.POINTER(_P))
        _declare(lib, "tfc_compiler_output_artifact_dir", _c.c_char_p, _P)
        _declare(lib, "tfc_compiler_output_cache_hit", _c.c_int, _P)
        _declare(lib, "tfc_compiler_output_accumulate_steps", _c.c_int64, _P)
        _declare(lib, "tfc_compiler_output_wall_ms", _c.c_double, _P)
        _declare(lib, "tfc_compiler_output_destroy", None, _P)
        _compiler = lib
    return _compiler


def runtime() -> ctypes.CDLL:
    """libtfcrt.so, loaded once, with its prototypes declared."""
    global _runtime
    if _runtime is None:
        lib = _load("libtfcrt.so", "TFC_RUNTIME_LIB")
        _declare(lib, "tfc_status_message", _c.c_char_p, _P)
        _declare(lib, "tfc_status_free", None, _P)
        _declare(lib, "tfc_dtype_name", _c.c_char_p, _c.c_int)
        _declare(lib, "tfc_role_name", _c.c_char_p, _c.c_int)
        _declare(lib, "tfc_device_create", _P, _c.c_char_p, _c.POINTER(_P))
        _declare(lib, "tfc_device_kind", _c.c_char_p, _P)
        _declare(lib, "tfc_device_description", _c.c_char_p, _P)
        _declare(lib, "tfc_device_destroy", None, _P)
        _declare(lib, "tfc_program_load", _P, _P, _c.c_char_p, _c.POINTER(_P))
        _declare(lib, "tfc_program_destroy", None, _P)
        _declare(lib, "tfc_program_binding_count", _c.c_size_t, _P)
        _declare(lib, "tfc_program_binding", _P, _P, _c.c_size_t, _c.POINTER(Binding))
        _declare(lib, "tfc_program_entry_count", _c.c_size_t, _P)
        _declare(lib, "tfc_program_entry_name", _c.c_char_p, _P, _c.c_size_t)
        _declare(lib, "tfc_program_entry_is_refresh", _c.c_int, _P, _c.c_size_t)
        _declare(lib, "tfc_program_set", _P, _P, _c.c_char_p, _P, _c.c_size_t)
        _declare(lib, "tfc_program_run", _P, _P, _c.c_char_p)
        _declare(lib, "tfc_program_get", _P, _P, _c.c_char_p, _P, _c.c_size_t)
        _declare(lib, "tfc_program_save_safetensors", _P, _P, _c.c_char_p, _c.c_uint)
        _declare(lib, "tfc_program_restore_safetensors", _P, _P, _c.c_char_p, _c.c_uint)
        _runtime = lib
    return _runtime


def _raise(handle, message, free, what: str) -> None:
    """Raises NativeError with `message(handle)` when `handle` (an error
    object of one of the C APIs) is not NULL, freeing it first."""
    if handle:
        text = message(handle).decode("utf-8", "replace")
        free(handle)
        raise NativeError(f"{what}: {text}")


def check_status(status, what: str) -> None:
    """Raises NativeError for a non-NULL tfc_status (freeing it)."""
    lib = runtime()
    _raise(status, lib.tfc_status_message, lib.tfc_status_free, what)


def check_compiler_error(error, what: str) -> None:
    """Raises NativeError for a non-NULL tfc_compiler_error (freeing it)."""
    lib = compiler()
    _raise(error, lib.tfc_compiler_error_message, lib.tfc_compiler_error_destroy, what)
