//===- HostIsa.h - the instruction set the host kernels target --*- C++ -*-===//
//
// The host interpreter's kernels are compiled for one x86-64 level, chosen
// at configure time by the CMake cache variable TFCRT_HOST_ISA (default
// x86-64-v3: AVX2, FMA, F16C, the baseline of current server CPUs; empty for
// the compiler's default). Vector math (HostMath.h) runs about 3-4x faster
// with 256-bit vectors than with the SSE2 baseline. FMA contraction is off
// (-ffp-contract=off), so every level rounds identically: results do not
// depend on the ISA a library was built for.
//
// A library built for a level the CPU lacks stops at load time with a
// message naming the level and the rebuild flag, instead of failing later
// with an illegal instruction.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTISA_H
#define TFC_RUNTIME_HOST_HOSTISA_H

#include <string>

namespace tfc::rt::host {

/// The level the host kernels were compiled for ("x86-64-v3"), or
/// "compiler default".
std::string hostIsaName();

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTISA_H
