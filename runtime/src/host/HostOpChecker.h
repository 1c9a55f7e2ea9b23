//===- HostOpChecker.h - shared rules for checking host ops ----*- C++ -*-===//
//
// The base of every host-op checker (HostProgramVerify.cpp, HostGradOps.cpp):
// operand/result access, dtype checks, and attribute readers that
// erase what they read so leftovers can be reported. `problem` keeps the
// first violation; every helper returns false after recording it. Operand
// and result counts, absent operands and attribute keys are checked before
// any checker runs, from common/HostOps.def (HostProgram.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTOPCHECKER_H
#define TFC_RUNTIME_HOST_HOSTOPCHECKER_H

#include "runtime/src/host/HostProgramVerify.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tfc::rt::host {

inline bool isFloat(DType d) {
  return d == DType::F32 || d == DType::F64 || d == DType::F16 ||
         d == DType::BF16;
}
inline bool isIndex(DType d) { return d == DType::I32 || d == DType::I64; }

/// "f32 4x8" for diagnostics.
inline std::string typeStr(const ValueType &t) {
  return std::string(dtypeName(t.dtype)) + " " + formatShape(t.shape);
}

struct OpChecker {
  OpChecker(const HostProgram &prog, HostOp &op, AttrMap &attrs)
      : prog(prog), op(op), attrs(attrs) {}

  const HostProgram &prog;
  HostOp &op;
  AttrMap &attrs;
  std::string problem;

  bool fail(std::string m) {
    if (problem.empty())
      problem = std::move(m);
    return false;
  }
  const ValueType &in(size_t i) const { return prog.values[op.operands[i]]; }
  const ValueType &res(size_t i) const { return prog.values[op.results[i]]; }

  bool expectResult(size_t i, DType d, const std::vector<int64_t> &shape) {
    const ValueType &r = res(i);
    if (r.dtype != d || r.shape != shape)
      return fail("result " + std::to_string(i) + " is " + typeStr(r) +
                  " but the op computes " + dtypeName(d) + " " +
                  formatShape(shape));
    return true;
  }
  bool operandFloat(size_t i) {
    if (!isFloat(in(i).dtype))
      return fail("operand " + std::to_string(i) + " must be a float tensor, " +
                  "got " + typeStr(in(i)));
    return true;
  }
  bool operandInteger(size_t i) {
    DType d = in(i).dtype;
    if (d != DType::I1 && d != DType::I32 && d != DType::I64)
      return fail("operand " + std::to_string(i) +
                  " must be an integer tensor (i1, i32, i64), got " +
                  typeStr(in(i)));
    return true;
  }
  bool operandNumeric(size_t i) {
    if (in(i).dtype == DType::I1)
      return fail("operand " + std::to_string(i) + " must be numeric, got i1");
    return true;
  }
  bool normDim(int64_t &dim, int64_t rank) {
    if (dim < -rank || dim >= rank || rank == 0)
      return fail("dim " + std::to_string(dim) + " out of range for rank " +
                  std::to_string(rank));
    if (dim < 0)
      dim += rank;
    return true;
  }

  // Attribute readers: each erases its key so leftovers can be reported.
  const std::string *take(const char *k) {
    auto it = attrs.find(k);
    if (it == attrs.end()) {
      fail(std::string("missing attribute '") + k + "'");
      return nullptr;
    }
    scratch = it->second;
    attrs.erase(it);
    return &scratch;
  }
  bool takeInt(const char *k, int64_t &v) {
    const std::string *s = take(k);
    if (!s)
      return false;
    auto p = parseIntToken(*s);
    if (!p)
      return fail(std::string("attribute '") + k + "' is not an integer: '" +
                  *s + "'");
    v = *p;
    return true;
  }
  bool takeFloat(const char *k, double &v) {
    const std::string *s = take(k);
    if (!s)
      return false;
    auto p = parseFloatToken(*s);
    if (!p)
      return fail(std::string("attribute '") + k + "' is not a number: '" + *s +
                  "'");
    v = *p;
    return true;
  }
  bool listItems(const char *k, std::vector<std::string_view> &items) {
    const std::string *s = take(k);
    if (!s)
      return false;
    std::string_view v = *s;
    if (v.size() < 2 || v.front() != '[' || v.back() != ']')
      return fail(std::string("attribute '") + k + "' is not a list: '" + *s +
                  "'");
    v = v.substr(1, v.size() - 2);
    items.clear();
    size_t b = 0;
    bool blank = v.find_first_not_of(" \t") == std::string_view::npos;
    for (size_t i = 0; !blank && i <= v.size(); ++i) {
      if (i == v.size() || v[i] == ',') {
        std::string_view e = v.substr(b, i - b);
        while (!e.empty() && e.front() == ' ')
          e.remove_prefix(1);
        while (!e.empty() && e.back() == ' ')
          e.remove_suffix(1);
        items.push_back(e);
        b = i + 1;
      }
    }
    return true;
  }
  bool takeIntList(const char *k, std::vector<int64_t> &v) {
    std::vector<std::string_view> items;
    if (!listItems(k, items))
      return false;
    v.clear();
    for (std::string_view e : items) {
      auto p = parseIntToken(e);
      if (!p)
        return fail(std::string("attribute '") + k +
                    "' has a non-integer element '" + std::string(e) + "'");
      v.push_back(*p);
    }
    return true;
  }
  bool takeKeyword(const char *k, std::initializer_list<const char *> allowed,
                   int &index) {
    const std::string *s = take(k);
    if (!s)
      return false;
    int i = 0;
    for (const char *a : allowed) {
      if (*s == a) {
        index = i;
        return true;
      }
      ++i;
    }
    return fail(std::string("attribute '") + k + "' has unknown value '" + *s +
                "'");
  }
  std::string scratch;
};

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTOPCHECKER_H
