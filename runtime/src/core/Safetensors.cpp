//===- Safetensors.cpp - safetensors read/write ---------------------------===//

#include "runtime/src/core/Safetensors.h"

#include "runtime/src/core/FileUtil.h"
#include "runtime/src/core/JsonUtil.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>

namespace tfc::rt {

using json::Json;

const SafeTensor *SafetensorsFile::find(const std::string &name) const {
  for (const SafeTensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

const char *safetensorsDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::I1:
    return "BOOL";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::U8:
    return "U8";
  }
  return "?";
}

std::optional<DType> parseSafetensorsDType(const std::string &name) {
  static const DType all[] = {DType::F32, DType::F64, DType::F16, DType::BF16,
                              DType::I1,  DType::I32, DType::I64, DType::U8};
  for (DType d : all)
    if (name == safetensorsDTypeName(d))
      return d;
  return std::nullopt;
}

namespace {
/// A header entry before its data is copied out.
struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

Status parseEntry(const std::string &name, const Json &value, Entry &out) {
  std::string path = "tensor '" + name + "'";
  if (!value.is_object())
    return Status::error(path + ": expected an object");
  for (auto it = value.begin(); it != value.end(); ++it)
    if (it.key() != "dtype" && it.key() != "shape" &&
        it.key() != "data_offsets")
      return Status::error(path + ": unknown field '" + it.key() + "'");
  out.name = name;
  std::string dtypeName;
  TFC_RETURN_IF_ERROR(json::getString(value, path, "dtype", dtypeName));
  auto dtype = parseSafetensorsDType(dtypeName);
  if (!dtype)
    return Status::error(path + ".dtype: unsupported dtype '" + dtypeName +
                         "' (expected F32, F64, F16, BF16, BOOL, I32 or I64)");
  out.dtype = *dtype;
  TFC_RETURN_IF_ERROR(json::getIntArray(
      value, path, "shape", 0, std::numeric_limits<int64_t>::max(), out.shape));
  std::vector<int64_t> offsets;
  TFC_RETURN_IF_ERROR(json::getIntArray(value, path, "data_offsets", 0,
                                        std::numeric_limits<int64_t>::max(),
                                        offsets));
  if (offsets.size() != 2)
    return Status::error(path + ".data_offsets: expected [begin, end]");
  if (offsets[0] > offsets[1])
    return Status::error(path + ".data_offsets: begin " +
                         std::to_string(offsets[0]) + " > end " +
                         std::to_string(offsets[1]));
  out.begin = static_cast<uint64_t>(offsets[0]);
  out.end = static_cast<uint64_t>(offsets[1]);
  auto n = numElements(out.shape);
  int64_t elemSize = dtypeSize(out.dtype);
  if (!n || *n > std::numeric_limits<int64_t>::max() / elemSize)
    return Status::error(path + ".shape: element count overflows");
  uint64_t bytes = static_cast<uint64_t>(*n * elemSize);
  if (out.end - out.begin != bytes)
    return Status::error(path + ": dtype " + dtypeName + " x shape needs " +
                         std::to_string(bytes) +
                         " bytes but data_offsets span " +
                         std::to_string(out.end - out.begin));
  return Status::ok();
}
} // namespace

Status parseSafetensors(const uint8_t *data, size_t size,
                        SafetensorsFile &out) {
  out = SafetensorsFile();
  if (size < 8)
    return Status::error("safetensors: file has " + std::to_string(size) +
                         " bytes, too short for the 8-byte header length");
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | data[i];
  if (headerLen > kMaxSafetensorsHeaderBytes)
    return Status::error("safetensors: header length " +
                         std::to_string(headerLen) + " exceeds the limit of " +
                         std::to_string(kMaxSafetensorsHeaderBytes));
  if (headerLen > size - 8)
    return Status::error("safetensors: header length " +
                         std::to_string(headerLen) + " exceeds the " +
                         std::to_string(size - 8) +
                         " bytes after the length field (truncated file?)");
  if (headerLen < 2)
    return Status::error("safetensors: header length " +
                         std::to_string(headerLen) + " is too small");
  std::string text(reinterpret_cast<const char *>(data + 8), headerLen);
  if (text[0] != '{')
    return Status::error("safetensors: header does not start with '{'");
  Json header;
  TFC_RETURN_IF_ERROR(json::parse(text, "safetensors header", header));
  if (!header.is_object())
    return Status::error("safetensors: header is not a JSON object");

  std::vector<Entry> entries;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it.value().is_object())
        return Status::error("safetensors: __metadata__ is not an object");
      for (auto m = it.value().begin(); m != it.value().end(); ++m) {
        if (!m.value().is_string())
          return Status::error("safetensors: __metadata__." + m.key() +
                               " is not a string");
        out.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    Entry e;
    TFC_RETURN_IF_ERROR(parseEntry(it.key(), it.value(), e));
    entries.push_back(std::move(e));
  }

