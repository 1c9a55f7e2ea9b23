#!/usr/bin/env python3
"""Regenerates the seed corpora of the libFuzzer targets (test/fuzz/corpus/).

  test/fuzz/make-corpus.py --bin build/bin --fuzz-build build-fuzz

- fuzz-host-program: the host programs tfc-translate --emit-host writes for
  the kernels of the CUDA codegen lit inputs (test/codegen/cuda: every op
  kind), and those of mlp (SGD) and gpt-mini (AdamW, loss scaling) train
  steps compiled for the host. Programs with more than 2^16 elements in all
  (which the target parses but does not run) also get a shrunk variant, its
  large dimensions divided by a power of two, kept when the fuzz target
  parses and runs it; the largest originals are dropped to keep the corpus
  small.
- fuzz-safetensors: small files written here by the format's rules (every
  dtype, scalar and empty tensors, metadata) and a few broken ones.
- fuzz-artifact: test/fuzz/artifact/manifest.json (the mlp SGD train step
  for the host, see test/fuzz/README.md), compact and pretty, plus variants
  with one field wrong.
- fuzz-compiler: the example models and small tfc IR inputs (mlp, gpt-mini,
  bigram), some with a `// tfc-fuzz:` line of training options, and every
  `// -----` case of the tfc dialect and pass lit tests (RUN/CHECK and other
  comment lines dropped): valid and invalid IR the parser, the verifier and
  each pass are tested on.
It also writes the dictionaries test/fuzz/TARGET.dict (keywords, op names,
manifest keys) that scripts/fuzz passes to libFuzzer. Deterministic: the
same tools give the same files.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "test", "fuzz", "corpus")
MAX_ELEMENTS = 1 << 16
MAX_PROGRAM_BYTES = 4096


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# --- host programs -----------------------------------------------------------

def split_programs(text):
    progs = []
    for chunk in re.split(r"^# =====.*$", text, flags=re.M):
        chunk = chunk.strip()
        if chunk.startswith("tfc-host-program"):
            progs.append(chunk + "\n")
    return progs


def total_elements(prog):
    total = 0
    for m in re.finditer(r"^(?:in|op) %\d+ (?:\w+ )?\w+ (\S+)", prog, flags=re.M):
        pass
    for line in prog.splitlines():
        parts = line.split()
        if parts[:1] == ["in"]:
            shape = parts[3]
        elif parts[:1] == ["op"]:
            shape = parts[4]
        else:
            continue
        n = 1
        if shape != "scalar":
            for d in shape.split("x"):
                n *= int(d)
        total += n
    return total


def shrink(prog, div):
    """Divides every shape dimension and list attribute >= 16 that div
    divides; small numbers (dims, permutations, ranks) stay."""
    def num(m):
        n = int(m.group(0))
        return str(n // div) if n >= 16 and n % div == 0 else m.group(0)

    out = []
    for line in prog.splitlines():
        parts = line.split(" ")
        if parts[0] in ("in", "op"):
            i = 3 if parts[0] == "in" else 4
            if i < len(parts) and parts[i] != "scalar":
                parts[i] = re.sub(r"\d+", num, parts[i])
            parts = [re.sub(r"\d+", num, p) if re.match(r"(start|limit|low|high)=\[", p)
                     else p for p in parts]
        out.append(" ".join(parts))
    return "\n".join(out) + "\n"


def runs(fuzz_bin, prog):
    with tempfile.NamedTemporaryFile("w", suffix=".host", delete=False) as f:
        f.write(prog)
    try:
        r = subprocess.run([fuzz_bin, f.name], capture_output=True, text=True,
                           env=dict(os.environ, TFC_FUZZ_VERBOSE="1"))
        return "parse: ok" in r.stderr and re.search(r"^run.*: ok", r.stderr, re.M)
    finally:
        os.unlink(f.name)


def host_programs(bindir, fuzz_bin):
    texts = []
    for name in ["backward", "row-reduction", "pointwise", "gather", "multi-tensor",
                 "column-reduction", "block-quantized"]:
        src = os.path.join(ROOT, "test", "codegen", "cuda", name + ".mlir")
        r = subprocess.run([os.path.join(bindir, "tfc-translate"), "--emit-host", src],
                           capture_output=True, text=True, check=True)
        texts += [(name, p) for p in split_programs(r.stdout)]
    with tempfile.TemporaryDirectory() as tmp:
        for model, opts in [("mlp", "optimizer=sgd momentum=0.9 target=host"),
                            ("gpt-mini", "optimizer=adamw loss-scaling=true target=host")]:
            lowered = subprocess.run(
                [os.path.join(bindir, "tfc-opt"), os.path.join(ROOT, "examples", "models", model + ".mlir"),
                 "--tfc-train-pipeline=" + opts], capture_output=True, text=True, check=True).stdout
            art = os.path.join(tmp, model)
            subprocess.run([os.path.join(bindir, "tfc-translate"), "--emit-artifact", "-o", art],
                           input=lowered, text=True, check=True)
            kdir = os.path.join(art, "kernels")
            for k in sorted(os.listdir(kdir)):
                with open(os.path.join(kdir, k)) as f:
                    texts.append((model, f.read()))
    seen = set()
    count = 0
    for origin, prog in texts:
        variants = []
        if len(prog) <= MAX_PROGRAM_BYTES:
            variants.append(prog)
        if total_elements(prog) > MAX_ELEMENTS:
            for div in (2, 4, 8, 16, 32, 64, 128):
                small = shrink(prog, div)
                if total_elements(small) <= MAX_ELEMENTS and runs(fuzz_bin, small):
                    variants.append(small)
                    break
        for v in variants:
            h = hashlib.sha256(v.encode()).hexdigest()[:12]
            if h in seen:
                continue
            seen.add(h)
            write("fuzz-host-program", f"{origin}-{h}.host", v)
            count += 1
    # Slightly invalid: an undefined operand, a wrong result shape, no output.
    base = "tfc-host-program 1\nkind pointwise\nin %0 f32 4x8\nin %1 f32 8\n"
    write("fuzz-host-program", "bad-undefined.host", base + "op %2 add f32 4x8 (%0, %7)\nout %2\n")
    write("fuzz-host-program", "bad-shape.host", base + "op %2 add f32 4x9 (%0, %1)\nout %2\n")
    write("fuzz-host-program", "bad-no-output.host", base + "op %2 add f32 4x8 (%0, %1)\n")
    return count + 3


# --- safetensors -------------------------------------------------------------

DTYPES = {"F32": ("f", 4), "F64": ("d", 8), "F16": ("e", 2), "I32": ("i", 4),
          "I64": ("q", 8), "BOOL": ("B", 1), "BF16": ("H", 2)}


def safetensors(tensors, metadata=None, pad=True):
    """tensors: [(name, dtype, shape, values)] -> file bytes."""
    header, data = {}, b""
    for name, dtype, shape, values in tensors:
        fmt, size = DTYPES[dtype]
        raw = struct.pack("<%d%s" % (len(values), fmt), *values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata is not None:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def safetensors_seeds():
    valid = [
        ("weight", "F32", [2, 3], [1.0, -2.0, 0.5, 3.25, 0.0, -1.0]),
        ("labels", "I64", [3], [0, 5, 9]),
    ]
    write("fuzz-safetensors", "two-tensors.safetensors", safetensors(valid, {"format": "pt"}))
    every = [
        ("a", "F64", [2], [1.5, -2.5]),
        ("b", "F16", [2, 2], [1.0, 0.5, -0.25, 2.0]),
        ("c", "BF16", [3], [0x3f80, 0xbf00, 0x4000]),
        ("d", "BOOL", [4], [0, 1, 1, 0]),
        ("e", "I32", [2], [7, -3]),
        ("scalar", "F32", [], [4.0]),
        ("empty", "F32", [0, 3], []),
    ]
    write("fuzz-safetensors", "every-dtype.safetensors", safetensors(every, {"step": "12"}))
    write("fuzz-safetensors", "empty.safetensors", safetensors([]))
    write("fuzz-safetensors", "unpadded.safetensors", safetensors(valid, pad=False))
    good = safetensors(valid)
    # Broken: truncated data, a header length past the end, BOOL byte 2,
    # overlapping offsets, a shape that disagrees with the bytes.
    write("fuzz-safetensors", "bad-truncated.safetensors", good[:-5])
    write("fuzz-safetensors", "bad-header-length.safetensors",
          struct.pack("<Q", 1 << 40) + good[8:])
    write("fuzz-safetensors", "bad-bool.safetensors",
          safetensors([("d", "BOOL", [2], [0, 2])]))
    h = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},' \
        b'"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}'
    write("fuzz-safetensors", "bad-overlap.safetensors",
          struct.pack("<Q", len(h)) + h + bytes(12))
    h = b'{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}'
    write("fuzz-safetensors", "bad-shape.safetensors", struct.pack("<Q", len(h)) + h + bytes(8))
    return 9


# --- artifact manifests ------------------------------------------------------

def manifest_seeds():
    with open(os.path.join(ROOT, "test", "fuzz", "artifact", "manifest.json")) as f:
        text = f.read()
    m = json.loads(text)
    write("fuzz-artifact", "mlp-train.json", text)
    write("fuzz-artifact", "mlp-train-compact.json", json.dumps(m, separators=(",", ":")))
    n = 2

    def variant(name, edit):
        nonlocal n
        v = json.loads(text)
        edit(v)
        write("fuzz-artifact", name + ".json", json.dumps(v, separators=(",", ":")))
        n += 1

    steps = lambda v: v["entries"][0]["steps"]
    arena = [b for b in m["buffers"] if b["kind"] == "arena"]
    # The semantic corruptions: an arena view moved onto another,
    # past the arena, a GEMM one row short, steps swapped, an operand
    # rewired, a kernel without a step, a duplicated entry.
    variant("bad-offset-overlap", lambda v: v["buffers"][arena[1]["id"]].update(offset=arena[0]["offset"]))
    variant("bad-offset-outside", lambda v: v["buffers"][arena[-1]["id"]].update(offset=v["arena"]["size"]))
    variant("bad-gemm-m", lambda v: steps(v)[0].update(m=steps(v)[0]["m"] - 1))
    variant("bad-gemm-ld", lambda v: steps(v)[0].update(lda=1))
    variant("bad-swap-steps", lambda v: steps(v).insert(0, steps(v).pop(2)))
    variant("bad-arg-rewired", lambda v: steps(v)[2].update(args=[steps(v)[2]["args"][0]] * 2))
    variant("bad-sha", lambda v: v["kernels"][0]["sha256"].update(host="0" * 64))
    variant("bad-path", lambda v: v["kernels"][0].update(host="../manifest.json"))
    variant("bad-dtype", lambda v: v["buffers"][0].update(dtype="f8"))
    variant("bad-arena-size", lambda v: v["arena"].update(size=1))
    variant("alias-of-param", lambda v: v["buffers"].append(
        {"id": len(v["buffers"]), "kind": "alias", "of": 0, "dtype": "f32", "shape": [64, 128]}))
    variant("two-entries", lambda v: v["entries"].append(
        {"name": "again", "steps": v["entries"][0]["steps"][:3]}))
    return n


# --- dictionaries ------------------------------------------------------------

def dictionaries():
    """test/fuzz/TARGET.dict: tokens libFuzzer splices into inputs (-dict)."""
    fuzz = os.path.join(ROOT, "test", "fuzz")

    def write_dict(name, words, header):
        with open(os.path.join(fuzz, name), "w") as f:
            f.write(header)
            for w in words:
                f.write('"%s"\n' % w.replace('\\', '\\\\').replace('"', '\\"'))

    table = open(os.path.join(ROOT, "common", "HostOps.def")).read()
    ops = re.findall(r'TFC_HOST_OP\(\w+,\s*"(\w+)"', table)
    attrs = set()
    for m in re.finditer(r'TFC_HOST_OP\(\w+,\s*"\w+",\s*\w+,\s*-?\d+,\s*-?\d+,\s*\d+,\s*"([^"]*)"',
                         table, re.S):
        attrs.update(m.group(1).split())
    kw = ["tfc-host-program 1", "kind ", "in ", "op ", "out ", "result", "index=", "scalar", "_",
          "pointwise", "row_reduction", "column_reduction", "gather", "multi_tensor",
          "block_quantized", "f32", "f64", "f16", "bf16", "i1", "i32", "i64", "u8", "true", "false",
          "inf", "-inf", "nan", "tanh", "none", "mean", "sum", "eq", "ne", "lt", "le", "gt", "ge"]
    write_dict("fuzz-host-program.dict", kw + [o + " " for o in ops] + [a + "=" for a in sorted(attrs)],
               "# libFuzzer dictionary of fuzz-host-program: the keywords of host programs\n"
               "# (runtime/src/host/HostProgram.h), op names and attribute keys from\n"
               "# common/HostOps.def. Written by make-corpus.py; scripts/fuzz passes it with -dict.\n")
    with open(os.path.join(fuzz, "artifact", "manifest.json")) as f:
        manifest = json.load(f)
    keys = set()

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                keys.add(k)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(manifest)
    vals = ["external", "arena", "alias", "param", "input", "output", "state", "launch", "gemm",
            "copy", "f32", "f64", "f16", "bf16", "i1", "i32", "i64", "u8", "none", "bias", "relu",
            "relu_bias", "gelu", "gelu_bias", "gelu_aux", "gelu_aux_bias", "dgelu", "dgelu_bgrad",
            "kernels/k0.host", "kernels/k1.host", "kernels/k2.host", "kernels/k3.host",
            "tfc-artifact", "cuda", "grid", "block", "shared_bytes", "of", "src", "dst", "true",
            "false", "null", "[]", "{}", "-1", "0", "256", "4096", "9223372036854775807", "1e308"]
    write_dict("fuzz-artifact.dict", ['"%s":' % k for k in sorted(keys)] + ['"%s"' % v for v in vals],
               "# libFuzzer dictionary of fuzz-artifact: manifest keys and values\n"
               "# (docs/execution.md section 4). Written by make-corpus.py; scripts/fuzz\n"
               "# passes it with -dict.\n")
    write_dict("fuzz-safetensors.dict",
               ['"dtype":', '"shape":', '"data_offsets":', '"__metadata__":', '"F32"', '"F64"',
                '"F16"', '"BF16"', '"BOOL"', '"I32"', '"I64"', '"U8"', "[]", "{}", "-1",
                "18446744073709551615", "9223372036854775807"],
               "# libFuzzer dictionary of fuzz-safetensors: the header's keys and dtype\n"
               "# names. Written by make-corpus.py; scripts/fuzz passes it with -dict.\n")
    write_dict("fuzz-compiler.dict", compiler_dictionary_words(),
               "# libFuzzer dictionary of fuzz-compiler: the op names of the tfc and\n"
               "# tfcrt dialects (from their ODS files), types, attributes and keywords\n"
               "# of tfc IR. Written by make-corpus.py; scripts/fuzz passes it with -dict.\n")
    write_dict("fuzz-checkpoint.dict",
               ["--tfc-fuzz-file--", '"step":', '"data_rng":', '"data_position":',
                '"elapsed":', '"options":', '"loss":', '"lr":', '"tokens_per_s":', '"time":',
                '"loss_scale":', '"dtype":', '"shape":', '"data_offsets":', '"F32"', '"I64"',
                '"w1"', '"step"', "!", "[]", "{}", "-1", "9223372036854775807", "1e308"],
               "# libFuzzer dictionary of fuzz-checkpoint: the file separator, meta.json\n"
               "# and metrics.jsonl keys, safetensors keys. Written by make-corpus.py;\n"
               "# scripts/fuzz passes it with -dict.\n")


# --- tfc IR ------------------------------------------------------------------

# Training options given to some model seeds by a `// tfc-fuzz:` line
# (FuzzCompiler.cpp); the other inputs get options from the target's table.
COMPILER_OPTION_SEEDS = {
    "mlp-fp16-clip-accumulate": "optimizer=adamw precision=fp16 max-grad-norm=1.0 accumulate-steps=2",
    "mlp-adamw8bit-host": "optimizer=adamw8bit target=host fusion=none",
    "bigram-bf16-pad64": "optimizer=adamw precision=bf16 pad=64 recompute=cheap",
    "bigram-sgd-schedule": "optimizer=sgd momentum=0.9 schedule=warmup-cosine",
}
COMPILER_MAX_CASE_BYTES = 3000


def compiler_seeds():
    """tfc IR: model files and the lit tests' cases (comments dropped)."""
    n = 0
    models = {
        "mlp": os.path.join(ROOT, "examples", "models", "mlp.mlir"),
        "gpt-mini": os.path.join(ROOT, "examples", "models", "gpt-mini.mlir"),
        "bigram": os.path.join(ROOT, "test", "tools", "tfc-train", "Inputs", "bigram.mlir"),
    }
    for name, path in models.items():
        write("fuzz-compiler", name + ".mlir", open(path).read())
        n += 1
    for name, options in COMPILER_OPTION_SEEDS.items():
        model = open(models[name.split("-")[0]]).read()
        write("fuzz-compiler", name + ".mlir", "// tfc-fuzz: %s\n%s" % (options, model))
        n += 1
    seen = set()
    lit_dirs = [os.path.join(ROOT, "test", d) for d in ("dialects", "passes")]
    for d in lit_dirs:
        for dirpath, _, files in sorted(os.walk(d)):
            for f in sorted(files):
                if not f.endswith(".mlir"):
                    continue
                text = open(os.path.join(dirpath, f)).read()
                cases = re.split(r"^// -----\s*$", text, flags=re.M)
                for i, case in enumerate(cases):
                    lines = [l for l in case.split("\n") if not l.lstrip().startswith("//")]
                    body = "\n".join(lines).strip() + "\n"
                    if "func.func" not in body and "tfcrt." not in body:
                        continue
                    if len(body) > COMPILER_MAX_CASE_BYTES or body in seen:
                        continue
                    seen.add(body)
                    # dialects/tfc/invalid.mlir's 3rd case: dialects_tfc_invalid-3.mlir
                    rel = os.path.relpath(os.path.join(dirpath, f[:-len(".mlir")]),
                                          os.path.join(ROOT, "test"))
                    write("fuzz-compiler", "%s-%d.mlir" % (rel.replace(os.sep, "_"), i), body)
                    n += 1
    return n


