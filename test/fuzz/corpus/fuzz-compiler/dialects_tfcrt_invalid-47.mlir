tfcrt.arena size 1024 alignment 8
tfcrt.kernel @two pointwise (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0, %x : tensor<4xf32>, tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  %b = tfcrt.arena_view offset 0 : memref<4xf32>
  %c = tfcrt.arena_view offset 8 : memref<4xf32>
  tfcrt.launch @two (%a) -> (%b, %c) : (memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
  tfcrt.return
}
