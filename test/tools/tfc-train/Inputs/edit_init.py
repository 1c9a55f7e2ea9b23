"""Writes broken --init files next to a good one.

usage: edit_init.py W.safetensors DIR  writes DIR/lacks.safetensors (without
fc.bias), DIR/shape.safetensors (fc.bias cut to 3 values) and
DIR/extra.safetensors (all of W and a tensor "x", the model's input).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                *[".."] * 4, "frontends", "torch"))
from tfc_torch import safetensors  # noqa: E402

tensors = safetensors.load(sys.argv[1])
safetensors.save(dict(tensors, x=tensors["fc.bias"]), os.path.join(sys.argv[2], "extra.safetensors"))
bias = tensors.pop("fc.bias")
safetensors.save(tensors, os.path.join(sys.argv[2], "lacks.safetensors"))
tensors["fc.bias"] = bias[:3].clone()
safetensors.save(tensors, os.path.join(sys.argv[2], "shape.safetensors"))
