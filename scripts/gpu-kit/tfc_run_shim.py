#!/usr/bin/env python3
"""tfc-run for a machine without the compiler: the GPU kit's stand-in.

The numerics and bench scripts call `tfc-run MODEL.mlir [compile flags]
[run flags]`. This shim keys each compile by the content of MODEL.mlir and
its compile flags (--function, --grad, --train-step, --fusion, --target,
--precision, --pad; --target=auto, or none, is recorded as sm_90, what auto
is on the GPU) and
  record mode (scripts/gpu-pack, on the CPU machine): runs the real tfc-run
    with --emit-artifact into the kit's artifacts/<key>/ (once per key), so
    the script runs on as usual;
  replay mode (gpu-check, on the GPU machine): runs tfcrt-run on the
    recorded artifact with the run flags, exactly as tfc-run would after
    compiling (an accumulate-steps=K train step runs K accumulate_steps and
    apply_step per step).
Environment: TFC_KIT_MODE=record|replay, TFC_KIT_ARTIFACTS (the artifacts
directory), TFC_KIT_TFC_RUN (record: the real tfc-run), TFC_KIT_TFCRT_RUN
(replay: tfcrt-run). An artifact directory as MODEL goes straight through.
"""
import hashlib
import json
import os
import re
import shutil
import sys

# The target recorded artifacts are scheduled for (the GPU machines lent
# here are H100 and H200: sm_90).
RECORD_TARGET = "sm_90"
# tfc-run's compile flags (True: takes a value): they select the artifact;
# the rest are run flags, passed on to tfcrt-run in replay mode.
COMPILE_FLAGS = {"function": True, "train-step": True, "grad": False, "emit-artifact": True,
                 "fusion": True, "target": True, "precision": True, "pad": True}


def split_args(argv):
    """(model, compile options, run args) of a tfc-run command line."""
    model, compile_opts, rest = None, {}, []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name = arg.lstrip("-").split("=", 1)[0] if arg.startswith("-") else None
        if name in COMPILE_FLAGS:
            if "=" in arg:
                value = arg.split("=", 1)[1]
            elif COMPILE_FLAGS[name]:
                i += 1
                value = argv[i] if i < len(argv) else ""
            else:
                value = "true"
            compile_opts[name] = value
        elif not arg.startswith("-") and model is None:
            model = arg
        else:
            rest.append(arg)
            # A run flag's separate value must not be taken for the model.
            if arg.startswith("-") and "=" not in arg and arg.lstrip("-") not in ("quiet",) \
                    and i + 1 < len(argv):
                i += 1
                rest.append(argv[i])
        i += 1
    return model, compile_opts, rest


def compile_key(model_text, opts):
    """The artifact key: the model's text and what tfc-run compiles from it."""
    what = [model_text, opts.get("function", "loss"), opts.get("grad", "false"),
            opts.get("train-step")]
    # Every other compile flag (fusion, target, precision, pad) as given: a
    # case compiling one model with several paddings gets one artifact each.
    what += sorted((k, v) for k, v in opts.items()
                   if k not in ("function", "grad", "train-step", "emit-artifact"))
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:24]


def fail(message):
    print(f"tfc-run (gpu kit): {message}", file=sys.stderr)
    return 1


def emit_copy(artifact, target):
    """--emit-artifact TARGET: the recorded artifact, as tfc-run writes it."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(artifact, target, ignore=shutil.ignore_patterns("kit.json"))


def main(argv):
    mode = os.environ.get("TFC_KIT_MODE")
    artifacts = os.environ.get("TFC_KIT_ARTIFACTS")
    if mode not in ("record", "replay") or not artifacts:
        return fail("set TFC_KIT_MODE=record|replay and TFC_KIT_ARTIFACTS")
    real = os.environ.get("TFC_KIT_TFC_RUN" if mode == "record" else "TFC_KIT_TFCRT_RUN")
    if not real:
        return fail("set TFC_KIT_TFC_RUN (record) or TFC_KIT_TFCRT_RUN (replay)")
    model, opts, rest = split_args(argv)
    if model is None or os.path.isdir(model):
        # --probe-device, --help, or an artifact: nothing to compile.
        os.execv(real, [real] + ([model] if model else []) + rest)
    try:
        with open(model, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return fail(f"cannot open '{model}': {e.strerror}")
    key = compile_key(text, opts)
    artifact = os.path.join(artifacts, key)
    info_path = os.path.join(artifact, "kit.json")
    if mode == "record":
        args = [real, model] + [f"--{k}={v}" for k, v in opts.items()
                                if k not in ("emit-artifact", "grad", "target")]
        if opts.get("grad") == "true":
            args.append("--grad")
        # Recording runs on the host, where tfc-run's --target=auto would
        # compile for the host (no CUDA sources): the kit is for a GPU.
        target = opts.get("target", "auto")
        args.append(f"--target={RECORD_TARGET if target == 'auto' else target}")
        if not os.path.exists(info_path):
            args += ["--emit-artifact", artifact]
        proc_rc = os.spawnv(os.P_WAIT, real, args + rest)
        if proc_rc == 0 and not os.path.exists(info_path):
            steps = re.search(r"accumulate-steps=(\d+)", opts.get("train-step") or "")
            with open(info_path, "w") as f:
                json.dump({"model": os.path.basename(model), "function": opts.get("function", "loss"),
                           "grad": opts.get("grad") == "true", "train_step": opts.get("train-step"),
                           "accumulate": int(steps.group(1)) if steps else 1}, f)
        if proc_rc == 0 and opts.get("emit-artifact"):
            emit_copy(artifact, opts["emit-artifact"])
        return proc_rc
    if not os.path.exists(info_path):
        return fail(f"no recorded artifact for {os.path.basename(model)} with {opts or 'no compile flags'} "
                    f"(key {key}): the kit was packed without this compile; run scripts/gpu-pack again")
    with open(info_path) as f:
        info = json.load(f)
    if opts.get("emit-artifact"):
        emit_copy(artifact, opts["emit-artifact"])
    extra = []
    if info["accumulate"] > 1 and not any(a.split("=")[0].lstrip("-") in ("entry", "accumulate")
                                          for a in rest if a.startswith("-")):
        extra = ["--accumulate", str(info["accumulate"])]
    os.execv(real, [real, artifact] + extra + rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
