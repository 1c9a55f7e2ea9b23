tfcrt.arena size 1024 alignment 256
tfcrt.entry @forward {
  %v = tfcrt.arena_view offset 128 : memref<4xf32>
  tfcrt.return
}
