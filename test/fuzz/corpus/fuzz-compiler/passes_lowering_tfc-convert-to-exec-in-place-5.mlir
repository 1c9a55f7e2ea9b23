func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %acc_a: tensor<4xf32> {tfc.state = "a"},
                      %acc_b: tensor<4xf32> {tfc.state = "b"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.update = "a"}, tensor<4xf32> {tfc.update = "b"}) {
  %zero = tfc.fusion pointwise () -> tensor<4xf32> {
    %z = tfc.constant dense<0.0> : tensor<4xf32>
    tfc.yield %z : tensor<4xf32>
  }
  %new = tfc.fusion pointwise (%x = %p : tensor<4xf32>, %y = %acc_a : tensor<4xf32>, %z = %acc_b : tensor<4xf32>) -> tensor<4xf32> {
    %s = tfc.sub %x, %y : tensor<4xf32>, tensor<4xf32>
    %d = tfc.sub %s, %z : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  return %new, %zero, %zero : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
