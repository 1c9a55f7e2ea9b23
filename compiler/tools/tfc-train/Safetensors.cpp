//===- Safetensors.cpp - reading safetensors headers in tfc-train ----------===//

#include "compiler/tools/tfc-train/Safetensors.h"
#include "compiler/tools/tfc-train/Json.h"
#include "compiler/tools/tfc-train/Report.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <fstream>

using namespace tfc::train;

/// The largest header accepted: the runtime's limit
/// (runtime/src/core/Safetensors.h, kMaxSafetensorsHeaderBytes), so a
/// corrupt length cannot make tfc-train read or allocate gigabytes.
static constexpr uint64_t kMaxHeaderBytes = 100'000'000;

/// The header length of a file starting with `first8`, if it fits a file of
/// `fileSize` bytes and the limit; else false with `why`.
static bool headerLength(const uint8_t *first8, uint64_t fileSize,
                         uint64_t &length, std::string &why) {
  if (fileSize < 8) {
    why = "too short for a safetensors header";
    return false;
  }
  length = 0;
  for (int i = 7; i >= 0; --i)
    length = length << 8 | first8[i];
  if (length > fileSize - 8 || length > kMaxHeaderBytes) {
    why = "header length " + std::to_string(length) +
          (length > fileSize - 8 ? " exceeds the file"
                                 : " exceeds the 100 MB limit");
    return false;
  }
  return true;
}

bool tfc::train::parseSafetensorsHeader(const std::vector<uint8_t> &bytes,
                                        uint64_t fileSize,
                                        llvm::json::Object &tensors,
                                        size_t &dataStart, std::string &why) {
  uint64_t length = 0;
  if (bytes.size() < 8) {
    why = "too short for a safetensors header";
    return false;
  }
  if (!headerLength(bytes.data(), fileSize, length, why))
    return false;
  if (length > bytes.size() - 8) {
    why = "the header could not be read whole";
    return false;
  }
  llvm::json::Value header = nullptr;
  if (!parseJson(llvm::StringRef(reinterpret_cast<const char *>(bytes.data()) +
                                     8,
                                 length),
                 header, why)) {
    why = "header " + why;
    return false;
  }
  llvm::json::Object *object = header.getAsObject();
  if (!object) {
    why = "header is not a JSON object";
    return false;
  }
  tensors = std::move(*object);
  dataStart = size_t(8 + length);
  return true;
}

bool tfc::train::safetensorsNames(const std::string &path,
                                  std::vector<std::string> &names,
                                  std::string &error) {
  if (std::string problem = notARegularFile(path);
      !problem.empty() && problem != "does not exist") {
    error = "'" + path + "' " + problem + ", not a safetensors file";
    return false;
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  uint64_t fileSize = uint64_t(in.tellg()), length = 0;
  std::vector<uint8_t> bytes(8, 0);
  in.seekg(0);
  in.read(reinterpret_cast<char *>(bytes.data()),
          std::streamsize(std::min<uint64_t>(fileSize, 8)));
  std::string why;
  llvm::json::Object tensors;
  size_t dataStart = 0;
  bool ok = headerLength(bytes.data(), fileSize, length, why);
  if (ok) {
    bytes.resize(8 + length);
    in.read(reinterpret_cast<char *>(bytes.data()) + 8,
            std::streamsize(length));
    ok = parseSafetensorsHeader(bytes, fileSize, tensors, dataStart, why);
  }
  if (!ok) {
    error = "'" + path + "': " + why;
    return false;
  }
  names.clear();
  for (const auto &entry : tensors)
    if (entry.first != "__metadata__")
      names.push_back(entry.first.str());
  std::sort(names.begin(), names.end());
  return true;
}
