#!/usr/bin/env bash
# The GPU kit in CI: scripts/gpu-pack writes a --quick kit (under 64 MiB),
# then its host half runs: gpu-check --device host builds the runtime from the
# kit alone (without OpenBLAS, so the numerics run on the portable GEMM),
# runs its unit tests, replays every packed case with tfcrt-run on the
# recorded artifacts and runs the benches briefly; every case must pass.
#
# Usage: gpu-kit-test.sh REPO BUILD_DIR WORK
set -euo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work"
"$repo/scripts/gpu-pack" "$work/kit" --quick --build-dir "$build"
size=$(du -sb "$work/kit" | cut -f1)
echo "kit: $((size / 1048576)) MiB"
[ "$size" -lt $((64 << 20)) ] || { echo "FAIL: the kit is over 64 MiB" >&2; exit 1; }
out=$work/result.json
PYTHON=/usr/bin/python3 "$work/kit/gpu-check" --device host --quick --out "$out" \
  --cmake-arg=-DTFCRT_OPENBLAS=OFF
/usr/bin/python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
assert s["cases"] > 0 and s["passed"] == s["cases"], s
assert not s["failed"], s["failed"]
assert r["runtime"]["tests"]["rc"] == 0, r["runtime"]["tests"]
assert "portable GEMM" in r["machine"]["tfc_device"], r["machine"]
names = {b["name"] for b in r["benches"]}
assert {"kernel-bandwidth-forward", "kernel-bandwidth-train-step", "train-step"} <= names, names
print(f"gpu kit host half: {s['passed']}/{s['cases']} cases, {len(names)} benches, "
      f"runtime tests: {r['runtime']['tests']['summary']}")
PY
