tfcrt.arena size 1024 alignment 64
tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.arena_view offset 0 : memref<4xf32>
  %b = tfcrt.alias %a : memref<4xf32> -> memref<4xf32>
  tfcrt.launch @neg (%a) -> (%b) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
