tfcrt.kernel @adamw multi_tensor (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<i64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) in_place [0, 2, 3] {
^bb0(%p: tensor<64xf32>, %g: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %p2, %m2, %v2 = tfc.adamw %p, %g, %m, %v, %lr, %t : tensor<64xf32>, tensor<64xf32>, tensor<f32>
  tfcrt.yield %p2, %m2, %v2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
tfcrt.entry @train_step {
  %p = tfcrt.external param "p" : memref<64xf32>
  %g = tfcrt.external input "g" : memref<64xf32>
  %m = tfcrt.external state "p.exp_avg" : memref<64xf32>
  %v = tfcrt.external state "p.exp_avg_sq" : memref<64xf32>
  %lr = tfcrt.external input "lr" : memref<f32>
  %s = tfcrt.external state "step" : memref<i64>
  tfcrt.launch @adamw (%p, %g, %m, %v, %lr, %s) -> (%p, %m, %v) : (memref<64xf32>, memref<64xf32>, memref<64xf32>, memref<64xf32>, memref<f32>, memref<i64>) -> (memref<64xf32>, memref<64xf32>, memref<64xf32>)
  tfcrt.return
}
