"""Numerics of generated CUDA kernels against PyTorch, without a GPU.

Each kernel of the codegen test inputs (../*.mlir, by kernel_name) is
generated with `tfc-translate --emit-cuda`, compiled for the CPU together with
cuda_emulation.h (real threads, barriers for __syncthreads and warp
shuffles), run on random inputs, and compared with the PyTorch expression it
implements. Tolerances are torch.testing's defaults for the dtype, exact
where the kernel must be bit-exact (data movement, conversions, 16-bit
rounding of a single op), or an explicit (rtol, atol) where the default is
not a bound of the arithmetic (long f32 sums of mixed signs).

usage: check_numerics.py --translate BIN --cuda-include DIR [--cxx g++]
                         [--seed N] [--only NAME,...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "numerics"))
import philox  # noqa: E402  (test/numerics: the reference Philox stream)

C_TYPES = {torch.float32: "float", torch.float64: "double",
           torch.float16: "__half", torch.bfloat16: "__nv_bfloat16",
           torch.bool: "unsigned char", torch.int32: "int",
           torch.int64: "long long", torch.uint8: "unsigned char"}


def to_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    return t.numpy().tobytes()


def from_bytes(data, dtype, shape):
    if dtype == torch.bfloat16:
        t = torch.frombuffer(bytearray(data), dtype=torch.int16)
        return t.view(torch.bfloat16).reshape(shape)
    if dtype == torch.bool:
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).reshape(shape).bool()
    return torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape).clone()


# How every emulated kernel is compiled; precompile_header uses the same flags
# (GCC only takes a precompiled header built with the flags of the compile).
# Signed overflow is undefined behaviour in CUDA C++ as in C++: the sanitizer
# stops a kernel that overflows (integer arithmetic must wrap through the
# unsigned type, as torch's does).
COMPILE_FLAGS = ["-std=c++20", "-O1", "-w", "-pthread", "-fsanitize=signed-integer-overflow",
                 "-fno-sanitize-recover=signed-integer-overflow"]


def precompile_header(cxx, cuda_include, directory):
    """Precompiles cuda_emulation.h, with the CUDA fp16/bf16 headers it pulls
    in (parsing them is about 1.1 s of each kernel's 1.7 s compile), into
    `directory`. Returns the directory to put first on the include path, or
    None where the compiler cannot (kernels then parse the headers
    themselves: slower, same result)."""
    built = subprocess.run([cxx, *COMPILE_FLAGS, f"-I{cuda_include}", "-x", "c++-header",
                            os.path.join(HERE, "cuda_emulation.h"),
                            "-o", os.path.join(directory, "cuda_emulation.h.gch")],
                           capture_output=True, text=True)
    return directory if built.returncode == 0 else None


class Runner:
    """args: translate, cuda_include, cxx, and optionally only (--only) and
    pch_dir (a directory from precompile_header)."""
    def __init__(self, args):
        self.args = args
        self.sources = {}

    def wanted(self, name):
        only = getattr(self.args, "only", None)
        return not only or any(o in name for o in only.split(","))

    def kernel_source(self, file, name):
        if file not in self.sources:
            out = subprocess.run([self.args.translate, "--emit-cuda",
                                  os.path.join(INPUTS, file)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise RuntimeError(f"tfc-translate failed on {file}:\n{out.stderr}")
            self.sources[file] = out.stdout
        text = self.sources[file]
        start = text.index(f"// ===== kernel {name}:")
        end = text.find("// ===== kernel", start + 1)
        return text[start:end if end >= 0 else len(text)]

    def run(self, file, name, inputs, outputs, in_place=None):
        """Runs kernel `name` of `file` on `inputs` (tensors); `outputs` are
        (dtype, shape) pairs. `in_place` maps output k to input j: the kernel
        gets input j's buffer for output k too, as a launch that updates in
        place passes it. Returns the output tensors."""
        in_place = in_place or {}
        if not self.wanted(name):  # --only: not compiled, zeros
            return [torch.zeros(shape, dtype=dtype) for dtype, shape in outputs]
        source = self.kernel_source(file, name)
        launch = re.search(r"grid \[(\d+), (\d+), (\d+)\], block \[(\d+), (\d+), (\d+)\]",
                           source).groups()
        work = tempfile.mkdtemp(prefix="tfc-emu-")
        main = ['#include "cuda_emulation.h"', source, "#include <fstream>",
                "#include <iterator>", "int main() {"]
        params = []
        for k, t in enumerate(inputs):
            path = os.path.join(work, f"in{k}.bin")
            with open(path, "wb") as f:
                f.write(to_bytes(t))
            main.append(f'  std::ifstream f{k}("{path}", std::ios::binary);')
            main.append(f"  std::vector<char> in{k}((std::istreambuf_iterator<char>(f{k})), {{}});")
            main.append(f"  in{k}.resize(in{k}.size() + 16);")
            params.append(f"(const {C_TYPES[t.dtype]}*)in{k}.data()")
        sizes = []
        for k, (dtype, shape) in enumerate(outputs):
            count = 1
            for s in shape:
                count *= s
            size = count * torch.empty(0, dtype=dtype).element_size()
            sizes.append(size)
            buffer = f"in{in_place[k]}" if k in in_place else f"out{k}"
            if k not in in_place:  # all-ones bytes (NaN): unwritten outputs show
                main.append(f"  std::vector<char> out{k}({size} + 16, (char)0xff);")
            params.append(f"({C_TYPES[dtype]}*){buffer}.data()")
        main.append(f"  emu_launch({name}, emu_dim3{{{launch[0]}, {launch[1]}, {launch[2]}}}, "
                    f"emu_dim3{{{launch[3]}, {launch[4]}, {launch[5]}}}, {', '.join(params)});")
        for k, size in enumerate(sizes):
            path = os.path.join(work, f"out{k}.bin")
            buffer = f"in{in_place[k]}" if k in in_place else f"out{k}"
            main.append(f'  std::ofstream o{k}("{path}", std::ios::binary); o{k}.write({buffer}.data(), {size});')
        main.append("}")
        with open(os.path.join(work, "main.cpp"), "w") as f:
            f.write("\n".join(main))
        exe = os.path.join(work, "main")
        pch = getattr(self.args, "pch_dir", None)
        build = subprocess.run([self.args.cxx, *COMPILE_FLAGS, *([f"-I{pch}"] if pch else []),
                                f"-I{HERE}", f"-I{self.args.cuda_include}",
                                os.path.join(work, "main.cpp"), "-o", exe],
                               capture_output=True, text=True)
        if build.returncode != 0:
            raise RuntimeError(f"{name}: host compile failed:\n{build.stderr[:4000]}")
        result = subprocess.run([exe], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{name}: emulation failed:\n{result.stderr}")
        outs = []
        for k, (dtype, shape) in enumerate(outputs):
            with open(os.path.join(work, f"out{k}.bin"), "rb") as f:
                outs.append(from_bytes(f.read(), dtype, shape))
        subprocess.run(["rm", "-rf", work])
        return outs


def cases(run):
    """(name, got, expected, check) for every checked kernel output; check is
    False (torch.testing's defaults), True (bit-exact) or (rtol, atol)."""
    F = torch.nn.functional
    pw, rr = "pointwise.mlir", "row-reduction.mlir"
    cr, ga = "column-reduction.mlir", "gather.mlir"

    x, b = torch.randn(16, 64, 128), torch.randn(128)
    o, = run(pw, "bias_gelu", [x, b], [(torch.float32, (16, 64, 128))])
    yield "bias_gelu", o, F.gelu(x + b, approximate="tanh"), False

    x, b = torch.randn(16, 3, 40), torch.randn(48, 40)
    o, = run(rr, "norm_read_as_other_rows", [x, b], [(torch.float32, (48, 40))])
    yield "norm_read_as_other_rows", o, F.layer_norm(x, (3, 40)).reshape(48, 40) + b, False

    x = torch.randn(64, 32, dtype=torch.float64)
    o, = run(pw, "gelu_f64", [x], [(torch.float64, (64, 32))])
    yield "gelu_f64", o, F.gelu(x), False

    x = torch.randn(64, 32) * 10
    o, = run(pw, "cos_sin", [x], [(torch.float32, (64, 32))])
    yield "cos_sin", o, torch.sin(torch.cos(x)), False

    # atan2 over all four quadrants, the axes and signed zeros; bf16 is
    # computed in f32 and rounded once, f64 is the double atan2.
    special = torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf")])
    y, x = torch.randn(16, 96) * 3, torch.randn(96) * 3
    y[:6, :6] = special.view(6, 1)
    x[:6] = special
    yb, xb = y.bfloat16(), x.bfloat16()
    o, = run(pw, "atan2_bf16", [yb, xb], [(torch.bfloat16, (16, 96))])
    yield "atan2_bf16", o, torch.atan2(yb.float(), xb.float()).bfloat16(), False
    y, x = torch.randn(33, 7, dtype=torch.float64), torch.randn(33, 7, dtype=torch.float64)
    y[:6, 0], x[:6, 0] = special.double(), special.double().flip(0)
    o, = run(pw, "atan2_f64", [y, x], [(torch.float64, (33, 7))])
    yield "atan2_f64", o, torch.atan2(y, x), False

    # fmod is exact: bit-exact against torch in f16 (computed in f32) and
    # f64, with the sign of zero results (the dividend's) checked as well
    # (not NaN's: libm's NaN and torch's differ in sign bit).
    # Divisors of both signs, zero and infinite; dividends that are exact
    # multiples, signed zeros, infinities and far larger than the divisor.
    x = (torch.randn(24, 40) * 50).half()
    y = (torch.randn(40) * 4).half()
    y[:4] = torch.tensor([0.0, -0.0, float("inf"), -float("inf")])
    x[:6, :] = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), 6e4, -6e4]).half().view(6, 1)
    x[6, :] = y * 3
    x[7, :] = y * -5
    o, = run(pw, "fmod_f16", [x, y], [(torch.float16, (24, 40))])
    ref = torch.fmod(x.float(), y.float()).half()
    yield "fmod_f16", o, ref, True
    signs = ~ref.isnan()
    yield "fmod_f16 signs", torch.signbit(o[signs]), torch.signbit(ref[signs]), True
    x = torch.randn(33, 7, dtype=torch.float64) * 1e3
    y = torch.randn(33, 7, dtype=torch.float64)
    x[:, 0] = y[:, 0] * torch.arange(-16, 17, dtype=torch.float64)
    x[:4, 1] = torch.tensor([1e300, -1e300, 5e-324, -0.0], dtype=torch.float64)
    y[:4, 2] = torch.tensor([0.0, float("inf"), -float("inf"), -1e-300], dtype=torch.float64)
    o, = run(pw, "fmod_f64", [x, y], [(torch.float64, (33, 7))])
    ref = torch.fmod(x, y)
    yield "fmod_f64", o, ref, True
    signs = ~ref.isnan()
    yield "fmod_f64 signs", torch.signbit(o[signs]), torch.signbit(ref[signs]), True

    # Bitwise ops are exact over the whole integer range (0, -1 and the
    # extremes included); on bool, not must be logical (`~` of a C++ bool
    # stays true).
    i64 = torch.iinfo(torch.int64)
    x = torch.randint(i64.min, i64.max, (24, 40))
    y = torch.randint(i64.min, i64.max, (40,))
    x[0, :4] = y[:4] = torch.tensor([0, -1, i64.min, i64.max])
    o, = run(pw, "bitwise_i64", [x, y], [(torch.int64, (24, 40))])
    yield "bitwise_i64", o, ((x ^ y) & 4095) | ~x, True
    i32 = torch.iinfo(torch.int32)
    x = torch.randint(i32.min, i32.max, (33, 7), dtype=torch.int32)
    y = torch.randint(i32.min, i32.max, (33, 7), dtype=torch.int32)
    x[:4, 0] = torch.tensor([0, -1, i32.min, i32.max], dtype=torch.int32)
    p, q = torch.rand(33, 7) < 0.5, torch.rand(7) < 0.5
    o, m = run(pw, "bitwise_i32_i1", [x, y, p, q], [(torch.int32, (33, 7)), (torch.bool, (33, 7))])
    yield "bitwise_i32_i1 i32", o, ~(x ^ y), True
    yield "bitwise_i32_i1 i1", m, ~((p & q) ^ p) | q, True

    # Integer +, -, *, neg, abs wrap over the whole range as torch's (hash
    # primes times coordinates overflow); INT_MIN / -1 is INT_MIN (torch
    # raises SIGFPE there: the reference negates where the divisor is -1).
    def div_trunc(a, b):
        minus_one = b == -1
        q = torch.div(a, torch.where(minus_one, torch.ones_like(b), b), rounding_mode="trunc")
        return torch.where(minus_one, -a, q)
    x = torch.randint(i64.min, i64.max, (24, 40))
    y = torch.randint(i64.min, i64.max, (40,))
    x[0, :4] = torch.tensor([0, -1, i64.min, i64.max])
    y[:4] = torch.tensor([3, -1, i64.min, i64.max])  # no zero divisor
    y[y == 0] = 3
    x[1:3, 1] = i64.min
    o, n, q = run(pw, "wrap_i64", [x, y], [(torch.int64, (24, 40))] * 3)
    yield "wrap_i64 mul add sub", o, x * 2654435761 + y - x, True
    yield "wrap_i64 neg abs", n, -x + y.abs(), True
    yield "wrap_i64 div", q, div_trunc(x, y.expand(24, 40)), True
    u = torch.randint(i32.min, i32.max, (33, 7), dtype=torch.int32)
    v = torch.randint(i32.min, i32.max, (33, 7), dtype=torch.int32)
    u[:4, 0] = v[:4, 0] = torch.tensor([0, -1, i32.min, i32.max], dtype=torch.int32)
    u[1:3, 1], v[1:3, 1] = i32.min, -1
    v[v == 0] = 3  # no zero divisor
    o, q = run(pw, "wrap_i32", [u, v], [(torch.int32, (33, 7))] * 2)
    yield "wrap_i32 mul sub neg abs add", o, u * 73856093 - (-v) + u.abs(), True
    yield "wrap_i32 div", q, div_trunc(u, v), True

    # Shifts over the whole range with amounts in and out of [0, bits): torch
    # >= 2.1's rule (<< gives 0, >> the sign fill outside it), written out
    # here (torch 1.13 takes the amount modulo the width) from in-range
    # shifts.
    def shift_ref(a, k, bits, left):
        out = (k < 0) | (k >= bits)
        kk = torch.where(out, torch.zeros_like(k), k)
        if left:
            return torch.where(out, torch.zeros_like(a), a << kk)
        return torch.where(out, a >> (bits - 1), a >> kk)
    x = torch.randint(i64.min, i64.max, (24, 40))
    y = torch.arange(-4, 36) * 2 - 4  # -12 .. 66
    x[0, :4] = torch.tensor([0, -1, i64.min, i64.max])
    o, = run(pw, "shifts", [x, y], [(torch.int64, (24, 40))])
    yield "shifts i64", o, shift_ref(shift_ref(x, y, 64, True), y, 64, False), True
    u = torch.randint(i32.min, i32.max, (33, 7), dtype=torch.int32)
    v = torch.randint(-3, 36, (33, 7), dtype=torch.int32)
    u[:4, 0] = torch.tensor([0, -1, i32.min, i32.max], dtype=torch.int32)
    v[:6, 1] = torch.tensor([0, 31, 32, -1, 33, 1], dtype=torch.int32)
    o, q = run(pw, "shifts_i32", [u, v], [(torch.int32, (33, 7))] * 2)
    yield "shifts_i32 <<", o, shift_ref(u, v, 32, True), True
    yield "shifts_i32 >>", q, shift_ref(u, v, 32, False), True

    x = torch.randn(8, 40) * 2
    x[0, :4] = torch.tensor([0.0, -0.0, float("inf"), -float("inf")])
    xh, xd = x.half(), x.double() * 2
    h, d = run(pw, "erf_f16_f64", [xh, xd], [(torch.float16, (8, 40)), (torch.float64, (8, 40))])
    yield "erf_f16_f64 f16", h, torch.erf(xh.float()).half(), False
    yield "erf_f16_f64 f64", d, torch.erf(xd), False

    x = torch.randn(16, 64, 384)
    o, = run(pw, "split_heads", [x], [(torch.bfloat16, (16, 4, 64, 32))])
    ref = x[:, :, 128:256].reshape(16, 64, 4, 32).permute(0, 2, 1, 3).bfloat16()
    yield "split_heads", o, ref, True

    x = torch.randn(6, 10)
    o, = run(pw, "odd_size", [x], [(torch.float32, (3, 5))])
    yield "odd_size", o, torch.relu(x[::2, ::2]), True

    s = torch.randn(16, 4, 64, 64)
    o, = run(pw, "causal_mask", [s], [(torch.float32, (16, 4, 64, 64))])
    mask = torch.ones(64, 64, dtype=torch.bool).tril()
    yield "causal_mask", o, s.masked_fill(~mask, float("-inf")), True

    a, c = torch.randn(4, 5), torch.randn(4, 3)
    o, = run(pw, "concat_pad", [a, c], [(torch.float32, (5, 10))])
    yield "concat_pad", o, F.pad(torch.cat([a, c], 1), (0, 2, 1, 0), value=-1.5), True

    xb = torch.randn(16, 64, 128).bfloat16()
    o, = run(pw, "dropout_bf16", [xb, torch.tensor(1234), torch.tensor(99)],
             [(torch.bfloat16, (16, 64, 128))])
    kept = o != 0
    frac = kept.float().mean().item()
    yield "dropout_bf16 keep rate", torch.tensor(abs(frac - 0.9) < 0.01), torch.tensor(True), True
    scale = torch.tensor(1 / 0.9, dtype=torch.float32)
    yield "dropout_bf16 kept values", o[kept], (xb.float()[kept] * scale).bfloat16(), True

    # tfc.random against philox.py (test/numerics): the uniforms bit for
    # bit, the normals to the dtype's tolerance (CUDA's logf/cosf vs double).
    x, seed, offset = torch.randn(32, 50), 0x1234ABCD5678, 77
    y, d, h, bf = run(pw, "random_draws", [x, torch.tensor(seed), torch.tensor(offset)],
                      [(torch.float32, (32, 50)), (torch.float64, (32, 50)),
                       (torch.float16, (32, 50)), (torch.bfloat16, (32, 50))])

    def draws(distribution, dtype):
        values = philox.random_values(seed, offset, 1600, distribution, dtype)
        return torch.tensor(values, dtype=torch.float64).reshape(32, 50)
    ref = x.double() + draws("normal", "f32") + draws("uniform", "f32")
    yield "random_draws noise", y, ref.float(), False
    yield "random_draws normal f64", d, draws("normal", "f64"), False
    yield "random_draws uniform f16", h, draws("uniform", "f16").half(), True
    yield "random_draws uniform bf16", bf, draws("uniform", "bf16").bfloat16(), True

    x = torch.randn(8, 4)
    o, = run(pw, "dense_table", [x], [(torch.float32, (8, 4))])
    yield "dense_table", o, x * torch.tensor([1.0, 2.5, -3.0, 0.125]), True

    xi = torch.randint(-5000, 5000, (64,))
    h, z = run(pw, "conversions", [xi], [(torch.float16, (64,)), (torch.bool, (64,))])
    yield "conversions f16", h, xi.half() * 3, True
    yield "conversions i1", z, (xi.half() * 3) != 0, True

    # Outputs of two sizes: one loop per size in one launch.
    x, b = torch.randn(4096, 3), torch.randn(3)
    y, nb = run(pw, "two_sizes", [x, b], [(torch.float32, (4096, 3)), (torch.float32, (3,))])
    yield "two_sizes sum", y, x + b, True
    yield "two_sizes neg", nb, -b, True

    x, w, c = torch.randn(16, 64, 128), torch.randn(128), torch.randn(128)
    y, m, r = run(rr, "layer_norm", [x, w, c], [(torch.float32, (16, 64, 128)),
                                                (torch.float32, (16, 64, 1)),
                                                (torch.float32, (16, 64, 1))])
    ry, rm, rs = torch.ops.aten.native_layer_norm(x, [128], w, c, 1e-5)
    yield "layer_norm y", y, ry, False
    yield "layer_norm mean", m, rm, False
    yield "layer_norm rstd", r, rs, False

    x = torch.randn(64, 1000)
    o, = run(rr, "softmax_1000", [x], [(torch.float32, (64, 1000))])
    yield "softmax_1000", o, torch.softmax(x, -1), False

    # The online statistics combined across a warp (rows of 1000), with the
    # columns of lanes 0-7 and 16-23 masked (lanes whose (max, sum) is
    # (-inf, n) meet in the butterfly's first step), a row of -inf and an
    # +inf.
    x, t = torch.randn(64, 1000) * 5, torch.tensor(0.7)
    x[3, torch.arange(1000) % 16 < 8] = float("-inf")
    x[4] = float("-inf")
    x[5, 999] = float("inf")
    o, = run(rr, "softmax_slow_prologue", [x, t], [(torch.float32, (64, 1000))])
    yield "softmax_slow_prologue", o, torch.softmax(x / t, -1), False

    x = (torch.randn(8, 50257) * 3).bfloat16()
    o, = run(rr, "log_softmax_vocab", [x], [(torch.bfloat16, (8, 50257))])
    yield "log_softmax_vocab", o, torch.log_softmax(x.float(), -1).bfloat16(), False
    # The online statistics of a re-read row with masked logits, a row of
    # -inf, an +inf and a NaN: NaN rows where PyTorch's two passes give NaN.
    x[1, :40000] = float("-inf")
    x[2] = float("-inf")
    x[3, 777] = float("inf")
    x[4, 5] = float("nan")
    x[5, 50000:] = 1e4
    x[6, torch.arange(50257) % 1024 < 64] = float("-inf")  # warps 0 and 1: (-inf, n)
    o, = run(rr, "log_softmax_vocab", [x], [(torch.bfloat16, (8, 50257))])
    yield "log_softmax_vocab (inf, NaN)", o, torch.log_softmax(x.float(), -1).bfloat16(), False

    x, w = torch.randn(32, 256).bfloat16(), torch.randn(256)
    y, r = run(rr, "rms_norm_bf16", [x, w], [(torch.bfloat16, (32, 256)), (torch.float32, (32, 1))])
    rs = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)
    yield "rms_norm rstd", r, rs, False
    yield "rms_norm y", y, (x.float() * rs * w).bfloat16(), False

    logits, labels = torch.randn(1024, 256), torch.randint(0, 256, (1024,))
    labels[::7] = 7
    loss, = run(rr, "cross_entropy", [logits, labels], [(torch.float32, ())])
    yield "cross_entropy", loss, F.cross_entropy(logits, labels, ignore_index=7,
                                                 label_smoothing=0.1), False

    logits = torch.randn(8, 10, dtype=torch.float64)
    labels = torch.randint(0, 10, (8,), dtype=torch.int32)
    labels[2] = -100
    loss, = run(rr, "cross_entropy_sum_f64", [logits, labels], [(torch.float64, ())])
    yield "cross_entropy_sum_f64", loss, 0.5 * F.cross_entropy(logits, labels.long(),
                                                               reduction="sum"), False

    x, y = torch.randn(4, 8), torch.randn(4, 2, 4)
    s, m = run(rr, "trailing_reductions", [x, y], [(torch.float32, (4,)), (torch.float32, (4, 1, 1))])
    yield "trailing reduce_sum", s, x.sum(-1), False
    yield "trailing reduce_max", m, y.amax((1, 2), keepdim=True), True

    x = torch.randn(32, 64)
    o, = run(rr, "manual_softmax", [x], [(torch.float32, (32, 64))])
    yield "manual_softmax", o, torch.softmax(x, -1), False

    x, r0 = torch.randn(16, 64, 128), torch.randn(16, 64, 128)
    w = torch.randn(128)
    o, = run(rr, "fused_block", [x, r0, w, torch.tensor(5), torch.tensor(0)],
             [(torch.float32, (16, 64, 128))])
    # The dropout mask is Philox's, not torch's: recover it from a pure
    # dropout kernel of the same (seed, offset) and shape.
    ones = torch.ones(16, 64, 128).bfloat16()
    mask, = run(pw, "dropout_bf16", [ones, torch.tensor(5), torch.tensor(0)],
                [(torch.bfloat16, (16, 64, 128))])
    h = x * (mask != 0) * torch.tensor(1 / 0.9, dtype=torch.float32) + r0
    p = torch.softmax(F.layer_norm(h, [128], w), -1)
    ref = p * torch.rsqrt(p.pow(2).mean(-1, keepdim=True) + 1e-5)
    yield "fused_block", o, ref, False

    # A sum of 1024 values of both signs: any two f32 summation orders differ
    # by up to ~log2(n) * eps * sum|x|, which can exceed the f32 default
    # tolerance where the sum is near 0. Compared with the exact (f64) sum
    # within 1e-6 * sum|x| (~16 ulps of sum|x|; one lost element is ~1e3x more).
    dy = torch.randn(16, 64, 128)
    o, = run(cr, "bias_grad", [dy], [(torch.float32, (128,))])
    bound = 1e-6 * dy.abs().sum((0, 1)).max().item()
    yield "bias_grad", o.double(), dy.double().sum((0, 1)), (0.0, bound)

    x = torch.randn(4, 8, 4096).bfloat16()
    m, n, e = run(cr, "mean_max_bf16", [x], [(torch.bfloat16, (8, 4096)),
                                            (torch.bfloat16, (1, 8, 4096)),
                                            (torch.bfloat16, (4, 8, 4096))])
    ex = torch.exp(x.float()).bfloat16()
    yield "column reduce_mean", m, ex.float().mean(0).bfloat16(), False
    yield "column reduce_max", n, -ex.amax(0, keepdim=True), True
    yield "column prologue output", e, ex, True

    # Integer sums wrap as torch's (terms over the whole i64 range).
    x = torch.randint(i64.min, i64.max, (4, 512, 96))
    o, = run(cr, "middle_dim_i64", [x], [(torch.int64, (4, 96))])
    yield "middle_dim_i64", o, x.sum(1), True
    x = torch.randint(i32.min, i32.max, (16, 300), dtype=torch.int32)
    o, = run(rr, "row_sum_i32", [x], [(torch.int32, (16,))])
    yield "row_sum_i32", o, (x.long() * x.long()).sum(1).to(torch.int32), True

    table, wpe = torch.randn(256, 128), torch.randn(64, 128)
    ids = torch.randint(0, 256, (16, 64))
    ids[0, 0], ids[1, 1] = 300, -1
    o, = run(ga, "embed", [table, ids, wpe], [(torch.float32, (16, 64, 128))])
    ref = F.embedding(ids.clamp(0, 255), table)
    ref[0, 0] = 0  # out-of-range ids read as a row of zeros
    ref[1, 1] = 0
    yield "embed", o, ref + wpe, True

    # Backward ops (backward.mlir) against torch.autograd / PyTorch's
    # backward kernels, computed in float64 and rounded once.
    yield from backward_cases(run)
    yield from block_quantized_cases(run)
    yield from scatter_cases(run)
    yield from sort_cases(run)
    yield from in_place_cases(run)
    yield from schedule_cases(run)


