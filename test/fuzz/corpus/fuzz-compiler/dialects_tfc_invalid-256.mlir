func.func @block_quantized_two(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<300xf32> {
  %r = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> tensor<300xf32> {
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %a, %c, %d, %c, %d, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    %p2, %m2, %ma2, %v2, %va2 = tfc.adamw8bit %p1, %a, %m1, %ma1, %v1, %va1, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    tfc.yield %p2 : tensor<300xf32>
  }
  return %r : tensor<300xf32>
}
