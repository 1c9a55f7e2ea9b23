"""The runtime from Python: a thin layer over libtfcrt's C API
(runtime/include/tfc/runtime.h) that moves torch tensors in and out.

    device = Device("host")               # or "cuda", "auto"
    program = Program(device, artifact_dir)
    program.set("tokens", tokens)         # dtype and shape must match the binding
    program.run("train_step")
    loss = program.get("loss")            # a new CPU torch tensor

Tensors cross as host memory (the C API copies them to and from the
device); parameters and optimizer state stay in the runtime between runs.
"""
import ctypes
from collections import OrderedDict
from dataclasses import dataclass
from typing import List, Tuple

import torch

from . import native

ROLE_PARAM, ROLE_INPUT, ROLE_OUTPUT, ROLE_STATE = 1, 2, 4, 8
_ROLE_NAMES = {ROLE_PARAM: "param", ROLE_INPUT: "input", ROLE_OUTPUT: "output",
               ROLE_STATE: "state"}
# tfc_dtype values -> torch dtypes (i1 is one byte, as torch.bool).
_DTYPES = {0: torch.float32, 1: torch.float64, 2: torch.float16, 3: torch.bfloat16,
           4: torch.bool, 5: torch.int32, 6: torch.int64, 7: torch.uint8}


@dataclass(frozen=True)
class TensorBinding:
    """One external buffer of a program."""
    name: str
    role: str           # "param", "input", "output" or "state"
    dtype: torch.dtype
    shape: Tuple[int, ...]
    nbytes: int


class Device:
    """A tfc device ("host", "cuda" or "auto")."""

    def __init__(self, kind: str = "host"):
        self._handle = None
        self._lib = native.runtime()
        handle = ctypes.c_void_p()
        native.check_status(self._lib.tfc_device_create(kind.encode(), ctypes.byref(handle)),
                            f"device '{kind}'")
        self._handle = handle

    @property
    def kind(self) -> str:
        return self._lib.tfc_device_kind(self._handle).decode()

    @property
    def description(self) -> str:
        return self._lib.tfc_device_description(self._handle).decode()

    def close(self) -> None:
        if self._handle:
            self._lib.tfc_device_destroy(self._handle)
            self._handle = None

    def __del__(self):
        if getattr(self, "_handle", None):
            self.close()


class Program:
    """A loaded artifact: its bindings, entries and memory on `device`."""

    def __init__(self, device: Device, artifact_dir: str):
        self._handle = None
        self._lib = native.runtime()
        self.device = device  # the program keeps its device alive, and so do we
        handle = ctypes.c_void_p()
        native.check_status(self._lib.tfc_program_load(device._handle, artifact_dir.encode(),
                                                        ctypes.byref(handle)),
                            f"loading {artifact_dir}")
        self._handle = handle
        self.bindings: "OrderedDict[str, TensorBinding]" = OrderedDict()
        for i in range(self._lib.tfc_program_binding_count(handle)):
            b = native.Binding()
            native.check_status(self._lib.tfc_program_binding(handle, i, ctypes.byref(b)),
                                "binding")
            name = b.name.decode()
            self.bindings[name] = TensorBinding(
                name, _ROLE_NAMES.get(b.role, "?"), _DTYPES[b.dtype],
                tuple(b.shape[k] for k in range(b.rank)), b.bytes)
        self.entries: List[str] = []
        for i in range(self._lib.tfc_program_entry_count(handle)):
            if not self._lib.tfc_program_entry_is_refresh(handle, i):
                self.entries.append(self._lib.tfc_program_entry_name(handle, i).decode())

    def names(self, role: str) -> List[str]:
        """The bindings of one role, in manifest order."""
        return [n for n, b in self.bindings.items() if b.role == role]

    def _binding(self, name: str) -> TensorBinding:
        try:
            return self.bindings[name]
        except KeyError:
            raise KeyError(f"the program has no tensor '{name}' (it has: "
                           f"{', '.join(self.bindings)})") from None

    def set(self, name: str, value) -> None:
        """Copies `value` (a tensor, or a number for a scalar) into `name`.
        Floats convert to the binding's float type; the shape must match."""
        b = self._binding(name)
        if isinstance(value, torch.Tensor):
            t = value.detach()
        elif isinstance(value, float) and b.dtype.is_floating_point:
            t = torch.tensor(value, dtype=b.dtype)  # an f64 rate unrounded
        else:
            t = torch.tensor(value)
        if t.layout != torch.strided:  # a sparse batch input (pygcn's adj): fed densely
            t = t.to_dense()
        if tuple(t.shape) != b.shape:
            hint = (" (a compiled program has the shapes it was compiled with: pad tensors "
                    "whose sizes vary with the data, such as targets per image or nodes per "
                    "graph, to a fixed maximum and mask the padding, or compile once per "
                    "shape)")
            if t.dim() == len(b.shape) and t.dim() and t.shape[1:] == b.shape[1:] \
                    and t.shape[0] < b.shape[0]:
                hint = (" (a smaller last batch? a compiled program has one batch size: "
                        "DataLoader(drop_last=True), or pad the batch; sizes that vary with "
                        "the data, such as targets per image, are padded to a fixed maximum "
                        "and masked)")
            raise ValueError(f"'{name}' has shape {list(t.shape)}, the program expects "
                             f"{list(b.shape)}{hint}")
        if t.dtype != b.dtype:
            if t.is_floating_point() != b.dtype.is_floating_point or b.dtype == torch.bool:
                raise TypeError(f"'{name}' is {t.dtype}, the program expects {b.dtype}")
            t = t.to(b.dtype)
        t = t.cpu().contiguous()
        native.check_status(self._lib.tfc_program_set(self._handle, name.encode(),
                                                      ctypes.c_void_p(t.data_ptr()), b.nbytes),
                            f"setting '{name}'")

    def get(self, name: str) -> torch.Tensor:
        """A new CPU tensor holding `name`'s current value."""
        b = self._binding(name)
        t = torch.empty(b.shape, dtype=b.dtype)
        native.check_status(self._lib.tfc_program_get(self._handle, name.encode(),
                                                      ctypes.c_void_p(t.data_ptr()), b.nbytes),
                            f"reading '{name}'")
        return t

    def run(self, entry: str) -> None:
        if entry not in self.entries:
            raise KeyError(f"the program has no entry '{entry}' (it has: "
                           f"{', '.join(self.entries)})")
        native.check_status(self._lib.tfc_program_run(self._handle, entry.encode()),
                            f"running '{entry}'")

    def save(self, path: str, roles: Tuple[str, ...] = ("param", "state")) -> None:
        """Writes the tensors of `roles` to a safetensors file (atomically)."""
        mask = sum(k for k, v in _ROLE_NAMES.items() if v in roles)
        native.check_status(self._lib.tfc_program_save_safetensors(
            self._handle, path.encode(), mask), f"saving {path}")

    def restore(self, path: str, roles: Tuple[str, ...] = ("param", "state")) -> None:
        """Sets the tensors of `roles` from a file holding exactly them."""
        mask = sum(k for k, v in _ROLE_NAMES.items() if v in roles)
        native.check_status(self._lib.tfc_program_restore_safetensors(
            self._handle, path.encode(), mask), f"restoring {path}")

    def close(self) -> None:
        if self._handle:
            self._lib.tfc_program_destroy(self._handle)
            self._handle = None

    def __del__(self):
        if getattr(self, "_handle", None):
            self.close()
