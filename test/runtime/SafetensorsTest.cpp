//===- SafetensorsTest.cpp - safetensors parser/writer on good and bad files
//===//

#include "runtime/src/core/Safetensors.h"

#include "test/runtime/TestUtil.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace tfc::rt;
using namespace tfc::rt::test;

namespace {

/// A file image with the given header text and `dataBytes` bytes of data.
std::vector<uint8_t> image(const std::string &header, size_t dataBytes,
                           uint8_t fill = 0) {
  std::vector<uint8_t> out(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[i] = uint8_t(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), dataBytes, fill);
  return out;
}

Status parse(const std::vector<uint8_t> &bytes, SafetensorsFile &out) {
  return parseSafetensors(bytes.data(), bytes.size(), out);
}

void expectError(const std::vector<uint8_t> &bytes, const std::string &needle) {
  SafetensorsFile f;
  Status s = parse(bytes, f);
  ASSERT_FALSE(s.isOk()) << "expected an error containing: " << needle;
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

SafetensorsFile sample() {
  SafetensorsFile f;
  SafeTensor a{"wte.weight", DType::F32, {2, 3}, {}};
  a.data.resize(24);
  for (size_t i = 0; i < 24; ++i)
    a.data[i] = uint8_t(i);
  SafeTensor b{"tokens", DType::I64, {3}, std::vector<uint8_t>(24, 7)};
  SafeTensor c{"mask", DType::I1, {2, 2}, {1, 0, 0, 1}};
  SafeTensor d{"h", DType::BF16, {}, {0x80, 0x3f}};
  SafeTensor e{"empty", DType::F16, {0, 4}, {}};
  f.tensors = {a, b, c, d, e};
  f.metadata["format"] = "pt";
  return f;
}

std::vector<uint8_t> sampleBytes() {
  std::vector<uint8_t> out;
  EXPECT_TRUE(serializeSafetensors(sample(), out).isOk());
  return out;
}

} // namespace

// Writing then reading gives back every tensor and the metadata; the header
// is padded so data starts 8-byte aligned.
TEST(Safetensors, RoundTrip) {
  std::vector<uint8_t> bytes = sampleBytes();
  uint64_t headerLen;
  std::memcpy(&headerLen, bytes.data(), 8);
  EXPECT_EQ(headerLen % 8, 0u);
  SafetensorsFile f;
  ASSERT_TRUE(parse(bytes, f).isOk());
  SafetensorsFile ref = sample();
  ASSERT_EQ(f.tensors.size(), ref.tensors.size());
  for (const SafeTensor &t : ref.tensors) {
    const SafeTensor *g = f.find(t.name);
    ASSERT_NE(g, nullptr) << t.name;
    EXPECT_EQ(g->dtype, t.dtype);
    EXPECT_EQ(g->shape, t.shape);
    EXPECT_EQ(g->data, t.data);
  }
  EXPECT_EQ(f.metadata, ref.metadata);
}

// The file on disk round-trips too, and a missing file is a clear error.
TEST(Safetensors, FileRoundTrip) {
  TempDir dir;
  std::string path = dir.path() + "/t.safetensors";
  ASSERT_TRUE(writeSafetensors(path, sample()).isOk());
  SafetensorsFile f;
  ASSERT_TRUE(readSafetensors(path, f).isOk());
  EXPECT_EQ(f.tensors.size(), 5u);
  Status s = readSafetensors(dir.path() + "/missing.safetensors", f);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("cannot open"), std::string::npos);
}

// A header written the way the reference implementation writes it (offsets
// in dtype-then-name order, not in header key order) parses.
TEST(Safetensors, ReferenceStyleFile) {
  std::string h = R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                  R"("a":{"dtype":"I32","shape":[2],"data_offsets":[4,12]},)"
                  R"("__metadata__":{"k":"v"}}     )";
  SafetensorsFile f;
  ASSERT_TRUE(parse(image(h, 12), f).isOk());
  ASSERT_EQ(f.tensors.size(), 2u);
  EXPECT_EQ(f.tensors[0].name, "b"); // data order
  EXPECT_EQ(f.metadata.at("k"), "v");
}

// Every strict prefix of a valid file is rejected with an error, never a
// crash or a partial success.
TEST(Safetensors, EveryTruncationFails) {
  std::vector<uint8_t> bytes = sampleBytes();
  for (size_t n = 0; n < bytes.size(); ++n) {
    SafetensorsFile f;
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    EXPECT_FALSE(parse(prefix, f).isOk()) << "prefix of " << n << " bytes";
  }
}

// Random byte corruptions never crash; when they are accepted the result is
// still internally consistent (sizes match dtype x shape).
TEST(Safetensors, RandomCorruptionNeverCrashes) {
  std::vector<uint8_t> bytes = sampleBytes();
  std::mt19937 rng(42);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> b = bytes;
    int flips = 1 + rng() % 4;
    for (int i = 0; i < flips; ++i)
      b[rng() % b.size()] = uint8_t(rng());
    SafetensorsFile f;
    if (!parse(b, f).isOk())
      continue;
    for (const SafeTensor &t : f.tensors) {
      ASSERT_EQ(int64_t(t.data.size()),
                *numElements(t.shape) * dtypeSize(t.dtype));
    }
  }
}

