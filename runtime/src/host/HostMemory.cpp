//===- HostMemory.cpp - how much host memory a request may take ----------===//

#include "runtime/src/host/HostMemory.h"

#include <new>
#include <unistd.h>

namespace tfc::rt::host {

uint64_t physicalMemoryBytes() {
  static const uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES);
    long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
      return UINT64_MAX;
    return uint64_t(pages) * uint64_t(pageSize);
  }();
  return bytes;
}

bool fitsInMemory(uint64_t bytes) { return bytes <= physicalMemoryBytes(); }

void requireFitsInMemory(uint64_t bytes) {
  if (!fitsInMemory(bytes))
    throw std::bad_alloc();
}

} // namespace tfc::rt::host
