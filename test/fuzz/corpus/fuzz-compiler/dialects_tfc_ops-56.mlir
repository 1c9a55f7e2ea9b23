func.func @gather_and_loss_kernels(%table: tensor<256x128xf32>, %ids: tensor<16x64xi64>, %logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>) -> (tensor<16x64x128xf32>, tensor<f32>) {
  %e = tfc.fusion gather (%a = %table : tensor<256x128xf32>, %b = %ids : tensor<16x64xi64>) -> tensor<16x64x128xf32> {
    %0 = tfc.embedding %a, %b : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
    tfc.yield %0 : tensor<16x64x128xf32>
  }
  %l = tfc.fusion row_reduction (%a = %logits : tensor<1024x256xf32>, %b = %labels : tensor<1024xi64>) -> tensor<f32> {
    %0 = tfc.cross_entropy %a, %b : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
    tfc.yield %0 : tensor<f32>
  }
  return %e, %l : tensor<16x64x128xf32>, tensor<f32>
}
