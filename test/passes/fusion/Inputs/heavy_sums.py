"""Prints a loss that sums LOSSES elementwise chains of OPS ops each, all
over one shape (default 3 x 70 over tensor<4x8xf32>): each chain's ops
alternate mul and add with its own constants, then a whole-tensor sum; the
loss adds the sums. tfc-fuse-sum-loops.test fuses it."""
import sys

losses = int(sys.argv[1]) if len(sys.argv) > 1 else 3
ops = int(sys.argv[2]) if len(sys.argv) > 2 else 70
t = "tensor<4x8xf32>"
print('func.func @heavy_sums(%x: tensor<4x8xf32> {tfc.input = "x"}) -> tensor<f32> {')
sums = []
for l in range(losses):
    v = "%x"
    for i in range(ops):
        c = f"%c{l}_{i}"
        print(f"  {c} = tfc.constant dense<{1.0 + 0.001 * (l * ops + i)}> : tensor<f32>")
        op = "mul" if i % 2 == 0 else "add"
        print(f"  %v{l}_{i} = tfc.{op} {v}, {c} : {t}, tensor<f32>")
        v = f"%v{l}_{i}"
    print(f"  %s{l} = tfc.reduce_sum {v} dims [0, 1] : {t} -> tensor<f32>")
    sums.append(f"%s{l}")
total = sums[0]
for k, s in enumerate(sums[1:]):
    print(f"  %t{k} = tfc.add {total}, {s} : tensor<f32>, tensor<f32>")
    total = f"%t{k}"
print(f"  return {total} : tensor<f32>")
print("}")
