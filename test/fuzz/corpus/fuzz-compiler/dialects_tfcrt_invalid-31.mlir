%a = tfcrt.external input "x" : memref<4xf32>
