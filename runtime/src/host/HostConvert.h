//===- HostConvert.h - 16-bit float storage <-> f32, whole arrays -*- C++ -*-===//
//
// The host backend keeps f16 and bf16 tensors as 16 bits and computes in
// f32, so every kernel that reads or writes them converts whole runs of
// elements. These loops give exactly the results of the scalar conversions
// in runtime/src/core/DType.h (round to nearest even, the same NaN
// encodings), only faster: with F16C (x86-64-v3) eight f16 values convert in
// one instruction, and bf16 is plain integer arithmetic the compiler
// vectorizes.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTCONVERT_H
#define TFC_RUNTIME_HOST_HOSTCONVERT_H

#include <cstdint>

namespace tfc::rt::host {

void halfToFloatN(const uint16_t *src, float *dst, int64_t n);
void floatToHalfN(const float *src, uint16_t *dst, int64_t n);
void bfloat16ToFloatN(const uint16_t *src, float *dst, int64_t n);
void floatToBFloat16N(const float *src, uint16_t *dst, int64_t n);
/// dst[i] = f32 value of src[i] rounded to f16 (bf16): the value a 16-bit
/// store and load gives; src and dst may be the same array.
void roundToHalfN(const float *src, float *dst, int64_t n);
void roundToBFloat16N(const float *src, float *dst, int64_t n);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTCONVERT_H
