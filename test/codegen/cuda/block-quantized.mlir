// RUN: tfc-translate --emit-cuda --split-input-file %s | FileCheck %s
// RUN: tfc-translate --emit-host --split-input-file %s | FileCheck %s --check-prefix=HOST

// AdamW8bit over 5200 elements (the last of 21 blocks is partial): one thread
// block per quantization block of 256. The maps are __constant__ tables (the
// signed one starts at its most negative entry); lr, step and the bias
// corrections are hoisted; the block's scales are read before anything is
// written (the state is updated in place); each live thread decodes its codes
// (map * absmax), runs the adamw element update with the multi_tensor
// kernel's formula and stores the parameter; two block all-reduces give the
// new scales, written by thread 0; then every live thread encodes.
// CHECK-LABEL: // ===== kernel adamw8bit: kind block_quantized, grid [21, 1, 1], block [256, 1, 1]
// CHECK: __constant__ float tfc_qmap_signed[256] = {
// CHECK-NEXT: -0x1.fc6666p-1f,
// CHECK: __constant__ float tfc_qmap_unsigned[256] = {
// CHECK-NEXT: 0x0p+0f,
// CHECK: TFC_INLINE unsigned char tfc_quantize(const float *map, float x) {
// CHECK: extern "C" __global__ void __launch_bounds__(256) adamw8bit(const float* __restrict__ in0, const __nv_bfloat16* __restrict__ in1, const unsigned char* __restrict__ in2, const float* __restrict__ in3, const unsigned char* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const long long* __restrict__ in7, float* __restrict__ out0, unsigned char* __restrict__ out1, float* __restrict__ out2, unsigned char* __restrict__ out3, float* __restrict__ out4)
// CHECK: const double [[BC1:bc[0-9]+]] = 1.0 - pow(0.85, (double){{v[0-9]+}});
// CHECK: const float [[DECAY:s[0-9]+]] = (float)(1.0 - {{lr[0-9]+}} * 0.1);
// CHECK: const int blk = (int)blockIdx.x;
// CHECK-NEXT: const float [[AM:v[0-9]+]] = in3[blk];
// CHECK-NEXT: const float [[AV:v[0-9]+]] = in5[blk];
// CHECK-NEXT: const int i0 = blk * 256 + (int)threadIdx.x;
// CHECK: if (i0 < 5200) {
// CHECK: const int [[CM:v[0-9]+]] = in2[i];
// CHECK-NEXT: const int [[CV:v[0-9]+]] = in4[i];
// CHECK-NEXT: const float [[M:v[0-9]+]] = tfc_qmap_signed[[[CM]]] * [[AM]];
// CHECK-NEXT: const float [[V:v[0-9]+]] = tfc_qmap_unsigned[[[CV]]] * [[AV]];
// CHECK-NEXT: const float [[P:v[0-9]+]] = {{v[0-9]+}} * [[DECAY]];
// CHECK-NEXT: const float [[M2:v[0-9]+]] = fmaf({{v[0-9]+}}, 0.15f, [[M]] * 0.85f);
// CHECK-NEXT: const float [[V2:v[0-9]+]] = [[V]] * 0.999f + 0.001f
// CHECK: out0[i] =
// CHECK-NEXT: qm = [[M2]];
// CHECK-NEXT: qv = [[V2]];
// CHECK: const float am = tfc_block_allreduce(fabsf(qm), tfc_absmax_op(), shm);
// CHECK-NEXT: const float av = tfc_block_allreduce(fabsf(qv), tfc_absmax_op(), shm);
// CHECK-NEXT: if (threadIdx.x == 0) {
// CHECK-NEXT: out2[blk] = am;
// CHECK-NEXT: out4[blk] = av;
// CHECK: out1[i0] = (unsigned char)(tfc_quantize(tfc_qmap_signed, am > 0.0f ? qm / am : 0.0f));
// CHECK-NEXT: out3[i0] = (unsigned char)(tfc_quantize(tfc_qmap_unsigned, av > 0.0f ? qv / av : 0.0f));

// The host program: one adamw8bit op with its attributes and five results.
// HOST-LABEL: # ===== kernel adamw8bit
// HOST: kind block_quantized
// HOST: in %2 ui8 40x130
// HOST: op %8 adamw8bit f32 40x130 (%0, %1, %2, %3, %4, %5, %6, %7) beta1=0.85 beta2=0.999 eps=1e-08 weight_decay=0.1 block_size=256
// HOST: op %9 result ui8 40x130 (%8) index=1
// HOST: op %12 result f32 21 (%8) index=4

func.func @adamw8bit(%p: tensor<40x130xf32>, %g: tensor<40x130xbf16>, %m: tensor<40x130xui8>, %ma: tensor<21xf32>, %v: tensor<40x130xui8>, %va: tensor<21xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>) {
  %r:5 = tfc.fusion block_quantized (%a = %p : tensor<40x130xf32>, %b = %g : tensor<40x130xbf16>, %c = %m : tensor<40x130xui8>, %d = %ma : tensor<21xf32>, %e = %v : tensor<40x130xui8>, %f = %va : tensor<21xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> (tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>) {
    %0:5 = tfc.adamw8bit %a, %b, %c, %d, %e, %f, %h, %i beta1 8.500000e-01 weight_decay 1.000000e-01 : tensor<40x130xf32>, tensor<40x130xbf16>, tensor<40x130xui8>, tensor<21xf32>, tensor<f32>
    tfc.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
  } {kernel_name = "adamw8bit"}
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
}

// -----

// The same update in place (tfcrt.kernel in_place [0, 2, 3, 4, 5]): the
// parameter, codes and absmax pointers alias their outputs and lose
// __restrict__; the gradient, lr and step keep it. The block's scales are
// still read before the barriers of its reductions and written after.
// CHECK-LABEL: // ===== kernel adamw8bit_in_place: kind block_quantized
// CHECK: adamw8bit_in_place(const float* in0, const __nv_bfloat16* __restrict__ in1, const unsigned char* in2, const float* in3, const unsigned char* in4, const float* in5, const float* __restrict__ in6, const long long* __restrict__ in7, float* out0, unsigned char* out1, float* out2, unsigned char* out3, float* out4)
tfcrt.kernel @adamw8bit_in_place block_quantized (tensor<40x130xf32>, tensor<40x130xbf16>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<f32>, tensor<i64>) -> (tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>) in_place [0, 2, 3, 4, 5] {
^bb0(%p: tensor<40x130xf32>, %g: tensor<40x130xbf16>, %m: tensor<40x130xui8>, %ma: tensor<21xf32>, %v: tensor<40x130xui8>, %va: tensor<21xf32>, %lr: tensor<f32>, %step: tensor<i64>):
  %0:5 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %step beta1 8.500000e-01 weight_decay 1.000000e-01 : tensor<40x130xf32>, tensor<40x130xbf16>, tensor<40x130xui8>, tensor<21xf32>, tensor<f32>
  tfcrt.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
}
