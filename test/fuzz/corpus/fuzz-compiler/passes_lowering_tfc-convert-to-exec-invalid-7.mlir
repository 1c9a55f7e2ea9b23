func.func @loss(%x: tensor<4x1x2x5xf32>, %y: tensor<3x5x6xf32>) -> tensor<4x3x2x6xf32> {
  %0 = tfc.fusion gemm (%a = %x : tensor<4x1x2x5xf32>, %b = %y : tensor<3x5x6xf32>) -> tensor<4x3x2x6xf32> {
    %m = tfc.matmul %a, %b : tensor<4x1x2x5xf32>, tensor<3x5x6xf32> -> tensor<4x3x2x6xf32>
    tfc.yield %m : tensor<4x3x2x6xf32>
  }
  return %0 : tensor<4x3x2x6xf32>
}
