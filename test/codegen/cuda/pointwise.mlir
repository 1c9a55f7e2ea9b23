// RUN: tfc-translate --emit-cuda %s | FileCheck %s

// Bias add + GELU(tanh): the same-shape operand comes from a 16-byte vector
// load at `i`, the bias is a scalar read at `i % 128`, and the scalar loop
// is the fallback when a pointer is not 16-byte aligned. GELU is the formula
// of common/ScalarOps.h, pasted into the source with the device math policy.
// CHECK-LABEL: // ===== kernel bias_gelu: kind pointwise, grid [128, 1, 1], block [256, 1, 1]
// CHECK: #define TFC_COMMON_SCALAROPS_H
// CHECK: template <class M, class T> TFC_SCALAR_FN T geluTanh(T x) {
// CHECK: struct tfc_math {
// CHECK: static TFC_INLINE float tanh(float x) { return tanhf(x); }
// CHECK: extern "C" __global__ void __launch_bounds__(256) bias_gelu(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0)
// CHECK: const bool tfc_aligned = ((reinterpret_cast<unsigned long long>(in0) | reinterpret_cast<unsigned long long>(out0)) & 15) == 0;
// CHECK: for (int v = (int)blockIdx.x * blockDim.x + threadIdx.x; v < 32768; v += (int)gridDim.x * blockDim.x)
// CHECK-NEXT: const tfc_vec<float, 4> va0 = reinterpret_cast<const tfc_vec<float, 4>*>(in0)[v];
// CHECK: const int i = v * 4 + l;
// CHECK-NEXT: const float [[B:v[0-9]+]] = in1[i % 128];
// CHECK-NEXT: const float [[S:v[0-9]+]] = va0.v[l] + [[B]];
// CHECK-NEXT: const float {{v[0-9]+}} = tfc::scalar::geluTanh<tfc_math, float>([[S]]);
// CHECK: reinterpret_cast<tfc_vec<float, 4>*>(out0)[v] = vo0;
// CHECK: } else {
// CHECK-NEXT: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 131072;
// CHECK-NEXT: const float {{v[0-9]+}} = in0[i];
// CHECK: out0[i] = {{v[0-9]+}};
func.func @bias_gelu(%x: tensor<16x64x128xf32>, %b: tensor<128xf32>) -> tensor<16x64x128xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<16x64x128xf32>, %c = %b : tensor<128xf32>) -> tensor<16x64x128xf32> {
    %0 = tfc.add %a, %c : tensor<16x64x128xf32>, tensor<128xf32>
    %1 = tfc.gelu %0 approximate tanh : tensor<16x64x128xf32>
    tfc.yield %1 : tensor<16x64x128xf32>
  } {kernel_name = "bias_gelu"}
  return %r : tensor<16x64x128xf32>
}

// f64 computes in double: two doubles per 16-byte access, exact-erf GELU.
// CHECK-LABEL: // ===== kernel gelu_f64: kind pointwise
// CHECK: const tfc_vec<double, 2> va0 = reinterpret_cast<const tfc_vec<double, 2>*>(in0)[v];
// CHECK: const double [[X:v[0-9]+]] = tfc::scalar::geluErf<tfc_math, double>(va0.v[l]);
// CHECK: vo0.v[l] = [[X]];
func.func @gelu_f64(%x: tensor<64x32xf64>) -> tensor<64x32xf64> {
  %r = tfc.fusion pointwise (%a = %x : tensor<64x32xf64>) -> tensor<64x32xf64> {
    %0 = tfc.gelu %a : tensor<64x32xf64>
    tfc.yield %0 : tensor<64x32xf64>
  } {kernel_name = "gelu_f64"}
  return %r : tensor<64x32xf64>
}

// cos and sin (rotary embeddings, cosine schedules): the precise CUDA
// math functions, cosf/sinf for f32.
// CHECK-LABEL: // ===== kernel cos_sin: kind pointwise
// CHECK: const float [[C:v[0-9]+]] = cosf(va0.v[l]);
// CHECK-NEXT: const float [[S:v[0-9]+]] = sinf([[C]]);
func.func @cos_sin(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<64x32xf32>) -> tensor<64x32xf32> {
    %0 = tfc.cos %a : tensor<64x32xf32>
    %1 = tfc.sin %0 : tensor<64x32xf32>
    tfc.yield %1 : tensor<64x32xf32>
  } {kernel_name = "cos_sin"}
  return %r : tensor<64x32xf32>
}

