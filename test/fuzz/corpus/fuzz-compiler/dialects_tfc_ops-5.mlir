func.func @compare_select(%x: tensor<4x8xf32>, %t: tensor<8xf32>, %z: tensor<f32>) -> tensor<4x8xf32> {
  %m = tfc.compare gt, %x, %t : tensor<4x8xf32>, tensor<8xf32>
  %e = tfc.compare eq, %m, %m : tensor<4x8xi1>, tensor<4x8xi1>
  %n = tfc.compare ne, %x, %z : tensor<4x8xf32>, tensor<f32>
  %l = tfc.compare lt, %x, %z : tensor<4x8xf32>, tensor<f32>
  %le = tfc.compare le, %x, %z : tensor<4x8xf32>, tensor<f32>
  %ge = tfc.compare ge, %x, %z : tensor<4x8xf32>, tensor<f32>
  %0 = tfc.select %m, %x, %z : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  return %0 : tensor<4x8xf32>
}
