"""Damages a tfc-train checkpoint the ways a resume must refuse.

usage: edit_checkpoint.py CHECKPOINT_DIR MODE [ARG]
  flip            flip one bit of the last tensor byte (SHA256SUMS kept)
  drop NAME       remove tensor NAME and rewrite SHA256SUMS to match
  meta-step N     set meta.json's step to N and rewrite SHA256SUMS to match
  meta-deep N     nest meta.json's options N arrays deep (SHA256SUMS to match)
The last three are consistent files (as a buggy tool or a careless hand would
leave them): only the resume's own checks can find them.
Stdlib only: the safetensors layout is an 8-byte little-endian header size,
a JSON header {name: {dtype, shape, data_offsets}}, then the bytes.
"""
import hashlib
import json
import os
import struct
import sys

TENSORS, META, SUMS = "tensors.safetensors", "meta.json", "SHA256SUMS"


def rewrite_sums(d):
    lines = []
    for name in (META, TENSORS):
        with open(os.path.join(d, name), "rb") as f:
            lines.append("%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(), name))
    with open(os.path.join(d, SUMS), "w") as f:
        f.write("".join(lines))


def drop(d, victim):
    path = os.path.join(d, TENSORS)
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
    if victim not in header:
        sys.exit("no tensor %r in %s" % (victim, path))
    out_header, blobs, offset = {}, [], 0
    for name, info in header.items():
        if name == victim or name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        blobs.append(data[begin:end])
        out_header[name] = dict(info, data_offsets=[offset, offset + end - begin])
        offset += end - begin
    text = json.dumps(out_header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    rewrite_sums(d)


def main():
    d, mode = sys.argv[1], sys.argv[2]
    if mode == "flip":
        path = os.path.join(d, TENSORS)
        raw = bytearray(open(path, "rb").read())
        raw[-1] ^= 1
        open(path, "wb").write(bytes(raw))
    elif mode == "drop":
        drop(d, sys.argv[3])
    elif mode == "meta-step":
        path = os.path.join(d, META)
        meta = json.load(open(path))
        meta["step"] = int(sys.argv[3])
        with open(path, "w") as f:
            json.dump(meta, f, indent=2)
        rewrite_sums(d)
    elif mode == "meta-deep":
        depth = int(sys.argv[3])
        path = os.path.join(d, META)
        text = open(path).read()
        # The options object becomes a value nested `depth` arrays deep.
        start = text.index('"options"')
        with open(path, "w") as f:
            f.write(text[:start] + '"options": ' + "[" * depth + "]" * depth + "}\n")
        rewrite_sums(d)
    else:
        sys.exit("unknown mode " + mode)


main()
