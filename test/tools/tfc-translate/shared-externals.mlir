// The entries of one program share externals by name (one buffer each); two
// entries that declare one name with another shape, dtype or role are
// rejected with the name and both declarations.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tfc-translate %s --emit-artifact -o %t/ok
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/ok/manifest.json
// RUN: %expect-exit 1 tfc-translate %S/Inputs/mismatched-externals.mlir --emit-artifact -o %t/bad 2>&1 | FileCheck %s --check-prefix=BAD

// "w" and "w.grad_accum" are one buffer each, bound by both entries.
// MANIFEST: "buffers": [
// MANIFEST: "name": "w"
// MANIFEST: "name": "w.grad_accum"
// MANIFEST-NOT: "name": "w"
// MANIFEST: "entries": [
// MANIFEST: "name": "accumulate_step"
// MANIFEST: "name": "apply_step"
tfcrt.arena size 256 alignment 256
tfcrt.entry @accumulate_step {
  %w = tfcrt.external param "w" : memref<4xf32>
  %acc = tfcrt.external state "w.grad_accum" : memref<4xf32>
  tfcrt.copy %w -> %acc : memref<4xf32>
  tfcrt.return
}
tfcrt.entry @apply_step {
  %acc = tfcrt.external state "w.grad_accum" : memref<4xf32>
  %w = tfcrt.external param "w" : memref<4xf32>
  tfcrt.copy %acc -> %w : memref<4xf32>
  tfcrt.return
}

// BAD: mismatched-externals.mlir:10:8: error: external 'w' is state 'memref<4xf32>' here but param 'memref<4xf32>' in an earlier entry; entries share externals by name
