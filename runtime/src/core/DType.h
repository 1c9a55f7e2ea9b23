//===- DType.h - element types and 16-bit float conversions -----*- C++ -*-===//

#ifndef TFC_RUNTIME_CORE_DTYPE_H
#define TFC_RUNTIME_CORE_DTYPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfc::rt {

/// Element types of tfc tensors. I1 is stored as one byte holding 0 or 1;
/// U8 is an unsigned byte (the codes of 8-bit quantized optimizer state).
enum class DType { F32, F64, F16, BF16, I1, I32, I64, U8 };

/// Bytes per element in storage.
int64_t dtypeSize(DType dtype);
/// "f32", "bf16", "i1", ...
const char *dtypeName(DType dtype);
/// Parses a dtype name; std::nullopt when unknown.
std::optional<DType> parseDType(const std::string &name);
/// Product of `shape` (1 for rank 0); std::nullopt on overflow or a
/// negative size.
std::optional<int64_t> numElements(const std::vector<int64_t> &shape);

/// fp32 -> f16 / bf16 with round-to-nearest-even (NaN stays NaN), and back.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_DTYPE_H
