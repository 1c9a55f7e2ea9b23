// RUN: tfc-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the tfcrt dialect, in the order of TfcrtOps.td.

// The arena size is a byte count.
// expected-error @+1 {{'tfcrt.arena' op size must be non-negative, got -1}}
tfcrt.arena size -1 alignment 256

// -----

// Offsets are aligned to a power of two.
// expected-error @+1 {{'tfcrt.arena' op alignment must be a positive power of two, got 48}}
tfcrt.arena size 1024 alignment 48

// -----

// One arena per module: every view is carved from it.
tfcrt.arena size 1024 alignment 256
// expected-error @+1 {{'tfcrt.arena' op a module has at most one arena}}
tfcrt.arena size 2048 alignment 256

// -----

// A kernel produces at least one output.
// expected-error @+1 {{'tfcrt.kernel' op must have at least one output}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> () {
^bb0(%x: tensor<4xf32>):
  tfcrt.yield
}

// -----

// Kernel signatures hold static tfc tensors, not buffers.
// expected-error @+1 {{'tfcrt.kernel' op input #0 must be a statically shaped tensor of a tfc element type, got 'memref<4xf32>'}}
tfcrt.kernel @k pointwise (memref<4xf32>) -> tensor<4xf32> {
^bb0(%x: memref<4xf32>):
  %0 = tfc.iota dim 0 : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// Outputs are static tfc tensors too.
// expected-error @+1 {{'tfcrt.kernel' op output #0 must be a statically shaped tensor of a tfc element type, got 'tensor<4xi8>'}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xi8> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xi32>
  tfcrt.yield %0 : tensor<4xi32>
}

// -----

// The body has one block argument per input.
// expected-error @+1 {{'tfcrt.kernel' op body has 1 arguments but the signature has 2 inputs}}
tfcrt.kernel @k pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  tfcrt.yield %x : tensor<4xf32>
}

// -----

// Block arguments have the inputs' types.
// expected-error @+1 {{'tfcrt.kernel' op body argument #0 has type 'tensor<4xf16>' but input #0 is 'tensor<4xf32>'}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf16> {
^bb0(%x: tensor<4xf16>):
  %0 = tfc.neg %x : tensor<4xf16>
  tfcrt.yield %0 : tensor<4xf16>
}

// -----

// tfc.yield belongs to tfc.fusion; kernels end with tfcrt.yield.
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  // expected-error @+1 {{'tfc.yield' op expects parent op to be one of 'tfc.fusion, tfc.checkpoint'}}
  tfc.yield %0 : tensor<4xf32>
}

// -----

// The body obeys the kernel rules of its kind (TfcKernelRules.h), like tfc.fusion.
// expected-error @+1 {{'tfcrt.kernel' op a pointwise kernel cannot hold 'tfc.softmax' (role row_reduction)}}
tfcrt.kernel @k pointwise (tensor<4x8xf32>) -> tensor<4x8xf32> {
^bb0(%x: tensor<4x8xf32>):
  // expected-note @+1 {{'tfc.softmax' here}}
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  tfcrt.yield %0 : tensor<4x8xf32>
}

// -----

// tfcrt.yield returns one value per kernel output.
tfcrt.kernel @k pointwise (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  // expected-error @+1 {{'tfcrt.yield' op yields 1 values but the kernel has 2 outputs}}
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// in_place has one entry per output.
// expected-error @+1 {{'tfcrt.kernel' op in_place has 2 entries but the kernel has 1 outputs}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> in_place [0, -1] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// An in_place entry is -1 or an input index.
// expected-error @+1 {{'tfcrt.kernel' op in_place entry #0 is 1, neither -1 nor an input index (the kernel has 1 inputs)}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> in_place [1] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// Two outputs written over one input would race.
// expected-error @+1 {{'tfcrt.kernel' op outputs #0 and #1 both update input #0 in place}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) in_place [0, 0] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  %1 = tfc.abs %x : tensor<4xf32>
  tfcrt.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// One buffer holds both: the types must agree.
// expected-error @+1 {{'tfcrt.kernel' op output #0 ('tensor<4xf16>') cannot share the buffer of input #0 ('tensor<4xf32>'): the types differ}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf16> in_place [0] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xf16>
  tfcrt.yield %0 : tensor<4xf16>
}

