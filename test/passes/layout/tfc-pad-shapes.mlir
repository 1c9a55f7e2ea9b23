// RUN: tfc-opt %s --split-input-file '--tfc-pad-shapes=pad=8' | FileCheck %s --check-prefix=PAD8
// RUN: tfc-opt %s --split-input-file --tfc-pad-shapes | FileCheck %s --check-prefix=AUTO
// RUN: tfc-opt %s --split-input-file '--tfc-pad-shapes=pad=auto target=host' | FileCheck %s --check-prefix=HOST
// RUN: tfc-opt %s --split-input-file '--tfc-pad-shapes=pad=none' | FileCheck %s --check-prefix=NONE

// A linear layer over 7 x 33 tokens of width 100 into 300 features: with
// pad=8 it is flattened (M = batch x sequence = 231) and M, K, N are padded
// to 232, 104, 304 with zeros; the product is cut back to 231 x 300 and
// reshaped to the model's shape; the bias add and GELU move before the cut
// (the bias padded with zeros), so they stay the GEMM's epilogue.
// PAD8-LABEL: func.func @linear
// PAD8: %[[X2:.*]] = tfc.reshape %{{.*}} : tensor<7x33x100xbf16> -> tensor<231x100xbf16>
// PAD8: %[[XP:.*]] = tfc.pad %[[X2]] low [0, 0] high [1, 4] value 0.000000e+00 : tensor<231x100xbf16> -> tensor<232x104xbf16>
// PAD8: %[[WP:.*]] = tfc.pad %{{.*}} low [0, 0] high [4, 4] value 0.000000e+00 : tensor<300x100xbf16> -> tensor<304x104xbf16>
// PAD8: %[[P:.*]] = tfc.matmul %[[XP]], %[[WP]] transpose_b {tfc.pad_from = array<i64: 231, 300, 100>} : tensor<232x104xbf16>, tensor<304x104xbf16> -> tensor<232x304xbf16>
// PAD8: %[[BP:.*]] = tfc.pad %{{.*}} low [0] high [4] value 0.000000e+00 : tensor<300xbf16> -> tensor<304xbf16>
// PAD8: %[[H:.*]] = tfc.add %[[P]], %[[BP]] : tensor<232x304xbf16>, tensor<304xbf16>
// PAD8: %[[G:.*]] = tfc.gelu %[[H]] approximate tanh : tensor<232x304xbf16>
// PAD8: %[[C:.*]] = tfc.slice %[[G]] [0, 0] to [231, 300] : tensor<232x304xbf16> -> tensor<231x300xbf16>
// PAD8: %[[R:.*]] = tfc.reshape %[[C]] : tensor<231x300xbf16> -> tensor<7x33x300xbf16>
// PAD8: return %[[R]]

// auto on sm_90 (the default target) pads a 16-bit GEMM's K and N to
// multiples of 8, not M: no leading dimension of a row-major GEMM is M.
// AUTO-LABEL: func.func @linear
// AUTO: tfc.matmul %{{.*}}, %{{.*}} transpose_b {tfc.pad_from = array<i64: 231, 300, 100>} : tensor<231x104xbf16>, tensor<304x104xbf16> -> tensor<231x304xbf16>

// The host's GEMMs have no tiles to meet, and none pads nothing.
// HOST-LABEL: func.func @linear
// HOST-NOT: tfc.pad
// NONE-LABEL: func.func @linear
// NONE-NOT: tfc.pad
func.func @linear(%x: tensor<7x33x100xbf16> {tfc.input = "x"},
                  %w: tensor<300x100xbf16> {tfc.param = "w"},
                  %b: tensor<300xbf16> {tfc.param = "b"}) -> tensor<7x33x300xbf16> {
  %h = tfc.matmul %x, %w transpose_b : tensor<7x33x100xbf16>, tensor<300x100xbf16> -> tensor<7x33x300xbf16>
  %hb = tfc.add %h, %b : tensor<7x33x300xbf16>, tensor<300xbf16>
  %g = tfc.gelu %hb approximate tanh : tensor<7x33x300xbf16>
  return %g : tensor<7x33x300xbf16>
}

// -----

