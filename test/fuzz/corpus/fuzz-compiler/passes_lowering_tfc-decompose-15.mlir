func.func @layer_norm_grad(%dy: tensor<4x6x96xbf16>, %x: tensor<4x6x96xbf16>, %m: tensor<4x6x1xf32>, %r: tensor<4x6x1xf32>, %w: tensor<96xf32>) -> (tensor<4x6x96xbf16>, tensor<96xf32>, tensor<96xf32>) {
  %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %m, %r weight %w : (tensor<4x6x96xbf16>, tensor<4x6x96xbf16>, tensor<4x6x1xf32>, tensor<4x6x1xf32>, tensor<96xf32>) -> (tensor<4x6x96xbf16>, tensor<96xf32>, tensor<96xf32>)
  return %dx, %dw, %db : tensor<4x6x96xbf16>, tensor<96xf32>, tensor<96xf32>
}
