//===- HostProgramVerify.cpp - per-op rules of host programs -------------===//
//
// The same rules the tfc dialect's verifiers enforce, restated without MLIR:
// a program written by codegen always passes them, and a corrupted or
// hand-edited one fails here with a message instead of making the
// interpreter read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostProgramVerify.h"
#include "runtime/src/host/HostOpChecker.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tfc::rt::host {

namespace {

std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

struct Checker : OpChecker {
  using OpChecker::OpChecker;

  bool check();
  bool checkUnary();
  bool checkBinary();
  bool checkConstant();
  bool checkShapeOp();
  bool checkReduce();
  bool checkNN();
};

bool Checker::checkUnary() {
  OpCode c = op.code;
  if (c == OpCode::Neg || c == OpCode::Abs) {
    if (!operandNumeric(0))
      return false;
  } else if (c == OpCode::BitwiseNot) {
    if (!operandInteger(0))
      return false;
  } else if (!operandFloat(0)) {
    return false;
  }
  if (c == OpCode::Gelu) {
    int idx;
    if (!takeKeyword("approximate", {"none", "tanh"}, idx))
      return false;
    op.geluTanh = idx == 1;
  }
  if (c == OpCode::Pow && !takeFloat("exponent", op.fvalue))
    return false;
  return expectResult(0, in(0).dtype, in(0).shape);
}

bool Checker::checkBinary() {
  OpCode c = op.code;
  if (c == OpCode::Select) {
    if (in(0).dtype != DType::I1)
      return fail("condition must be i1, got " + typeStr(in(0)));
    if (in(1).dtype != in(2).dtype)
      return fail("on_true and on_false differ in dtype (" + typeStr(in(1)) +
                  ", " + typeStr(in(2)) + ")");
    auto s = broadcast(in(0).shape, in(1).shape);
    if (s)
      s = broadcast(*s, in(2).shape);
    if (!s)
      return fail("operands are not broadcast-compatible");
    return expectResult(0, in(1).dtype, *s);
  }
  if (in(0).dtype != in(1).dtype)
    return fail("operands differ in dtype (" + typeStr(in(0)) + ", " +
                typeStr(in(1)) + ")");
  auto s = broadcast(in(0).shape, in(1).shape);
  if (!s)
    return fail("operands are not broadcast-compatible (" +
                formatShape(in(0).shape) + ", " + formatShape(in(1).shape) +
                ")");
  if (c == OpCode::Compare) {
    int idx;
    if (!takeKeyword("direction", {"eq", "ne", "lt", "le", "gt", "ge"}, idx))
      return false;
    op.direction = static_cast<CompareDir>(idx);
    return expectResult(0, DType::I1, *s);
  }
  if (c == OpCode::ShiftLeft || c == OpCode::ShiftRight) {
    // i32 / i64: torch has no bool shift.
    if (!operandInteger(0))
      return false;
    if (in(0).dtype == DType::I1)
      return fail("operand 0 must be an i32 or i64 tensor, got " +
                  typeStr(in(0)));
    return expectResult(0, in(0).dtype, *s);
  }
  bool floatOnly = c == OpCode::Atan2 || c == OpCode::Fmod;
  bool integerOnly = c == OpCode::BitwiseAnd || c == OpCode::BitwiseOr ||
                     c == OpCode::BitwiseXor;
  if (floatOnly     ? !operandFloat(0)
      : integerOnly ? !operandInteger(0)
                    : !operandNumeric(0))
    return false;
  return expectResult(0, in(0).dtype, *s);
}

bool Checker::checkConstant() {
  const ValueType &r = res(0);
  std::vector<std::string_view> items;
  if (!listItems("value", items))
    return false;
  if (items.size() != 1 && (int64_t)items.size() != r.numel)
    return fail("constant has " + std::to_string(items.size()) +
                " values; expected 1 (splat) or " + std::to_string(r.numel));
  for (std::string_view e : items) {
    if (isFloat(r.dtype)) {
      auto v = parseFloatToken(e);
      if (!v)
        return fail("constant value '" + std::string(e) + "' is not a number");
      if (computeKind(r.dtype) == ComputeKind::Float) {
        // Codegen writes f32/f16/bf16 values as the shortest decimal that
        // reads back as the same float: read it as a float directly (going
        // through double could round twice).
        float f = 0;
        const char *b = e.data() + (e.front() == '+'),
                   *end = e.data() + e.size();
        auto [p, ec] = std::from_chars(b, end, f);
        if (ec != std::errc() || p != end)
          return fail("constant value '" + std::string(e) +
                      "' is not an f32 number");
        *v = f;
      }
      op.fconst.push_back(*v);
    } else {
      auto v = parseIntToken(e);
      if (!v)
        return fail("constant value '" + std::string(e) +
                    "' is not an integer");
      if ((r.dtype == DType::I1 && *v != 0 && *v != 1) ||
          (r.dtype == DType::I32 && (*v < std::numeric_limits<int32_t>::min() ||
                                     *v > std::numeric_limits<int32_t>::max())))
        return fail("constant value " + std::to_string(*v) + " does not fit " +
                    dtypeName(r.dtype));
      op.iconst.push_back(*v);
    }
  }
  return true;
}

bool Checker::checkShapeOp() {
  switch (op.code) {
  case OpCode::Iota: {
    if (!takeInt("dim", op.dim))
      return false;
    if (res(0).dtype == DType::I1)
      return fail("iota result must be numeric");
    return normDim(op.dim, (int64_t)res(0).shape.size());
  }
  case OpCode::Convert:
    return expectResult(0, res(0).dtype, in(0).shape);
  case OpCode::Reshape:
    if (res(0).dtype != in(0).dtype || res(0).numel != in(0).numel)
      return fail("reshape changes the dtype or element count (" +
                  typeStr(in(0)) + " -> " + typeStr(res(0)) + ")");
    return true;
  case OpCode::Transpose: {
    if (!takeIntList("permutation", op.ints0))
      return false;
    const auto &s = in(0).shape;
    std::vector<bool> seen(s.size(), false);
    if (op.ints0.size() != s.size())
      return fail("permutation length differs from the rank");
    std::vector<int64_t> out;
    for (int64_t p : op.ints0) {
      if (p < 0 || p >= (int64_t)s.size() || seen[p])
        return fail("permutation is not a permutation of [0, rank)");
      seen[p] = true;
      out.push_back(s[p]);
    }
    return expectResult(0, in(0).dtype, out);
  }
  case OpCode::BroadcastTo: {
    auto s = broadcast(in(0).shape, res(0).shape);
    if (!s || *s != res(0).shape || in(0).dtype != res(0).dtype)
      return fail("cannot broadcast " + typeStr(in(0)) + " to " +
                  typeStr(res(0)));
    return true;
  }
  case OpCode::Slice: {
    if (!takeIntList("start", op.ints0) ||
        !takeIntList("limit", op.ints1) || !takeIntList("step", op.ints2))
      return false;
    const auto &s = in(0).shape;
    if (op.ints0.size() != s.size() || op.ints1.size() != s.size() ||
        op.ints2.size() != s.size())
      return fail("start/limit/step lengths differ from the rank");
    std::vector<int64_t> out;
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t b = op.ints0[d], e = op.ints1[d], st = op.ints2[d];
      if (b < 0 || b > e || e > s[d] || st < 1)
        return fail("slice bounds out of range in dim " + std::to_string(d));
      out.push_back(e == b ? 0 : (e - b - 1) / st + 1); // no overflow
    }
    return expectResult(0, in(0).dtype, out);
  }
  case OpCode::Concat: {
    if (!takeInt("dim", op.dim))
      return false;
    auto out = in(0).shape;
    if (!normDim(op.dim, (int64_t)out.size()))
      return false;
    for (size_t i = 1; i < op.operands.size(); ++i) {
      const ValueType &t = in(i);
      if (t.dtype != in(0).dtype || t.shape.size() != out.size())
        return fail("concat operands differ in dtype or rank");
      for (size_t d = 0; d < out.size(); ++d)
        if ((int64_t)d != op.dim && t.shape[d] != out[d])
          return fail("concat operands differ in size outside dim");
      out[op.dim] += t.shape[op.dim];
    }
    return expectResult(0, in(0).dtype, out);
  }
  case OpCode::Pad: {
    if (!takeIntList("low", op.ints0) ||
        !takeIntList("high", op.ints1) || !takeFloat("value", op.fvalue))
      return false;
    const auto &s = in(0).shape;
    if (op.ints0.size() != s.size() || op.ints1.size() != s.size())
      return fail("low/high lengths differ from the rank");
    std::vector<int64_t> out;
    for (size_t d = 0; d < s.size(); ++d) {
      if (op.ints0[d] < 0 || op.ints1[d] < 0 ||
          op.ints0[d] > (int64_t(1) << 40) || op.ints1[d] > (int64_t(1) << 40))
        return fail("padding must be non-negative");
      out.push_back(s[d] + op.ints0[d] + op.ints1[d]);
    }
    if (!isFloat(in(0).dtype) &&
        (!std::isfinite(op.fvalue) || op.fvalue != std::trunc(op.fvalue)))
      return fail("pad value of an integer tensor must be an integer");
    auto n = numElements(out);
    if (!n || *n != res(0).numel)
      return fail("padded shape mismatch");
    return expectResult(0, in(0).dtype, out);
  }
  default:
    return fail("internal: not a shape op");
  }
}

