// RUN: tfc-opt %s --split-input-file '--tfc-auto-mixed-precision=precision=bf16' | FileCheck %s --check-prefix=BF16
// RUN: tfc-opt %s --split-input-file '--tfc-auto-mixed-precision=precision=fp16' | FileCheck %s --check-prefix=FP16
// RUN: tfc-opt %s --split-input-file '--tfc-auto-mixed-precision=precision=f32' | FileCheck %s --check-prefix=F32
// RUN: tfc-opt %s --split-input-file '--tfc-auto-mixed-precision=precision=tf32' | FileCheck %s --check-prefix=TF32

// A pre-LN transformer MLP block with a classifier loss: the GEMMs read
// 16-bit copies of their operands (each use of a parameter its own convert,
// so each use's gradient is converted back to f32 before they are summed);
// the bias joins the 16-bit product in 16-bit (it is a parameter, so it
// follows the activation) and so does GELU, so the activation the backward
// saves is 16-bit; the residual add of the f32 stream and a 16-bit activation
// is f32; layer_norm and cross_entropy read f32. The signature never changes.
// BF16-LABEL: func.func @block
// BF16-SAME: (%[[X:.*]]: tensor<8x16xf32> {tfc.input = "x"}, %[[G:.*]]: tensor<16xf32> {tfc.param = "ln.weight"}, %[[W1:.*]]: tensor<32x16xf32> {tfc.param = "fc.weight"}, %[[B1:.*]]: tensor<32xf32> {tfc.param = "fc.bias"}, %[[W2:.*]]: tensor<16x32xf32> {tfc.param = "proj.weight"}, %[[Y:.*]]: tensor<8xi64> {tfc.input = "y"})
// BF16-SAME: -> tensor<f32>
// BF16: %[[LN:.*]], %{{.*}}, %{{.*}} = tfc.layer_norm %[[X]] weight %[[G]] : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
// BF16: %[[LNL:.*]] = tfc.convert %[[LN]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// BF16: %[[W1L:.*]] = tfc.convert %[[W1]] : tensor<32x16xf32> -> tensor<32x16xbf16>
// BF16: %[[H:.*]] = tfc.matmul %[[LNL]], %[[W1L]] transpose_b : tensor<8x16xbf16>, tensor<32x16xbf16> -> tensor<8x32xbf16>
// BF16: %[[B1L:.*]] = tfc.convert %[[B1]] : tensor<32xf32> -> tensor<32xbf16>
// BF16: %[[HB:.*]] = tfc.add %[[H]], %[[B1L]] : tensor<8x32xbf16>, tensor<32xbf16>
// BF16: %[[A:.*]] = tfc.gelu %[[HB]] approximate tanh : tensor<8x32xbf16>
// BF16: %[[W2L:.*]] = tfc.convert %[[W2]] : tensor<16x32xf32> -> tensor<16x32xbf16>
// BF16: %[[P:.*]] = tfc.matmul %[[A]], %[[W2L]] transpose_b : tensor<8x32xbf16>, tensor<16x32xbf16> -> tensor<8x16xbf16>
// BF16: %[[PF:.*]] = tfc.convert %[[P]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// BF16: %[[R:.*]] = tfc.add %[[X]], %[[PF]] : tensor<8x16xf32>, tensor<8x16xf32>
// BF16: %[[RL:.*]] = tfc.convert %[[R]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// BF16: %[[W1L2:.*]] = tfc.convert %[[W1]] : tensor<32x16xf32> -> tensor<32x16xbf16>
// BF16: %[[LOGITS:.*]] = tfc.matmul %[[RL]], %[[W1L2]] transpose_b : tensor<8x16xbf16>, tensor<32x16xbf16> -> tensor<8x32xbf16>
// BF16: %[[LF:.*]] = tfc.convert %[[LOGITS]] : tensor<8x32xbf16> -> tensor<8x32xf32>
// BF16: %[[LOSS:.*]] = tfc.cross_entropy %[[LF]], %[[Y]] : tensor<8x32xf32>, tensor<8xi64> -> tensor<f32>
// BF16: return %[[LOSS]] : tensor<f32>

