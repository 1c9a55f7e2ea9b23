// RUN: tfc-opt %s '--tfc-train-pipeline=precision=bf16' | FileCheck %s --check-prefix=BF16
// RUN: tfc-opt %s '--tfc-train-pipeline=precision=fp16' | FileCheck %s --check-prefix=FP16
// RUN: tfc-opt %s '--tfc-train-pipeline=precision=fp16 loss-scaling=false' | FileCheck %s --check-prefix=NOSCALE
// RUN: tfc-opt %s '--tfc-lower-to-exec=precision=bf16' | FileCheck %s --check-prefix=FORWARD
// RUN: tfc-opt %s '--tfc-train-pipeline=precision=tf32' | FileCheck %s --check-prefix=TF32
// RUN: not tfc-opt %s '--tfc-train-pipeline=precision=int8' 2>&1 | FileCheck %s --check-prefix=BAD

// precision= on --tfc-train-pipeline retypes the loss before the train step
// is built, so the backward GEMMs are 16-bit too, while the parameters and
// the optimizer state stay f32 (the master weights); the GEMMs accumulate in
// f32 and the bias joins the forward GEMM as its epilogue in 16-bit.
// BF16-LABEL: tfcrt.entry @train_step
// BF16: tfcrt.external param "w" : memref<4x8xf32>
// BF16: tfcrt.external param "b" : memref<4xf32>
// BF16: tfcrt.external state "w.exp_avg" : memref<4x8xf32>
// BF16-NOT: found_inf
// BF16: tfcrt.gemm {{.*}} types(bf16, bf16) -> bf16 compute f32 epilogue bias
// BF16: tfcrt.gemm {{.*}} transpose_a {{.*}} types(bf16, bf16) -> bf16 compute f32 epilogue none

// fp16 turns GradScaler-style loss scaling on by default (fp16 gradients
// underflow without it); loss-scaling=false keeps it off.
// FP16-LABEL: tfcrt.entry @train_step
// FP16: tfcrt.external state "loss_scale" : memref<f32>
// FP16: tfcrt.external output "found_inf" : memref<i1>
// FP16: types(f16, f16) -> f16 compute f32
// NOSCALE-LABEL: tfcrt.entry @train_step
// NOSCALE-NOT: loss_scale
// NOSCALE-NOT: found_inf

// --tfc-lower-to-exec takes the same option for a forward alone.
// FORWARD-LABEL: tfcrt.entry @forward
// FORWARD: tfcrt.gemm {{.*}} types(bf16, bf16) -> bf16 compute f32 epilogue bias

// tf32 keeps f32 storage everywhere; every f32 GEMM, forward and backward,
// accumulates on TF32 tensor cores.
// TF32-LABEL: tfcrt.entry @train_step
// TF32-NOT: bf16
// TF32: types(f32, f32) -> f32 compute tf32 epilogue bias
// TF32: types(f32, f32) -> f32 compute tf32 epilogue none
// TF32-NOT: compute f32

// A precision the pipeline does not know is one line naming the choices.
// BAD: error: unknown value 'int8' for option precision (expected f32, tf32, bf16 or fp16)
func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"},
                %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"},
                %y: tensor<2xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %hb = tfc.add %h, %b : tensor<2x4xf32>, tensor<4xf32>
  %l = tfc.cross_entropy %hb, %y : tensor<2x4xf32>, tensor<2xi64> -> tensor<f32>
  return %l : tensor<f32>
}
