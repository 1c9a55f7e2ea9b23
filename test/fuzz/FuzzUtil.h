//===- FuzzUtil.h - deterministic tensor contents for the fuzzers -*- C++ -*-===//
//
// The fuzz targets that run what they parse (fuzz-host-program,
// fuzz-artifact) fill the inputs with values derived from the fuzz input
// alone, so a crashing input reproduces exactly. Most tensors hold ordinary
// values (finite floats, small non-negative integers that are valid labels
// and indices); one in eight is hostile: non-finite floats, negative or huge
// integers, which the runtime must reject or handle, never read out of
// bounds with.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TEST_FUZZ_FUZZUTIL_H
#define TFC_TEST_FUZZ_FUZZUTIL_H

#include "runtime/src/core/DType.h"

#include "runtime/src/core/Status.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace tfc::rt::fuzz {

/// With TFC_FUZZ_VERBOSE set, prints what happened to an input ("load: ok",
/// "run forward: <error>"): for checking that seeds get as far as intended.
inline void note(const char *what, const Status &s) {
  static const bool verbose = std::getenv("TFC_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s: %s\n", what,
                 s ? "ok" : s.message().c_str());
}

/// FNV-1a over the fuzz input: the seed of its tensor contents.
inline uint64_t hashBytes(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i)
    h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

/// splitmix64: a small deterministic generator.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state_;
};

/// A float: in [-4, 4); in a hostile tensor sometimes 0, +-inf or NaN.
inline double fuzzFloat(Rng &rng, bool hostile) {
  uint64_t r = rng.next();
  switch (hostile ? r % 16 : 15) {
  case 0:
    return 0.0;
  case 1:
    return std::numeric_limits<double>::infinity();
  case 2:
    return -std::numeric_limits<double>::infinity();
  case 3:
    return std::numeric_limits<double>::quiet_NaN();
  default:
    return double((r >> 11) % 8192) / 1024.0 - 4.0;
  }
}

/// An integer: in [0, 8) (a valid label or index for the seeds); in a
/// hostile tensor sometimes -1, -100 (the default ignore index) or 2^40.
inline int64_t fuzzInt(Rng &rng, bool hostile) {
  uint64_t r = rng.next();
  switch (hostile ? r % 8 : 7) {
  case 0:
    return -1;
  case 1:
    return -100;
  case 2:
    return int64_t(1) << 40;
  default:
    return int64_t((r >> 8) % 8);
  }
}

/// Writes one element of `dtype` (its storage form) holding `rng`'s next
/// value at `dst` (dtypeSize(dtype) bytes).
inline void fillElement(DType dtype, Rng &rng, bool hostile, uint8_t *dst) {
  switch (dtype) {
  case DType::F32: {
    float f = float(fuzzFloat(rng, hostile));
    std::memcpy(dst, &f, 4);
    return;
  }
  case DType::F64: {
    double d = fuzzFloat(rng, hostile);
    std::memcpy(dst, &d, 8);
    return;
  }
  case DType::F16:
  case DType::BF16: {
    // Any 16-bit pattern is a valid 16-bit float (NaNs and infs included).
    uint16_t bits = hostile ? uint16_t(rng.next())
                            : (dtype == DType::F16
                                   ? floatToHalf(float(fuzzFloat(rng, false)))
                                   : floatToBFloat16(
                                         float(fuzzFloat(rng, false))));
    std::memcpy(dst, &bits, 2);
    return;
  }
  case DType::I1:
    *dst = uint8_t(rng.next() & 1);
    return;
  case DType::U8:
    *dst = uint8_t(rng.next());
    return;
  case DType::I32: {
    int32_t v = int32_t(fuzzInt(rng, hostile));
    std::memcpy(dst, &v, 4);
    return;
  }
  case DType::I64: {
    int64_t v = fuzzInt(rng, hostile);
    std::memcpy(dst, &v, 8);
    return;
  }
  }
  std::memset(dst, 0, size_t(dtypeSize(dtype)));
}

/// Fills `count` elements of `dtype` at `dst`. One tensor in eight is
/// hostile (invalid indices, non-finite floats); the others hold ordinary
/// values, so that runs usually get past the kernels' data checks.
inline void fillTensor(DType dtype, Rng &rng, uint8_t *dst, int64_t count) {
  bool hostile = rng.next() % 8 == 0;
  size_t size = size_t(dtypeSize(dtype));
  for (int64_t i = 0; i < count; ++i)
    fillElement(dtype, rng, hostile, dst + size_t(i) * size);
}

} // namespace tfc::rt::fuzz

#endif // TFC_TEST_FUZZ_FUZZUTIL_H
