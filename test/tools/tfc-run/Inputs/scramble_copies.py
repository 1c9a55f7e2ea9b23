"""Copies a safetensors file, overwriting every 16-bit weight copy (a tensor
named <param>.bf16 or <param>.f16...) with garbage: what a runtime that did
not refresh its copies would train on."""
import sys

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__),
                                              "..", "..", "..", "numerics"))
import safetensors_io  # noqa: E402

tensors = safetensors_io.load(sys.argv[1])
scrambled = 0
for name, t in tensors.items():
    if ".bf16" in name or ".f16" in name:
        tensors[name] = t.clone().fill_(7.0)
        scrambled += 1
if not scrambled:
    sys.exit("no weight copies in " + sys.argv[1])
safetensors_io.save(tensors, sys.argv[2])
