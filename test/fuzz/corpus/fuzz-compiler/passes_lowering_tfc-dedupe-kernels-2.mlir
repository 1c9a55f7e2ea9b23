tfcrt.kernel @k0 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.add %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.kernel @k1 pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %0 = tfc.add %a, %b : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @accumulate_step {
  %acc = tfcrt.external state "acc" : memref<4xf32>
  %g = tfcrt.external input "g" : memref<4xf32>
  tfcrt.launch @k0 (%acc, %g) -> (%acc) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
tfcrt.entry @apply_step {
  %p = tfcrt.external param "p" : memref<4xf32>
  %acc = tfcrt.external state "acc" : memref<4xf32>
  tfcrt.launch @k1 (%p, %acc) -> (%p) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