// -----

// An input read at other indices (here broadcast along a row) may already be
// overwritten by another thread when it is read.
// expected-error @+1 {{'tfcrt.kernel' op input #0 is read by 'tfc.add' at other indices than the element it computes (a broadcast, view, reduction or gather), so it cannot be overwritten while the kernel runs}}
tfcrt.kernel @k pointwise (tensor<1x4xf32>, tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<4x4xf32>) in_place [0, -1] {
^bb0(%x: tensor<1x4xf32>, %y: tensor<4x4xf32>):
  %0 = tfc.neg %x : tensor<1x4xf32>
  // expected-note @+1 {{read here}}
  %1 = tfc.add %x, %y : tensor<1x4xf32>, tensor<4x4xf32>
  tfcrt.yield %0, %1 : tensor<1x4xf32>, tensor<4x4xf32>
}

// -----

// A view reads other elements too.
// expected-error @+1 {{'tfcrt.kernel' op input #0 is read by 'tfc.transpose' at other indices}}
tfcrt.kernel @k pointwise (tensor<4x4xf32>) -> tensor<4x4xf32> in_place [0] {
^bb0(%x: tensor<4x4xf32>):
  // expected-note @+1 {{read here}}
  %0 = tfc.transpose %x, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  tfcrt.yield %0 : tensor<4x4xf32>
}

// -----

// Reductions re-read their rows across threads: never in place.
// expected-error @+1 {{'tfcrt.kernel' op a row_reduction kernel never writes over its inputs (only pointwise, multi_tensor and block_quantized kernels update in place)}}
tfcrt.kernel @k row_reduction (tensor<4x8xf32>) -> tensor<4x8xf32> in_place [0] {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  tfcrt.yield %0 : tensor<4x8xf32>
}

// -----