// atan2 (angles; atan, asin and acos in the frontend): atan2f in f32 for
// 16-bit operands, rounded once; the double atan2 for f64.
// CHECK-LABEL: // ===== kernel atan2_bf16: kind pointwise
// CHECK: const float [[X:v[0-9]+]] = __bfloat162float(in1[i % 96]);
// CHECK-NEXT: tfc_round_bf16(atan2f(__bfloat162float(va0.v[l]), [[X]]));
// CHECK: const float [[Y2:v[0-9]+]] = __bfloat162float(in0[i]);
// CHECK-NEXT: const float [[X2:v[0-9]+]] = __bfloat162float(in1[i % 96]);
// CHECK-NEXT: tfc_round_bf16(atan2f([[Y2]], [[X2]]));
func.func @atan2_bf16(%y: tensor<16x96xbf16>, %x: tensor<96xbf16>) -> tensor<16x96xbf16> {
  %r = tfc.fusion pointwise (%a = %y : tensor<16x96xbf16>, %b = %x : tensor<96xbf16>) -> tensor<16x96xbf16> {
    %0 = tfc.atan2 %a, %b : tensor<16x96xbf16>, tensor<96xbf16>
    tfc.yield %0 : tensor<16x96xbf16>
  } {kernel_name = "atan2_bf16"}
  return %r : tensor<16x96xbf16>
}

// CHECK-LABEL: // ===== kernel atan2_f64: kind pointwise
// CHECK: const double {{v[0-9]+}} = atan2({{v[0-9]+}}, {{v[0-9]+}});
func.func @atan2_f64(%y: tensor<33x7xf64>, %x: tensor<33x7xf64>) -> tensor<33x7xf64> {
  %r = tfc.fusion pointwise (%a = %y : tensor<33x7xf64>, %b = %x : tensor<33x7xf64>) -> tensor<33x7xf64> {
    %0 = tfc.atan2 %a, %b : tensor<33x7xf64>, tensor<33x7xf64>
    tfc.yield %0 : tensor<33x7xf64>
  } {kernel_name = "atan2_f64"}
  return %r : tensor<33x7xf64>
}

// erf: the precise CUDA erff in f32 for 16-bit operands, erf for f64.
// CHECK-LABEL: // ===== kernel erf_f16_f64: kind pointwise
// CHECK: tfc_round_f16(erff(
// CHECK: const double {{v[0-9]+}} = erf(
func.func @erf_f16_f64(%x: tensor<8x40xf16>, %y: tensor<8x40xf64>) -> (tensor<8x40xf16>, tensor<8x40xf64>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<8x40xf16>, %b = %y : tensor<8x40xf64>) -> (tensor<8x40xf16>, tensor<8x40xf64>) {
    %0 = tfc.erf %a : tensor<8x40xf16>
    %1 = tfc.erf %b : tensor<8x40xf64>
    tfc.yield %0, %1 : tensor<8x40xf16>, tensor<8x40xf64>
  } {kernel_name = "erf_f16_f64"}
  return %r#0, %r#1 : tensor<8x40xf16>, tensor<8x40xf64>
}

// fmod (torch's fmod, remainder and floor division of floats): fmodf in
// f32 for 16-bit operands, whose remainder is exact and so rounds back
// exactly; the double fmod for f64.
// CHECK-LABEL: // ===== kernel fmod_f16: kind pointwise
// CHECK: const float [[B:v[0-9]+]] = __half2float(in1[i % 40]);
// CHECK-NEXT: tfc_round_f16(fmodf(__half2float(va0.v[l]), [[B]]));
func.func @fmod_f16(%x: tensor<24x40xf16>, %y: tensor<40xf16>) -> tensor<24x40xf16> {
  %r = tfc.fusion pointwise (%a = %x : tensor<24x40xf16>, %b = %y : tensor<40xf16>) -> tensor<24x40xf16> {
    %0 = tfc.fmod %a, %b : tensor<24x40xf16>, tensor<40xf16>
    tfc.yield %0 : tensor<24x40xf16>
  } {kernel_name = "fmod_f16"}
  return %r : tensor<24x40xf16>
}

// CHECK-LABEL: // ===== kernel fmod_f64: kind pointwise
// CHECK: const double {{v[0-9]+}} = fmod({{v[0-9]+}}, {{v[0-9]+}});
func.func @fmod_f64(%x: tensor<33x7xf64>, %y: tensor<33x7xf64>) -> tensor<33x7xf64> {
  %r = tfc.fusion pointwise (%a = %x : tensor<33x7xf64>, %b = %y : tensor<33x7xf64>) -> tensor<33x7xf64> {
    %0 = tfc.fmod %a, %b : tensor<33x7xf64>, tensor<33x7xf64>
    tfc.yield %0 : tensor<33x7xf64>
  } {kernel_name = "fmod_f64"}
  return %r : tensor<33x7xf64>
}

