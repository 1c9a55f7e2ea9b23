//===- HostBackend.cpp - the host backend: interpreter + OpenBLAS --------===//
//
// Device memory is host memory (256-byte aligned, zero-filled, like the
// arena's alignment). Blocks of 1 MiB and more are anonymous mappings: the
// kernel hands out zero pages lazily, so allocateZeroed touches nothing and
// a large model's buffers are not written before the first step. Every address a step hands in is checked against the
// allocations this backend made, so a wrong offset in an artifact becomes an
// error instead of a stray write.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Backend.h"

#include "runtime/src/host/HostBlas.h"
#include "runtime/src/host/HostGemm.h"
#include "runtime/src/host/HostInterpreter.h"
#include "runtime/src/host/HostIsa.h"
#include "runtime/src/host/HostMemory.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/mman.h>
#include <thread>

namespace tfc::rt {

namespace {

constexpr size_t kAlignment = 256;
/// Allocations of at least this many bytes are anonymous mappings.
constexpr size_t kMapThreshold = size_t(1) << 20;

class HostPreparedKernel : public PreparedKernel {
public:
  std::unique_ptr<host::Interpreter> interpreter;
};

class HostBackend : public Backend {
public:
  ~HostBackend() override {
    for (auto &[ptr, size] : allocations_)
      release(ptr);
  }

  std::string name() const override { return "host"; }

  std::string deviceDescription() const override {
    return std::string("host CPU (reference interpreter for ") +
           host::hostIsaName() + ", " + host::blasName() + "), " +
           std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
           " hardware threads";
  }

  Status allocate(size_t bytes, DevicePtr &out) override {
    size_t rounded =
        (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < bytes)
      return Status::error("host backend: allocation of " +
                           std::to_string(bytes) + " bytes overflows");
    void *p = nullptr;
    bool mapped = rounded >= kMapThreshold;
    if (host::fitsInMemory(rounded)) {
      if (mapped) {
        p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
          p = nullptr;
      } else {
        p = std::aligned_alloc(kAlignment, rounded);
        if (p)
          std::memset(p, 0, rounded);
      }
    }
    if (!p)
      return Status::error("host backend: out of memory allocating " +
                           std::to_string(bytes) + " bytes");
    out = reinterpret_cast<DevicePtr>(p);
    allocations_[out] = bytes;
    if (mapped)
      mapped_[out] = rounded;
    return Status::ok();
  }

  void free(DevicePtr ptr) override {
    auto it = allocations_.find(ptr);
    if (it == allocations_.end())
      return; // not ours (or freed twice): ignoring beats corrupting the heap
    release(ptr);
    allocations_.erase(it);
  }

  /// allocate's memory is zero already (mappings and memset blocks).
  Status allocateZeroed(size_t bytes, DevicePtr &out) override {
    return allocate(bytes, out);
  }

  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    TFC_RETURN_IF_ERROR(checkRange(dst, bytes, "copy destination"));
    if (bytes)
      std::memmove(reinterpret_cast<void *>(dst), src, bytes);
    return Status::ok();
  }

  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    TFC_RETURN_IF_ERROR(checkRange(src, bytes, "copy source"));
    if (bytes)
      std::memmove(dst, reinterpret_cast<const void *>(src), bytes);
    return Status::ok();
  }

  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override {
    TFC_RETURN_IF_ERROR(checkRange(dst, bytes, "copy destination"));
    TFC_RETURN_IF_ERROR(checkRange(src, bytes, "copy source"));
    if (bytes)
      std::memmove(reinterpret_cast<void *>(dst),
                   reinterpret_cast<const void *>(src), bytes);
    return Status::ok();
  }

  Status prepareKernel(const KernelDesc &kernel,
                       std::unique_ptr<PreparedKernel> &out) override {
    auto prepared = std::make_unique<HostPreparedKernel>();
    Status s =
        host::Interpreter::create(kernel.hostProgram, prepared->interpreter);
    if (!s.isOk())
      return Status::error("kernel '" + kernel.name + "': " + s.message());
    const std::string &kind = prepared->interpreter->program().kind;
    if (!kernel.kind.empty() && kind != kernel.kind)
      return Status::error("kernel '" + kernel.name + "': host program kind '" +
                           kind + "' differs from the manifest's '" +
                           kernel.kind + "'");
    out = std::move(prepared);
    return Status::ok();
  }

