"""Element types: torch dtypes <-> tfc element type names, accumulation
types, and the exact text of scalar literals in MLIR.

tfc's element types are f32, f16, bf16, f64, i1, i32, i64 and ui8
(docs/dialect.md); int8 and int16 tensors are i32 values (importer.
NARROW_INTEGERS), and every other torch dtype is refused with a message
naming it. Float literals are printed so that MLIR parses them back to the same
bits: finite values as the shortest decimal of the value rounded to the
element type first (what torch does with a Python scalar), non-finite ones
as the hexadecimal bit pattern MLIR accepts for float attributes.
"""
import math
import struct

import torch

_TO_TFC = {
    torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float64: "f64", torch.bool: "i1", torch.int32: "i32",
    torch.int64: "i64", torch.uint8: "ui8",
}
_TO_TORCH = {v: k for k, v in _TO_TFC.items()}

FLOATS = ("f16", "bf16", "f32", "f64")
INTEGERS = ("i32", "i64", "ui8")


def tfc_dtype(dtype: torch.dtype) -> str:
    """The tfc element type of a torch dtype; ValueError for the others."""
    try:
        return _TO_TFC[dtype]
    except KeyError:
        raise ValueError(f"dtype {dtype} has no tfc element type (supported: "
                         f"{', '.join(str(d) for d in _TO_TFC)})") from None


def torch_dtype(name: str) -> torch.dtype:
    return _TO_TORCH[name]


def is_float(name: str) -> bool:
    return name in FLOATS


def accumulation_type(name: str) -> str:
    """f32 for 16-bit floats and f32, f64 for f64 (docs/dialect.md)."""
    return "f64" if name == "f64" else "f32"


def round_to(value: float, name: str) -> float:
    """`value` rounded to the float element type `name`, as torch rounds a
    Python scalar used with a tensor of that type."""
    if name == "f64":
        return float(value)
    return float(torch.tensor(float(value), dtype=_TO_TORCH[name]).item())


def _float_bits(value: float, name: str) -> str:
    if name == "f64":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    if name == "f32":
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]
    t = torch.tensor(value, dtype=_TO_TORCH[name]).view(torch.int16).item() & 0xFFFF
    return "0x%04X" % t


def float_text(value: float) -> str:
    """A finite double as an MLIR float literal (always with a '.')."""
    text = repr(float(value))
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def element_text(value, name: str) -> str:
    """One element of a dense attribute of element type `name`."""
    if name == "i1":
        return "true" if value else "false"
    if name in INTEGERS:
        return str(int(value))
    value = round_to(value, name)
    if math.isfinite(value):
        return float_text(value)
    return _float_bits(value, name)


def attr_float_text(value: float) -> str:
    """An f64 attribute (eps, scale, exponent, ...), non-finite as bits."""
    value = float(value)
    if math.isfinite(value):
        return float_text(value)
    return _float_bits(value, "f64")
