// RUN: tfc-opt %s --tfc-kernel-report=output=- -o /dev/null | FileCheck %s
// RUN: tfc-opt %s '--tfc-kernel-report=format=json output=-' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tfc-opt %s --tfc-kernel-report 2>&1 >/dev/null | FileCheck %s --check-prefix=STDERR
// RUN: tfc-opt %s --tfc-kernel-report=output=%t.report | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s < %t.report

// --tfc-kernel-report reads a lowered module: per entry, one line per kernel it
// launches (symbol, kind, bytes read and written per launch, launches, ops) and
// the totals; @k1 and @k2 have one body, so 3 kernels are 2 distinct bodies.
// Each buffer here is 512x512xf32, 1 MiB, except the bias (2 KiB): @k0 moves
// 2 MiB + 2 KiB, each other launch 2 MiB, the copy 2 MiB (source and
// destination), the first GEMM 3 MiB (a, b and c) and the second 3 MiB + 2 KiB
// (its bias too); GEMMs with an epilogue are counted per epilogue.
// CHECK-LABEL: tfc kernel report: entry @forward
// CHECK-NEXT: kernel kind launches read/launch written/launch ops
// CHECK-NEXT: @k0 pointwise 1 1050624 1048576 tfc.add
// CHECK-NEXT: @k1 pointwise 2 1048576 1048576 tfc.relu
// CHECK-NEXT: @k2 pointwise 1 1048576 1048576 tfc.relu
// CHECK-NEXT: totals @forward: 4 launches of 3 kernels (2 distinct bodies), 2 GEMMs, 1 copies; moved 10.00 MiB non-GEMM (8.00 launches + 2.00 copies), 6.00 MiB GEMM
// CHECK-NEXT: gemm epilogues @forward: 1 relu_bias
// A second entry of the same program gets its own table and totals.
// CHECK-NEXT: tfc kernel report: entry @eval
// CHECK-NEXT: kernel kind launches read/launch written/launch ops
// CHECK-NEXT: @k3 pointwise 1 1048576 1048576 tfc.constant, tfc.mul
// CHECK-NEXT: totals @eval: 1 launches of 1 kernels (1 distinct bodies), 0 GEMMs, 0 copies; moved 2.00 MiB non-GEMM (2.00 launches + 0.00 copies), 0.00 MiB GEMM

// The JSON form holds the same figures, byte counts exact.
// JSON: "entries": [
// JSON: "kernels": [
// JSON: "kind": "pointwise",
// JSON-NEXT: "launches": 1,
// JSON-NEXT: "name": "k0",
// JSON-NEXT: "ops": [
// JSON-NEXT: "tfc.add"
// JSON-NEXT: ],
// JSON-NEXT: "read_bytes": 1050624,
// JSON-NEXT: "written_bytes": 1048576
// JSON: "name": "forward",
// JSON-NEXT: "totals": {
// JSON-NEXT: "copies": 1,
// JSON-NEXT: "copy_bytes": 2097152,
// JSON-NEXT: "distinct_bodies": 2,
// JSON-NEXT: "gemm_bytes": 6293504,
// JSON-NEXT: "gemm_epilogues": {
// JSON-NEXT: "relu_bias": 1
// JSON-NEXT: },
// JSON-NEXT: "gemms": 2,
// JSON-NEXT: "kernels": 3,
// JSON-NEXT: "launch_bytes": 8390656,
// JSON-NEXT: "launches": 4,
// JSON-NEXT: "non_gemm_bytes": 10487808
// JSON: "name": "eval",

// By default the report goes to stderr, and the IR passes through unchanged.
// STDERR: tfc kernel report: entry @forward
// IR: tfcrt.kernel @k2 pointwise
// IR: tfcrt.entry @eval
tfcrt.arena size 3145728 alignment 256
tfcrt.kernel @k0 pointwise (tensor<512x512xf32>, tensor<512xf32>) -> tensor<512x512xf32> {
^bb0(%a: tensor<512x512xf32>, %b: tensor<512xf32>):
  %0 = tfc.add %a, %b : tensor<512x512xf32>, tensor<512xf32>
  tfcrt.yield %0 : tensor<512x512xf32>
}
tfcrt.kernel @k1 pointwise (tensor<512x512xf32>) -> tensor<512x512xf32> {
^bb0(%a: tensor<512x512xf32>):
  %0 = tfc.relu %a : tensor<512x512xf32>
  tfcrt.yield %0 : tensor<512x512xf32>
}
tfcrt.kernel @k2 pointwise (tensor<512x512xf32>) -> tensor<512x512xf32> {
^bb0(%x: tensor<512x512xf32>):
  %r = tfc.relu %x : tensor<512x512xf32>
  tfcrt.yield %r : tensor<512x512xf32>
}
tfcrt.kernel @k3 pointwise (tensor<512x512xf32>) -> tensor<512x512xf32> {
^bb0(%x: tensor<512x512xf32>):
  %c = tfc.constant dense<2.0> : tensor<f32>
  %r = tfc.mul %x, %c : tensor<512x512xf32>, tensor<f32>
  tfcrt.yield %r : tensor<512x512xf32>
}
tfcrt.entry @forward {
  %x = tfcrt.external input "x" : memref<512x512xf32>
  %b = tfcrt.external param "b" : memref<512xf32>
  %w = tfcrt.external param "w" : memref<512x512xf32>
  %o = tfcrt.external output "out0" : memref<512x512xf32>
  %o2 = tfcrt.external output "out1" : memref<512x512xf32>
  %t = tfcrt.arena_view offset 0 : memref<512x512xf32>
  %u = tfcrt.arena_view offset 1048576 : memref<512x512xf32>
  %v = tfcrt.arena_view offset 2097152 : memref<512x512xf32>
  tfcrt.launch @k0 (%x, %b) -> (%t) : (memref<512x512xf32>, memref<512xf32>) -> memref<512x512xf32>
  tfcrt.launch @k1 (%t) -> (%u) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.gemm %u, %w -> %v transpose_b m 512 n 512 k 512 batch 1 lda 512 ldb 512 ldc 512
      stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none
      alpha 1.0 beta 0.0 : memref<512x512xf32>, memref<512x512xf32> -> memref<512x512xf32>
  tfcrt.launch @k2 (%v) -> (%t) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.launch @k1 (%t) -> (%o) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.copy %o -> %o2 : memref<512x512xf32>
  %o3 = tfcrt.external output "out2" : memref<512x512xf32>
  tfcrt.gemm %u, %w bias %b -> %o3 transpose_b m 512 n 512 k 512 batch 1 lda 512 ldb 512
      ldc 512 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32
      epilogue relu_bias alpha 1.0 beta 0.0
      : memref<512x512xf32>, memref<512x512xf32>, memref<512xf32> -> memref<512x512xf32>
  tfcrt.return
}
tfcrt.entry @eval {
  %x = tfcrt.external input "x" : memref<512x512xf32>
  %o = tfcrt.external output "out0" : memref<512x512xf32>
  tfcrt.launch @k3 (%x) -> (%o) : (memref<512x512xf32>) -> memref<512x512xf32>
  tfcrt.return
}
