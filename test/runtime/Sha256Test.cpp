//===- Sha256Test.cpp - SHA-256 against FIPS 180-4 / NIST vectors ---------===//

#include "runtime/src/core/Sha256.h"

#include <cstdint>
#include <gtest/gtest.h>

using namespace tfc::rt;

// The standard test vectors (FIPS 180-4 examples, NIST CAVP).
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256Hex("The quick brown fox jumps over the lazy dog"),
            "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
}

// One million 'a' (the long FIPS vector), fed in odd-sized pieces to
// exercise the incremental buffering.
TEST(Sha256, MillionAIncremental) {
  std::string chunk(997, 'a');
  Sha256 h;
  size_t left = 1000000;
  while (left) {
    size_t n = std::min(left, chunk.size());
    h.update(chunk.data(), n);
    left -= n;
  }
  auto d = h.digest();
  static const char *hex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  EXPECT_EQ(s,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Messages around the padding boundaries (55, 56, 63, 64, 65 bytes) hash the
// same whether given at once or byte by byte.
TEST(Sha256, PaddingBoundariesIncrementalEqualsOneShot) {
  for (size_t len : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000}) {
    std::string msg(len, '\0');
    for (size_t i = 0; i < len; ++i)
      msg[i] = char(i * 7 + 3);
    Sha256 h;
    for (char c : msg)
      h.update(&c, 1);
    Sha256 one;
    one.update(msg);
    EXPECT_EQ(h.digest(), one.digest()) << len;
  }
  // 56 'a' bytes: known vector for the two-block padding case.
  EXPECT_EQ(sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}
