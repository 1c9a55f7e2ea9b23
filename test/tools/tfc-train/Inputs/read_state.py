"""Prints f32 tensors of a tfc-train checkpoint: name, count, min, max.

usage: read_state.py CHECKPOINT_DIR NAME...
Stdlib only (the safetensors layout: an 8-byte little-endian header size,
a JSON header {name: {dtype, shape, data_offsets}}, then the bytes).
"""
import json
import os
import struct
import sys

raw = open(os.path.join(sys.argv[1], "tensors.safetensors"), "rb").read()
(n,) = struct.unpack("<Q", raw[:8])
header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
for name in sys.argv[2:]:
    info = header[name]
    begin, end = info["data_offsets"]
    values = struct.unpack("<%df" % ((end - begin) // 4), data[begin:end])
    print("%s: %d values, min %.4f, max %.4f" % (name, len(values), min(values), max(values)))
