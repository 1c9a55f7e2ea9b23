func.func @block_quantized_epilogue(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<300xbf16> {
  %r = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> tensor<300xbf16> {
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %a, %c, %d, %c, %d, %h, %i : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    %w = tfc.convert %p1 : tensor<300xf32> -> tensor<300xbf16>
    tfc.yield %w : tensor<300xbf16>
  }
  return %r : tensor<300xbf16>
}
