//===- Safetensors.h - safetensors read/write -------------------*- C++ -*-===//
//
// The safetensors format (https://github.com/huggingface/safetensors): an
// 8-byte little-endian header length N, N bytes of JSON header, then the raw
// tensor data. The header maps tensor names to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
// data section) plus an optional "__metadata__" string->string map.
//
// Files are untrusted: parsing validates the header length, the JSON, every
// dtype/shape/offset, that offsets are in range, ordered, non-overlapping and
// cover the data section exactly (as the reference implementation requires),
// that dtype x shape == bytes, and that BOOL bytes are 0 or 1.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_SAFETENSORS_H
#define TFC_RUNTIME_CORE_SAFETENSORS_H

#include "runtime/src/core/DType.h"
#include "runtime/src/core/Status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfc::rt {

/// One named tensor with its bytes (little-endian, row-major).
struct SafeTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// The contents of a safetensors file.
struct SafetensorsFile {
  /// Tensors in the order of their data in the file (reading) or in the order
  /// to write them (writing).
  std::vector<SafeTensor> tensors;
  /// The "__metadata__" map (string -> string).
  std::map<std::string, std::string> metadata;

  /// The tensor named `name`, or null.
  const SafeTensor *find(const std::string &name) const;
};

/// Upper bound on the JSON header (as in the reference implementation).
constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

/// Safetensors dtype names: "F32", "F64", "F16", "BF16", "BOOL" (i1), "I32",
/// "I64".
const char *safetensorsDTypeName(DType dtype);
std::optional<DType> parseSafetensorsDType(const std::string &name);

/// Parses and validates a complete file image.
Status parseSafetensors(const uint8_t *data, size_t size, SafetensorsFile &out);
/// Reads and validates the file at `path`.
Status readSafetensors(const std::string &path, SafetensorsFile &out);

/// Serializes `file` (validating names, dtypes and sizes first). The header
/// is padded with spaces to a multiple of 8 bytes so the data is aligned.
Status serializeSafetensors(const SafetensorsFile &file,
                            std::vector<uint8_t> &out);
/// Writes `file` to `path` atomically (temporary file + rename).
Status writeSafetensors(const std::string &path, const SafetensorsFile &file);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_SAFETENSORS_H
