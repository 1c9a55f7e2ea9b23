// RUN: tfc-translate --emit-cuda %s | FileCheck %s

// Token embedding plus position embedding (gpt-mini's first kernel): each
// output element reads its id, then the table row at a clamped id; an id
// outside [0, 256) gives 0 instead of reading out of bounds. Outputs are
// stored 4 floats at a time when aligned.
// CHECK-LABEL: // ===== kernel embed: kind gather, grid [128, 1, 1], block [256, 1, 1]
// CHECK: embed(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out0)
// CHECK: const long long [[ID:v[0-9]+]] = in1[i / 128];
// CHECK-NEXT: const int [[SAFE:id[0-9]+]] = tfc_clamp<int>([[ID]], 0, 255);
// CHECK-NEXT: const float [[ROW:v[0-9]+]] = in0[i % 128 + ([[SAFE]]) * 128];
// CHECK-NEXT: const float [[E:v[0-9]+]] = ([[ID]] >= 0 && [[ID]] < 256) ? [[ROW]] : 0.0f;
// CHECK-NEXT: const float [[P:v[0-9]+]] = in2[i % 8192];
// CHECK-NEXT: const float [[S:v[0-9]+]] = [[E]] + [[P]];
// CHECK-NEXT: vo0.v[l] = [[S]];
// CHECK: reinterpret_cast<tfc_vec<float, 4>*>(out0)[v] = vo0;
func.func @embed(%table: tensor<256x128xf32>, %ids: tensor<16x64xi64>, %wpe: tensor<64x128xf32>) -> tensor<16x64x128xf32> {
  %e = tfc.fusion gather (%a = %table : tensor<256x128xf32>, %b = %ids : tensor<16x64xi64>, %c = %wpe : tensor<64x128xf32>) -> tensor<16x64x128xf32> {
    %0 = tfc.embedding %a, %b : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
    %1 = tfc.add %0, %c : tensor<16x64x128xf32>, tensor<64x128xf32>
    tfc.yield %1 : tensor<16x64x128xf32>
  } {kernel_name = "embed"}
  return %e : tensor<16x64x128xf32>
}

// Position ids from iota (no input tensor), a bf16 table, and a 0-d id.
// CHECK-LABEL: // ===== kernel positions: kind gather
// CHECK: const long long [[ID:v[0-9]+]] = (long long)(i / 32);
// CHECK-NEXT: const int [[SAFE:id[0-9]+]] = tfc_clamp<int>([[ID]], 0, 63);
// CHECK-NEXT: const float [[ROW:v[0-9]+]] = __bfloat162float(in0[i % 32 + ([[SAFE]]) * 32]);
// CHECK-LABEL: // ===== kernel one_row: kind gather
// CHECK: const int [[ID:v[0-9]+]] = in1[0];
// CHECK-NEXT: const int [[SAFE:id[0-9]+]] = tfc_clamp<int>([[ID]], 0, 9);
// CHECK-NEXT: if (tfc_aligned) {
// CHECK: const double {{v[0-9]+}} = in0[i + ([[SAFE]]) * 4];
func.func @positions(%wpe: tensor<64x32xbf16>, %table: tensor<10x4xf64>, %id: tensor<i32>) -> (tensor<64x32xbf16>, tensor<4xf64>) {
  %e = tfc.fusion gather (%a = %wpe : tensor<64x32xbf16>) -> tensor<64x32xbf16> {
    %pos = tfc.iota dim 0 : tensor<64xi64>
    %0 = tfc.embedding %a, %pos : tensor<64x32xbf16>, tensor<64xi64> -> tensor<64x32xbf16>
    tfc.yield %0 : tensor<64x32xbf16>
  } {kernel_name = "positions"}
  %f = tfc.fusion gather (%t = %table : tensor<10x4xf64>, %i = %id : tensor<i32>) -> tensor<4xf64> {
    %0 = tfc.embedding %t, %i : tensor<10x4xf64>, tensor<i32> -> tensor<4xf64>
    tfc.yield %0 : tensor<4xf64>
  } {kernel_name = "one_row"}
  return %e, %f : tensor<64x32xbf16>, tensor<4xf64>
}
