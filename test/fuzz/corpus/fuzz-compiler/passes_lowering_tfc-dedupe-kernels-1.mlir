tfcrt.kernel @gelu pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.gelu %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @gelu_tanh pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.gelu %x approximate tanh : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @sub pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @sub_swapped pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.sub %b, %a : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @sub8 pointwise (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
  %0 = tfc.sub %a, %b : tensor<8xf32>, tensor<8xf32>
  tfcrt.yield %0 : tensor<8xf32>
}
tfcrt.kernel @sub_in_place pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
