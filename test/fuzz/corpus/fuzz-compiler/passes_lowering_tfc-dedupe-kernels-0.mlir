tfcrt.arena size 256 alignment 256
tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.add %a, %b : tensor<4xf32>, tensor<4xf32> loc("layer0")
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @k1 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %sum = tfc.add %x, %y : tensor<4xf32>, tensor<4xf32> loc("layer1")
  tfcrt.yield %sum : tensor<4xf32>
}
tfcrt.kernel @k2 pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4xf32>
  %b = tfcrt.external input "b" : memref<4xf32>
  %o = tfcrt.external output "out0" : memref<4xf32>
  %t = tfcrt.arena_view offset 0 : memref<4xf32>
  %u = tfcrt.external output "out1" : memref<4xf32>
  tfcrt.launch @k0 (%a, %b) -> (%t) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.launch @k1 (%t, %b) -> (%o) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.launch @k2 (%o) -> (%u) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