  Status launch(PreparedKernel &kernel, const KernelDesc &desc,
                const std::vector<DevicePtr> &args,
                const std::vector<const BufferDesc *> &argBuffers) override {
    auto *hk = dynamic_cast<HostPreparedKernel *>(&kernel);
    if (!hk || !hk->interpreter)
      return Status::error("kernel '" + desc.name +
                           "': not prepared by the host backend");
    const host::HostProgram &prog = hk->interpreter->program();
    size_t nin = prog.inputs.size(), nout = prog.outputs.size();
    if (args.size() != nin + nout || argBuffers.size() != args.size())
      return Status::error("kernel '" + desc.name + "': expected " +
                           std::to_string(nin + nout) + " arguments, got " +
                           std::to_string(args.size()));
    std::vector<const void *> inputs;
    std::vector<void *> outputs;
    for (size_t i = 0; i < args.size(); ++i) {
      int64_t v = i < nin ? prog.inputs[i] : prog.outputs[i - nin];
      const host::ValueType &t = prog.values[v];
      const BufferDesc *b = argBuffers[i];
      // A buffer may be a reshaped view of the parameter (an alias), so
      // the element count, not the shape, has to match.
      auto n = b ? numElements(b->shape) : std::nullopt;
      if (!b || b->dtype != t.dtype || !n || *n != t.numel)
        return Status::error("kernel '" + desc.name + "': argument " +
                             std::to_string(i) + " is " +
                             (b ? std::string(dtypeName(b->dtype)) + " " +
                                      host::formatShape(b->shape)
                                : std::string("missing")) +
                             " but the kernel expects " + dtypeName(t.dtype) +
                             " " + host::formatShape(t.shape));
      TFC_RETURN_IF_ERROR(checkRange(args[i], t.numel * dtypeSize(t.dtype),
                                     "kernel '" + desc.name + "' argument " +
                                         std::to_string(i)));
      if (i < nin)
        inputs.push_back(reinterpret_cast<const void *>(args[i]));
      else
        outputs.push_back(reinterpret_cast<void *>(args[i]));
    }
    Status s = hk->interpreter->run(inputs, outputs);
    if (!s.isOk())
      return Status::error("kernel '" + desc.name + "': " + s.message());
    return Status::ok();
  }

  Status gemm(const GemmDesc &g, const GemmOperands &ops) override {
    host::GemmExtents ext;
    TFC_RETURN_IF_ERROR(host::validateGemm(g, ext));
    if (Status s = checkGemmOperands(g, ops); !s)
      return Status::error("gemm: " + s.message());
    TFC_RETURN_IF_ERROR(checkRange(ops.a, ext.a, "gemm operand a"));
    TFC_RETURN_IF_ERROR(checkRange(ops.b, ext.b, "gemm operand b"));
    TFC_RETURN_IF_ERROR(checkRange(ops.c, ext.c, "gemm operand c"));
    if (ops.bias)
      TFC_RETURN_IF_ERROR(checkRange(ops.bias, ext.bias, "gemm operand bias"));
    if (ops.aux)
      TFC_RETURN_IF_ERROR(checkRange(ops.aux, ext.aux, "gemm operand aux"));
    auto overlap = [](DevicePtr x, int64_t nx, DevicePtr y, int64_t ny) {
      return nx > 0 && ny > 0 && x < y + uint64_t(ny) && y < x + uint64_t(nx);
    };
    if (overlap(ops.c, ext.c, ops.a, ext.a) ||
        overlap(ops.c, ext.c, ops.b, ext.b))
      return Status::error("gemm: c overlaps an input operand");
    if (overlap(ops.c, ext.c, ops.bias, ext.bias))
      return Status::error("gemm: c overlaps the bias");
    // What the GEMM writes stays apart from every other operand; what it
    // only reads may share memory (a backward epilogue's aux with a or b).
    const bool auxWritten = epilogueAux(g.epilogue) == EpilogueOperand::Written;
    const bool biasWritten =
        epilogueBias(g.epilogue) == EpilogueOperand::Written;
    if (overlap(ops.aux, ext.aux, ops.c, ext.c) ||
        (auxWritten && (overlap(ops.aux, ext.aux, ops.a, ext.a) ||
                        overlap(ops.aux, ext.aux, ops.b, ext.b) ||
                        overlap(ops.aux, ext.aux, ops.bias, ext.bias))))
      return Status::error("gemm: aux overlaps another operand");
    if (biasWritten && (overlap(ops.bias, ext.bias, ops.a, ext.a) ||
                        overlap(ops.bias, ext.bias, ops.b, ext.b) ||
                        overlap(ops.bias, ext.bias, ops.aux, ext.aux)))
      return Status::error("gemm: the bias gradient overlaps another operand");
    return host::runGemm(
        g, reinterpret_cast<const void *>(ops.a),
        reinterpret_cast<const void *>(ops.b), reinterpret_cast<void *>(ops.c),
        reinterpret_cast<void *>(ops.bias), reinterpret_cast<void *>(ops.aux));
  }

  Status synchronize() override { return Status::ok(); }

private:
  /// Checks that [ptr, ptr + bytes) lies inside one live allocation.
  Status checkRange(DevicePtr ptr, uint64_t bytes, const std::string &what) {
    auto it = allocations_.upper_bound(ptr);
    if (it != allocations_.begin()) {
      --it;
      uint64_t end = it->first + it->second;
      if (ptr >= it->first && ptr <= end && bytes <= end - ptr)
        return Status::ok();
    }
    return Status::error("host backend: " + what + " [0x" + toHex(ptr) + ", +" +
                         std::to_string(bytes) +
                         ") is not inside memory allocated by this backend");
  }
  static std::string toHex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%llx", (unsigned long long)v);
    return buf;
  }

  /// Returns an allocation's memory (a mapping or a heap block).
  void release(DevicePtr ptr) {
    auto m = mapped_.find(ptr);
    if (m != mapped_.end()) {
      munmap(reinterpret_cast<void *>(ptr), m->second);
      mapped_.erase(m);
    } else {
      std::free(reinterpret_cast<void *>(ptr));
    }
  }

  std::map<DevicePtr, size_t> allocations_;
  /// Allocations that are anonymous mappings, with their mapped size.
  std::map<DevicePtr, size_t> mapped_;
};

} // namespace

std::unique_ptr<Backend> createHostBackend() {
  return std::make_unique<HostBackend>();
}

} // namespace tfc::rt
