func.func @loss(%x: tensor<4x32x32xf32>, %w: tensor<384x32xf32>, %q: tensor<2x4x16x8xf32>, %a: tensor<16x8xf32>, %b: tensor<8x8x4xf32>, %t: tensor<2x16x8xf32>, %u: tensor<16x4xf32>, %h: tensor<4x8xbf16>, %g: tensor<8x2xbf16>) -> (tensor<4x32x384xf32>, tensor<2x4x16x16xf32>, tensor<8x16x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf32>) {
  %0 = tfc.fusion gemm (%in = %x : tensor<4x32x32xf32>, %in_0 = %w : tensor<384x32xf32>) -> tensor<4x32x384xf32> {
    %r = tfc.matmul %in, %in_0 transpose_b : tensor<4x32x32xf32>, tensor<384x32xf32> -> tensor<4x32x384xf32>
    tfc.yield %r : tensor<4x32x384xf32>
  }
  %1 = tfc.fusion gemm (%in = %q : tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32> {
    %r = tfc.matmul %in, %in transpose_b : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
    tfc.yield %r : tensor<2x4x16x16xf32>
  }
  %2 = tfc.fusion gemm (%in = %a : tensor<16x8xf32>, %in_0 = %b : tensor<8x8x4xf32>) -> tensor<8x16x4xf32> {
    %r = tfc.matmul %in, %in_0 : tensor<16x8xf32>, tensor<8x8x4xf32> -> tensor<8x16x4xf32>
    tfc.yield %r : tensor<8x16x4xf32>
  }
  %3 = tfc.fusion gemm (%in = %t : tensor<2x16x8xf32>, %in_0 = %u : tensor<16x4xf32>) -> tensor<2x8x4xf32> {
    %r = tfc.matmul %in, %in_0 transpose_a : tensor<2x16x8xf32>, tensor<16x4xf32> -> tensor<2x8x4xf32>
    tfc.yield %r : tensor<2x8x4xf32>
  }
  %4 = tfc.fusion gemm (%in = %h : tensor<4x8xbf16>, %in_0 = %g : tensor<8x2xbf16>) -> tensor<4x2xf32> {
    %r = tfc.matmul %in, %in_0 : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xf32>
    tfc.yield %r : tensor<4x2xf32>
  }
  return %0, %1, %2, %3, %4 : tensor<4x32x384xf32>, tensor<2x4x16x16xf32>, tensor<8x16x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf32>
}
