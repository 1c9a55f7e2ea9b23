#!/usr/bin/env bash
# The runtime builds alone: configures runtime/ as its own CMake project in
# WORK with LLVM and MLIR hidden from CMake (and, as on a GPU machine with no
# -dev packages, nlohmann_json as a bare header directory and GoogleTest from
# its sources), builds libtfcrt (shared + static), tfcrt-run and the unit
# tests, checks that no compile command and no linked library names LLVM or
# MLIR, runs the unit tests, and installs into WORK/prefix (headers,
# libraries, tfcrt-run, the CMake package). OpenBLAS stays on so the embed
# example built against the install computes bit for bit what tfc-run does;
# the build without it runs in test/scripts/gpu-kit-test.sh. Its host kernels
# are built for the x86-64 baseline (SSE2) while the main build's default to
# x86-64-v3 (AVX2), so that comparison also checks that results do not depend
# on the instruction set (runtime/src/host/HostIsa.h).
#
# Usage: standalone-build.sh REPO_ROOT WORK
set -euo pipefail
root=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
build=$work/build prefix=$work/prefix

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
json_dir=$work/json-include
mkdir -p "$json_dir"
cp -r /usr/include/nlohmann "$json_dir/"

cmake -S "$root/runtime" -B "$build" "${gen[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
  -DCMAKE_IGNORE_PREFIX_PATH=/usr/lib/llvm-19 \
  -DTFCRT_JSON_INCLUDE_DIR="$json_dir" \
  -DTFCRT_HOST_ISA=x86-64
cmake --build "$build" -j "$(nproc)"

if grep -Eiq 'llvm|mlir' "$build/compile_commands.json"; then
  echo "FAIL: a compile command of the standalone runtime names LLVM/MLIR:" >&2
  grep -Eio '[^ "]*(llvm|mlir)[^ "]*' "$build/compile_commands.json" | sort -u | head >&2
  exit 1
fi
if ldd "$build/lib/libtfcrt.so" | grep -Eiq 'llvm|mlir'; then
  echo "FAIL: libtfcrt.so links LLVM/MLIR:" >&2
  ldd "$build/lib/libtfcrt.so" >&2
  exit 1
fi

(cd "$build" && ctest --output-on-failure -j "$(nproc)" -L unit)

cmake --install "$build" >/dev/null
for f in include/tfc/runtime.h include/tfc/runtime.hpp lib/libtfcrt.so lib/libtfcrt.a \
         bin/tfcrt-run lib/cmake/tfcrt/tfcrtConfig.cmake lib/cmake/tfcrt/tfcrtTargets.cmake; do
  [ -e "$prefix/$f" ] || { echo "FAIL: cmake --install did not install $f" >&2; exit 1; }
done
echo "standalone runtime: built, unit tests passed, installed in $prefix"
