//===- Data.cpp - tfc-train batches ----------------------------------------===//

#include "compiler/tools/tfc-train/Data.h"
#include "compiler/tools/tfc-train/Report.h"
#include "compiler/tools/tfc-train/Safetensors.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

using namespace tfc::train;

static uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

Rng::Rng(uint64_t seed) {
  for (uint64_t &word : s)
    word = splitmix64(seed);
}

uint64_t Rng::next() {
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t Rng::below(uint64_t n) {
  // Reject the top partial block so every residue is equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = next();
  while (x >= limit);
  return x % n;
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  double u1 = 1.0 - uniform(); // (0, 1]: log stays finite
  double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

std::string Rng::serialize() const {
  char text[65];
  std::snprintf(text, sizeof(text), "%016llx%016llx%016llx%016llx",
                (unsigned long long)s[0], (unsigned long long)s[1],
                (unsigned long long)s[2], (unsigned long long)s[3]);
  return text;
}

bool Rng::deserialize(const std::string &text) {
  if (text.size() != 64)
    return false;
  uint64_t words[4];
  for (int i = 0; i < 4; ++i) {
    words[i] = 0;
    for (char c : text.substr(16 * i, 16)) {
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : -1;
      if (digit < 0)
        return false;
      words[i] = words[i] << 4 | uint64_t(digit);
    }
  }
  // The all-zero state is a fixed point of xoshiro: never a valid state.
  if (!(words[0] | words[1] | words[2] | words[3]))
    return false;
  for (int i = 0; i < 4; ++i)
    s[i] = words[i];
  return true;
}

bool tfc::train::isExamplesSpec(const std::string &spec) {
  const std::string suffix = ".safetensors";
  return spec.size() > suffix.size() &&
         spec.compare(spec.size() - suffix.size(), suffix.size(), suffix) == 0;
}

namespace {
/// The safetensors dtype name of a model element type, and its size.
bool safetensorsType(const std::string &elementType, std::string &name,
                     size_t &size) {
  static const struct {
    const char *element, *name;
    size_t size;
  } kTypes[] = {{"f32", "F32", 4},  {"f64", "F64", 8}, {"f16", "F16", 2},
                {"bf16", "BF16", 2}, {"i64", "I64", 8}, {"i32", "I32", 4},
                {"ui8", "U8", 1},   {"i1", "BOOL", 1}};
  for (const auto &t : kTypes)
    if (elementType == t.element) {
      name = t.name;
      size = t.size;
      return true;
    }
  return false;
}

/// Reads all of `path`, a regular file, into `bytes`; false with one line
/// in `error` (a directory, a device such as /dev/zero that would be read
/// forever, a read error).
bool readFile(const std::string &path, std::vector<uint8_t> &bytes,
              std::string &error) {
  std::string problem = notARegularFile(path);
  if (problem == "does not exist") {
    error = "cannot open data file '" + path + "'";
    return false;
  }
  if (!problem.empty()) {
    error = "data file '" + path + "' " + problem;
    return false;
  }
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open data file '" + path + "': " + std::strerror(errno);
    return false;
  }
  bytes.clear();
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) {
    error = "cannot read data file '" + path + "'";
    return false;
  }
  return true;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}
} // namespace

bool DataSet::openExamples(const std::string &spec, const ModelInfo &model,
                           std::string &error) {
  kind_ = Kind::Examples;
  if (!readFile(spec, bytes_, error))
    return false;
  auto bad = [&](const std::string &why) {
    error = "data file '" + spec + "': " + why;
    return false;
  };
  llvm::json::Object header;
  size_t dataStart = 0;
  std::string why;
  if (!parseSafetensorsHeader(bytes_, bytes_.size(), header, dataStart, why))
    return bad(why);
  size_t dataSize = bytes_.size() - dataStart;
  if (model.inputs.empty())
    return bad("the model has no tfc.input arguments to feed");
  int64_t modelBatch = model.inputs.front().shape.empty()
                     ? 0
                     : model.inputs.front().shape.front();
  columns_.clear();
  examples_ = -1;
  for (const ModelArgument &input : model.inputs) {
    std::string dtype;
    size_t elementSize = 0;
    if (input.shape.empty() || !safetensorsType(input.elementType, dtype,
                                                elementSize))
      return bad("model input '" + input.name + "' (" + input.elementType +
                 " " + shapeText(input.shape) +
                 ") cannot come from examples: it needs a leading batch "
                 "dimension and a plain dtype");
    if (input.shape.front() != modelBatch)
      return bad("model inputs differ in their leading (batch) dimension: '" +
                 input.name + "' has " + std::to_string(input.shape.front()) +
                 ", '" + model.inputs.front().name + "' " +
                 std::to_string(modelBatch));
    const llvm::json::Object *t = header.getObject(input.name);
    if (!t)
      return bad("no tensor '" + input.name + "' for the model input of that "
                 "name");
    std::optional<llvm::StringRef> name = t->getString("dtype");
    const llvm::json::Array *shape = t->getArray("shape");
    const llvm::json::Array *offsets = t->getArray("data_offsets");
    if (!name || !shape || !offsets || offsets->size() != 2)
      return bad("tensor '" + input.name + "' lacks dtype, shape or "
                 "data_offsets");
    std::vector<int64_t> dims;
    for (const llvm::json::Value &d : *shape) {
      std::optional<int64_t> v = d.getAsInteger();
      if (!v || *v < 0)
        return bad("tensor '" + input.name + "' has a bad shape");
      dims.push_back(*v);
    }
    std::vector<int64_t> want(input.shape);
    if (!dims.empty())
      want.front() = dims.front();
    if (*name != dtype || dims.size() != input.shape.size() || dims != want ||
        dims.front() < 1)
      return bad("tensor '" + input.name + "' is " + name->str() + " " +
                 shapeText(dims) + "; the model input is " + dtype + " " +
                 shapeText(input.shape) + ", so the file needs " + dtype +
                 " [N" + shapeText(input.shape).substr(1 + std::to_string(
                     input.shape.front()).size()) + " with N >= 1 examples");
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger(),
                           end = (*offsets)[1].getAsInteger();
    size_t exampleBytes = elementSize;
    for (size_t i = 1; i < dims.size(); ++i)
      exampleBytes *= size_t(dims[i]);
    if (!begin || !end || *begin < 0 || *end < *begin ||
        uint64_t(*end) > dataSize ||
        uint64_t(*end - *begin) != exampleBytes * uint64_t(dims.front()))
      return bad("tensor '" + input.name + "' has data_offsets that do not "
                 "match its shape or the file");
    if (examples_ >= 0 && dims.front() != examples_)
      return bad("tensor '" + input.name + "' has " +
                 std::to_string(dims.front()) + " examples, the others " +
                 std::to_string(examples_));
    examples_ = dims.front();
    columns_.push_back({input.name, dataStart + size_t(*begin), exampleBytes});
  }
  return true;
}