// Header length: too short a file, larger than the file, larger than the
// limit, and too small for a JSON object.
TEST(Safetensors, BadHeaderLength) {
  expectError({1, 2, 3}, "too short");
  std::vector<uint8_t> b = image("{}", 0);
  b[0] = 200;
  expectError(b, "exceeds the 2 bytes");
  b = image("{}", 0);
  b[7] = 0x7f; // ~9e18
  expectError(b, "exceeds the limit");
  expectError(image("", 0), "too small");
  expectError(image(" {}", 0), "does not start with '{'");
}

// JSON problems: syntax, non-object, duplicate keys, deep nesting.
TEST(Safetensors, BadJson) {
  expectError(image("{\"a\":", 0), "invalid JSON");
  expectError(image("{}garbage", 0), "invalid JSON");
  expectError(image("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":"
                    "[0,4]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
                    "\"data_offsets\":[4,8]}}",
                    8),
              "duplicate key");
  std::string deep = "{\"__metadata__\":" + std::string(100, '[') +
                     std::string(100, ']') + "}";
  expectError(image(deep, 0), "nesting deeper");
  // Very deep nesting must not exhaust the stack (parse or destruction).
  std::string deeper = "{\"__metadata__\":" + std::string(200000, '[') +
                       std::string(200000, ']') + "}";
  expectError(image(deeper, 0), "nesting deeper");
  expectError(image("{\"__metadata__\":{\"a\":\"\xff\"}}", 0), "invalid JSON");
}

// Entry fields: dtype names, shape values, data_offsets form.
TEST(Safetensors, BadEntries) {
  auto one = [](const std::string &body, size_t data) {
    return image("{\"t\":" + body + "}", data);
  };
  expectError(one("[]", 0), "expected an object");
  expectError(one(R"({"dtype":"F8","shape":[1],"data_offsets":[0,1]})", 1),
              "unsupported dtype 'F8'");
  expectError(one(R"({"dtype":"I8","shape":[1],"data_offsets":[0,1]})", 1),
              "unsupported dtype");
  expectError(one(R"({"dtype":3,"shape":[1],"data_offsets":[0,4]})", 4),
              "dtype: expected a string");
  expectError(one(R"({"shape":[1],"data_offsets":[0,4]})", 4),
              "dtype: missing field");
  expectError(one(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})", 4),
              "outside [0");
  expectError(one(R"({"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})", 4),
              "expected an integer");
  expectError(one(R"({"dtype":"F32","shape":"1","data_offsets":[0,4]})", 4),
              "expected an array");
  expectError(
      one(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]})",
          4),
      "overflows");
  expectError(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})", 4),
              "expected [begin, end]");
  expectError(one(R"({"dtype":"F32","shape":[1],"data_offsets":[4,0]})", 4),
              "begin 4 > end 0");
  expectError(
      one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1})", 4),
      "unknown field 'x'");
  expectError(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})", 4),
              "needs 8 bytes but data_offsets span 4");
}

// Offsets: past the data, overlapping, holes, unused trailing bytes.
TEST(Safetensors, BadOffsets) {
  expectError(
      image(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4),
      "past the data section");
  expectError(image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                    R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                    8),
              "overlaps");
  expectError(
      image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
      "hole");
  expectError(
      image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 8),
      "data section has 8 bytes but tensors use 4");
}

// Metadata must be a string -> string map; BOOL bytes must be 0/1.
TEST(Safetensors, BadMetadataAndBool) {
  expectError(image(R"({"__metadata__":[]})", 0), "__metadata__ is not");
  expectError(image(R"({"__metadata__":{"a":1}})", 0),
              "__metadata__.a is not a string");
  expectError(
      image(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 2, 2),
      "BOOL but holds byte value 2");
}

// The writer refuses inconsistent input instead of writing a bad file.
TEST(Safetensors, WriterValidates) {
  std::vector<uint8_t> out;
  SafetensorsFile f;
  f.tensors = {{"a", DType::F32, {2}, std::vector<uint8_t>(4)}};
  EXPECT_FALSE(serializeSafetensors(f, out).isOk());
  f.tensors = {{"a", DType::F32, {1}, std::vector<uint8_t>(4)},
               {"a", DType::F32, {1}, std::vector<uint8_t>(4)}};
  EXPECT_FALSE(serializeSafetensors(f, out).isOk());
  f.tensors = {{"__metadata__", DType::F32, {1}, std::vector<uint8_t>(4)}};
  EXPECT_FALSE(serializeSafetensors(f, out).isOk());
  f.tensors = {{"bad\xff", DType::F32, {1}, std::vector<uint8_t>(4)}};
  EXPECT_FALSE(serializeSafetensors(f, out).isOk());
}