  // Offsets must tile the data section exactly: sorted by begin, each tensor
  // starts where the previous one ended (no overlap, no hole) and the last one
  // ends at the end of the file. Empty tensors occupy no bytes.
  std::stable_sort(
      entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
      });
  uint64_t dataSize = size - 8 - headerLen;
  uint64_t expected = 0;
  for (const Entry &e : entries) {
    if (e.begin < expected)
      return Status::error("safetensors: tensor '" + e.name +
                           "' overlaps the previous tensor (data_offsets [" +
                           std::to_string(e.begin) + ", " +
                           std::to_string(e.end) + "])");
    if (e.begin > expected)
      return Status::error("safetensors: hole in the data before tensor '" +
                           e.name + "' (bytes " + std::to_string(expected) +
                           " to " + std::to_string(e.begin) + " unused)");
    if (e.end > dataSize)
      return Status::error(
          "safetensors: tensor '" + e.name + "' data_offsets end " +
          std::to_string(e.end) + " is past the data section (" +
          std::to_string(dataSize) + " bytes; truncated file?)");
    expected = e.end;
  }
  if (expected != dataSize)
    return Status::error("safetensors: data section has " +
                         std::to_string(dataSize) + " bytes but tensors use " +
                         std::to_string(expected));

  const uint8_t *base = data + 8 + headerLen;
  for (Entry &e : entries) {
    SafeTensor t;
    t.name = std::move(e.name);
    t.dtype = e.dtype;
    t.shape = std::move(e.shape);
    t.data.assign(base + e.begin, base + e.end);
    if (t.dtype == DType::I1)
      for (uint8_t b : t.data)
        if (b > 1)
          return Status::error("safetensors: tensor '" + t.name +
                               "' is BOOL but holds byte value " +
                               std::to_string(b));
    out.tensors.push_back(std::move(t));
  }
  return Status::ok();
}

Status readSafetensors(const std::string &path, SafetensorsFile &out) {
  std::string bytes;
  TFC_RETURN_IF_ERROR(readFile(path, bytes));
  Status s = parseSafetensors(reinterpret_cast<const uint8_t *>(bytes.data()),
                              bytes.size(), out);
  if (!s)
    return Status::error(path + ": " + s.message());
  return Status::ok();
}

Status serializeSafetensors(const SafetensorsFile &file,
                            std::vector<uint8_t> &out) {
  Json header = Json::object();
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const SafeTensor &t : file.tensors) {
    if (t.name == "__metadata__")
      return Status::error("safetensors: '__metadata__' is reserved and "
                           "cannot name a tensor");
    if (!names.insert(t.name).second)
      return Status::error("safetensors: duplicate tensor name '" + t.name +
                           "'");
    auto n = numElements(t.shape);
    if (!n || *n > std::numeric_limits<int64_t>::max() / dtypeSize(t.dtype))
      return Status::error("safetensors: tensor '" + t.name +
                           "' has an invalid shape");
    uint64_t bytes = static_cast<uint64_t>(*n * dtypeSize(t.dtype));
    if (bytes != t.data.size())
      return Status::error("safetensors: tensor '" + t.name + "' has " +
                           std::to_string(t.data.size()) +
                           " bytes of data, its dtype and shape need " +
                           std::to_string(bytes));
    header[t.name] = {{"dtype", safetensorsDTypeName(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  if (!file.metadata.empty())
    header["__metadata__"] = file.metadata;
  std::string text;
  try {
    text = header.dump();
  } catch (const std::exception &e) {
    // dump() throws on invalid UTF-8 in names or metadata.
    return Status::error(std::string("safetensors: cannot encode header: ") +
                         e.what());
  }
  while (text.size() % 8)
    text.push_back(' ');
  out.clear();
  out.reserve(8 + text.size() + offset);
  uint64_t len = text.size();
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const SafeTensor &t : file.tensors)
    out.insert(out.end(), t.data.begin(), t.data.end());
  return Status::ok();
}

Status writeSafetensors(const std::string &path, const SafetensorsFile &file) {
  std::vector<uint8_t> bytes;
  TFC_RETURN_IF_ERROR(serializeSafetensors(file, bytes));
  return writeFileAtomic(path, bytes.data(), bytes.size());
}

} // namespace tfc::rt