// fp16 makes the same choices with f16.
// FP16-LABEL: func.func @block
// FP16: tfc.matmul %{{.*}}, %{{.*}} transpose_b : tensor<8x16xf16>, tensor<32x16xf16> -> tensor<8x32xf16>
// FP16: tfc.gelu %{{.*}} approximate tanh : tensor<8x32xf16>

// f32 leaves the module as it is; tf32 converts nothing and marks the module
// for --tfc-convert-to-exec, which gives f32 GEMMs the TF32 compute type.
// F32-NOT: tfc.convert
// F32-NOT: tfc.f32_gemm_compute
// TF32: module attributes {tfc.f32_gemm_compute = "tf32"}
// TF32-NOT: tfc.convert
func.func @block(%x: tensor<8x16xf32> {tfc.input = "x"},
                 %g: tensor<16xf32> {tfc.param = "ln.weight"},
                 %w1: tensor<32x16xf32> {tfc.param = "fc.weight"},
                 %b1: tensor<32xf32> {tfc.param = "fc.bias"},
                 %w2: tensor<16x32xf32> {tfc.param = "proj.weight"},
                 %y: tensor<8xi64> {tfc.input = "y"}) -> tensor<f32> {
  %ln, %mean, %rstd = tfc.layer_norm %x weight %g : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %h = tfc.matmul %ln, %w1 transpose_b : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  %hb = tfc.add %h, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %a = tfc.gelu %hb approximate tanh : tensor<8x32xf32>
  %p = tfc.matmul %a, %w2 transpose_b : tensor<8x32xf32>, tensor<16x32xf32> -> tensor<8x16xf32>
  %r = tfc.add %x, %p : tensor<8x16xf32>, tensor<8x16xf32>
  %logits = tfc.matmul %r, %w1 transpose_b : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  %loss = tfc.cross_entropy %logits, %y : tensor<8x32xf32>, tensor<8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Attention runs in 16-bit (its scores and softmax are f32 inside the op);
// softmax, reductions, exp, log, pow and rsqrt read f32; sqrt, tanh, views
// and selects follow their operands. A function result whose op now
// produces 16-bit is converted back to the declared type.
// BF16-LABEL: func.func @ops
// BF16: %[[Q:.*]] = tfc.convert %{{.*}} : tensor<2x4x8xf32> -> tensor<2x4x8xbf16>
// BF16: %[[ATT:.*]] = tfc.attention %[[Q]], %{{.*}}, %{{.*}} causal : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x4x8xbf16>
// BF16: %[[T:.*]] = tfc.tanh %[[ATT]] : tensor<2x4x8xbf16>
// BF16: %[[TT:.*]] = tfc.transpose %[[T]], [0, 2, 1] : tensor<2x4x8xbf16> -> tensor<2x8x4xbf16>
// BF16: %[[TF:.*]] = tfc.convert %[[TT]] : tensor<2x8x4xbf16> -> tensor<2x8x4xf32>
// BF16: tfc.softmax %[[TF]] dim -1 : tensor<2x8x4xf32>
// BF16: %[[E:.*]] = tfc.exp %{{.*}} : tensor<2x8x4xf32>
// BF16: tfc.reduce_sum %{{.*}} dims [2] : tensor<2x8x4xf32> -> tensor<2x8xf32>
// BF16: %[[SQ:.*]] = tfc.sqrt %[[TT]] : tensor<2x8x4xbf16>
// BF16: %[[OUT:.*]] = tfc.convert %[[SQ]] : tensor<2x8x4xbf16> -> tensor<2x8x4xf32>
// BF16: return %{{.*}}, %[[OUT]] : tensor<2x8xf32>, tensor<2x8x4xf32>
func.func @ops(%q: tensor<2x4x8xf32> {tfc.input = "q"},
               %k: tensor<2x4x8xf32> {tfc.input = "k"},
               %v: tensor<2x4x8xf32> {tfc.input = "v"})
    -> (tensor<2x8xf32>, tensor<2x8x4xf32>) {
  %att = tfc.attention %q, %k, %v causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %t = tfc.tanh %att : tensor<2x4x8xf32>
  %tt = tfc.transpose %t, [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %s = tfc.softmax %tt dim -1 : tensor<2x8x4xf32>
  %e = tfc.exp %s : tensor<2x8x4xf32>
  %sum = tfc.reduce_sum %e dims [2] : tensor<2x8x4xf32> -> tensor<2x8xf32>
  %sq = tfc.sqrt %tt : tensor<2x8x4xf32>
  return %sum, %sq : tensor<2x8xf32>, tensor<2x8x4xf32>
}

// -----

// An additive attention mask is clamped to the 16-bit type's finite range
// before it is converted (infinities and NaN kept): Hugging Face's masks of
// torch.finfo(torch.float32).min would round to -inf, and a row masked
// everywhere would be NaN where torch, adding the f32 mask, weighs every key
// alike. The clamp compares with the largest finite value of the target
// type (bf16 3.389e38, fp16 65504) and keeps +-inf through the inner selects.
// BF16-LABEL: func.func @finite_mask
// BF16-DAG: %[[HI:.*]] = tfc.constant dense<3.38953139E+38> : tensor<f32>
// BF16-DAG: %[[LO:.*]] = tfc.constant dense<-3.38953139E+38> : tensor<f32>
// BF16-DAG: %[[ABOVE:.*]] = tfc.compare gt, %[[M:.*]], %[[HI]]
// BF16-DAG: %[[BELOW:.*]] = tfc.compare lt, %[[M]], %[[LO]]
// BF16: %[[SAT:.*]] = tfc.select %[[BELOW]], %{{.*}}, %{{.*}} : tensor<2x1x4xi1>, tensor<2x1x4xf32>
// BF16: %[[MB:.*]] = tfc.convert %[[SAT]] : tensor<2x1x4xf32> -> tensor<2x1x4xbf16>
// BF16: tfc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[MB]]
// FP16-LABEL: func.func @finite_mask
// FP16-DAG: tfc.constant dense<6.550400e+04> : tensor<f32>
// FP16-DAG: tfc.constant dense<-6.550400e+04> : tensor<f32>
// FP16: tfc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x4x8xf16>
// F32-LABEL: func.func @finite_mask
// F32-NOT: tfc.select
// F32: tfc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x4x8xf32>
func.func @finite_mask(%q: tensor<2x4x8xf32> {tfc.input = "q"},
                       %k: tensor<2x4x8xf32> {tfc.input = "k"},
                       %v: tensor<2x4x8xf32> {tfc.input = "v"},
                       %m: tensor<2x1x4xf32> {tfc.input = "m"}) -> tensor<2x4x8xf32> {
  %att = tfc.attention %q, %k, %v mask %m : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x1x4xf32> -> tensor<2x4x8xf32>
  return %att : tensor<2x4x8xf32>
}

// -----

// f64 is a deliberate choice: an f64 GEMM stays f64.
// BF16-LABEL: func.func @f64_stays
// BF16-NOT: tfc.convert
// BF16: tfc.matmul %{{.*}}, %{{.*}} : tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
func.func @f64_stays(%a: tensor<4x4xf64> {tfc.input = "a"},
                     %b: tensor<4x4xf64> {tfc.param = "b"}) -> tensor<4x4xf64> {
  %c = tfc.matmul %a, %b : tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  return %c : tensor<4x4xf64>
}

// -----

// Parameters and constants alone stay in their type when no activation
// joins them: a scale computed from a parameter is not lowered by itself.
// BF16-LABEL: func.func @weights_alone
// BF16: %[[S:.*]] = tfc.mul %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>
// BF16: %[[SL:.*]] = tfc.convert %[[S]] : tensor<4xf32> -> tensor<4xbf16>
// BF16: tfc.mul %{{.*}}, %[[SL]] : tensor<3x4xbf16>, tensor<4xbf16>
func.func @weights_alone(%x: tensor<3x4xf32> {tfc.input = "x"},
                         %w: tensor<4x4xf32> {tfc.param = "w"},
                         %g: tensor<4xf32> {tfc.param = "g"}) -> tensor<3x4xf32> {
  %half = tfc.constant dense<0.5> : tensor<f32>
  %s = tfc.mul %g, %half : tensor<4xf32>, tensor<f32>
  %h = tfc.matmul %x, %w : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %y = tfc.mul %h, %s : tensor<3x4xf32>, tensor<4xf32>
  return %y : tensor<3x4xf32>
}
