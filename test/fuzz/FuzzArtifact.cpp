//===- FuzzArtifact.cpp - libFuzzer target: the artifact loader -----------===//
//
// Input: the text of an artifact's manifest.json. The files it names come
// from the small valid artifact checked in under test/fuzz/artifact/ (the mlp
// example's SGD train step compiled for the host, see its README), so a
// mutated manifest can point its kernels at real, correctly hashed host
// programs. loadArtifactFromManifest must reject anything invalid with a
// status. An artifact it accepts whose memory and GEMM work are small is
// then loaded into the executor on the host backend, its externals are set
// to contents derived from the input (FuzzUtil.h), and every entry runs: a
// manifest that passes validation but makes the executor, a kernel or a
// GEMM touch memory outside its buffers is an ASan report.
//
// To make such reports exact, the host backend is wrapped so that the bytes
// an allocation rounds up to are poisoned, and so are the arena bytes that
// no arena view covers (ASan's manual poisoning): an access past a buffer
// into padding is caught, not only one past the allocation.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/Executor.h"
#include "test/fuzz/FuzzUtil.h"

#include <sanitizer/asan_interface.h>

#include <map>
#include <memory>
#include <string>

using namespace tfc::rt;
using namespace tfc::rt::fuzz;

namespace {

constexpr int64_t kMaxBytes = int64_t(32) << 20;    // arena + externals
constexpr int64_t kMaxGemmWork = int64_t(1) << 25; // sum of batch*m*n*k
/// The host backend rounds every allocation up to this many bytes.
constexpr uint64_t kPadTo = 256;

uint64_t roundUp(uint64_t n) { return (n + kPadTo - 1) / kPadTo * kPadTo; }

/// The host backend, with the padding of each allocation poisoned.
class PoisoningBackend : public Backend {
public:
  explicit PoisoningBackend(std::unique_ptr<Backend> inner)
      : inner_(std::move(inner)) {}
  ~PoisoningBackend() override {
    for (auto &[ptr, bytes] : sizes_)
      ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void *>(ptr),
                                  roundUp(bytes ? bytes : 1));
  }

  std::string name() const override { return inner_->name(); }
  std::string deviceDescription() const override {
    return inner_->deviceDescription();
  }
  Status allocate(size_t bytes, DevicePtr &out) override {
    TFC_RETURN_IF_ERROR(inner_->allocate(bytes, out));
    track(out, bytes);
    return Status::ok();
  }
  Status allocateZeroed(size_t bytes, DevicePtr &out) override {
    TFC_RETURN_IF_ERROR(inner_->allocateZeroed(bytes, out));
    track(out, bytes);
    return Status::ok();
  }
  void free(DevicePtr ptr) override {
    auto it = sizes_.find(ptr);
    if (it != sizes_.end()) {
      // A mapping's shadow outlives munmap: clear it for the next user.
      ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void *>(ptr),
                                  roundUp(it->second ? it->second : 1));
      sizes_.erase(it);
    }
    inner_->free(ptr);
  }
  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    return inner_->copyToDevice(dst, src, bytes);
  }
  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    return inner_->copyToHost(dst, src, bytes);
  }
  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override {
    return inner_->copyOnDevice(dst, src, bytes);
  }
  Status prepareKernel(const KernelDesc &kernel,
                       std::unique_ptr<PreparedKernel> &out) override {
    return inner_->prepareKernel(kernel, out);
  }
  Status prepareKernels(const std::vector<KernelDesc> &kernels,
                        std::vector<std::unique_ptr<PreparedKernel>> &out,
                        PrepareStats &stats) override {
    return inner_->prepareKernels(kernels, out, stats);
  }
  Status launch(PreparedKernel &kernel, const KernelDesc &desc,
                const std::vector<DevicePtr> &args,
                const std::vector<const BufferDesc *> &argBuffers) override {
    return inner_->launch(kernel, desc, args, argBuffers);
  }
  Status gemm(const GemmDesc &gemm, const GemmOperands &operands) override {
    return inner_->gemm(gemm, operands);
  }
  Status synchronize() override { return inner_->synchronize(); }

  /// Live allocations: address -> requested bytes.
  const std::map<DevicePtr, size_t> &sizes() const { return sizes_; }