def schedule_cases(run):
    """Kernels of schedules.mlir: launch schedules other than the default
    target's (block per row, few blocks, narrow vectors, other row groups)."""
    F = torch.nn.functional
    sc = "schedules.mlir"

    x = torch.randn(64, 64)
    o, = run(sc, "softmax_block_rows", [x], [(torch.float32, (64, 64))])
    yield "softmax_block_rows", o, torch.softmax(x, -1), False

    x, w, b = torch.randn(16, 64, 128), torch.randn(128), torch.randn(128)
    y, m, r = run(sc, "layer_norm_two_rows", [x, w, b],
                  [(torch.float32, (16, 64, 128)), (torch.float32, (16, 64, 1)),
                   (torch.float32, (16, 64, 1))])
    yield "layer_norm_two_rows", y, F.layer_norm(x, (128,), w, b, 1e-5), False
    yield "layer_norm_two_rows: mean", m, x.mean(-1, keepdim=True), False

    logits, labels = torch.randn(1000, 96), torch.randint(0, 96, (1000,))
    o, = run(sc, "cross_entropy_seven_blocks", [logits, labels], [(torch.float32, ())])
    yield "cross_entropy_seven_blocks", o, F.cross_entropy(logits, labels), False

    x = torch.randn(300, 96)
    mx, cs = run(sc, "column_sums_one_warp", [x],
                 [(torch.float32, (300,)), (torch.float32, (96,))])
    yield "column_sums_one_warp: row max", mx, x.amax(1), True
    yield "column_sums_one_warp: column sum", cs, x.double().sum(0).float(), (1e-5, 1e-5)

    x = torch.randn(1000)
    o, = run(sc, "gelu_scalar", [x], [(torch.float32, (1000,))])
    yield "gelu_scalar", o, F.gelu(x), False

    a, c = torch.randn(4096).half(), torch.randn(4096).half()
    o, = run(sc, "add_f16_vec8", [a, c], [(torch.float16, (4096,))])
    yield "add_f16_vec8", o, a + c, True

    x = torch.randn(4096, 64)
    o, = run(sc, "column_sum_four_groups", [x], [(torch.float32, (64,))])
    yield "column_sum_four_groups", o, x.double().sum(0).float(), (1e-5, 1e-4)

    x, y = torch.randn(5000), torch.randn(77, 3)
    s, m = run(sc, "sums_three_blocks", [x, y], [(torch.float32, ()), (torch.float32, ())])
    yield "sums_three_blocks: sum", s, x.double().sum().float(), (1e-5, 1e-4)
    yield "sums_three_blocks: max", m, y.max(), True

    # unroll = 3: elements loaded ahead in chunks, the last one ragged.
    dy, y = torch.randn(6, 5000), torch.softmax(torch.randn(6, 5000), -1)
    o, = run(sc, "softmax_grad_ahead_three", [dy, y], [(torch.float32, (6, 5000))])
    ref = torch._softmax_backward_data(dy.double(), y.double(), -1, torch.float64)
    yield "softmax_grad_ahead_three", o, ref.float(), False

    logits, labels = torch.randn(6, 5000) * 4, torch.randint(0, 5000, (6,))
    logits[2, 10:4000] = float("-inf")
    loss, o = run(sc, "cross_entropy_and_grad_ahead_three", [logits, labels],
                  [(torch.float32, ()), (torch.float32, (6, 5000))])
    ref, = vjp(lambda t: F.cross_entropy(t, labels), [logits], None, [0])
    yield "cross_entropy_and_grad_ahead_three: loss", loss, \
        F.cross_entropy(logits.double(), labels).float(), False
    yield "cross_entropy_and_grad_ahead_three: gradient", o, ref.float(), False