// Bitwise ops (hash encodings, parity masks): C's operators on long long
// and int, two's complement; on i1 (bool) &, ^, | are logic and not is `!`
// (`~` of a bool would stay true).
// CHECK-LABEL: // ===== kernel bitwise_i64: kind pointwise
// CHECK: const long long [[B:v[0-9]+]] = in1[i % 40];
// CHECK-NEXT: const long long [[X:v[0-9]+]] = va0.v[l] ^ [[B]];
// CHECK-NEXT: const long long [[M:v[0-9]+]] = [[X]] & 4095LL;
// CHECK-NEXT: const long long [[N:v[0-9]+]] = ~va0.v[l];
// CHECK-NEXT: const long long {{v[0-9]+}} = [[M]] | [[N]];
func.func @bitwise_i64(%x: tensor<24x40xi64>, %y: tensor<40xi64>) -> tensor<24x40xi64> {
  %r = tfc.fusion pointwise (%a = %x : tensor<24x40xi64>, %b = %y : tensor<40xi64>) -> tensor<24x40xi64> {
    %0 = tfc.bitwise_xor %a, %b : tensor<24x40xi64>, tensor<40xi64>
    %m = tfc.constant dense<4095> : tensor<i64>
    %1 = tfc.bitwise_and %0, %m : tensor<24x40xi64>, tensor<i64>
    %2 = tfc.bitwise_not %a : tensor<24x40xi64>
    %3 = tfc.bitwise_or %1, %2 : tensor<24x40xi64>, tensor<24x40xi64>
    tfc.yield %3 : tensor<24x40xi64>
  } {kernel_name = "bitwise_i64"}
  return %r : tensor<24x40xi64>
}

// CHECK-LABEL: // ===== kernel bitwise_i32_i1: kind pointwise
// CHECK: const int [[X:v[0-9]+]] = {{v[0-9]+}} ^ {{v[0-9]+}};
// CHECK-NEXT: const int {{v[0-9]+}} = ~[[X]];
// CHECK: const bool [[C:v[0-9]+]] = (in2[i] != 0);
// CHECK-NEXT: const bool [[D:v[0-9]+]] = (in3[i % 7] != 0);
// CHECK-NEXT: const bool [[AND:v[0-9]+]] = [[C]] & [[D]];
// CHECK-NEXT: const bool [[XOR:v[0-9]+]] = [[AND]] ^ [[C]];
// CHECK-NEXT: const bool [[NOT:v[0-9]+]] = ![[XOR]];
// CHECK-NEXT: const bool {{v[0-9]+}} = [[NOT]] | [[D]];
func.func @bitwise_i32_i1(%x: tensor<33x7xi32>, %y: tensor<33x7xi32>, %p: tensor<33x7xi1>, %q: tensor<7xi1>) -> (tensor<33x7xi32>, tensor<33x7xi1>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<33x7xi32>, %b = %y : tensor<33x7xi32>, %c = %p : tensor<33x7xi1>, %d = %q : tensor<7xi1>) -> (tensor<33x7xi32>, tensor<33x7xi1>) {
    %0 = tfc.bitwise_xor %a, %b : tensor<33x7xi32>, tensor<33x7xi32>
    %1 = tfc.bitwise_not %0 : tensor<33x7xi32>
    %2 = tfc.bitwise_and %c, %d : tensor<33x7xi1>, tensor<7xi1>
    %3 = tfc.bitwise_xor %2, %c : tensor<33x7xi1>, tensor<33x7xi1>
    %4 = tfc.bitwise_not %3 : tensor<33x7xi1>
    %5 = tfc.bitwise_or %4, %d : tensor<33x7xi1>, tensor<7xi1>
    tfc.yield %1, %5 : tensor<33x7xi32>, tensor<33x7xi1>
  } {kernel_name = "bitwise_i32_i1"}
  return %r#0, %r#1 : tensor<33x7xi32>, tensor<33x7xi1>
}