// In a block_quantized kernel a state operand pairs only with its own result.
// expected-error @+1 {{'tfcrt.kernel' op in a block_quantized kernel only a state operand of the tfc.adamw8bit op (param, a moment's codes or absmax), used by nothing else, may share its buffer with the result that updates it}}
tfcrt.kernel @k block_quantized (tensor<512xf32>, tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>) in_place [1, -1, -1, -1, -1] {
^bb0(%p: tensor<512xf32>, %g: tensor<512xf32>, %m: tensor<512xui8>, %ma: tensor<2xf32>, %v: tensor<512xui8>, %va: tensor<2xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %0:5 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %t : tensor<512xf32>, tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<f32>
  tfcrt.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>
}

// -----

// A schedule's threads are whole warps of one block.
// expected-error @+1 {{threads must be a multiple of 32 in [32, 1024], got 48}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> schedule <target = sm_90, threads = 48> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// The host interpreter takes no launch parameters.
// expected-error @+1 {{a host schedule has no launch parameters}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> schedule <target = host, threads = 256> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// Vector accesses are 4, 8 or 16 bytes wide.
// expected-error @+1 {{vector_bytes must be 0 (scalar), 4, 8 or 16, got 12}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> schedule <target = sm_80, threads = 256, vector_bytes = 12> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// A thread loads at most 16 elements ahead of their use.
// expected-error @+1 {{unroll must be in [1, 16], got 32}}
tfcrt.kernel @k row_reduction (tensor<4x2048xf32>) -> tensor<4x2048xf32> schedule <target = sm_90, threads = 256, unroll = 32> {
^bb0(%x: tensor<4x2048xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<4x2048xf32>
  tfcrt.yield %0 : tensor<4x2048xf32>
}

// -----

// Only a row kernel's passes re-read rows: another kind's unroll is 1.
// expected-error @+1 {{'tfcrt.kernel' op unroll applies to row_reduction kernels; a pointwise kernel's must be 1, got 4}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> schedule <target = sm_90, threads = 256, unroll = 4> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// Only reductions walk several rows per block.
// expected-error @+1 {{'tfcrt.kernel' op rows_per_block applies to row and column reductions; a pointwise kernel's must be 1, got 4}}
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf32> schedule <target = sm_90, threads = 256, rows_per_block = 4> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// A row kernel gives each row a warp or a block; 128 threads for 2 rows is
// neither.
// expected-error @+1 {{'tfcrt.kernel' op a row_reduction schedule walks one row per warp (threads = 32 * rows_per_block) or per block (rows_per_block = 1); got threads = 128, rows_per_block = 2}}
tfcrt.kernel @k row_reduction (tensor<4x8xf32>) -> tensor<4x8xf32> schedule <target = sm_90, threads = 128, rows_per_block = 2> {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  tfcrt.yield %0 : tensor<4x8xf32>
}

// -----

// Column sums over the rows are held per lane of a warp-per-row kernel.
// expected-error @+1 {{'tfcrt.kernel' op column sums over the rows of a row_reduction need one warp per row (threads = 32 * rows_per_block)}}
tfcrt.kernel @k row_reduction (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) schedule <target = sm_90, threads = 64> {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  %1 = tfc.reduce_sum %x dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  tfcrt.yield %0, %1 : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A column-reduction block is 32 columns wide.
// expected-error @+1 {{'tfcrt.kernel' op a column_reduction block is 32 columns x rows_per_block row groups: threads must be 256, got 128}}
tfcrt.kernel @k column_reduction (tensor<64x8xf32>) -> tensor<8xf32> schedule <target = sm_90, threads = 128, rows_per_block = 8> {
^bb0(%x: tensor<64x8xf32>):
  %0 = tfc.reduce_sum %x dims [0] : tensor<64x8xf32> -> tensor<8xf32>
  tfcrt.yield %0 : tensor<8xf32>
}

// -----

// A block_quantized kernel runs one thread per element of a quantization block.
// expected-error @+1 {{'tfcrt.kernel' op a block_quantized kernel runs one thread per element of a quantization block: threads must be the block_size 256, got 128}}
tfcrt.kernel @k block_quantized (tensor<512xf32>, tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>) schedule <target = sm_90, threads = 128> {
^bb0(%p: tensor<512xf32>, %g: tensor<512xf32>, %m: tensor<512xui8>, %ma: tensor<2xf32>, %v: tensor<512xui8>, %va: tensor<2xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %0:5 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %t : tensor<512xf32>, tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<f32>
  tfcrt.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>
}

// -----

// Yielded values have the outputs' types.
tfcrt.kernel @k pointwise (tensor<4xf32>) -> tensor<4xf16> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  // expected-error @+1 {{'tfcrt.yield' op value #0 has type 'tensor<4xf32>' but the kernel's output #0 is 'tensor<4xf16>'}}
  tfcrt.yield %0 : tensor<4xf32>
}

// -----

// The caller binds externals by name, so names are unique within an entry.
tfcrt.entry @forward {
  // expected-note @+1 {{first bound here}}
  %a = tfcrt.external param "w" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.external' op name 'w' is already bound by another tfcrt.external of this entry}}
  %b = tfcrt.external input "w" : memref<4xf32>
  tfcrt.return
}

// -----

// External names are non-empty.
tfcrt.entry @forward {
  // expected-error @+1 {{'tfcrt.external' op name must not be empty}}
  %a = tfcrt.external input "" : memref<4xf32>
  tfcrt.return
}

// -----

// Buffers are contiguous: a strided layout is not a buffer.
tfcrt.entry @forward {
  // expected-error @+1 {{'tfcrt.external' op result #0 must be statically shaped memref of a tfc element type (f16, bf16, f32, f64, i1, i32, i64) with identity layout, but got 'memref<4x4xf32, strided<[8, 1]>>'}}
  %a = tfcrt.external input "x" : memref<4x4xf32, strided<[8, 1]>>
  tfcrt.return
}

// -----

// Buffer ops live in an entry.
// expected-error @+1 {{'tfcrt.external' op expects parent op 'tfcrt.entry'}}
%a = tfcrt.external input "x" : memref<4xf32>

// -----

tfcrt.arena size 1024 alignment 256
tfcrt.entry @forward {
  // Offsets are non-negative.
  // expected-error @+1 {{'tfcrt.arena_view' op offset must be non-negative, got -256}}
  %v = tfcrt.arena_view offset -256 : memref<4xf32>
  tfcrt.return
}

// -----

// A view needs the module's arena.
tfcrt.entry @forward {
  // expected-error @+1 {{'tfcrt.arena_view' op needs a tfcrt.arena in the enclosing module}}
  %v = tfcrt.arena_view offset 0 : memref<4xf32>
  tfcrt.return
}

// -----

// Offsets are multiples of the arena alignment.
tfcrt.arena size 1024 alignment 256
tfcrt.entry @forward {
  // expected-error @+1 {{'tfcrt.arena_view' op offset 128 is not a multiple of the arena alignment 256}}
  %v = tfcrt.arena_view offset 128 : memref<4xf32>
  tfcrt.return
}

// -----

// A view lies inside the arena.
tfcrt.arena size 1024 alignment 256
tfcrt.entry @forward {
  // expected-error @+1 {{'tfcrt.arena_view' op buffer of 1024 bytes at offset 256 ends past the arena (1024 bytes)}}
  %v = tfcrt.arena_view offset 256 : memref<16x16xf32>
  tfcrt.return
}

// -----

// An alias keeps the element type.
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4x8xf32>
  // expected-error @+1 {{'tfcrt.alias' op element type 'i32' differs from the source's 'f32'}}
  %b = tfcrt.alias %a : memref<4x8xf32> -> memref<32xi32>
  tfcrt.return
}

// -----

// An alias keeps the element count.
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4x8xf32>
  // expected-error @+1 {{'tfcrt.alias' op has 16 elements but the source has 32}}
  %b = tfcrt.alias %a : memref<4x8xf32> -> memref<16xf32>
  tfcrt.return
}

// -----

// A launch names a kernel that exists.
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op 'missing' does not name a tfcrt.kernel}}
  tfcrt.launch @missing (%a) -> (%a) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// The symbol must be a kernel, not another entry.