def in_order_scatter(dy, ids, vocab, dtype):
    """dtable[v] = sum of dy rows at positions holding v, added in position
    order from zero in `dtype` (the kernel's accumulator): bit for bit what
    the scatter kernel and the host interpreter compute."""
    dy = dy.reshape(ids.numel(), -1).to(dtype)
    table = torch.zeros(vocab, dy.shape[1], dtype=dtype)
    for i, v in enumerate(ids.flatten().tolist()):
        if 0 <= v < vocab:
            table[v] += dy[i]
    return table


def scatter_cases(run):
    """embedding_grad (scatter.mlir): exact against the in-order sum, and
    against torch's embedding backward within float reassociation."""
    F = torch.nn.functional
    sc = "scatter.mlir"
    # Repeated ids (a few rows hit many times), unmatched rows, and ids
    # outside [0, 300), which add nothing.
    dy = torch.randn(16, 64, 128)
    ids = torch.randint(0, 40, (16, 64)) * 7 % 290
    ids[0, :5] = torch.tensor([-1, 300, 1000, -300, 299])
    o, = run(sc, "embedding_grad", [dy, ids], [(torch.float32, (300, 128))])
    yield "embedding_grad (in order)", o, in_order_scatter(dy, ids, 300, torch.float32), True
    valid = (ids >= 0) & (ids < 300)
    table = torch.zeros(300, 128, dtype=torch.float64, requires_grad=True)
    F.embedding(ids.clamp(0, 299), table).mul(valid.unsqueeze(-1)).backward(dy.double())
    yield "embedding_grad (torch)", o, table.grad.float(), (1e-5, 1e-5)

    dy = torch.randn(37, 1100).bfloat16()
    ids = torch.randint(0, 50, (37,), dtype=torch.int32)
    ids[3:9] = 17
    o, = run(sc, "embedding_grad_bf16", [dy, ids], [(torch.bfloat16, (50, 1100))])
    yield "embedding_grad_bf16", o, in_order_scatter(dy, ids, 50, torch.float32).bfloat16(), True

    a, b = torch.randn(5, 3, 33).double(), torch.randn(5, 3, 33).double()
    ids = torch.randint(0, 7, (5, 3))
    o, = run(sc, "embedding_grad_prologue", [a, b, ids], [(torch.float64, (7, 33))])
    yield "embedding_grad_prologue", o, in_order_scatter(a + b, ids, 7, torch.float64), True

    dy = torch.randn(6, 40)
    o, = run(sc, "embedding_grad_constant_ids", [dy], [(torch.float32, (6, 40))])
    ids = torch.tensor([3, 0, 3, 5, 1, 3])
    yield "embedding_grad_constant_ids", o, in_order_scatter(dy, ids, 6, torch.float32), True

    # Rows of one element (scatter_add's flattened positions), repeated ids.
    dy = torch.randn(32, 1)
    ids = torch.randint(0, 144, (32,))
    ids[4:9] = 77
    o, = run(sc, "embedding_grad_width_one", [dy, ids], [(torch.float32, (144, 1))])
    yield "embedding_grad_width_one", o, in_order_scatter(dy, ids, 144, torch.float32), True


