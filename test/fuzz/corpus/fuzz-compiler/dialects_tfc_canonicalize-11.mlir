func.func @neg_neg_abs_abs(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfc.neg %x : tensor<4xf32>
  %1 = tfc.neg %0 : tensor<4xf32>
  %2 = tfc.abs %x : tensor<4xf32>
  %3 = tfc.abs %2 : tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}
