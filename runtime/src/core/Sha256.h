//===- Sha256.h - SHA-256 (FIPS 180-4) --------------------------*- C++ -*-===//
//
// A small, dependency-free SHA-256 used to check artifact kernel files against
// the manifest (and usable for content-hashed cache keys). Not constant-time;
// it hashes untrusted data, it does not protect secrets.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_SHA256_H
#define TFC_RUNTIME_CORE_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tfc::rt {

/// Incremental SHA-256: update() any number of times, then digest() once.
class Sha256 {
public:
  Sha256();
  /// Hashes `size` more bytes.
  void update(const void *data, size_t size);
  void update(const std::string &data) { update(data.data(), data.size()); }
  /// Finishes and returns the 32-byte digest. The object must not be updated
  /// afterwards (call reset() to reuse it).
  std::array<uint8_t, 32> digest();
  /// Starts a new hash.
  void reset();

private:
  void compress(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

/// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256Hex(const void *data, size_t size);
inline std::string sha256Hex(const std::string &data) {
  return sha256Hex(data.data(), data.size());
}

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_SHA256_H
