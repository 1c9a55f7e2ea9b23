//===- HostConvert.cpp - 16-bit float storage <-> f32, whole arrays -------===//
//
// F16C converts NaNs differently from DType.h in one corner (it quiets a
// signaling NaN), so a block of eight holding any NaN takes the scalar path:
// the results are bit for bit those of the scalar functions at every ISA
// level (DTypeTest checks the two paths against each other).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostConvert.h"

#include "runtime/src/core/DType.h"

#if defined(__F16C__) && defined(__AVX2__)
#include <immintrin.h>
#define TFC_HOST_F16C 1
#endif

namespace tfc::rt::host {

void halfToFloatN(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
#ifdef TFC_HOST_F16C
  const __m128i absMask = _mm_set1_epi16(0x7FFF);
  const __m128i infBits = _mm_set1_epi16(0x7C00);
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    // NaN: |h| > 0x7C00 (signed 16-bit compare is fine: |h| <= 0x7FFF).
    __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, absMask), infBits);
    if (_mm_movemask_epi8(nan)) {
      for (int64_t j = i; j < i + 8; ++j)
        dst[j] = halfToFloat(src[j]);
      continue;
    }
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i)
    dst[i] = halfToFloat(src[i]);
}

void floatToHalfN(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
#ifdef TFC_HOST_F16C
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))) {
      for (int64_t j = i; j < i + 8; ++j)
        dst[j] = floatToHalf(src[j]);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                     _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT |
                                            _MM_FROUND_NO_EXC));
  }
#endif
  for (; i < n; ++i)
    dst[i] = floatToHalf(src[i]);
}

void bfloat16ToFloatN(const uint16_t *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = bfloat16ToFloat(src[i]);
}

void floatToBFloat16N(const float *src, uint16_t *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = floatToBFloat16(src[i]);
}

void roundToHalfN(const float *src, float *dst, int64_t n) {
  constexpr int64_t kBlock = 256;
  uint16_t bits[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    int64_t m = n - i < kBlock ? n - i : kBlock;
    floatToHalfN(src + i, bits, m);
    halfToFloatN(bits, dst + i, m);
  }
}

void roundToBFloat16N(const float *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = bfloat16ToFloat(floatToBFloat16(src[i]));
}

} // namespace tfc::rt::host
