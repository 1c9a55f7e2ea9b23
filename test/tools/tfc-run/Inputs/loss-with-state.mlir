// A loss with model state: %s is read (scaled by it) and its new value
// returned after the loss, as an exported batch norm's running statistics.
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %s: tensor<4xf32> {tfc.state = "s"},
                %x: tensor<4xf32> {tfc.input = "x"})
    -> (tensor<f32>, tensor<4xf32> {tfc.update = "s"}) {
  %p = tfc.mul %w, %s : tensor<4xf32>, tensor<4xf32>
  %l = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  %n = tfc.add %s, %x : tensor<4xf32>, tensor<4xf32>
  return %l, %n : tensor<f32>, tensor<4xf32>
}
