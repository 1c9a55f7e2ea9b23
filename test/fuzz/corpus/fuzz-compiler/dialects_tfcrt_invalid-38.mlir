tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  tfcrt.launch @missing (%a) -> (%a) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}