// Integer arithmetic wraps (two's complement), as torch's and the host's:
// hash encodings multiply coordinates by large primes. +, -, *, neg go
// through the unsigned type (signed overflow is undefined in CUDA C++),
// abs and / spell out -INT_MIN = INT_MIN and INT_MIN / -1 = INT_MIN.
// CHECK-LABEL: // ===== kernel wrap_i64: kind pointwise
// CHECK: const long long [[H:v[0-9]+]] = (long long)((unsigned long long)va0.v[l] * (unsigned long long)2654435761LL);
// CHECK-NEXT: const long long [[B:v[0-9]+]] = in1[i % 40];
// CHECK-NEXT: const long long [[S:v[0-9]+]] = (long long)((unsigned long long)[[H]] + (unsigned long long)[[B]]);
// CHECK-NEXT: const long long {{v[0-9]+}} = (long long)((unsigned long long)[[S]] - (unsigned long long)va0.v[l]);
// CHECK: const long long {{v[0-9]+}} = (long long)((unsigned long long)0 - (unsigned long long)va0.v[l]);
// CHECK-NEXT: const long long {{v[0-9]+}} = ([[B]] < 0 ? (long long)((unsigned long long)0 - (unsigned long long)[[B]]) : [[B]]);
// CHECK: const long long {{v[0-9]+}} = ([[B]] == -1 ? (long long)((unsigned long long)0 - (unsigned long long)va0.v[l]) : va0.v[l] / [[B]]);
func.func @wrap_i64(%x: tensor<24x40xi64>, %y: tensor<40xi64>) -> (tensor<24x40xi64>, tensor<24x40xi64>, tensor<24x40xi64>) {
  %r:3 = tfc.fusion pointwise (%a = %x : tensor<24x40xi64>, %b = %y : tensor<40xi64>) -> (tensor<24x40xi64>, tensor<24x40xi64>, tensor<24x40xi64>) {
    %p = tfc.constant dense<2654435761> : tensor<i64>
    %0 = tfc.mul %a, %p : tensor<24x40xi64>, tensor<i64>
    %1 = tfc.add %0, %b : tensor<24x40xi64>, tensor<40xi64>
    %2 = tfc.sub %1, %a : tensor<24x40xi64>, tensor<24x40xi64>
    %3 = tfc.neg %a : tensor<24x40xi64>
    %4 = tfc.abs %b : tensor<40xi64>
    %5 = tfc.add %3, %4 : tensor<24x40xi64>, tensor<40xi64>
    %6 = tfc.div %a, %b : tensor<24x40xi64>, tensor<40xi64>
    tfc.yield %2, %5, %6 : tensor<24x40xi64>, tensor<24x40xi64>, tensor<24x40xi64>
  } {kernel_name = "wrap_i64"}
  return %r#0, %r#1, %r#2 : tensor<24x40xi64>, tensor<24x40xi64>, tensor<24x40xi64>
}

// CHECK-LABEL: // ===== kernel wrap_i32: kind pointwise
// CHECK: const int [[U:v[0-9]+]] = in0[i];
// CHECK-NEXT: const int [[M:v[0-9]+]] = (int)((unsigned int)[[U]] * (unsigned int)73856093);
// CHECK-NEXT: const int [[V:v[0-9]+]] = in1[i];
// CHECK-NEXT: const int [[N:v[0-9]+]] = (int)((unsigned int)0 - (unsigned int)[[V]]);
// CHECK-NEXT: const int {{v[0-9]+}} = (int)((unsigned int)[[M]] - (unsigned int)[[N]]);
// CHECK-NEXT: const int {{v[0-9]+}} = ([[U]] < 0 ? (int)((unsigned int)0 - (unsigned int)[[U]]) : [[U]]);
// CHECK: const int {{v[0-9]+}} = ([[V]] == -1 ? (int)((unsigned int)0 - (unsigned int)[[U]]) : [[U]] / [[V]]);
func.func @wrap_i32(%u: tensor<33x7xi32>, %v: tensor<33x7xi32>) -> (tensor<33x7xi32>, tensor<33x7xi32>) {
  %r:2 = tfc.fusion pointwise (%c = %u : tensor<33x7xi32>, %d = %v : tensor<33x7xi32>) -> (tensor<33x7xi32>, tensor<33x7xi32>) {
    %q = tfc.constant dense<73856093> : tensor<i32>
    %7 = tfc.mul %c, %q : tensor<33x7xi32>, tensor<i32>
    %8 = tfc.neg %d : tensor<33x7xi32>
    %9 = tfc.sub %7, %8 : tensor<33x7xi32>, tensor<33x7xi32>
    %10 = tfc.abs %c : tensor<33x7xi32>
    %11 = tfc.add %9, %10 : tensor<33x7xi32>, tensor<33x7xi32>
    %12 = tfc.div %c, %d : tensor<33x7xi32>, tensor<33x7xi32>
    tfc.yield %11, %12 : tensor<33x7xi32>, tensor<33x7xi32>
  } {kernel_name = "wrap_i32"}
  return %r#0, %r#1 : tensor<33x7xi32>, tensor<33x7xi32>
}

// Shifts (Morton codes, hashing): common/ScalarOps.h's shiftLeft /
// shiftRight, defined for every amount (C's << and >> are undefined for
// amounts outside [0, bits) and << of negatives).
// CHECK-LABEL: // ===== kernel shifts: kind pointwise
// CHECK: TFC_SCALAR_FN T shiftLeft(T a, T b)
// CHECK: const long long [[B:v[0-9]+]] = in1[i % 40];
// CHECK-NEXT: const long long [[L:v[0-9]+]] = tfc::scalar::shiftLeft<long long>(va0.v[l], [[B]]);
// CHECK-NEXT: const long long {{v[0-9]+}} = tfc::scalar::shiftRight<long long>([[L]], [[B]]);
func.func @shifts(%x: tensor<24x40xi64>, %y: tensor<40xi64>) -> tensor<24x40xi64> {
  %r = tfc.fusion pointwise (%a = %x : tensor<24x40xi64>, %b = %y : tensor<40xi64>) -> tensor<24x40xi64> {
    %0 = tfc.shift_left %a, %b : tensor<24x40xi64>, tensor<40xi64>
    %1 = tfc.shift_right %0, %b : tensor<24x40xi64>, tensor<40xi64>
    tfc.yield %1 : tensor<24x40xi64>
  } {kernel_name = "shifts"}
  return %r : tensor<24x40xi64>
}