bool Checker::checkReduce() {
  if (!takeIntList("dims", op.ints0))
    return false;
  int k;
  if (!takeKeyword("keepdim", {"false", "true"}, k))
    return false;
  op.keepdim = k == 1;
  if (op.code == OpCode::ReduceMean ? !operandFloat(0) : !operandNumeric(0))
    return false;
  int64_t rank = (int64_t)in(0).shape.size();
  if (op.ints0.empty())
    return fail("dims must not be empty");
  std::vector<bool> reduced(rank, false);
  for (int64_t &d : op.ints0) {
    if (!normDim(d, rank))
      return false;
    if (reduced[d])
      return fail("dims repeat dimension " + std::to_string(d));
    reduced[d] = true;
  }
  std::sort(op.ints0.begin(), op.ints0.end());
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      out.push_back(in(0).shape[d]);
    else if (op.keepdim)
      out.push_back(1);
  }
  return expectResult(0, in(0).dtype, out);
}

bool Checker::checkNN() {
  switch (op.code) {
  case OpCode::Embedding: {
    if (!isFloat(in(0).dtype) || in(0).shape.size() != 2)
      return fail("table must be a 2-d float tensor, got " + typeStr(in(0)));
    if (!isIndex(in(1).dtype))
      return fail("ids must be i32 or i64, got " + typeStr(in(1)));
    auto out = in(1).shape;
    out.push_back(in(0).shape[1]);
    return expectResult(0, in(0).dtype, out);
  }
  case OpCode::LayerNorm:
  case OpCode::RmsNorm: {
    bool ln = op.code == OpCode::LayerNorm;
    if (!operandFloat(0))
      return false;
    if (!takeInt("normalized_rank", op.normalizedRank) ||
        !takeFloat("eps", op.eps))
      return false;
    const auto &s = in(0).shape;
    int64_t rank = (int64_t)s.size();
    if (op.normalizedRank < 1 || op.normalizedRank > rank)
      return fail("normalized_rank out of range");
    if (!(op.eps > 0) || !std::isfinite(op.eps))
      return fail("eps must be positive");
    std::vector<int64_t> normShape(s.end() - op.normalizedRank, s.end());
    for (size_t i = 1; i < op.operands.size(); ++i) {
      if (op.operands[i] < 0)
        continue;
      if (!isFloat(in(i).dtype) || in(i).shape != normShape)
        return fail("weight/bias must be float of shape " +
                    formatShape(normShape) + ", got " + typeStr(in(i)));
    }
    std::vector<int64_t> stat(s);
    for (int64_t d = rank - op.normalizedRank; d < rank; ++d)
      stat[d] = 1;
    DType acc = accumulationDType(in(0).dtype);
    if (!expectResult(0, in(0).dtype, s) || !expectResult(1, acc, stat))
      return false;
    return !ln || expectResult(2, acc, stat);
  }
  case OpCode::Softmax:
  case OpCode::LogSoftmax:
    if (!operandFloat(0) || !takeInt("dim", op.dim) ||
        !normDim(op.dim, (int64_t)in(0).shape.size()))
      return false;
    return expectResult(0, in(0).dtype, in(0).shape);
  case OpCode::Dropout:
    if (!operandFloat(0) || !takeFloat("p", op.fvalue))
      return false;
    for (size_t i = 1; i < 3; ++i)
      if (in(i).dtype != DType::I64 || !in(i).shape.empty())
        return fail("seed and offset must be 0-d i64, got " + typeStr(in(i)));
    if (!(op.fvalue >= 0.0 && op.fvalue < 1.0))
      return fail("dropout p must lie in [0, 1)");
    return expectResult(0, in(0).dtype, in(0).shape);
  case OpCode::Random: {
    for (size_t i = 0; i < 2; ++i)
      if (in(i).dtype != DType::I64 || !in(i).shape.empty())
        return fail("seed and offset must be 0-d i64, got " + typeStr(in(i)));
    int idx;
    if (!takeKeyword("distribution", {"uniform", "normal"}, idx))
      return false;
    op.randomNormal = idx == 1;
    if (!isFloat(res(0).dtype))
      return fail("random result must be a float tensor, got " +
                  typeStr(res(0)));
    return true;
  }
  case OpCode::CrossEntropy: {
    if (!isFloat(in(0).dtype) || in(0).shape.size() != 2)
      return fail("logits must be a 2-d float tensor, got " + typeStr(in(0)));
    if (!isIndex(in(1).dtype) || in(1).shape.size() != 1 ||
        in(1).shape[0] != in(0).shape[0])
      return fail("labels must be 1-d i32/i64 with one label per row, got " +
                  typeStr(in(1)));
    int red;
    if (!takeInt("ignore_index", op.ignoreIndex) ||
        !takeFloat("label_smoothing", op.labelSmoothing) ||
        !takeKeyword("reduction", {"mean", "sum"}, red))
      return false;
    op.reductionMean = red == 0;
    if (!(op.labelSmoothing >= 0.0 && op.labelSmoothing <= 1.0))
      return fail("label_smoothing must lie in [0, 1]");
    return expectResult(0, accumulationDType(in(0).dtype), {});
  }
  default:
    return fail("internal: not an nn op");
  }
}

bool Checker::check() {
  switch (opSchema(op.code).group) {
  case OpGroup::Unary:
    return checkUnary();
  case OpGroup::Binary:
    return checkBinary();
  case OpGroup::Source:
    return op.code == OpCode::Constant ? checkConstant() : checkShapeOp();
  case OpGroup::Shape:
    return checkShapeOp();
  case OpGroup::Reduction:
    return checkReduce();
  case OpGroup::NN:
    return checkNN();
  case OpGroup::Grad:
    return problem.empty() && (problem = verifyGradOp(prog, op, attrs)).empty();
  case OpGroup::Sort:
    return problem.empty() &&
           (problem = verifySortOp(prog, op, attrs)).empty();
  case OpGroup::Optimizer:
    return problem.empty() &&
           (problem = op.code == OpCode::AdamW8bit
                          ? verifyAdamW8bitOp(prog, op, attrs)
                          : verifyOptimizerOp(prog, op, attrs))
               .empty();
  }
  return fail("internal: unknown op group");
}

} // namespace

std::string verifyHostOp(const HostProgram &prog, HostOp &op, AttrMap &attrs) {
  Checker c(prog, op, attrs);
  c.check();
  return c.problem;
}

} // namespace tfc::rt::host
