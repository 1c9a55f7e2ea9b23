func.func @update_type(%s: tensor<i64> {tfc.state = "step"}, %t: tensor<i32>) -> (tensor<i32> {tfc.update = "step"}) {
  return %t : tensor<i32>
}