tfcrt.entry @other {
  tfcrt.return
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op 'other' does not name a tfcrt.kernel}}
  tfcrt.launch @other (%a) -> (%a) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// One input buffer per kernel input.
tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  %b = tfcrt.external output "y" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op has 2 inputs but kernel @neg has 1}}
  tfcrt.launch @neg (%a, %a) -> (%b) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// Input buffers hold the kernel's input tensors (same shape and element type).
tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<2x2xf32>
  %b = tfcrt.external output "y" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op input #0 'memref<2x2xf32>' does not hold kernel @neg's 'tensor<4xf32>' (same shape and element type expected)}}
  tfcrt.launch @neg (%a) -> (%b) : (memref<2x2xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// Output buffers hold the kernel's output tensors.
tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  %b = tfcrt.external output "y" : memref<4xf16>
  // expected-error @+1 {{'tfcrt.launch' op output #0 'memref<4xf16>' does not hold kernel @neg's 'tensor<4xf32>' (same shape and element type expected)}}
  tfcrt.launch @neg (%a) -> (%b) : (memref<4xf32>) -> memref<4xf16>
  tfcrt.return
}

// -----

// Two outputs written to one buffer would race.
tfcrt.kernel @two pointwise (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0, %x : tensor<4xf32>, tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  %b = tfcrt.external output "y" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op outputs #0 and #1 are the same buffer}}
  tfcrt.launch @two (%a) -> (%b, %b) : (memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
  tfcrt.return
}

// -----

// An output over an input is a race unless the kernel declares it in place.
tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external param "p" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op output #0 overlaps input #0, which kernel @neg does not declare in_place for it}}
  tfcrt.launch @neg (%a) -> (%a) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// Declared in place for another input: the output still overlaps this one.
tfcrt.kernel @sub pointwise (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %0 = tfc.sub %x, %y : tensor<4xf32>, tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external param "p" : memref<4xf32>
  %b = tfcrt.external input "g" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op output #0 overlaps input #1, which kernel @sub does not declare in_place for it}}
  tfcrt.launch @sub (%b, %a) -> (%a) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// In place means the very buffer: a view of it (an alias) or overlapping
// arena bytes are rejected.
tfcrt.arena size 1024 alignment 64
tfcrt.kernel @neg pointwise (tensor<4xf32>) -> tensor<4xf32> in_place [0] {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0 : tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.arena_view offset 0 : memref<4xf32>
  %b = tfcrt.alias %a : memref<4xf32> -> memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op output #0 overlaps input #0}}
  tfcrt.launch @neg (%a) -> (%b) : (memref<4xf32>) -> memref<4xf32>
  tfcrt.return
}

// -----

// Arena views whose bytes intersect are one buffer to the device.
tfcrt.arena size 1024 alignment 8
tfcrt.kernel @two pointwise (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
^bb0(%x: tensor<4xf32>):
  %0 = tfc.neg %x : tensor<4xf32>
  tfcrt.yield %0, %x : tensor<4xf32>, tensor<4xf32>
}
tfcrt.entry @forward {
  %a = tfcrt.external input "x" : memref<4xf32>
  %b = tfcrt.arena_view offset 0 : memref<4xf32>
  %c = tfcrt.arena_view offset 8 : memref<4xf32>
  // expected-error @+1 {{'tfcrt.launch' op outputs #0 and #1 overlap in memory}}
  tfcrt.launch @two (%a) -> (%b, %c) : (memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
  tfcrt.return
}

// -----

// An epilogue reads its bias row: without one there is nothing to add.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op epilogue 'gelu_bias' needs bias operand}}
  tfcrt.gemm %a, %b -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue gelu_bias alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32> -> memref<4x8xf32>
  tfcrt.return
}

// -----

// Without an epilogue a bias operand would be silently ignored.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %bias = tfcrt.external input "bias" : memref<8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op epilogue 'none' takes no bias operand}}
  tfcrt.gemm %a, %b bias %bias -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>
  tfcrt.return
}

// -----

// Only gelu_aux_bias stores the GELU input.
tfcrt.arena size 1024 alignment 256
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %bias = tfcrt.external input "bias" : memref<8xf32>
  %aux = tfcrt.arena_view offset 0 : memref<4x8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op epilogue 'gelu_bias' takes no aux operand}}
  tfcrt.gemm %a, %b bias %bias -> %c aux %aux m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue gelu_bias alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>, memref<4x8xf32>
  tfcrt.return
}

