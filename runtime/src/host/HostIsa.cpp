//===- HostIsa.cpp - checks the CPU runs the host kernels' ISA -----------===//
//
// The check runs as a load-time constructor compiled for the x86-64 baseline
// (target attribute), before any code of this library that may use the
// wider instructions (HostIsa.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostIsa.h"

#include <cstdlib>
#include <unistd.h>

#ifndef TFCRT_HOST_ISA
#define TFCRT_HOST_ISA ""
#endif

namespace tfc::rt::host {

std::string hostIsaName() {
  return TFCRT_HOST_ISA[0] ? TFCRT_HOST_ISA : "compiler default";
}

} // namespace tfc::rt::host

#if defined(__x86_64__) && defined(__GNUC__)
namespace {
#if defined(__clang__)
// clang (14 at least) rejects the level names in __builtin_cpu_supports at
// compile time, so a level is checked as the features that define it (the
// ones __builtin_cpu_supports knows in every clang).
__attribute__((target("arch=x86-64"))) bool cpuHasV2() {
  return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1") &&
         __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
}
__attribute__((target("arch=x86-64"))) bool cpuHasV3() {
  return cpuHasV2() && __builtin_cpu_supports("avx") &&
         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma");
}
__attribute__((target("arch=x86-64"))) bool cpuHasV4() {
  return cpuHasV3() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}
#else
__attribute__((target("arch=x86-64"))) bool cpuHasV2() {
  return __builtin_cpu_supports("x86-64-v2");
}
__attribute__((target("arch=x86-64"))) bool cpuHasV3() {
  return __builtin_cpu_supports("x86-64-v3");
}
__attribute__((target("arch=x86-64"))) bool cpuHasV4() {
  return __builtin_cpu_supports("x86-64-v4");
}
#endif

/// True when the CPU supports the level the kernels were compiled for.
__attribute__((target("arch=x86-64"))) bool cpuHasHostIsa(const char *isa) {
  __builtin_cpu_init();
  if (__builtin_strcmp(isa, "x86-64-v3") == 0)
    return cpuHasV3();
  if (__builtin_strcmp(isa, "x86-64-v2") == 0)
    return cpuHasV2();
  if (__builtin_strcmp(isa, "x86-64-v4") == 0)
    return cpuHasV4();
  return true; // "x86-64", empty, or a level the build checked itself
}

// The message is written with write(2): glibc's fortified fprintf is an
// always_inline wrapper compiled for the library's level, which GCC cannot
// inline into this baseline function ("target specific option mismatch",
// GCC 13 with _FORTIFY_SOURCE on by default, as on the GPU machines).
__attribute__((constructor(101), target("arch=x86-64"))) void checkHostIsa() {
  if (cpuHasHostIsa(TFCRT_HOST_ISA))
    return;
  static const char message[] =
      "libtfcrt: this library's host kernels were compiled for " TFCRT_HOST_ISA
      ", which this CPU does not support; rebuild the runtime with "
      "-DTFCRT_HOST_ISA=x86-64 (or an older level)\n";
  [[maybe_unused]] ssize_t written = ::write(2, message, sizeof(message) - 1);
  std::_Exit(1);
}
} // namespace
#endif
