//===- Safetensors.h - reading safetensors headers in tfc-train -*- C++ -*-===//
//
// The one reader of safetensors headers on tfc-train's side (the runtime
// reads and checks the tensors themselves): an 8-byte little-endian header
// size, then a JSON object {name: {dtype, shape, data_offsets}} with an
// optional "__metadata__" entry, then the tensor bytes. Used for --data
// FILE.safetensors (examples) and --init FILE.safetensors.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_SAFETENSORS_H
#define TFC_TOOLS_TFC_TRAIN_SAFETENSORS_H

#include "llvm/Support/JSON.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tfc::train {

/// Parses the header at the start of `bytes` (the first `bytes.size()`
/// bytes of a file of `fileSize` bytes, the header whole among them): sets
/// `tensors` to its JSON object and `dataStart` to the offset of the tensor
/// bytes. False with `why` (one phrase: too short, a header past the end
/// of the file or above the runtime's 100 MB limit, not a JSON object)
/// otherwise.
bool parseSafetensorsHeader(const std::vector<uint8_t> &bytes,
                            uint64_t fileSize, llvm::json::Object &tensors,
                            size_t &dataStart, std::string &why);

/// The tensor names of the safetensors file `path`, sorted ("__metadata__"
/// left out), reading only its header. False with `error`
/// (one line naming the file) when it cannot be read or is malformed.
bool safetensorsNames(const std::string &path,
                      std::vector<std::string> &names, std::string &error);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_SAFETENSORS_H
