tfcrt.kernel @k column_reduction (tensor<64x8xf32>) -> tensor<8xf32> schedule <target = sm_90, threads = 128, rows_per_block = 8> {
^bb0(%x: tensor<64x8xf32>):
  %0 = tfc.reduce_sum %x dims [0] : tensor<64x8xf32> -> tensor<8xf32>
  tfcrt.yield %0 : tensor<8xf32>
}
