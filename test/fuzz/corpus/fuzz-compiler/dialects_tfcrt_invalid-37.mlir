tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4x8xf32>
  %b = tfcrt.alias %a : memref<4x8xf32> -> memref<16xf32>
  tfcrt.return
}