def compiler_dictionary_words():
    """Op names from the dialects' ODS, types, the keywords of the ops'
    assembly formats, tfc's argument attributes."""
    words = []
    for dialect in ("tfc", "tfcrt"):
        d = os.path.join(ROOT, "dialects", dialect)
        for f in sorted(os.listdir(d)):
            if f.endswith(".td"):
                text = open(os.path.join(d, f)).read()
                for op in re.findall(r'def Tfcr?t?_\w+Op\s*:\s*\w+<\s*"([a-z_0-9.]+)"', text):
                    words.append("%s.%s " % (dialect, op))
    words += ["func.func @loss(", "func.func @", "return ", "-> ", " : ", ", ", "%0", "%arg0",
              "tensor<", "tensor<f32>", "x", "f32>", "f64>", "f16>", "bf16>", "i1>", "i32>",
              "i64>", "ui8>", "memref<", "dense<", "dense<0.0>", "dense<1.0>", "0x7FC00000",
              "{tfc.param = \"w\"}", "{tfc.input = \"x\"}", "{tfc.output = \"y\"}",
              "{tfc.state = \"w.exp_avg\"}", "tfc.update", "tfc.label", "transpose_a",
              "transpose_b", "approximate ", "bias ", "causal", "dim ", "dims ", "dropout ",
              "eps ", "high ", "ignore_index ", "keepdim", "label_smoothing ", "low ", "mask ",
              "momentum_buffer ", "normalized_rank ", "offset ", "p ", "reduction ", "scale ",
              "seed ", "step ", " to ", "value ", "weight ", "[0, 0]", "mean", "sum", "none",
              "tanh", "erf",
              "gt", "lt", "eq", "0", "1", "-1", "3", "127", "1000", "4096", "9223372036854775807",
              "1.0e+38", "0x7F800000"]
    return words


