//===- Data.cpp - tfc-train batches ----------------------------------------===//

#include "compiler/tools/tfc-train/Data.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>

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

bool DataSet::open(const std::string &spec, int64_t seqLen,
                   std::string &error) {
  spec_ = spec;
  seqLen_ = seqLen;
  position_ = 0;
  bytes_.clear();
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
  std::ifstream in(spec, std::ios::binary);
  if (!in) {
    error = "cannot open data file '" + spec + "'";
    return false;
  }
  bytes_.assign(std::istreambuf_iterator<char>(in),
                std::istreambuf_iterator<char>());
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

std::string DataSet::describe() const {
  if (kind_ == Kind::Copy)
    return "synthetic copy task (letters, prefix repeated)";
  return spec_ + " (" + std::to_string(bytes_.size()) + " byte tokens)";
}
