// RUN: tfc-opt %s --tfc-autodiff=function=f | FileCheck %s

// The function= option picks the loss function; the result is @f_grad.

// layer_norm reuses its statistics in layer_norm_grad (dx,
// dweight, dbias at once), gelu uses gelu_grad, and dropout's VJP is the
// same dropout (seed, offset, p) of the cotangent, regenerating the mask.
// CHECK-LABEL: func.func @f_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32> {tfc.param = "x"}, %[[W:.*]]: tensor<8xf32> {tfc.param = "ln.weight"}, %[[B:.*]]: tensor<8xf32> {tfc.param = "ln.bias"}, %[[SEED:.*]]: tensor<i64>, %[[OFF:.*]]: tensor<i64>)
// CHECK-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<2x8xf32> {tfc.output = "grad.x"}, tensor<8xf32> {tfc.output = "grad.ln.weight"}, tensor<8xf32> {tfc.output = "grad.ln.bias"})
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = tfc.layer_norm %[[X]] weight %[[W]] bias %[[B]]
// CHECK: %[[SCALE:.*]] = tfc.constant dense<6.250000e-02> : tensor<f32>
// CHECK: %[[G:.*]] = tfc.broadcast_to
// CHECK: %[[DD:.*]] = tfc.dropout %[[G]], %[[SEED]], %[[OFF]] p 1.000000e-01 : tensor<2x8xf32>
// CHECK: %[[DG:.*]] = tfc.gelu_grad %[[DD]], %[[Y]] approximate tanh : tensor<2x8xf32>
// CHECK: %[[DX:.*]], %[[DP:.*]]:2 = tfc.layer_norm_grad %[[DG]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[W]]
// CHECK: return %{{.*}}, %[[DX]], %[[DP]]#0, %[[DP]]#1
func.func @f(%x: tensor<2x8xf32> {tfc.param = "x"}, %w: tensor<8xf32> {tfc.param = "ln.weight"}, %bias: tensor<8xf32> {tfc.param = "ln.bias"}, %seed: tensor<i64>, %off: tensor<i64>) -> tensor<f32> {
  %y, %m, %r = tfc.layer_norm %x weight %w bias %bias : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %g = tfc.gelu %y approximate tanh : tensor<2x8xf32>
  %d = tfc.dropout %g, %seed, %off p 1.000000e-01 : tensor<2x8xf32>
  %s = tfc.reduce_mean %d dims [0, 1] : tensor<2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