// -----

// The activation-only epilogues read no bias...
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %bias = tfcrt.external input "bias" : memref<8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op epilogue 'relu' takes no bias operand}}
  tfcrt.gemm %a, %b bias %bias -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue relu alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>
  tfcrt.return
}

// -----

// ...and gelu_aux stores its GELU input, bias or not.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op epilogue 'gelu_aux' needs aux operand}}
  tfcrt.gemm %a, %b -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue gelu_aux alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32> -> memref<4x8xf32>
  tfcrt.return
}

// -----

// The backward epilogue writes its bias gradient: it must not share bytes with a.
tfcrt.arena size 1024 alignment 64
tfcrt.entry @forward {
  %a = tfcrt.arena_view offset 0 : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %x = tfcrt.external input "x" : memref<4x8xf32>
  %db = tfcrt.arena_view offset 64 : memref<8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op the bias gradient overlaps a}}
  tfcrt.gemm %a, %b bias %db -> %c aux %x m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue dgelu_bgrad alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>, memref<4x8xf32>
  tfcrt.return
}

// -----

// The bias is one row of n elements.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %bias = tfcrt.external input "bias" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.gemm' op bias has 4 elements, expected n = 8}}
  tfcrt.gemm %a, %b bias %bias -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue bias alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<4xf32> -> memref<4x8xf32>
  tfcrt.return
}

