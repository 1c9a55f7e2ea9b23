// Two entries bind "w" with different roles: not one buffer.
tfcrt.arena size 256 alignment 256
tfcrt.entry @accumulate_step {
  %w = tfcrt.external param "w" : memref<4xf32>
  %o = tfcrt.external output "out0" : memref<4xf32>
  tfcrt.copy %w -> %o : memref<4xf32>
  tfcrt.return
}
tfcrt.entry @apply_step {
  %w = tfcrt.external state "w" : memref<4xf32>
  %o = tfcrt.external output "out0" : memref<4xf32>
  tfcrt.copy %w -> %o : memref<4xf32>
  tfcrt.return
}
