//===- HostMemory.h - how much host memory a request may take -----------===//
//
// The host backend cannot rely on malloc failing for a request larger than
// the machine: with memory overcommit (Linux's default heuristic lets much
// through, and `vm.overcommit_memory=1` lets everything through, as on some
// VMs) a 4 TiB allocation succeeds and the process is killed when it touches
// the pages. So the host backend refuses, up front, any request that does not
// fit in the machine's physical memory; the callers turn the refusal into an
// "out of memory" error.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTMEMORY_H
#define TFC_RUNTIME_HOST_HOSTMEMORY_H

#include <cstdint>

namespace tfc::rt::host {

/// The machine's physical memory in bytes (UINT64_MAX when unknown).
uint64_t physicalMemoryBytes();

/// Whether `bytes` fits in physical memory.
bool fitsInMemory(uint64_t bytes);

/// Throws std::bad_alloc when `bytes` does not fit in physical memory: for
/// code whose allocation failures already surface as bad_alloc.
void requireFitsInMemory(uint64_t bytes);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTMEMORY_H