def sort_cases(run):
    """tfc.sort (sort.mlir) against torch.sort(stable=True): indices exact,
    values bit for bit (signed zeros compared through their bits; NaN
    payloads, which neither defines, as one NaN)."""
    def bits(t):
        if t.is_floating_point():
            t = t.masked_fill(t.isnan(), float("nan"))
        if t.dtype in (torch.float32, torch.float64):
            return t.view(torch.int32 if t.dtype == torch.float32 else torch.int64)
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16)
        return t

    def special(rows, n, dtype=torch.float32):
        # NaN, infinities, signed zeros and ties among random values.
        x = torch.randn(rows, n)
        x[:, ::7] = x[:, ::7].round()
        x[0, :9] = torch.tensor([float("nan"), 1.0, -0.0, float("inf"), 0.0, float("-inf"),
                                 float("nan"), 1.0, -0.0])
        x[-1, n - 6:] = torch.tensor([0.0, -0.0, float("nan"), -0.0, 0.0, 1.0])
        return x.to(dtype)

    so = "sort.mlir"
    x = special(3, 1000)
    v, i = run(so, "sort_f32", [x], [(torch.float32, (3, 1000)), (torch.int64, (3, 1000))])
    want = torch.sort(x, dim=-1, stable=True)
    yield "sort_f32 values", bits(v), bits(want.values), True
    yield "sort_f32 indices", i, want.indices, True

    x = special(2, 5000)
    i, v = run(so, "sort_long", [x], [(torch.int64, (2, 5000)), (torch.float32, (2, 5000))])
    want = torch.sort(x, dim=-1, descending=True, stable=True)
    yield "sort_long values", bits(v), bits(want.values), True
    yield "sort_long indices", i, want.indices, True

    x = special(4, 37, torch.bfloat16)
    v, i = run(so, "sort_bf16", [x], [(torch.bfloat16, (4, 37)), (torch.int64, (4, 37))])
    want = torch.sort(x, dim=-1, stable=True)
    yield "sort_bf16 values", bits(v), bits(want.values), True
    yield "sort_bf16 indices", i, want.indices, True

    x = torch.randint(-20, 20, (3, 300))
    x[1, :4] = torch.tensor([2 ** 62, -2 ** 62, 5, 5])
    v, i = run(so, "sort_i64", [x], [(torch.int64, (3, 300)), (torch.int64, (3, 300))])
    want = torch.sort(x, dim=-1, descending=True, stable=True)
    yield "sort_i64 values", v, want.values, True
    yield "sort_i64 indices", i, want.indices, True

    x = torch.randn(5, 1, dtype=torch.float64)
    v, i = run(so, "sort_single", [x], [(torch.float64, (5, 1)), (torch.int64, (5, 1))])
    yield "sort_single values", v, x, True
    yield "sort_single indices", i, torch.zeros(5, 1, dtype=torch.int64), True


