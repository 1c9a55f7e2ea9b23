//===- QuantMap.h - dynamic tree quantization maps (8-bit Adam) -*- C++ -*-===//
//
// The two 256-entry code books of 8-bit optimizer state (Dettmers et al.
// 2021, "8-bit Optimizers via Block-wise Quantization", section 2 and
// appendix: dynamic tree quantization). Header-only and dependency-free
// (common/): the host interpreter decodes/encodes with it, CUDA codegen
// prints the same tables as __constant__ arrays, the train-step builder
// reads its size threshold, and the tests compare against it.
//
// An 8-bit dynamic tree code is [sign] [e zeros] [1] [fraction bits]: the
// run of e leading zeros is a decimal exponent (10^-e), the indicator bit
// ends it, and the remaining bits index a linear fraction in [0.1, 1] (the
// midpoints of 2^bits equal bins). With 7 bits after the sign, e = 0..6
// leaves 6 - e fraction bits, i.e. 2^(6-e) magnitudes per exponent: 127
// magnitudes, each with both signs, plus 0 and 1.0 = 256 codes (the signed
// map, for exp_avg). The unsigned map (exp_avg_sq >= 0) spends the sign bit
// on one more fraction bit: 2^(7-e) magnitudes per exponent, 254 in all,
// plus 0 and 1.0. Both are sorted ascending so that a code is an index and
// encoding is a binary search.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMMON_QUANTMAP_H
#define TFC_COMMON_QUANTMAP_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tfc::quant {

/// Entries of a map (one per 8-bit code).
constexpr int kMapSize = 256;
/// bitsandbytes' block size for its blockwise 8-bit optimizers.
constexpr int64_t kDefaultBlockSize = 256;
/// Tensors with fewer elements keep f32 moments (bitsandbytes'
/// min_8bit_size): their state is negligible and quantizing it only costs
/// accuracy.
constexpr int64_t kMin8BitElements = 4096;

using Map = std::array<float, kMapSize>;

/// The dynamic tree map, signed (exp_avg) or unsigned (exp_avg_sq). Each
/// magnitude 10^-e * (lo + hi) / 2 is formed in double from the linear bin
/// edges lo = 0.1 + 0.9 k / n, hi = 0.1 + 0.9 (k + 1) / n and rounded to
/// float once.
inline Map buildDynamicMap(bool isSigned) {
  std::vector<float> values;
  for (int e = 0; e <= 6; ++e) {
    int fractionBits = (isSigned ? 6 : 7) - e;
    int n = 1 << fractionBits;
    double scale = std::pow(10.0, -e);
    for (int k = 0; k < n; ++k) {
      double lo = 0.1 + 0.9 * k / n, hi = 0.1 + 0.9 * (k + 1) / n;
      float magnitude = static_cast<float>(scale * (lo + hi) / 2.0);
      values.push_back(magnitude);
      if (isSigned)
        values.push_back(-magnitude);
    }
  }
  values.push_back(0.0f);
  values.push_back(1.0f);
  std::sort(values.begin(), values.end());
  Map map{};
  std::copy(values.begin(), values.end(), map.begin());
  return map;
}

inline const Map &signedMap() {
  static const Map map = buildDynamicMap(true);
  return map;
}
inline const Map &unsignedMap() {
  static const Map map = buildDynamicMap(false);
  return map;
}

/// The code of `x` (a value already divided by its block's absmax): the
/// index of the nearest map entry, the lower one on a tie. A branch-free
/// binary search finds the last entry <= x (entry 0 when x is below all or
/// NaN), then the upper neighbour wins if strictly closer. The generated
/// CUDA (DeviceLibrary.cpp's tfc_quantize) runs these same float operations,
/// so equal moments get equal codes on both backends.
inline uint8_t encode(const Map &map, float x) {
  int i = 0;
  for (int step = kMapSize / 2; step > 0; step /= 2)
    if (map[i + step] <= x)
      i += step;
  if (i < kMapSize - 1 && map[i + 1] - x < x - map[i])
    ++i;
  return static_cast<uint8_t>(i);
}

/// The value a code stands for in a block whose absmax is `absmax`; zero
/// state (absmax 0) decodes to 0 whatever the codes.
inline float decode(const Map &map, uint8_t code, float absmax) {
  return map[code] * absmax;
}

/// Number of quantization blocks (absmax entries) of a tensor.
inline int64_t numBlocks(int64_t numel, int64_t blockSize) {
  return (numel + blockSize - 1) / blockSize;
}

} // namespace tfc::quant

#endif // TFC_COMMON_QUANTMAP_H
