"""Minimal safetensors reader/writer for torch tensors (torch 1.13 has no
safetensors package and PyPI is out of reach). Format: 8-byte little-endian
header length, a JSON header {name: {dtype, shape, data_offsets}}, raw bytes.
"""
import json
import struct

import torch

_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16",
    torch.bfloat16: "BF16", torch.bool: "BOOL", torch.int32: "I32",
    torch.int64: "I64", torch.uint8: "U8",
}
_TORCH = {v: k for k, v in _DTYPES.items()}


def _raw_bytes(t: torch.Tensor) -> bytes:
    t = t.contiguous()
    if t.dtype in (torch.bfloat16, torch.float16):
        return t.view(torch.int16).numpy().tobytes()
    if t.dtype == torch.bool:
        return t.to(torch.uint8).numpy().tobytes()
    return t.numpy().tobytes()


def save(tensors: dict, path: str) -> None:
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = _raw_bytes(t)
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def load_raw(path: str) -> dict:
    """{name: (dtype string, shape tuple, raw bytes)}: the file as stored."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = (info["dtype"], tuple(info["shape"]), body[begin:end])
    return out


def load(path: str) -> dict:
    out = {}
    for name, (dtype_name, shape, data) in load_raw(path).items():
        dtype = _TORCH[dtype_name]
        raw = bytearray(data)
        if dtype in (torch.bfloat16, torch.float16):
            t = torch.frombuffer(raw, dtype=torch.int16).view(dtype) if raw else torch.empty(0, dtype=dtype)
        elif dtype == torch.bool:
            t = torch.frombuffer(raw, dtype=torch.uint8).to(torch.bool) if raw else torch.empty(0, dtype=dtype)
        else:
            t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(shape).clone()
    return out