def block_quantized_cases(run):
    """adamw8bit (block-quantized.mlir) against the Python reference of the
    algorithm in test/numerics/adamw8bit.py: codes bit for bit."""
    sys.path.insert(0, os.path.join(INPUTS, "..", "..", "numerics"))
    import adamw8bit
    n, blocks = 40 * 130, 21
    p, g = torch.randn(40, 130), (torch.randn(40, 130) * 0.1).bfloat16()
    cm = torch.randint(0, 256, (40, 130), dtype=torch.uint8)
    cv = torch.randint(0, 256, (40, 130), dtype=torch.uint8)
    am, av = torch.rand(blocks) * 0.05, torch.rand(blocks) * 0.01
    lr = torch.tensor(1e-3, dtype=torch.float32)
    outs = run("block-quantized.mlir", "adamw8bit",
               [p, g, cm, am, cv, av, lr, torch.tensor(7)],
               [(torch.float32, (40, 130)), (torch.uint8, (40, 130)), (torch.float32, (blocks,)),
                (torch.uint8, (40, 130)), (torch.float32, (blocks,))])
    want = adamw8bit.reference_step(p.flatten(), g.float().flatten(), cm.flatten(), am,
                                    cv.flatten(), av, float(lr), 7, 0.85, 0.999, 1e-8, 0.1, 256)
    names = ["param", "exp_avg codes", "exp_avg absmax", "exp_avg_sq codes", "exp_avg_sq absmax"]
    for name, o, w in zip(names, outs, want):
        yield f"adamw8bit {name}", o.flatten(), w, "codes" in name