// -----

// cuBLASLt adds the epilogue to the product alone: no accumulation into C.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %bias = tfcrt.external input "bias" : memref<8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op epilogue 'bias' needs batch 1 and beta 0 (an epilogue GEMM never accumulates into c)}}
  tfcrt.gemm %a, %b bias %bias -> %c m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue bias alpha 1.0 beta 1.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>
  tfcrt.return
}

// -----

// aux is written next to C: it must not share bytes with any operand.
tfcrt.arena size 1024 alignment 64
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x8xf32>
  %c = tfcrt.external output "c" : memref<4x8xf32>
  %bias = tfcrt.external input "bias" : memref<8xf32>
  %c2 = tfcrt.arena_view offset 0 : memref<4x8xf32>
  %aux = tfcrt.arena_view offset 64 : memref<4x8xf32>
  // expected-error @+1 {{'tfcrt.gemm' op aux overlaps c}}
  tfcrt.gemm %a, %b bias %bias -> %c2 aux %aux m 4 n 8 k 8 batch 1 lda 8 ldb 8 ldc 8 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue gelu_aux_bias alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x8xf32>, memref<8xf32> -> memref<4x8xf32>, memref<4x8xf32>
  tfcrt.return
}

// -----

// The declared dtypes are the buffers' element types.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op a_type 'f16' does not match the element type 'f32' of a}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f16, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x2xf32> -> memref<4x2xf32>
  tfcrt.return
}

// -----

// A and B share one float type.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf16>
  %c = tfcrt.external output "c" : memref<4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op a_type and b_type must be one float type, got 'f32' and 'f16'}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f16) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x2xf16> -> memref<4x2xf32>
  tfcrt.return
}

// -----

// C has the operands' type, or f32 for 16-bit operands.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xbf16>
  // expected-error @+1 {{'tfcrt.gemm' op c_type must be 'f32' for 'f32' operands, got 'bf16'}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> bf16 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x2xf32> -> memref<4x2xbf16>
  tfcrt.return
}

// -----

// The compute type is the accumulation type of the operands.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xbf16>
  %b = tfcrt.external input "b" : memref<8x2xbf16>
  %c = tfcrt.external output "c" : memref<4x2xbf16>
  // expected-error @+1 {{'tfcrt.gemm' op compute_type must be 'f32' for 'bf16' operands, got 'bf16'}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute bf16 epilogue none alpha 1.0 beta 0.0 : memref<4x8xbf16>, memref<8x2xbf16> -> memref<4x2xbf16>
  tfcrt.return
}

// -----

// TF32 tensor cores are a compute type of f32 operands only.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xbf16>
  %b = tfcrt.external input "b" : memref<8x2xbf16>
  %c = tfcrt.external output "c" : memref<4x2xbf16>
  // expected-error @+1 {{'tfcrt.gemm' op compute_type must be 'f32' for 'bf16' operands, got 'tf32'}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(bf16, bf16) -> bf16 compute tf32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xbf16>, memref<8x2xbf16> -> memref<4x2xbf16>
  tfcrt.return
}

// -----

// alpha and beta are finite.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op alpha and beta must be finite}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 0x7FF0000000000000 beta 0.0 : memref<4x8xf32>, memref<8x2xf32> -> memref<4x2xf32>
  tfcrt.return
}

// -----

// Sizes are positive.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op m, n, k and batch must be positive, got m=4 n=2 k=8 batch=0}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 0 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x2xf32> -> memref<4x2xf32>
  tfcrt.return
}

// -----

// C is written while A and B are read, so it is another buffer.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x4xf32>
  // expected-error @+1 {{'tfcrt.gemm' op c must be a buffer other than a and b}}
  tfcrt.gemm %a, %a -> %a m 4 n 4 k 4 batch 1 lda 4 ldb 4 ldc 4 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x4xf32>, memref<4x4xf32> -> memref<4x4xf32>
  tfcrt.return
}

