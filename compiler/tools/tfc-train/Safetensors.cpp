//===- Safetensors.cpp - reading safetensors headers in tfc-train ----------===//

#include "compiler/tools/tfc-train/Safetensors.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <fstream>

using namespace tfc::train;

bool tfc::train::parseSafetensorsHeader(const std::vector<uint8_t> &bytes,
                                        uint64_t fileSize,
                                        llvm::json::Object &tensors,
                                        size_t &dataStart, std::string &why) {
  if (bytes.size() < 8 || fileSize < 8) {
    why = "too short for a safetensors header";
    return false;
  }
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | bytes[i];
  if (headerSize > fileSize - 8 || headerSize > bytes.size() - 8) {
    why = "header length " + std::to_string(headerSize) + " exceeds the file";
    return false;
  }
  llvm::Expected<llvm::json::Value> header = llvm::json::parse(llvm::StringRef(
      reinterpret_cast<const char *>(bytes.data()) + 8, headerSize));
  if (!header) {
    why = "header is not JSON: " + llvm::toString(header.takeError());
    return false;
  }
  llvm::json::Object *object = header->getAsObject();
  if (!object) {
    why = "header is not a JSON object";
    return false;
  }
  tensors = std::move(*object);
  dataStart = size_t(8 + headerSize);
  return true;
}

bool tfc::train::safetensorsNames(const std::string &path,
                                  std::vector<std::string> &names,
                                  std::string &error) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  uint64_t fileSize = uint64_t(in.tellg());
  std::vector<uint8_t> bytes(8, 0);
  in.seekg(0);
  if (fileSize >= 8) {
    in.read(reinterpret_cast<char *>(bytes.data()), 8);
    uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
      headerSize = headerSize << 8 | bytes[i];
    if (headerSize <= fileSize - 8) {
      bytes.resize(8 + headerSize);
      in.read(reinterpret_cast<char *>(bytes.data()) + 8,
              std::streamsize(headerSize));
    }
  }
  llvm::json::Object tensors;
  size_t dataStart = 0;
  std::string why;
  if (!in || !parseSafetensorsHeader(bytes, fileSize, tensors, dataStart,
                                     why)) {
    error = "'" + path + "': " + (why.empty() ? "cannot be read" : why);
    return false;
  }
  names.clear();
  for (const auto &entry : tensors)
    if (entry.first != "__metadata__")
      names.push_back(entry.first.str());
  std::sort(names.begin(), names.end());
  return true;
}
