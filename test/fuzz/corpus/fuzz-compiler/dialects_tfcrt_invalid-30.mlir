tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4x4xf32, strided<[8, 1]>>
  tfcrt.return
}