// CHECK-LABEL: // ===== kernel shifts_i32: kind pointwise
// CHECK: const int [[L:v[0-9]+]] = tfc::scalar::shiftLeft<int>({{v[0-9]+}}, {{v[0-9]+}});
// CHECK: const int {{v[0-9]+}} = tfc::scalar::shiftRight<int>({{v[0-9]+}}, {{v[0-9]+}});
func.func @shifts_i32(%x: tensor<33x7xi32>, %y: tensor<33x7xi32>) -> (tensor<33x7xi32>, tensor<33x7xi32>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<33x7xi32>, %b = %y : tensor<33x7xi32>) -> (tensor<33x7xi32>, tensor<33x7xi32>) {
    %0 = tfc.shift_left %a, %b : tensor<33x7xi32>, tensor<33x7xi32>
    %1 = tfc.shift_right %a, %b : tensor<33x7xi32>, tensor<33x7xi32>
    tfc.yield %0, %1 : tensor<33x7xi32>, tensor<33x7xi32>
  } {kernel_name = "shifts_i32"}
  return %r#0, %r#1 : tensor<33x7xi32>, tensor<33x7xi32>
}

// Attention head split (slice + reshape + transpose) and a cast to bf16:
// each output element computes its input index; the permuted input is read
// with scalar loads, the bf16 output is stored 8 at a time.
// CHECK-LABEL: // ===== kernel split_heads: kind pointwise
// CHECK: #include <cuda_bf16.h>
// CHECK: split_heads(const float* __restrict__ in0, __nv_bfloat16* __restrict__ out0)
// CHECK: const bool tfc_aligned = ((reinterpret_cast<unsigned long long>(out0)) & 15) == 0;
// CHECK: const float [[X:v[0-9]+]] = in0[i % 32 + i / 32 % 64 * 384 + i / 2048 % 4 * 32 + i / 8192 * 24576 + 128];
// CHECK-NEXT: const float [[Y:v[0-9]+]] = tfc_round_bf16((float)([[X]]));
// CHECK-NEXT: vo0.v[l] = __float2bfloat16_rn([[Y]]);
// CHECK: reinterpret_cast<tfc_vec<__nv_bfloat16, 8>*>(out0)[v] = vo0;
func.func @split_heads(%x: tensor<16x64x384xf32>) -> tensor<16x4x64x32xbf16> {
  %r = tfc.fusion pointwise (%a = %x : tensor<16x64x384xf32>) -> tensor<16x4x64x32xbf16> {
    %0 = tfc.slice %a [0, 0, 128] to [16, 64, 256] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
    %1 = tfc.reshape %0 : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
    %2 = tfc.transpose %1, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
    %3 = tfc.convert %2 : tensor<16x4x64x32xf32> -> tensor<16x4x64x32xbf16>
    tfc.yield %3 : tensor<16x4x64x32xbf16>
  } {kernel_name = "split_heads"}
  return %r : tensor<16x4x64x32xbf16>
}

// 15 elements do not split into 16-byte groups: scalar loop only. Strided
// slices scale the index; relu lets NaN through.
// CHECK-LABEL: // ===== kernel odd_size: kind pointwise, grid [1, 1, 1], block [256, 1, 1], shared 0 bytes
// CHECK-NOT: tfc_vec<float
// CHECK: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 15;
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[i % 5 * 2 + i / 5 * 20];
// CHECK-NEXT: const float [[R:v[0-9]+]] = ([[X]] < 0.0f ? 0.0f : [[X]]);
// CHECK-NEXT: out0[i] = [[R]];
func.func @odd_size(%x: tensor<6x10xf32>) -> tensor<3x5xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<6x10xf32>) -> tensor<3x5xf32> {
    %0 = tfc.slice %a [0, 0] to [6, 10] step [2, 2] : tensor<6x10xf32> -> tensor<3x5xf32>
    %1 = tfc.relu %0 : tensor<3x5xf32>
    tfc.yield %1 : tensor<3x5xf32>
  } {kernel_name = "odd_size"}
  return %r : tensor<3x5xf32>
}

