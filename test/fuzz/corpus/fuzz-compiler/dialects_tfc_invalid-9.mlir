func.func @dynamic_shape(%x: tensor<?xf32>) {
  %0 = tfc.tanh %x : tensor<?xf32>
  return
}
