func.func @unsupported_dtype(%x: tensor<4xi8>, %y: tensor<4xi8>) {
  %0 = tfc.add %x, %y : tensor<4xi8>, tensor<4xi8>
  return
}
