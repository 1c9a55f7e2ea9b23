//===- HostProgram.h - parsed and validated host programs -------*- C++ -*-===//
//
// The in-memory form of a host program (docs/execution.md, section 5): the
// serialized body of one kernel, written by compiler/codegen/host and run by
// the host backend's interpreter. The text is untrusted: parseHostProgram
// checks every line, operand, attribute, dtype and shape, so the interpreter
// can rely on the invariants documented here.
//
// Text format (one item per line, `#` starts a comment line):
//
//   tfc-host-program 1
//   kind pointwise
//   in %0 f32 16x64x128
//   in %1 f32 128
//   op %2 add f32 16x64x128 (%0, %1)
//   op %3 gelu f32 16x64x128 (%2) approximate=tanh
//   out %3
//
// An op with several results (layer_norm: y, mean, rstd; rms_norm: y, rstd)
// has its first result on its line and each further one on a `result` line
// directly after it, naming the op's first result and the result index, so
// every line still defines exactly one value with its dtype and shape:
//
//   op %4 layer_norm f32 8x32 (%0, %1, %2) eps=1e-05 normalized_rank=1
//   op %5 result f32 8x1 (%4) index=1
//   op %6 result f32 8x1 (%4) index=2
//
// An absent optional operand (layer_norm's weight/bias, rms_norm's weight,
// layer_norm_grad_input's and rms_norm_grad_input's weight) is written `_`. Every attribute of an op is spelled out (defaults included):
// integers, floats (round-trippable decimal, `inf`, `-inf`, `nan`), lists
// `[a,b]` and keywords (`true`/`false`, enum names).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTPROGRAM_H
#define TFC_RUNTIME_HOST_HOSTPROGRAM_H

#include "runtime/src/core/DType.h"
#include "runtime/src/core/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tfc::rt::host {

/// The ops a host program may contain (the tfc ops with a kernel role other
/// than gemm and composite), one per row of common/HostOps.def.
enum class OpCode {
#define TFC_HOST_OP(Code, name, group, operands, optionalFrom, results,        \
                    attributes)                                                \
  Code,
#include "common/HostOps.def"
};

/// The rows of common/HostOps.def that say which interpreter runs an op.
enum class OpGroup {
  Unary,
  Binary,
  Source,
  Shape,
  Reduction,
  NN,
  Grad,
  Optimizer,
  Sort
};

/// One op's row of common/HostOps.def.
struct OpSchema {
  OpCode code;
  const char *name;        ///< Keyword in the text ("add", "layer_norm").
  OpGroup group;
  int operands;            ///< Operand count; -1: one or more.
  int optionalFrom;        ///< First operand that may be `_`; -1: none.
  int results;             ///< Result count (sgd: one fewer without momentum).
  const char *attributes;  ///< Required attribute keys, space-separated.
};

/// The schema of `code`.
const OpSchema &opSchema(OpCode code);

/// The op's name in the text ("add", "layer_norm", ...).
inline const char *opName(OpCode code) { return opSchema(code).name; }

/// One operand, one result of its shape, elementwise (neg .. pow).
inline bool isUnaryElementwise(OpCode code) {
  return opSchema(code).group == OpGroup::Unary;
}
/// Two (select: three) numpy-broadcast operands, elementwise (add .. select).
inline bool isBinaryElementwise(OpCode code) {
  return opSchema(code).group == OpGroup::Binary;
}

/// Comparison predicate of `compare`.
enum class CompareDir { Eq, Ne, Lt, Le, Gt, Ge };

/// Element type and shape of one value.
struct ValueType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t numel = 1;
};

/// One op. Operand and result entries are dense value indices
/// (HostProgram::values); an absent optional operand is -1. Only the
/// attribute fields of the op's kind are meaningful.
struct HostOp {
  OpCode code = OpCode::Add;
  int line = 0; ///< 1-based line in the program text, for messages.
  std::vector<int64_t> operands;
  std::vector<int64_t> results;

  bool geluTanh = false;       ///< gelu: approximate=tanh.
  bool randomNormal = false;   ///< random: distribution=normal.
  double fvalue = 0.0;         ///< pow exponent, pad value, dropout p.
  double eps = 1e-5;           ///< layer_norm, rms_norm.
  double labelSmoothing = 0.0; ///< cross_entropy.
  int64_t dim = 0;             ///< concat/iota/softmax: normalized dim.
  int64_t normalizedRank = 1;  ///< layer_norm, rms_norm.
  int64_t ignoreIndex = -100;  ///< cross_entropy.
  bool reductionMean = true;   ///< cross_entropy.
  bool keepdim = false;        ///< reduce_*.
  bool descending = false;     ///< sort.
  CompareDir direction = CompareDir::Eq;
  /// adamw, adam, sgd, adamw8bit: the fixed hyper-parameters (eps is `eps`
  /// above).
  struct Optimizer {
    double beta1 = 0.9, beta2 = 0.999, weightDecay = 0.0;
    double momentum = 0.0, dampening = 0.0;
    bool nesterov = false, maximize = false;
    int64_t blockSize = 256; ///< adamw8bit: elements per absmax.
  } optimizer;
  /// transpose: permutation; slice: start; pad: low; reduce_*: sorted,
  /// normalized dims.
  std::vector<int64_t> ints0;
  /// slice: limit; pad: high.
  std::vector<int64_t> ints1;
  /// slice: step.
  std::vector<int64_t> ints2;
  /// constant: values (1 = splat, or numel) for float and integer dtypes.
  std::vector<double> fconst;
  std::vector<int64_t> iconst;
};

/// A validated program. Invariants: every operand is defined (by an `in` line
/// or an earlier op) before use; result types equal what the op computes from
/// its operands and attributes; attributes are in range (dims normalized,
/// permutations valid, slices inside their operand, ...); every `out` names a
/// defined value; there is at least one output.
struct HostProgram {
  std::string kind;              ///< pointwise, row_reduction, ...
  std::vector<ValueType> values; ///< All values, dense.
  std::vector<int64_t> inputs;   ///< Value indices of the `in` lines.
  std::vector<int64_t> outputs;  ///< Value indices of the `out` lines.
  std::vector<HostOp> ops;       ///< In program order.
};

/// Parses and validates `text`. Errors name the line: "host program line 5:
/// op 'add': operand %7 is not defined".
Status parseHostProgram(std::string_view text, HostProgram &out);

/// The compute kind of a dtype: F32/F16/BF16 compute in float, F64 in
/// double, I1/I32/I64/U8 in int64_t.
enum class ComputeKind { Float, Double, Int };
ComputeKind computeKind(DType dtype);

/// The accumulation dtype of `dtype` (f32 for 16-bit floats and f32, f64 for
/// f64, the type itself otherwise), as tfc's accumulationType().
DType accumulationDType(DType dtype);

/// Formats a shape as "4x8" or "scalar".
std::string formatShape(const std::vector<int64_t> &shape);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTPROGRAM_H