def in_place_cases(run):
    """Kernels that update in place (tfcrt.kernel in_place), run with one
    buffer for each (output, input) pair as their launches do, give bit for
    bit what they give with separate buffers (and the reference)."""
    for skip in (False, True):
        old, new = torch.randn(1000, 130), torch.randn(1000, 130)
        o, = run("pointwise.mlir", "keep_on_skip", [torch.tensor(skip), old, new],
                 [(torch.float32, (1000, 130))], in_place={0: 1})
        yield f"keep_on_skip in place (skip={skip})", o, old if skip else new, True

    n = 1000
    inputs = [torch.randn(n), torch.randn(n), torch.randn(n) * 0.1, torch.rand(n) * 0.01,
              torch.tensor(1e-3, dtype=torch.float32), torch.tensor(3)]
    outputs = [(torch.float32, (n,))] * 3
    apart = run("multi-tensor.mlir", "adamw_in_place", inputs, outputs)
    shared = run("multi-tensor.mlir", "adamw_in_place", inputs, outputs,
                 in_place={0: 0, 1: 2, 2: 3})
    for name, got, want in zip(["param", "exp_avg", "exp_avg_sq"], shared, apart):
        yield f"adamw in place {name}", got, want, True

    blocks = 21
    inputs = [torch.randn(40, 130), (torch.randn(40, 130) * 0.1).bfloat16(),
              torch.randint(0, 256, (40, 130), dtype=torch.uint8), torch.rand(blocks) * 0.05,
              torch.randint(0, 256, (40, 130), dtype=torch.uint8), torch.rand(blocks) * 0.01,
              torch.tensor(1e-3, dtype=torch.float32), torch.tensor(7)]
    outputs = [(torch.float32, (40, 130)), (torch.uint8, (40, 130)), (torch.float32, (blocks,)),
               (torch.uint8, (40, 130)), (torch.float32, (blocks,))]
    apart = run("block-quantized.mlir", "adamw8bit", inputs, outputs)
    shared = run("block-quantized.mlir", "adamw8bit_in_place", inputs, outputs,
                 in_place={0: 0, 1: 2, 2: 3, 3: 4, 4: 5})
    names = ["param", "exp_avg codes", "exp_avg absmax", "exp_avg_sq codes", "exp_avg_sq absmax"]
    for name, got, want in zip(names, shared, apart):
        yield f"adamw8bit in place {name}", got, want, True


