// Malformed input gets an MLIR diagnostic with file:line:col and exit code 1,
// never a crash. One run per class of bad input.

// A file cut off in the middle of a type.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: truncated.mlir:2:30: error: expected non-function type

// A file cut off after a complete op (the function is never closed).
// RUN: %expect-exit 1 tfc-opt %S/Inputs/truncated-body.mlir 2>&1 | FileCheck %s --check-prefix=TRUNC-BODY
// TRUNC-BODY: truncated-body.mlir:2:34: error:

// An op the dialect does not define.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown-op.mlir:2:8: error: custom op 'tfc.frobnicate' is unknown

// Too few operands (generic form).
// RUN: %expect-exit 1 tfc-opt %S/Inputs/operand-count.mlir 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: operand-count.mlir:2:8: error: 'tfc.add' op expected 2 operands, but found 1

// Shapes that do not broadcast.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/shape-mismatch.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: shape-mismatch.mlir:2:8: error: operands are not broadcast-compatible (4x8, 3)

// Mixed element types.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/dtype-mismatch.mlir 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: dtype-mismatch.mlir:2:8: error: 'tfc.add' op requires the same element type for all operands

// An attribute value outside its enum.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/bad-attribute.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: bad-attribute.mlir:2:32: error: {{.*}}expected ::mlir::tfc::GeluApproximation to be one of: none, tanh

// Bytes that are not text at all.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/binary-garbage.mlir 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: binary-garbage.mlir:1:{{[0-9]+}}: error: unexpected character

// A file that does not exist.
// RUN: %expect-exit 1 tfc-opt %S/Inputs/no-such-file.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}no-such-file.mlir': No such file or directory

// A device is refused before reading: /dev/zero never ends (it ran out of
// memory). /dev/null stands for it here, read as an empty module before.
// The same check guards tfc-translate and the JIT (tfc-run, tfc-train).
// RUN: %expect-exit 1 tfc-opt /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: %expect-exit 1 tfc-translate --emit-host /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE-TRANSLATE
// RUN: %expect-exit 1 tfc-run /dev/null --device host 2>&1 | FileCheck %s --check-prefix=DEVICE-JIT
// RUN: %expect-exit 1 tfc-opt %S/Inputs 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// DEVICE: tfc-opt: '/dev/null' is a device, not a model file
// DEVICE-TRANSLATE: tfc-translate: '/dev/null' is a device, not a model file
// DEVICE-JIT: '/dev/null' is a device, not a model file
// DEVICE-JIT-NEXT: tfc-run: compilation of '/dev/null' failed
// DIRECTORY: tfc-opt: '{{.*}}Inputs' is a directory, not a model file