private:
  void track(DevicePtr ptr, size_t bytes) {
    sizes_[ptr] = bytes;
    uint64_t padded = roundUp(bytes ? bytes : 1);
    ASAN_POISON_MEMORY_REGION(reinterpret_cast<void *>(ptr + bytes),
                              padded - bytes);
  }

  std::unique_ptr<Backend> inner_;
  std::map<DevicePtr, size_t> sizes_;
};

/// Whether running `art` stays within the fuzzer's time and memory budget.
bool small(const Artifact &art) {
  int64_t bytes = art.arenaSize;
  for (const BufferDesc &b : art.buffers)
    if (b.kind == BufferKind::External) {
      if (b.bytes > kMaxBytes - bytes)
        return false;
      bytes += b.bytes;
    }
  if (bytes > kMaxBytes)
    return false;
  int64_t work = 0;
  for (const EntryDesc &e : art.entries)
    for (const Step &s : e.steps)
      if (s.kind == StepKind::Gemm) {
        const GemmDesc &g = s.gemm;
        double w = double(g.batch) * double(g.m) * double(g.n) * double(g.k);
        if (w > double(kMaxGemmWork - work))
          return false;
        work += int64_t(w);
      }
  return true;
}

/// Poisons the arena bytes that no arena view covers.
void poisonArenaGaps(const Artifact &art, const Executor &exec,
                     const PoisoningBackend &backend) {
  std::map<DevicePtr, bool> externals;
  for (const BufferDesc &b : art.buffers)
    if (b.kind == BufferKind::External)
      externals[exec.address(b.id)] = true;
  for (const auto &[ptr, bytes] : backend.sizes()) {
    if (externals.count(ptr))
      continue;
    // The arena: poison all of it, then unpoison the views (unpoisoning
    // rounds outwards to ASan's 8-byte granules, so views stay addressable).
    ASAN_POISON_MEMORY_REGION(reinterpret_cast<void *>(ptr), bytes);
    for (const BufferDesc &b : art.buffers)
      if (b.kind == BufferKind::Arena && b.bytes > 0)
        ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void *>(exec.address(b.id)),
                                    size_t(b.bytes));
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto art = std::make_shared<Artifact>();
  Status s = loadArtifactFromManifest(TFC_FUZZ_ARTIFACT_DIR, text, *art);
  note("load", s);
  if (!s || !small(*art))
    return 0;

  auto backend = std::make_shared<PoisoningBackend>(createHostBackend());
  std::unique_ptr<Executor> exec;
  s = Executor::create(backend, art, exec);
  note("executor", s);
  if (!s)
    return 0;
  poisonArenaGaps(*art, *exec, *backend);

  Rng rng(hashBytes(data, size));
  for (const BufferDesc &b : art->buffers) {
    if (b.kind != BufferKind::External)
      continue;
    std::vector<uint8_t> contents(size_t(b.bytes));
    fillTensor(b.dtype, rng, contents.data(), b.bytes / dtypeSize(b.dtype));
    note(("set " + b.name).c_str(),
         exec->setExternal(b.name, contents.data(), contents.size()));
  }
  for (const EntryDesc &e : art->entries)
    note(("run " + e.name).c_str(), exec->run(e.name));
  for (const BufferDesc &b : art->buffers) {
    if (b.kind != BufferKind::External)
      continue;
    std::vector<uint8_t> contents(size_t(b.bytes));
    note(("get " + b.name).c_str(),
         exec->getExternal(b.name, contents.data(), contents.size()));
  }
  return 0;
}