bool DataSet::open(const std::string &spec, const ModelInfo &model,
                   std::string &error) {
  spec_ = spec;
  seqLen_ = model.seqLen;
  position_ = 0;
  bytes_.clear();
  if (isExamplesSpec(spec))
    return openExamples(spec, model, error);
  int64_t seqLen = model.seqLen;
  if (seqLen < 1) {
    error = "the model's sequence length must be at least 1";
    return false;
  }
  const std::string prefix = "synthetic:";
  if (spec.compare(0, prefix.size(), prefix) == 0) {
    std::string name = spec.substr(prefix.size());
    if (name != "copy") {
      error = "unknown synthetic task '" + name + "' (known: copy)";
      return false;
    }
    kind_ = Kind::Copy;
    return true;
  }
  kind_ = Kind::Text;
  if (spec.empty()) {
    error = "no data: pass --data FILE or --data synthetic:copy";
    return false;
  }
  if (!readFile(spec, bytes_, error))
    return false;
  if (bytes_.empty()) {
    error = "data file '" + spec + "' is empty";
    return false;
  }
  if (int64_t(bytes_.size()) < seqLen + 1) {
    error = "data file '" + spec + "' has " + std::to_string(bytes_.size()) +
            " bytes, fewer than one window of " + std::to_string(seqLen + 1) +
            " (the model's sequence length + 1)";
    return false;
  }
  return true;
}

void DataSet::window(Rng &rng, int64_t *out) {
  int64_t n = seqLen_ + 1;
  if (kind_ == Kind::Text) {
    uint64_t start = rng.below(bytes_.size() - n + 1);
    for (int64_t i = 0; i < n; ++i)
      out[i] = bytes_[start + i];
    return;
  }
  // Copy task: a random prefix of lowercase letters, then the prefix again
  // (cut to the window). Predicting the repeat needs attention to the
  // prefix, which is what makes the task a useful smoke test.
  int64_t half = (n + 1) / 2;
  for (int64_t i = 0; i < half; ++i)
    out[i] = 'a' + int64_t(rng.below(26));
  for (int64_t i = half; i < n; ++i)
    out[i] = out[i - half];
}

void DataSet::nextBatch(Rng &rng, int64_t batch, Batch &out) {
  if (kind_ == Kind::Examples) {
    // The same draws for every column: one index per row of the batch.
    std::vector<uint64_t> rows(batch);
    for (uint64_t &row : rows)
      row = rng.below(uint64_t(examples_));
    out.inputs.resize(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Column &column = columns_[c];
      out.inputs[c].first = column.name;
      std::vector<uint8_t> &bytes = out.inputs[c].second;
      bytes.resize(size_t(batch) * column.exampleBytes);
      for (int64_t b = 0; b < batch; ++b)
        std::memcpy(bytes.data() + size_t(b) * column.exampleBytes,
                    bytes_.data() + column.offset +
                        rows[b] * column.exampleBytes,
                    column.exampleBytes);
    }
    ++position_;
    return;
  }
  out.tokens.resize(batch * seqLen_);
  out.targets.resize(batch * seqLen_);
  std::vector<int64_t> buffer(seqLen_ + 1);
  for (int64_t b = 0; b < batch; ++b) {
    window(rng, buffer.data());
    for (int64_t t = 0; t < seqLen_; ++t) {
      out.tokens[b * seqLen_ + t] = buffer[t];
      out.targets[b * seqLen_ + t] = buffer[t + 1];
    }
  }
  ++position_;
}

int64_t DataSet::largestToken() const {
  if (kind_ == Kind::Copy)
    return 'z';
  if (kind_ == Kind::Text && !bytes_.empty())
    return *std::max_element(bytes_.begin(), bytes_.end());
  return 0;
}

std::string DataSet::describe() const {
  if (kind_ == Kind::Examples)
    return spec_ + " (" + std::to_string(examples_) + " examples of " +
           std::to_string(columns_.size()) + " inputs)";
  if (kind_ == Kind::Copy)
    return "synthetic copy task (letters, prefix repeated)";
  return spec_ + " (" + std::to_string(bytes_.size()) + " byte tokens)";
}
