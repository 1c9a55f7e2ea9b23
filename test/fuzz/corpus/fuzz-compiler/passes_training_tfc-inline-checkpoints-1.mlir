func.func @loss(%x: tensor<4xf32> {tfc.input = "x"},
                %shared: tensor<4xf32> {tfc.param = "shared"},
                %also: tensor<4xf32> {tfc.param = "also.outside"},
                %own: tensor<4xf32> {tfc.param = "own"}) -> tensor<f32> {
  %a = tfc.checkpoint (%p = %x : tensor<4xf32>, %q = %shared : tensor<4xf32>, %r = %also : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.mul %p, %q : tensor<4xf32>, tensor<4xf32>
    %1 = tfc.add %0, %r : tensor<4xf32>, tensor<4xf32>
    tfc.yield %1 : tensor<4xf32>
  }
  %b = tfc.checkpoint (%p = %a : tensor<4xf32>, %q = %shared : tensor<4xf32>, %r = %own : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.mul %p, %q : tensor<4xf32>, tensor<4xf32>
    %1 = tfc.mul %0, %r : tensor<4xf32>, tensor<4xf32>
    tfc.yield %1 : tensor<4xf32>
  }
  %c = tfc.add %b, %also : tensor<4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %c dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