// The causal mask of decomposed attention: iota, compare and select against
// a -inf splat, computed from the index without any mask tensor.
// CHECK-LABEL: // ===== kernel causal_mask: kind pointwise
// CHECK: const long long [[Q:v[0-9]+]] = (long long)(i / 64 % 64);
// CHECK-NEXT: const long long [[K:v[0-9]+]] = (long long)(i % 64);
// CHECK-NEXT: const bool [[M:v[0-9]+]] = ([[Q]] >= [[K]]);
// CHECK-NEXT: const float [[O:v[0-9]+]] = [[M]] ? va0.v[l] : __int_as_float(0xff800000);
func.func @causal_mask(%s: tensor<16x4x64x64xf32>) -> tensor<16x4x64x64xf32> {
  %r = tfc.fusion pointwise (%a = %s : tensor<16x4x64x64xf32>) -> tensor<16x4x64x64xf32> {
    %q = tfc.iota dim 0 : tensor<64x64xi64>
    %k = tfc.iota dim 1 : tensor<64x64xi64>
    %m = tfc.compare ge, %q, %k : tensor<64x64xi64>, tensor<64x64xi64>
    %ninf = tfc.constant dense<0xFF800000> : tensor<f32>
    %0 = tfc.select %m, %a, %ninf : tensor<64x64xi1>, tensor<16x4x64x64xf32>, tensor<f32>
    tfc.yield %0 : tensor<16x4x64x64xf32>
  } {kernel_name = "causal_mask"}
  return %r : tensor<16x4x64x64xf32>
}

// Concat and pad read at clamped indices and select, so every read is in
// bounds and no branch is needed.
// CHECK-LABEL: // ===== kernel concat_pad: kind pointwise
// CHECK: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 50;
// CHECK-NEXT: const float [[A:v[0-9]+]] = in0[(tfc_clamp<int>((tfc_clamp<int>(i % 10, 0, 7)), 0, 4)) + (tfc_clamp<int>(i / 10 - 1, 0, 3)) * 5];
// CHECK-NEXT: const float [[B:v[0-9]+]] = in1[(tfc_clamp<int>((tfc_clamp<int>(i % 10, 0, 7)) - 5, 0, 2)) + (tfc_clamp<int>(i / 10 - 1, 0, 3)) * 3];
// CHECK-NEXT: const float [[C:v[0-9]+]] = ((tfc_clamp<int>(i % 10, 0, 7)) < 5 ? [[A]] : [[B]]);
// CHECK-NEXT: const float [[P:v[0-9]+]] = (i / 10 >= 1 && i / 10 < 5 && i % 10 < 8) ? [[C]] : -1.5f;
// CHECK-NEXT: out0[i] = [[P]];
func.func @concat_pad(%a: tensor<4x5xf32>, %b: tensor<4x3xf32>) -> tensor<5x10xf32> {
  %r = tfc.fusion pointwise (%x = %a : tensor<4x5xf32>, %y = %b : tensor<4x3xf32>) -> tensor<5x10xf32> {
    %0 = tfc.concat %x, %y dim 1 : tensor<4x5xf32>, tensor<4x3xf32> -> tensor<4x8xf32>
    %1 = tfc.pad %0 low [1, 0] high [0, 2] value -1.500000e+00 : tensor<4x8xf32> -> tensor<5x10xf32>
    tfc.yield %1 : tensor<5x10xf32>
  } {kernel_name = "concat_pad"}
  return %r : tensor<5x10xf32>
}