// -----

// A leading dimension spans at least one stored row (here a transposed 8x4 A).
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<8x4xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op lda 2 is less than the column count 4 of the stored 8x4 a}}
  tfcrt.gemm %a, %b -> %c transpose_a m 4 n 2 k 8 batch 1 lda 2 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<8x4xf32>, memref<8x2xf32> -> memref<4x2xf32>
  tfcrt.return
}

// -----

// Batch strides are non-negative.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<2x4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<2x4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op stride_b must be non-negative, got -16}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 2 lda 8 ldb 2 ldc 2 stride_a 32 stride_b -16 stride_c 8 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<2x4x8xf32>, memref<8x2xf32> -> memref<2x4x2xf32>
  tfcrt.return
}

// -----

// Every element a GEMM reads lies inside its buffer (here one batch too many).
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<2x4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<3x4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op reads or writes 96 elements of a, which has only 64}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 3 lda 8 ldb 2 ldc 2 stride_a 32 stride_b 0 stride_c 8 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<2x4x8xf32>, memref<8x2xf32> -> memref<3x4x2xf32>
  tfcrt.return
}

// -----

// Each batch writes its own C matrix.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<2x4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<2x4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op stride_c 0 makes the batch's C matrices overlap (each spans 8 elements)}}
  tfcrt.gemm %a, %b -> %c m 4 n 2 k 8 batch 2 lda 8 ldb 2 ldc 2 stride_a 32 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<2x4x8xf32>, memref<8x2xf32> -> memref<2x4x2xf32>
  tfcrt.return
}

// -----

// A GEMM writes its whole result: m 3 of a 4-row c would leave a row stale.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4x8xf32>
  %b = tfcrt.external input "b" : memref<8x2xf32>
  %c = tfcrt.external output "c" : memref<4x2xf32>
  // expected-error @+1 {{'tfcrt.gemm' op writes 1 x 3 rows of 2 elements of c, which has 8 (a GEMM must write its whole result)}}
  tfcrt.gemm %a, %b -> %c m 3 n 2 k 8 batch 1 lda 8 ldb 2 ldc 2 stride_a 0 stride_b 0 stride_c 0 types(f32, f32) -> f32 compute f32 epilogue none alpha 1.0 beta 0.0 : memref<4x8xf32>, memref<8x2xf32> -> memref<4x2xf32>
  tfcrt.return
}

// -----

// A copy moves bytes between two distinct buffers.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4xf32>
  // expected-error @+1 {{'tfcrt.copy' op copies a buffer onto itself}}
  tfcrt.copy %a -> %a : memref<4xf32>
  tfcrt.return
}

// -----

// Both buffers of a copy have the same size in bytes.
tfcrt.entry @forward {
  %a = tfcrt.external input "a" : memref<4xf32>
  %b = tfcrt.external output "b" : memref<4xf16>
  // expected-error @+1 {{'tfcrt.copy' op source has 16 bytes but the destination has 8}}
  tfcrt.copy %a -> %b : memref<4xf32> -> memref<4xf16>
  tfcrt.return
}

// -----

// A scatter kernel gives each table row a warp: 128 threads for 2 rows is not that.
// expected-error @+1 {{'tfcrt.kernel' op a scatter kernel walks one table row per warp: threads must be 32 * rows_per_block = 64, got 128}}
tfcrt.kernel @k scatter (tensor<6x8xf32>, tensor<6xi64>) -> tensor<10x8xf32> schedule <target = sm_90, threads = 128, rows_per_block = 2> {
^bb0(%dy: tensor<6x8xf32>, %ids: tensor<6xi64>):
  %0 = tfc.embedding_grad %dy, %ids : tensor<6x8xf32>, tensor<6xi64> -> tensor<10x8xf32>
  tfcrt.yield %0 : tensor<10x8xf32>
}
