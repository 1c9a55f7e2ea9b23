// RUN: tfc-opt %s '--tfc-train-pipeline=pad=8' '--tfc-kernel-report=output=-' -o /dev/null | FileCheck %s
// RUN: tfc-opt %s '--tfc-train-pipeline=pad=8' '--tfc-kernel-report=format=json output=-' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tfc-opt %s '--tfc-train-pipeline=precision=bf16' | FileCheck %s --check-prefix=AUTO
// RUN: tfc-opt %s '--tfc-train-pipeline=precision=bf16 target=host' | FileCheck %s --check-prefix=HOST

// pad= on --tfc-train-pipeline pads the loss's GEMMs before the train step
// is built; the kernel report lists each padded GEMM (its dimensions before
// and after, and the bytes padding adds to its operands and result).
// CHECK: padded gemm @loss: m 30 -> 32, n 20 -> 24, k 12 -> 16 (+{{[0-9]+}} bytes of operands and result; the backward GEMMs follow)
// JSON: "padded_gemms": [
// JSON: "extra_bytes":
// JSON: "k": 12,
// JSON: "m": 30,
// JSON: "n": 20,
// JSON: "padded_k": 16,
// JSON: "padded_m": 32,
// JSON: "padded_n": 24

// The default pad=auto pads a bf16 train step for the default target
// (sm_90): the parameters keep their shapes, the GEMMs read padded copies,
// forward and backward: K to a multiple of 8, not M, and N, the
// vocabulary of the cross-entropy, to a multiple of 64.
// AUTO-LABEL: tfcrt.entry @train_step
// AUTO: tfcrt.external param "w" : memref<20x12xf32>
// AUTO: tfcrt.gemm {{.*}} transpose_b m 30 n 64 k 16 {{.*}} types(bf16, bf16) -> bf16
// AUTO: tfcrt.gemm {{.*}} transpose_a m 64 n 16 k 30 {{.*}} types(bf16, bf16) -> bf16
// On the host target auto pads nothing.
// HOST-LABEL: tfcrt.entry @train_step
// HOST: tfcrt.gemm {{.*}} m 30 n 20 k 12 {{.*}} types(bf16, bf16) -> bf16
func.func @loss(%w: tensor<20x12xf32> {tfc.param = "w"},
                %x: tensor<30x12xf32> {tfc.input = "x"},
                %y: tensor<30xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<30x12xf32>, tensor<20x12xf32> -> tensor<30x20xf32>
  %l = tfc.cross_entropy %h, %y : tensor<30x20xf32>, tensor<30xi64> -> tensor<f32>
  return %l : tensor<f32>
}
