func.func @loss(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = tfc.fusion gemm (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x2xf32>) -> tensor<4x2xf32> {
    %m = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %r = tfc.exp %m : tensor<4x2xf32>
    tfc.yield %r : tensor<4x2xf32>
  }
  return %0 : tensor<4x2xf32>
}
