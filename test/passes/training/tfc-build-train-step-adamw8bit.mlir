// RUN: tfc-opt %s --tfc-build-train-step=optimizer=adamw8bit | FileCheck %s
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=adamw8bit block-size=1024 loss-scaling=true' | FileCheck %s --check-prefix=SCALE

// adamw8bit: the 64x128 weight (8192 elements, at least 4096) gets ui8 codes
// and one f32 absmax per 256 elements for each moment and a tfc.adamw8bit
// update; the 64-element bias keeps f32 moments and a plain tfc.adamw (without
// weight decay: rank < 2).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<64x128xf32> {tfc.param = "w"}, %[[B:[^:]*]]: tensor<64xf32> {tfc.param = "b"},
// CHECK-SAME: %[[WM:[^:]*]]: tensor<64x128xui8> {tfc.state = "w.exp_avg.codes"}, %[[WMA:[^:]*]]: tensor<32xf32> {tfc.state = "w.exp_avg.absmax"},
// CHECK-SAME: %[[WV:[^:]*]]: tensor<64x128xui8> {tfc.state = "w.exp_avg_sq.codes"}, %[[WVA:[^:]*]]: tensor<32xf32> {tfc.state = "w.exp_avg_sq.absmax"},
// CHECK-SAME: %[[BM:[^:]*]]: tensor<64xf32> {tfc.state = "b.exp_avg"}, %[[BV:[^:]*]]: tensor<64xf32> {tfc.state = "b.exp_avg_sq"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tfc.state = "step"}, %[[LR:[^:]*]]: tensor<f32> {tfc.input = "lr"}
// CHECK: %[[NEXT:.*]] = tfc.add %[[STEP]],
// CHECK: %[[W2:[^,]*]], %[[WM2:[^,]*]], %[[WMA2:[^,]*]], %[[WV2:[^,]*]], %[[WVA2:[^ ]*]] = tfc.adamw8bit %[[W]], %{{.*}}, %[[WM]], %[[WMA]], %[[WV]], %[[WVA]], %[[LR]], %[[NEXT]] : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<f32>
// CHECK: %[[B2:[^,]*]], %[[BM2:[^,]*]], %[[BV2:[^ ]*]] = tfc.adamw %[[B]], %{{.*}}, %[[BM]], %[[BV]], %[[LR]], %[[NEXT]] weight_decay 0.000000e+00 : tensor<64xf32>
// CHECK: return %{{.*}}, %[[W2]], %[[B2]], %[[WM2]], %[[WMA2]], %[[WV2]], %[[WVA2]], %[[BM2]], %[[BV2]], %[[NEXT]] :

// block-size sets the block (8192 / 1024 = 8 scales); with loss scaling a
// skipped step selects the old codes and scales like any other state.
// SCALE-LABEL: func.func @train_step
// SCALE-SAME: tensor<64x128xui8> {tfc.state = "w.exp_avg.codes"}, %{{[^:]*}}: tensor<8xf32> {tfc.state = "w.exp_avg.absmax"}
// SCALE: tfc.adamw8bit {{.*}} block_size 1024 : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xui8>, tensor<8xf32>, tensor<f32>
// SCALE: tfc.select %{{.*}} : tensor<i1>, tensor<64x128xui8>, tensor<64x128xui8>
// SCALE: tfc.select %{{.*}} : tensor<i1>, tensor<8xf32>, tensor<8xf32>

func.func @loss(%w: tensor<64x128xf32> {tfc.param = "w"}, %b: tensor<64xf32> {tfc.param = "b"},
                %x: tensor<2x128xf32> {tfc.input = "x"}, %y: tensor<2x64xf32>) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x128xf32>, tensor<64x128xf32> -> tensor<2x64xf32>
  %z = tfc.add %mm, %b : tensor<2x64xf32>, tensor<64xf32>
  %d = tfc.sub %z, %y : tensor<2x64xf32>, tensor<2x64xf32>
  %sq = tfc.mul %d, %d : tensor<2x64xf32>, tensor<2x64xf32>
  %s = tfc.reduce_mean %sq dims [0, 1] : tensor<2x64xf32> -> tensor<f32>
  return %s : tensor<f32>
}
