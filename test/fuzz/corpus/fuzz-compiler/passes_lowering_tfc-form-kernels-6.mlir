func.func @existing_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %n = tfc.neg %a : tensor<4xf32>
    %e = tfc.exp %n : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  %1 = tfc.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
