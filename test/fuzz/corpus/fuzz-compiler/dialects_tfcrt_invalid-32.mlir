tfcrt.arena size 1024 alignment 256
tfcrt.entry @forward {
  %v = tfcrt.arena_view offset -256 : memref<4xf32>
  tfcrt.return
}
