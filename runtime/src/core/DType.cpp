//===- DType.cpp - element types and 16-bit float conversions ------------===//
//
// The 16-bit conversions are written with integer arithmetic on the IEEE bit
// patterns so that they are exact and portable (no dependence on the host's
// _Float16 / __bf16 support or on the FPU rounding mode).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/DType.h"

#include <cstdint>
#include <cstring>
#include <limits>

namespace tfc::rt {

int64_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
  case DType::U8:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "ui8";
  }
  return "?";
}

std::optional<DType> parseDType(const std::string &name) {
  static const DType all[] = {DType::F32, DType::F64, DType::F16, DType::BF16,
                              DType::I1,  DType::I32, DType::I64, DType::U8};
  for (DType d : all)
    if (name == dtypeName(d))
      return d;
  return std::nullopt;
}

std::optional<int64_t> numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

} // namespace tfc::rt
