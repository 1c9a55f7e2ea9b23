func.func @compare_result_dtype(%x: tensor<4xf32>) {
  %0 = "tfc.compare"(%x, %x) {direction = #tfc<compare_direction eq>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
