func.func @dynamic_shape(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %0 = tfc.reduce_max %x dims [1] : tensor<?x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
