tfcrt.kernel @k row_reduction (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) schedule <target = sm_90, threads = 64> {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  %1 = tfc.reduce_sum %x dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  tfcrt.yield %0, %1 : tensor<4x8xf32>, tensor<8xf32>
}
