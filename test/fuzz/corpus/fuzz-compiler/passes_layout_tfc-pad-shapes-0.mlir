func.func @linear(%x: tensor<7x33x100xbf16> {tfc.input = "x"},
                  %w: tensor<300x100xbf16> {tfc.param = "w"},
                  %b: tensor<300xbf16> {tfc.param = "b"}) -> tensor<7x33x300xbf16> {
  %h = tfc.matmul %x, %w transpose_b : tensor<7x33x100xbf16>, tensor<300x100xbf16> -> tensor<7x33x300xbf16>
  %hb = tfc.add %h, %b : tensor<7x33x300xbf16>, tensor<300xbf16>
  %g = tfc.gelu %hb approximate tanh : tensor<7x33x300xbf16>
  return %g : tensor<7x33x300xbf16>
}
