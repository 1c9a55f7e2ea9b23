func.func @pad(%x: tensor<4x5xf32>, %i: tensor<3xi32>) -> (tensor<4x8xf32>, tensor<6xi32>) {
  %0 = tfc.pad %x low [0, 0] high [0, 3] value 0.000000e+00 : tensor<4x5xf32> -> tensor<4x8xf32>
  %1 = tfc.pad %i low [1] high [2] value -1.0 : tensor<3xi32> -> tensor<6xi32>
  return %0, %1 : tensor<4x8xf32>, tensor<6xi32>
}
