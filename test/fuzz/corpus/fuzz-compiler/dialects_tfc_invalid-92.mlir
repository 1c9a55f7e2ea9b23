func.func @dynamic_shape(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>) {
  %0 = tfc.matmul %a, %b : tensor<?x16xf32>, tensor<16x8xf32> -> tensor<?x8xf32>
  return
}
