tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4x8xf32>
  %b = tfcrt.alias %a : memref<4x8xf32> -> memref<32xi32>
  tfcrt.return
}