def vjp(fn, inputs, cotangent, wrt):
    leaves = [t.detach().double().requires_grad_(i in wrt) for i, t in enumerate(inputs)]
    return torch.autograd.grad(fn(*leaves), [leaves[i] for i in wrt], cotangent)


def backward_cases(run):
    F = torch.nn.functional
    bw = "backward.mlir"
    dy, x = torch.randn(16, 64, 512), torch.randn(16, 64, 512)

    # The kernel chains three derivatives at the same x (three backward ops).
    g = dy.double()
    for f in (F.gelu, lambda t: F.gelu(t, approximate="tanh"), F.silu):
        g, = vjp(f, [x], g, [0])
    o, = run(bw, "activation_grads", [dy, x], [(torch.float32, (16, 64, 512))])
    yield "activation_grads", o, g.float(), False

    dy, y = torch.randn(16, 4, 64, 64), torch.softmax(torch.randn(16, 4, 64, 64), -1)
    o, = run(bw, "softmax_grad", [dy, y], [(torch.float32, (16, 4, 64, 64))])
    ref = torch._softmax_backward_data(dy.double(), y.double(), -1, torch.float64)
    yield "softmax_grad", o, ref.float(), False

    dy = torch.randn(8, 4096).bfloat16()
    y = torch.log_softmax(torch.randn(8, 4096), -1).bfloat16()
    o, = run(bw, "log_softmax_grad", [dy, y], [(torch.bfloat16, (8, 4096))])
    ref = torch._log_softmax_backward_data(dy.double(), y.double(), -1, torch.float64)
    yield "log_softmax_grad", o, ref.bfloat16(), False

    dy, x = torch.randn(16, 64, 128).bfloat16(), torch.randn(16, 64, 128).bfloat16()
    w = torch.randn(128)
    mean = x.float().mean(-1, keepdim=True)
    rstd = torch.rsqrt(x.float().var(-1, unbiased=False, keepdim=True) + 1e-5)
    o, = run(bw, "layer_norm_grad_input", [dy, x, mean, rstd, w],
             [(torch.bfloat16, (16, 64, 128))])
    ref, = vjp(lambda x, w: F.layer_norm(x, (128,), w, None, 1e-5), [x, w], dy.double(), [0])
    yield "layer_norm_grad_input", o, ref.bfloat16(), False

    # Whole-tensor sums of a multi-tensor launch (global norm, inf/NaN check).
    g1, g2, inv = torch.randn(80, 128), torch.randn(300).bfloat16(), torch.tensor(0.5)
    for bad in (False, True):
        if bad:
            g1[3, 7] = float("inf")
        coef, found = run("multi-tensor.mlir", "grad_norm", [g1, g2, inv],
                          [(torch.float32, ()), (torch.bool, ())])
        norm = torch.sqrt(((g1.double() * 0.5) ** 2).sum() + ((g2.double() * 0.5) ** 2).sum())
        yield f"grad_norm (inf: {bad}): clip coefficient", coef, \
            torch.clamp(1.0 / (norm + 1e-6), max=1.0).float(), (1e-5, 1e-6)
        yield f"grad_norm (inf: {bad}): found_inf", found, torch.tensor(bad), True

    # Column sums over the rows in a row kernel (cross-block stage).
    dy, x, res = torch.randn(16, 64, 128), torch.randn(16, 64, 128), torch.randn(16, 64, 128)
    w = torch.randn(128)
    mean = x.mean(-1, keepdim=True)
    rstd = torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)
    o, dw, db, dbias = run(bw, "layer_norm_backward_param_grads", [dy, x, mean, rstd, w, res],
                           [(torch.float32, (16, 64, 128))] + [(torch.float32, (128,))] * 3)
    dx, = vjp(lambda x: F.layer_norm(x, (128,), w.double(), None, 1e-5), [x], dy.double(), [0])
    xhat = (x.double() - mean.double()) * rstd.double()
    yield "layer_norm_backward: dx + residual", o, (res.double() + dx).float(), (1e-4, 1e-4)
    yield "layer_norm_backward: weight grad", dw, (dy.double() * xhat).sum((0, 1)).float(), \
        (1e-4, 1e-4)
    yield "layer_norm_backward: bias grad", db, dy.double().sum((0, 1)).float(), (1e-4, 1e-4)
    yield "layer_norm_backward: residual bias grad", dbias, \
        (res.double() + dx).sum((0, 1)).float(), (1e-4, 1e-4)

    x = torch.randn(37, 96)
    mx, cm = run(bw, "row_max_and_column_mean", [x],
                 [(torch.float32, (37,)), (torch.bfloat16, (96,))])
    yield "row_max_and_column_mean: row max", mx, x.amax(1), True
    yield "row_max_and_column_mean: column mean", cm, (x.double() ** 2).mean(0).bfloat16(), False

    dy, x = torch.randn(32, 96, dtype=torch.float64), torch.randn(32, 96, dtype=torch.float64)
    rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)
    o, = run(bw, "rms_norm_grad_input", [dy, x, rstd], [(torch.float64, (32, 96))])
    ref, = vjp(lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5), [x], dy, [0])
    yield "rms_norm_grad_input", o, ref, False

    logits, labels = torch.randn(1024, 256), torch.randint(0, 256, (1024,))
    labels[::7] = -100
    dl = torch.tensor(1.5)
    o, = run(bw, "cross_entropy_grad", [dl, logits, labels], [(torch.float32, (1024, 256))])
    ref, = vjp(lambda t: F.cross_entropy(t, labels) * 1.5, [logits], None, [0])
    yield "cross_entropy_grad", o, ref.float(), False

    # The loss and its gradient in one kernel, sharing the row statistics;
    # some logits masked to -inf, some rows ignored.
    logits, labels = torch.randn(64, 20000) * 4, torch.randint(0, 20000, (64,))
    logits[5, 100:9000] = float("-inf")
    labels[::9] = -100
    loss, o = run(bw, "cross_entropy_and_grad", [logits, labels],
                  [(torch.float32, ()), (torch.float32, (64, 20000))])
    ref, = vjp(lambda t: F.cross_entropy(t, labels), [logits], None, [0])
    yield "cross_entropy_and_grad: loss", loss, F.cross_entropy(logits.double(), labels).float(), \
        False
    yield "cross_entropy_and_grad: gradient", o, ref.float(), False

    logits = torch.randn(8, 10).bfloat16()
    labels = torch.randint(0, 10, (8,), dtype=torch.int32)
    labels[3] = 0
    o, = run(bw, "cross_entropy_grad_smooth", [dl, logits, labels], [(torch.bfloat16, (8, 10))])
    ref, = vjp(lambda t: F.cross_entropy(t, labels.long(), ignore_index=0, label_smoothing=0.1,
                                         reduction="sum") * 1.5, [logits], None, [0])
    yield "cross_entropy_grad_smooth", o, ref.bfloat16(), False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--translate", required=True)
    parser.add_argument("--cuda-include", required=True)
    parser.add_argument("--cxx", default="g++")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--only", default=None,
                        help="comma-separated substrings: run only the kernels and "
                             "check only the cases whose names contain one")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    torch.manual_seed(seed)
    pch = tempfile.TemporaryDirectory(prefix="tfc-emu-pch-")
    args.pch_dir = precompile_header(args.cxx, args.cuda_include, pch.name)
    runner = Runner(args)
    failures = 0
    for name, got, expected, check in cases(runner.run):
        if not runner.wanted(name):
            continue
        try:
            if isinstance(check, tuple):
                torch.testing.assert_close(got, expected, rtol=check[0], atol=check[1],
                                           equal_nan=True)
            elif check:
                torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)
            else:
                torch.testing.assert_close(got, expected, equal_nan=True)
            print(f"ok   {name}")
        except AssertionError as e:
            failures += 1
            print(f"FAIL {name}: {e}")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
