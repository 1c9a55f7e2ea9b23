//===- Philox.h - Philox4x32-10 counter-based random numbers ----*- C++ -*-===//
//
// The generator behind tfc.dropout's mask (see the op's description in
// dialects/tfc/TfcNNOps.td): Salmon et al., "Parallel random numbers: as easy
// as 1, 2, 3" (SC'11), 10 rounds, the constants of Random123 and cuRAND. The
// CUDA emitter implements the same function, so host and GPU draw identical
// masks from (seed, offset).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_PHILOX_H
#define TFC_RUNTIME_HOST_PHILOX_H

#include <array>
#include <cstdint>

namespace tfc::rt::host {

/// Philox4x32-10 of `counter` under `key`: 10 rounds, the key bumped by the
/// Weyl constants between rounds.
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr,
                                             std::array<uint32_t, 2> key) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    uint64_t p0 = uint64_t(kM0) * ctr[0];
    uint64_t p1 = uint64_t(kM1) * ctr[2];
    uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  }
  return ctr;
}

/// The 32-bit draw of dropout for element `index` of a tensor: the first
/// output word of Philox4x32-10 with key (lo32(seed), hi32(seed)) and counter
/// (lo32(c), hi32(c), 0, 0), c = offset + index (mod 2^64).
inline uint32_t dropoutDraw(uint64_t seed, uint64_t offset, uint64_t index) {
  uint64_t c = offset + index;
  return philox4x32_10({uint32_t(c), uint32_t(c >> 32), 0u, 0u},
                       {uint32_t(seed), uint32_t(seed >> 32)})[0];
}

/// The keep threshold of dropout probability `p` in [0, 1): an element is
/// kept iff its draw is >= floor(p * 2^32).
inline uint64_t dropoutThreshold(double p) {
  return static_cast<uint64_t>(p * 4294967296.0);
}

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_PHILOX_H
