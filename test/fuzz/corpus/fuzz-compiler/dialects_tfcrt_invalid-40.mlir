tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  %b = tfcrt.external output "y" : memref<4xf32>
  tfcrt.launch @neg (%a, %a) -> (%b) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
