func.func @binary_wrong_result(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  %0 = "tfc.sub"(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}
