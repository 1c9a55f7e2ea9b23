"""Prints a function computing the prefix sums of a tensor<NxF32> the way
the torch frontend lowers cumsum: LEVELS steps of x + (x shifted by 2^k,
zeros shifted in), each step a slice, a pad and an add.
Usage: log_scan.py LEVELS [N] [--fused] (--fused: the whole scan written
as one tfc.fusion pointwise, for the kernel verifier)."""
import sys

levels = int(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 4608
fused = "--fused" in sys.argv
t = f"tensor<{n}xf32>"
lines, x = [], "%x"
for k in range(levels):
    shift = 1 << k
    kept = f"tensor<{n - shift}xf32>"
    lines.append(f"%s{k} = tfc.slice {x} [0] to [{n - shift}] : {t} -> {kept}")
    lines.append(f"%p{k} = tfc.pad %s{k} low [{shift}] high [0] value 0.0 : {kept} -> {t}")
    lines.append(f"%a{k} = tfc.add %p{k}, {x} : {t}, {t}")
    x = f"%a{k}"
print(f"func.func @log_scan(%in: {t}) -> {t} {{")
if fused:
    print(f"  %r = tfc.fusion pointwise (%x = %in : {t}) -> {t} {{")
    for line in lines:
        print("    " + line)
    print(f"    tfc.yield {x} : {t}")
    print("  }")
    print(f"  return %r : {t}")
else:
    print(f"  %x = tfc.exp %in : {t}")
    for line in lines:
        print("  " + line)
    print(f"  return {x} : {t}")
print("}")
