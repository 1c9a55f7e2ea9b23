tfcrt.entry @forward {
  %a = tfcrt.external param "w" : memref<4xf32>
  %b = tfcrt.external input "w" : memref<4xf32>
  tfcrt.return
}
