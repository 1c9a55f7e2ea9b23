// RUN: tfc-translate --emit-cuda --split-input-file --verify-diagnostics %s
// Without --split-input-file every kernel is tried and every failure is
// reported before exiting with 1. Bodies that break the kernel rules (outputs
// a row or column kernel cannot write, values read outside their row) are
// rejected by the tfc.fusion verifier before codegen sees them
// (test/dialects/tfc/invalid.mlir); what is left here is what only codegen
// knows.
// RUN: %expect-exit 1 tfc-translate --emit-cuda %s 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: invalid.mlir:[[@LINE+11]]:8: error: codegen: gemm kernels run on cuBLASLt
// ALL: error: codegen: kernel name 'my-kernel' is not a C identifier
// Malformed input and a missing translation are one clear line and exit 1.
// RUN: %expect-exit 1 tfc-translate --emit-cuda %S/Inputs/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: truncated.mlir:2:67: error: expected non-function type
// RUN: %expect-exit 1 tfc-translate %s 2>&1 | FileCheck %s --check-prefix=NO-ACTION
// NO-ACTION: tfc-translate: no translation given (use --emit-cuda

// A gemm kernel has no CUDA source: it runs on cuBLASLt.
func.func @gemm(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{codegen: gemm kernels run on cuBLASLt (tfcrt.gemm); there is no CUDA source to emit}}
  %r = tfc.fusion gemm (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x4xf32>) -> tensor<4x4xf32> {
    %0 = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// The kernel name becomes a C function name.
func.func @bad_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{codegen: kernel name 'my-kernel' is not a C identifier}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.neg %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  } {kernel_name = "my-kernel"}
  return %r : tensor<4xf32>
}

// -----

// A kernel scheduled for the host interpreter has no CUDA source.
func.func @host_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{codegen: kernel 'host_only' is scheduled for the host (target = host); no CUDA source is generated for it}}
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.neg %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  } {kernel_name = "host_only", schedule = #tfc.schedule<target = host>}
  return %r : tensor<4xf32>
}

// -----

// A schedule codegen cannot follow (two rows per block of 128 threads is
// neither a warp nor a block per row) is rejected, as the tfcrt.kernel
// verifier rejects it.
func.func @bad_row_schedule(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{codegen: a row_reduction schedule walks one row per warp (threads = 32 * rows_per_block) or per block (rows_per_block = 1); got threads = 128, rows_per_block = 2}}
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.softmax %a dim -1 : tensor<4x8xf32>
    tfc.yield %0 : tensor<4x8xf32>
  } {kernel_name = "bad_row_schedule", schedule = #tfc.schedule<target = sm_90, threads = 128, rows_per_block = 2>}
  return %r : tensor<4x8xf32>
}
