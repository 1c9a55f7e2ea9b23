tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4xf32>
  %b = tfcrt.external output "b" : memref<4xf16>
  tfcrt.copy %a -> %b : memref<4xf32> -> memref<4xf16>
  tfcrt.return
}
