func.func @two_gemms(%x: tensor<16x128xf32>, %w: tensor<128x128xf32>) -> tensor<16x128xf32> {
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %b = %w : tensor<128x128xf32>) -> tensor<16x128xf32> {
    %0 = tfc.matmul %a, %b : tensor<16x128xf32>, tensor<128x128xf32> -> tensor<16x128xf32>
    %1 = tfc.matmul %0, %b : tensor<16x128xf32>, tensor<128x128xf32> -> tensor<16x128xf32>
    tfc.yield %1 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