// Two GEMMs in a row (an MLP): the first's padded columns are zero (its
// weight's padded rows are) and stay zero through the zero-padded bias add
// and GELU (gelu(0) = 0), so the second GEMM reads the first's padded result
// directly instead of a cut-and-repad copy. The vocabulary (the N of the
// GEMM whose product becomes cross-entropy logits) is padded to 64.
// AUTO-LABEL: func.func @mlp_and_vocabulary
// AUTO: %[[P1:.*]] = tfc.matmul {{.*}} -> tensor<16x304xbf16>
// AUTO: %[[H:.*]] = tfc.add %[[P1]], %{{.*}} : tensor<16x304xbf16>, tensor<304xbf16>
// AUTO: %[[G:.*]] = tfc.gelu %[[H]] approximate tanh : tensor<16x304xbf16>
// AUTO-NOT: tfc.slice
// AUTO: tfc.matmul %[[G]], %{{.*}} transpose_b {tfc.pad_from = array<i64: 16, 1007, 300>} : tensor<16x304xbf16>, tensor<1024x304xbf16> -> tensor<16x1024xbf16>
// AUTO: %[[C:.*]] = tfc.convert %{{.*}} : tensor<16x1024xbf16> -> tensor<16x1024xf32>
// AUTO: %[[L:.*]] = tfc.slice %[[C]] [0, 0] to [16, 1007] : tensor<16x1024xf32> -> tensor<16x1007xf32>
// AUTO: tfc.cross_entropy %[[L]]
func.func @mlp_and_vocabulary(%x: tensor<16x104xbf16> {tfc.input = "x"},
                              %w1: tensor<300x104xbf16> {tfc.param = "w1"},
                              %b1: tensor<300xbf16> {tfc.param = "b1"},
                              %w2: tensor<1007x300xbf16> {tfc.param = "w2"},
                              %y: tensor<16xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w1 transpose_b : tensor<16x104xbf16>, tensor<300x104xbf16> -> tensor<16x300xbf16>
  %hb = tfc.add %h, %b1 : tensor<16x300xbf16>, tensor<300xbf16>
  %g = tfc.gelu %hb approximate tanh : tensor<16x300xbf16>
  %logits = tfc.matmul %g, %w2 transpose_b : tensor<16x300xbf16>, tensor<1007x300xbf16> -> tensor<16x1007xbf16>
  %l32 = tfc.convert %logits : tensor<16x1007xbf16> -> tensor<16x1007xf32>
  %loss = tfc.cross_entropy %l32, %y : tensor<16x1007xf32>, tensor<16xi64> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// f32 GEMMs run on CUDA cores: auto leaves them; pad=N pads them anyway.
// A batched GEMM (attention scores) pads its matrices, not its batch dims.
// AUTO-LABEL: func.func @f32_and_batched
// AUTO-NOT: tfc.pad
// PAD8-LABEL: func.func @f32_and_batched
// PAD8: tfc.pad %{{.*}} low [0, 0, 0, 0] high [0, 0, 7, 7] value 0.000000e+00 : tensor<2x3x33x25xf32> -> tensor<2x3x40x32xf32>
// PAD8: tfc.matmul {{.*}} transpose_b {tfc.pad_from = array<i64: 33, 33, 25>} : tensor<2x3x40x32xf32>, tensor<2x3x40x32xf32> -> tensor<2x3x40x40xf32>
// PAD8: tfc.slice %{{.*}} [0, 0, 0, 0] to [2, 3, 33, 33] : tensor<2x3x40x40xf32> -> tensor<2x3x33x33xf32>
func.func @f32_and_batched(%q: tensor<2x3x33x25xf32> {tfc.input = "q"},
                           %k: tensor<2x3x33x25xf32> {tfc.input = "k"}) -> tensor<2x3x33x33xf32> {
  %s = tfc.matmul %q, %k transpose_b : tensor<2x3x33x25xf32>, tensor<2x3x33x25xf32> -> tensor<2x3x33x33xf32>
  return %s : tensor<2x3x33x33xf32>
}

// -----

// Any element-local op (Tfc_ElementLocal) moves before the cut, not only
// arithmetic: a mask select (its i1 mask, small next to the scores, padded
// with false) and a comparison, whose cut is then an i1 slice.
// PAD8-LABEL: func.func @masked_scores
// PAD8: %[[S:.*]] = tfc.matmul {{.*}} -> tensor<2x3x40x40xf32>
// PAD8: %[[NINF:.*]] = tfc.constant
// PAD8: %[[M:.*]] = tfc.pad %{{.*}} low [0, 0] high [7, 7] value 0.000000e+00 : tensor<33x33xi1> -> tensor<40x40xi1>
// PAD8: %[[SEL:.*]] = tfc.select %[[M]], %[[S]], %[[NINF]] : tensor<40x40xi1>, tensor<2x3x40x40xf32>, tensor<f32>
// PAD8: %[[C1:.*]] = tfc.slice %[[SEL]] [0, 0, 0, 0] to [2, 3, 33, 33] : tensor<2x3x40x40xf32> -> tensor<2x3x33x33xf32>
// PAD8: %[[S2:.*]] = tfc.matmul {{.*}} -> tensor<2x3x40x40xf32>
// PAD8: %[[POS:.*]] = tfc.compare gt, %[[S2]], %{{.*}} : tensor<2x3x40x40xf32>, tensor<f32>
// PAD8: %[[C2:.*]] = tfc.slice %[[POS]] [0, 0, 0, 0] to [2, 3, 33, 33] : tensor<2x3x40x40xi1> -> tensor<2x3x33x33xi1>
// PAD8: return %[[C1]], %[[C2]]
func.func @masked_scores(%q: tensor<2x3x33x25xf32> {tfc.input = "q"},
                         %k: tensor<2x3x33x25xf32> {tfc.input = "k"},
                         %mask: tensor<33x33xi1> {tfc.input = "mask"}) -> (tensor<2x3x33x33xf32>, tensor<2x3x33x33xi1>) {
  %s = tfc.matmul %q, %k transpose_b : tensor<2x3x33x25xf32>, tensor<2x3x33x25xf32> -> tensor<2x3x33x33xf32>
  %ninf = tfc.constant dense<0xFF800000> : tensor<f32>
  %m = tfc.select %mask, %s, %ninf : tensor<33x33xi1>, tensor<2x3x33x33xf32>, tensor<f32>
  %s2 = tfc.matmul %k, %q transpose_b : tensor<2x3x33x25xf32>, tensor<2x3x33x25xf32> -> tensor<2x3x33x33xf32>
  %zero = tfc.constant dense<0.0> : tensor<f32>
  %pos = tfc.compare gt, %s2, %zero : tensor<2x3x33x33xf32>, tensor<f32>
  return %m, %pos : tensor<2x3x33x33xf32>, tensor<2x3x33x33xi1>
}

// -----

// sin(0) = 0 (Tfc_KeepsZeros): the first GEMM's zero padded columns stay
// zero through sin, so the second GEMM reads the padded sin directly.
// AUTO-LABEL: func.func @sin_between_gemms
// AUTO: %[[P1:.*]] = tfc.matmul {{.*}} -> tensor<16x304xbf16>
// AUTO: %[[S:.*]] = tfc.sin %[[P1]] : tensor<16x304xbf16>
// AUTO-NOT: tfc.slice
// AUTO: tfc.matmul %[[S]], %{{.*}} transpose_b {tfc.pad_from = array<i64: 16, 64, 300>} : tensor<16x304xbf16>, tensor<64x304xbf16> -> tensor<16x64xbf16>
func.func @sin_between_gemms(%x: tensor<16x104xbf16> {tfc.input = "x"},
                             %w1: tensor<300x104xbf16> {tfc.param = "w1"},
                             %w2: tensor<64x300xbf16> {tfc.param = "w2"}) -> tensor<16x64xbf16> {
  %h = tfc.matmul %x, %w1 transpose_b : tensor<16x104xbf16>, tensor<300x104xbf16> -> tensor<16x300xbf16>
  %g = tfc.sin %h : tensor<16x300xbf16>
  %o = tfc.matmul %g, %w2 transpose_b : tensor<16x300xbf16>, tensor<64x300xbf16> -> tensor<16x64xbf16>
  return %o : tensor<16x64xbf16>
}
