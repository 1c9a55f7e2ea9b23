tfcrt.arena size 4096 alignment 64
tfcrt.kernel @iota pointwise () -> (tensor<8xi64>, tensor<8xi1>) {
  %0 = tfc.iota dim 0 : tensor<8xi64>
  %c = tfc.constant dense<3> : tensor<i64>
  %1 = tfc.compare lt, %0, %c : tensor<8xi64>, tensor<i64>
  tfcrt.yield %0, %1 : tensor<8xi64>, tensor<8xi1>
}
tfcrt.kernel @norm row_reduction (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>) {
^bb0(%x: tensor<8x16xf32>):
  %y, %mean, %rstd = tfc.layer_norm %x : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  tfcrt.yield %y, %mean, %rstd : tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>
}
tfcrt.kernel @colsum column_reduction (tensor<8x16xf32>) -> tensor<16xf32> {
^bb0(%x: tensor<8x16xf32>):
  %0 = tfc.reduce_sum %x dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  tfcrt.yield %0 : tensor<16xf32>
}
tfcrt.kernel @gather gather (tensor<32x16xf32>, tensor<8xi64>) -> tensor<8x16xf32> {
^bb0(%table: tensor<32x16xf32>, %ids: tensor<8xi64>):
  %0 = tfc.embedding %table, %ids : tensor<32x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  tfcrt.yield %0 : tensor<8x16xf32>
}
tfcrt.entry @train_step {
  %x = tfcrt.external input "x" : memref<8x16xf32>
  %ids = tfcrt.arena_view offset 0 : memref<8xi64>
  %mask = tfcrt.arena_view offset 64 : memref<8xi1>
  %y = tfcrt.arena_view offset 512 : memref<8x16xf32>
  %mean = tfcrt.arena_view offset 1024 : memref<8x1xf32>
  %rstd = tfcrt.arena_view offset 1088 : memref<8x1xf32>
  tfcrt.launch @iota () -> (%ids, %mask) : () -> (memref<8xi64>, memref<8xi1>)
  tfcrt.launch @norm (%x) -> (%y, %mean, %rstd) : (memref<8x16xf32>) -> (memref<8x16xf32>, memref<8x1xf32>, memref<8x1xf32>)
  tfcrt.return
}