// Dropout: Philox4x32-10 at counter offset + i (common/ScalarOps.h, the
// host's generator too), kept iff the first word is >= floor(0.1 * 2^32),
// kept values scaled by 1/(1-p) in f32 and rounded to bf16 once; seed and
// offset are read once, before the loop.
// CHECK-LABEL: // ===== kernel dropout_bf16: kind pointwise
// CHECK: TFC_SCALAR_FN void philox4x32_10(unsigned int c[4], unsigned int k0,
// CHECK: k0 += 0x9E3779B9u;
// CHECK: k1 += 0xBB67AE85u;
// CHECK: unsigned long long p0 = 0xD2511F53ull * c[0];
// CHECK: unsigned long long p1 = 0xCD9E8D57ull * c[2];
// CHECK: dropout_bf16(const __nv_bfloat16* __restrict__ in0, const long long* __restrict__ in1, const long long* __restrict__ in2, __nv_bfloat16* __restrict__ out0)
// CHECK: const bool tfc_aligned
// CHECK-NEXT: const long long [[SEED:v[0-9]+]] = in1[0];
// CHECK-NEXT: const long long [[OFF:v[0-9]+]] = in2[0];
// CHECK-NEXT: if (tfc_aligned) {
// CHECK: tfc::scalar::dropoutKeep([[SEED]], [[OFF]], (unsigned long long)(i), 429496729ull) ? tfc_round_bf16(__bfloat162float(va0.v[l]) * 1.1111112f) : 0.0f;
func.func @dropout_bf16(%x: tensor<16x64x128xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16x64x128xbf16> {
  %r = tfc.fusion pointwise (%a = %x : tensor<16x64x128xbf16>, %s = %seed : tensor<i64>, %o = %offset : tensor<i64>) -> tensor<16x64x128xbf16> {
    %0 = tfc.dropout %a, %s, %o p 1.000000e-01 : tensor<16x64x128xbf16>
    tfc.yield %0 : tensor<16x64x128xbf16>
  } {kernel_name = "dropout_bf16"}
  return %r : tensor<16x64x128xbf16>
}

// Random draws: tfc.random's element formulas from common/ScalarOps.h (the
// host interpreter's too) at Philox counter offset + i; a uniform carries
// as many bits as its type's significand (24, 53, 11, 8: exact in it), a
// normal is computed in float (double for f64) and rounded once. A
// noise-plus-input chain (diffusion's x + sigma * eps) fuses with them.
// CHECK-LABEL: // ===== kernel random_draws: kind pointwise
// CHECK: TFC_SCALAR_FN float randomUniformFloat(
// CHECK: random_draws(const float* __restrict__ in0, const long long* __restrict__ in1, const long long* __restrict__ in2, float* __restrict__ out0, double* __restrict__ out1, __half* __restrict__ out2, __nv_bfloat16* __restrict__ out3)
// CHECK-DAG: tfc::scalar::randomUniformFloat({{.*}}, (unsigned long long)(i), 24)
// CHECK-DAG: tfc::scalar::randomNormal<tfc_math, float>({{.*}}, (unsigned long long)(i))
// CHECK-DAG: tfc::scalar::randomNormal<tfc_math, double>({{.*}}, (unsigned long long)(i))
// CHECK-DAG: tfc::scalar::randomUniformFloat({{.*}}, (unsigned long long)(i), 11)
// CHECK-DAG: tfc_round_bf16(tfc::scalar::randomUniformFloat({{.*}}, (unsigned long long)(i), 8))
func.func @random_draws(%x: tensor<32x50xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<32x50xf32>, tensor<32x50xf64>, tensor<32x50xf16>, tensor<32x50xbf16>) {
  %r:4 = tfc.fusion pointwise (%a = %x : tensor<32x50xf32>, %s = %seed : tensor<i64>, %o = %offset : tensor<i64>) -> (tensor<32x50xf32>, tensor<32x50xf64>, tensor<32x50xf16>, tensor<32x50xbf16>) {
    %u = tfc.random %s, %o uniform : tensor<32x50xf32>
    %z = tfc.random %s, %o normal : tensor<32x50xf32>
    %n = tfc.add %a, %z : tensor<32x50xf32>, tensor<32x50xf32>
    %y = tfc.add %n, %u : tensor<32x50xf32>, tensor<32x50xf32>
    %d = tfc.random %s, %o normal : tensor<32x50xf64>
    %h = tfc.random %s, %o uniform : tensor<32x50xf16>
    %b = tfc.random %s, %o uniform : tensor<32x50xbf16>
    tfc.yield %y, %d, %h, %b : tensor<32x50xf32>, tensor<32x50xf64>, tensor<32x50xf16>, tensor<32x50xbf16>
  } {kernel_name = "random_draws"}
  return %r#0, %r#1, %r#2, %r#3 : tensor<32x50xf32>, tensor<32x50xf64>, tensor<32x50xf16>, tensor<32x50xbf16>
}

// A small dense constant becomes a table in the module.
// CHECK-LABEL: // ===== kernel dense_table: kind pointwise
// CHECK: __device__ const float tfc_table{{[0-9]+}}[4] = {1.0f, 2.5f, -3.0f, 0.125f};
// CHECK: const float [[T:v[0-9]+]] = va0.v[l] * tfc_table{{[0-9]+}}[i % 4];
func.func @dense_table(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<8x4xf32>) -> tensor<8x4xf32> {
    %c = tfc.constant dense<[1.0, 2.5, -3.0, 0.125]> : tensor<4xf32>
    %0 = tfc.mul %a, %c : tensor<8x4xf32>, tensor<4xf32>
    tfc.yield %0 : tensor<8x4xf32>
  } {kernel_name = "dense_table"}
  return %r : tensor<8x4xf32>
}

