"""Writes a classification data set for mlp.mlir (x [N, 64] f32, labels [N]
i64 from a fixed random linear teacher) as safetensors, plus an extra
tensor the model has no input for (ignored). Optionally a broken variant.

usage: make_examples.py OUT.safetensors [N] [--bad-width]
"""
import json
import random
import struct
import sys

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 200
width = 63 if "--bad-width" in sys.argv else 64
rng = random.Random(0)
teacher = [[rng.gauss(0, 1) for _ in range(10)] for _ in range(width)]
xs, labels = [], []
for _ in range(n):
    x = [rng.gauss(0, 1) for _ in range(width)]
    scores = [sum(x[i] * teacher[i][c] for i in range(width)) for c in range(10)]
    xs.extend(x)
    labels.append(max(range(10), key=scores.__getitem__))
blobs = [("x", "F32", [n, width], struct.pack(f"<{len(xs)}f", *xs)),
         ("labels", "I64", [n], struct.pack(f"<{n}q", *labels)),
         ("note", "F32", [1], struct.pack("<f", 1.0))]
header, offset = {}, 0
for name, dtype, shape, data in blobs:
    header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
    offset += len(data)
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(b[3] for b in blobs))