def checkpoint_seeds(fuzz_bin):
    """A valid checkpoint of the fuzz artifact's program, written by the
    target itself (TFC_FUZZ_WRITE_SEED): meta.json, tensors, metrics.jsonl."""
    os.makedirs(os.path.join(CORPUS, "fuzz-checkpoint"), exist_ok=True)
    path = os.path.join(CORPUS, "fuzz-checkpoint", "mlp-sgd-step0")
    subprocess.run([fuzz_bin], env=dict(os.environ, TFC_FUZZ_WRITE_SEED=path), check=True)
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory of tfc-opt and tfc-translate")
    ap.add_argument("--fuzz-build", required=True, help="build directory of test/fuzz")
    args = ap.parse_args()
    # Inputs a fuzzer once crashed on (crash-*) stay: regression seeds.
    for dirpath, _, files in os.walk(CORPUS):
        for f in files:
            if not f.startswith("crash-"):
                os.remove(os.path.join(dirpath, f))
    n = host_programs(args.bin, os.path.join(args.fuzz_build, "fuzz-host-program"))
    print(f"fuzz-host-program: {n} seeds")
    print(f"fuzz-safetensors: {safetensors_seeds()} seeds")
    print(f"fuzz-artifact: {manifest_seeds()} seeds")
    n = checkpoint_seeds(os.path.join(args.fuzz_build, "fuzz-checkpoint"))
    print(f"fuzz-checkpoint: {n} seeds")
    print(f"fuzz-compiler: {compiler_seeds()} seeds")
    dictionaries()


if __name__ == "__main__":
    sys.exit(main())
