"""Writes a safetensors file whose JSON header nests N arrays deep.

usage: deep_json.py PATH N
"""
import struct
import sys

depth = int(sys.argv[2])
header = b"[" * depth + b"]" * depth
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header)
