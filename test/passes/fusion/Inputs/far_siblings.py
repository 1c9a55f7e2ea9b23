"""Prints a function with two pointwise readers of one input, exp(x) and
sin(x), and a chain of GEMMS matrix products of exp(x) between them
(default 10, over tensor<16x16xf32>). Merging the two readers places the
merged kernel where sin(x) is, so the products (which read exp(x)) move
after it. tfc-fuse-far-siblings.test fuses it."""
import sys

gemms = int(sys.argv[1]) if len(sys.argv) > 1 else 10
t = "tensor<16x16xf32>"
print(f'func.func @far_siblings(%x: {t} {{tfc.input = "x"}}, '
      f'%w: {t} {{tfc.param = "w"}}) -> ({t}, {t}) {{')
print(f"  %a = tfc.exp %x : {t}")
v = "%a"
for i in range(gemms):
    print(f"  %m{i} = tfc.matmul {v}, %w : {t}, {t} -> {t}")
    v = f"%m{i}"
print(f"  %b = tfc.sin %x : {t}")
print(f"  return {v}, %b : {t}, {t}")
print("}")