// Conversions: i64 to f16 rounds once from the exact value (through double),
// f16 arithmetic rounds every result to f16, and i1 is stored as 0/1 bytes
// (the widest type, i64, sets the vector width: 2).
// CHECK-LABEL: // ===== kernel conversions: kind pointwise
// CHECK: #include <cuda_fp16.h>
// CHECK: conversions(const long long* __restrict__ in0, __half* __restrict__ out0, unsigned char* __restrict__ out1)
// CHECK: const tfc_vec<long long, 2> va0
// CHECK: const float [[H:v[0-9]+]] = __half2float(__double2half((double)(va0.v[l])));
// CHECK-NEXT: const float [[M:v[0-9]+]] = tfc_round_f16([[H]] * 3.0f);
// CHECK-NEXT: vo0.v[l] = __float2half_rn([[M]]);
// CHECK-NEXT: const bool [[B:v[0-9]+]] = ([[M]] != 0);
// CHECK-NEXT: vo1.v[l] = (unsigned char)([[B]]);
func.func @conversions(%x: tensor<64xi64>) -> (tensor<64xf16>, tensor<64xi1>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<64xi64>) -> (tensor<64xf16>, tensor<64xi1>) {
    %0 = tfc.convert %a : tensor<64xi64> -> tensor<64xf16>
    %three = tfc.constant dense<3.0> : tensor<f16>
    %1 = tfc.mul %0, %three : tensor<64xf16>, tensor<f16>
    %2 = tfc.convert %1 : tensor<64xf16> -> tensor<64xi1>
    tfc.yield %1, %2 : tensor<64xf16>, tensor<64xi1>
  } {kernel_name = "conversions"}
  return %r#0, %r#1 : tensor<64xf16>, tensor<64xi1>
}

// A kernel without inputs only generates values; unnamed fusions are named
// fusion<N> in program order.
// CHECK-LABEL: // ===== kernel fusion0: kind pointwise
// CHECK: __device__ const long long tfc_table{{[0-9]+}}[4] = {1LL, 2LL, 3LL, 4LL};
// CHECK: fusion0(long long* __restrict__ out0)
func.func @no_inputs() -> tensor<4xi64> {
  %r = tfc.fusion pointwise () -> tensor<4xi64> {
    %0 = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    tfc.yield %0 : tensor<4xi64>
  }
  return %r : tensor<4xi64>
}

// Outputs of two sizes (a fused bias add writing the activation and the
// negated bias): one grid-stride loop per size, each with its own vector
// path and alignment test, sharing nothing that depends on the index.
// CHECK-LABEL: // ===== kernel two_sizes: kind pointwise, grid [12, 1, 1], block [256, 1, 1]
// CHECK: // tfc kernel two_sizes: pointwise over 12288 elements, vector width 4 when aligned; 3 elements, scalar
// CHECK: const bool tfc_aligned = ((reinterpret_cast<unsigned long long>(in0) | reinterpret_cast<unsigned long long>(out0)) & 15) == 0;
// CHECK: for (int v = {{.*}}; v < 3072;
// CHECK: out0[i] =
// CHECK: for (int i = (int)blockIdx.x * blockDim.x + threadIdx.x; i < 3; i += (int)gridDim.x * blockDim.x) {
// CHECK-NEXT: const float [[B:v[0-9]+]] = in1[i];
// CHECK-NEXT: const float [[N:v[0-9]+]] = -[[B]];
// CHECK-NEXT: out1[i] = [[N]];
func.func @two_sizes(%x: tensor<4096x3xf32>, %b: tensor<3xf32>) -> (tensor<4096x3xf32>, tensor<3xf32>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<4096x3xf32>, %c = %b : tensor<3xf32>) -> (tensor<4096x3xf32>, tensor<3xf32>) {
    %0 = tfc.add %a, %c : tensor<4096x3xf32>, tensor<3xf32>
    %1 = tfc.neg %c : tensor<3xf32>
    tfc.yield %0, %1 : tensor<4096x3xf32>, tensor<3xf32>
  } {kernel_name = "two_sizes"}
  return %r#0, %r#1 : tensor<4096x3xf32>, tensor<3xf32>
}

// The select that keeps a parameter on a skipped step, written in place over
// it (tfcrt.kernel in_place [1]): that input and the output drop
// __restrict__; each element of in1 is loaded by the thread that stores out0
// there, in the vector path and the scalar one.
// CHECK-LABEL: // ===== kernel keep_on_skip: kind pointwise
// CHECK: keep_on_skip(const unsigned char* __restrict__ in0, const float* in1, const float* __restrict__ in2, float* out0)
tfcrt.kernel @keep_on_skip pointwise (tensor<i1>, tensor<1000x130xf32>, tensor<1000x130xf32>) -> tensor<1000x130xf32> in_place [1] {
^bb0(%f: tensor<i1>, %old: tensor<1000x130xf32>, %new: tensor<1000x130xf32>):
  %0 = tfc.select %f, %old, %new : tensor<i1>, tensor<1000x130xf32>, tensor<1000x130xf32>
  tfcrt.yield %0 : tensor<1000x130xf32>
}
