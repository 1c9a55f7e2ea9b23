func.func @train_step(%p: tensor<40x130xf32> {tfc.param = "p"}, %m: tensor<40x130xui8> {tfc.state = "p.exp_avg.codes"},
                      %ma: tensor<21xf32> {tfc.state = "p.exp_avg.absmax"}, %v: tensor<40x130xui8> {tfc.state = "p.exp_avg_sq.codes"},
                      %va: tensor<21xf32> {tfc.state = "p.exp_avg_sq.absmax"}, %g: tensor<40x130xf32> {tfc.input = "g"},
                      %lr: tensor<f32> {tfc.input = "lr"}, %step: tensor<i64> {tfc.input = "step"})
    -> (tensor<40x130xf32> {tfc.update = "p"}, tensor<40x130xui8> {tfc.update = "p.exp_avg.codes"},
        tensor<21xf32> {tfc.update = "p.exp_avg.absmax"}, tensor<40x130xui8> {tfc.update = "p.exp_avg_sq.codes"},
        tensor<21xf32> {tfc.update = "p.exp_avg_sq.absmax"}) {
  %r:5 = tfc.fusion block_quantized (%a = %p : tensor<40x130xf32>, %b = %g : tensor<40x130xf32>, %c = %m : tensor<40x130xui8>, %d = %ma : tensor<21xf32>, %e = %v : tensor<40x130xui8>, %f = %va : tensor<21xf32>, %h = %lr : tensor<f32>, %i = %step : tensor<i64>) -> (tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>) {
    %0:5 = tfc.adamw8bit %a, %b, %c, %d, %e, %f, %h, %i : tensor<40x130xf32>, tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<f32>
    tfc.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<40x130xf32>, tensor<40x130xui8>, tensor<21xf32>, tensor<40x130xui8>, tensor<21xf32>
}
