func.func @gather_epilogue(%wte: tensor<32x8xf32>, %ids: tensor<2x4xi64>, %wpe: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tfc.embedding %wte, %ids : tensor<32x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
  %1 = tfc.add %0, %wpe : tensor<2x4x8xf32>, tensor<4x8xf32>
  return %1 : tensor<2x4x8xf32>
}
