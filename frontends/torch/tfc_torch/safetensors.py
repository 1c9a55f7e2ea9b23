"""Reading and writing safetensors files (the format tfc-run, tfc-train and
the runtime load), without the safetensors package (torch 1.13 machines
lack it): an 8-byte little-endian header size, a JSON header mapping each
name to {dtype, shape, data_offsets} (plus an optional string map
"__metadata__"), padded with spaces to 8 bytes, then the tensors' raw
little-endian bytes in header order."""
import json
import os
import shutil
import struct
from typing import Dict, Optional

import torch

_CODES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16",
    torch.bfloat16: "BF16", torch.int64: "I64", torch.int32: "I32",
    torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL",
}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}


def _bytes(t: torch.Tensor) -> bytes:
    t = t.detach()
    if t.layout != torch.strided:  # a sparse tensor (a batch input): stored densely
        t = t.to_dense()
    t = t.contiguous().cpu()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.view(torch.int16)
    elif t.dtype == torch.bool:
        t = t.to(torch.uint8)
    return t.numpy().tobytes()


def save(tensors: Dict[str, torch.Tensor], path: str,
         metadata: Optional[Dict[str, str]] = None) -> None:
    """Writes `tensors` (name -> tensor, in order) to `path`."""
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        if t.dtype not in _CODES:
            raise ValueError(f"{name}: dtype {t.dtype} cannot be stored in safetensors")
        data = _bytes(t)
        header[name] = {"dtype": _CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in chunks:
            f.write(data)


def load(path: str) -> Dict[str, torch.Tensor]:
    """Reads every tensor of a safetensors file (name -> tensor)."""
    with open(path, "rb") as f:
        blob = f.read()
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + size])
    body = memoryview(blob)[8 + size:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES[entry["dtype"]]
        begin, end = entry["data_offsets"]
        raw = bytearray(body[begin:end])
        storage = {torch.float16: torch.int16, torch.bfloat16: torch.int16,
                   torch.bool: torch.uint8}.get(dtype, dtype)
        t = torch.frombuffer(raw, dtype=storage) if raw else torch.empty(0, dtype=storage)
        if storage is not dtype:
            t = t.view(dtype) if dtype != torch.bool else t.to(torch.bool)
        tensors[name] = t.reshape(entry["shape"]).clone()
    return tensors


def _header(f) -> Dict:
    (size,) = struct.unpack("<Q", f.read(8))
    return json.loads(f.read(size))


def metadata(path: str) -> Dict[str, str]:
    """The "__metadata__" map of a safetensors file ({} when it has none),
    read from its header only."""
    with open(path, "rb") as f:
        return dict(_header(f).get("__metadata__", {}))


def add_metadata(path: str, entries: Dict[str, str]) -> None:
    """Adds `entries` to the "__metadata__" map of the file at `path`: the
    header is written anew and the tensors' bytes copied as they are (their
    offsets count from the end of the header), then the file replaced."""
    tmp = path + ".metadata.tmp"
    with open(path, "rb") as f:
        header = _header(f)
        header.setdefault("__metadata__", {}).update({str(k): str(v) for k, v in entries.items()})
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        with open(tmp, "wb") as out:
            out.write(struct.pack("<Q", len(text)))
            out.write(text)
            shutil.copyfileobj(f, out, 1 << 24)
    os.replace(tmp, path)
