tfcrt.kernel @k0 row_reduction (tensor<64x768xf32>) -> tensor<64x768xf32> schedule <target = sm_80, threads = 64, max_blocks = 1> {
^bb0(%x: tensor<64x768xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<64x768xf32>
  tfcrt.yield %0 : tensor<64x768xf32>
}
tfcrt.kernel @k1 row_reduction (tensor<8x4096xf32>) -> tensor<8x4096xf32> {
^bb0(%x: tensor<8x4096xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<8x4096xf32>
  tfcrt.yield %0 : tensor<8x4096xf32>
}
