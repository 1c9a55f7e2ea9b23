// tfc-run compiles a function in process (or loads an artifact), binds its
// inputs, runs it on the host backend and prints the outputs; bad input is one
// clear line on stderr and exit code 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TFC_CACHE_DIR=%t/cache tfc-run %s --function f --seed 7 --device host | FileCheck %s --check-prefix=JIT
// RUN: tfc-opt %s --tfc-lower-to-exec=function=f | tfc-translate --emit-artifact -o %t/artifact
// RUN: tfc-run %t/artifact --seed 7 --device host --quiet --outputs %t/out.safetensors
// RUN: %expect-exit 1 tfc-run %t/artifact --inputs %t/out.safetensors --device host 2>&1 | FileCheck %s --check-prefix=NAMES
// RUN: %expect-exit 1 tfc-run %t/no-such.mlir --device host 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: printf 'garbage' > %t/bad.safetensors
// RUN: %expect-exit 1 tfc-run %t/artifact --inputs %t/bad.safetensors --device host 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: %expect-exit 1 tfc-run %t/artifact --seed 1 --entry backward --device host 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: printf '{"format": "tfc-artifact", "vers' > %t/artifact/manifest.json
// RUN: %expect-exit 1 tfc-run %t/artifact --seed 1 --device host 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: %expect-exit 1 tfc-run %S/Inputs/scale.mlir --device host 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: %expect-exit 1 tfc-run %S/Inputs/scale.mlir --function scale --device host 2>&1 | FileCheck %s --check-prefix=UNSET
// --fusion none compiles one op per kernel (a separate cache entry) with the same result.
// RUN: env TFC_CACHE_DIR=%t/cache tfc-run %s --function f --seed 7 --device host --quiet --outputs %t/fused.safetensors
// RUN: env TFC_CACHE_DIR=%t/cache tfc-run %s --function f --seed 7 --device host --fusion none --outputs %t/unfused.safetensors | FileCheck %s --check-prefix=UNFUSED
// RUN: cmp %t/fused.safetensors %t/unfused.safetensors
// RUN: %expect-exit 1 tfc-run %s --function f --fusion some --device host 2>&1 | FileCheck %s --check-prefix=BAD-FUSION
// --target picks the machine the kernels are scheduled for (auto: host for
// --device host); the host backend runs every target's artifact alike.
// RUN: env TFC_CACHE_DIR=%t/cache tfc-run %s --function f --seed 7 --device host --target sm_80 --quiet --outputs %t/sm80.safetensors --emit-artifact %t/sm80
// RUN: cmp %t/fused.safetensors %t/sm80.safetensors
// RUN: grep -q '"cuda"' %t/sm80/manifest.json
// RUN: env TFC_CACHE_DIR=%t/cache tfc-run %s --function f --seed 7 --device host --quiet --emit-artifact %t/auto
// RUN: not grep -q '"cuda"' %t/auto/manifest.json
// RUN: %expect-exit 1 tfc-run %s --function f --target sm_75 --device host 2>&1 | FileCheck %s --check-prefix=BAD-TARGET

// JIT: compiled {{.*}}run.mlir (fresh
// JIT: device: host CPU
// JIT: out0: 4x8xf32

// The outputs file sets only "out0": running reads x, which was never set.
// NAMES: tfc-run: running 'forward' failed: input 'x' was never set

// MISSING: cannot open '{{.*}}no-such.mlir'
// CORRUPT: tfc-run: cannot read inputs: {{.*}}
// ENTRY: tfc-run: running 'backward' failed: {{.*}}backward
// TRUNCATED: tfc-run: cannot load '{{.*}}artifact': {{.*}}manifest
// NOFUNC: '{{.*}}scale.mlir' has no function @loss (its functions: @scale)
// UNSET: tfc-run: running 'forward' failed: {{.*}}x
// UNFUSED: compiled {{.*}}run.mlir (fresh
// BAD-FUSION: tfc-run: unknown --fusion 'some' (expected all or none)
// BAD-TARGET: tfc-run: unknown --target 'sm_75' (expected auto, sm_80, sm_90 or host)

func.func @f(%x: tensor<4x8xf32> {tfc.input = "x"}, %b: tensor<8xf32> {tfc.input = "b"}) -> tensor<4x8xf32> {
  %0 = tfc.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  %1 = tfc.gelu %0 approximate tanh : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
