func.func @block_quantized_kernel(%p: tensor<300xf32>, %g: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %v: tensor<300xui8>, %va: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>, %skip: tensor<i1>) -> (tensor<300xf32>, tensor<300xui8>) {
  %r:5 = tfc.fusion block_quantized (%a = %p : tensor<300xf32>, %b = %g : tensor<300xf32>, %c = %m : tensor<300xui8>, %d = %ma : tensor<2xf32>, %e = %v : tensor<300xui8>, %f = %va : tensor<2xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> (tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<300xui8>, tensor<2xf32>) {
    %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %a, %b, %c, %d, %e, %f, %h, %i block_size 256 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
    tfc.yield %p1, %m1, %ma1, %v1, %va1 : tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<300xui8>, tensor<2xf32>
  }
  %kept = tfc.select %skip, %m, %r#1 : tensor<i1>, tensor<300xui8>, tensor<300xui8>
  return %r#0, %kept : tensor<300xf32>, tensor<300xui8>
}
