func.func @embedding_scalar_id(%table: tensor<64x32xbf16>, %id: tensor<i32>) -> tensor<32xbf16> {
  %e = tfc.embedding %table, %id : tensor<64x32xbf16>, tensor<i32> -> tensor<32xbf16>
  return %e : tensor<32xbf16>
}
