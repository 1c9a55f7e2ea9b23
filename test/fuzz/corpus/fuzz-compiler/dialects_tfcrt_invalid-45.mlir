tfcrt.kernel @sub pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %0 = tfc.sub %x, %y : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external param "p" : memref<4xf32>
  %b = tfcrt.external input "g" : memref<4xf32>
  tfcrt.launch @sub (%b, %a) -> (%a) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
