//===- FuzzHostProgram.cpp - libFuzzer target: host-program parser --------===//
//
// Input: host-program text (runtime/src/host/HostProgram.h). The parser must
// reject anything malformed with a status. A program it accepts whose values
// are small (at most 2^16 elements in all) is then planned and run by the
// host interpreter, which relies on the parser's invariants instead of
// checking again, so a gap in the parser's validation shows up here as an
// out-of-bounds access or undefined behaviour. The run's settings come from
// a hash of the input, so a crash reproduces: the inputs' contents
// (FuzzUtil.h), the pointwise chunk size (1, 3, 64 or the default, to cross
// chunk boundaries), and whether an output is handed the memory of an input
// of the same byte size (the interpreter's in-place path). A run without
// such aliasing is repeated and must give bit-identical outputs (a read of
// uninitialized scratch memory or state left by the first run breaks that).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostInterpreter.h"
#include "runtime/src/host/HostProgram.h"
#include "test/fuzz/FuzzUtil.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

using namespace tfc::rt;
using namespace tfc::rt::host;
using namespace tfc::rt::fuzz;

namespace {

constexpr int64_t kMaxTotalElements = int64_t(1) << 16;

/// A tensor's storage in its own heap block of exactly its size, so ASan
/// catches any access past it.
struct Buffer {
  std::unique_ptr<uint8_t[]> data;
  size_t bytes = 0;
  explicit Buffer(size_t n) : data(new uint8_t[n]), bytes(n) {}
};

size_t storageBytes(const ValueType &t) {
  return size_t(t.numel) * size_t(dtypeSize(t.dtype));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  HostProgram prog;
  Status s = parseHostProgram(text, prog);
  note("parse", s);
  if (!s)
    return 0;

  int64_t total = 0;
  for (const ValueType &v : prog.values) {
    if (v.numel > kMaxTotalElements - total)
      return 0;
    total += v.numel;
  }

  Rng rng(hashBytes(data, size));
  static const int64_t kChunks[] = {1, 3, 64, kDefaultChunkElements};
  int64_t chunk = kChunks[rng.next() % 4];
  bool alias = rng.next() % 4 == 0;

  std::vector<Buffer> ins, outs;
  std::vector<const void *> inPtrs;
  std::vector<void *> outPtrs;
  for (int64_t v : prog.inputs) {
    const ValueType &t = prog.values[size_t(v)];
    ins.emplace_back(storageBytes(t));
    fillTensor(t.dtype, rng, ins.back().data.get(), t.numel);
    inPtrs.push_back(ins.back().data.get());
  }
  bool aliased = false;
  std::vector<bool> inputTaken(ins.size(), false);
  for (int64_t v : prog.outputs) {
    const ValueType &t = prog.values[size_t(v)];
    outs.emplace_back(storageBytes(t));
    void *ptr = outs.back().data.get();
    if (alias) {
      // The first input of this output's byte size not yet written by
      // another output.
      for (size_t i = 0; i < ins.size(); ++i)
        if (!inputTaken[i] && ins[i].bytes == storageBytes(t) &&
            ins[i].bytes > 0) {
          inputTaken[i] = true;
          ptr = ins[i].data.get();
          aliased = true;
          break;
        }
    }
    outPtrs.push_back(ptr);
  }

  Interpreter interp(std::move(prog), chunk);
  s = interp.run(inPtrs, outPtrs);
  note(aliased ? "run (outputs over inputs)" : "run", s);
  if (!s || aliased)
    return 0;

  // Again, with the same inputs: the outputs must not change.
  std::vector<Buffer> first;
  for (const Buffer &b : outs) {
    first.emplace_back(b.bytes);
    std::memcpy(first.back().data.get(), b.data.get(), b.bytes);
  }
  s = interp.run(inPtrs, outPtrs);
  if (!s) {
    std::fprintf(stderr, "fuzz-host-program: second run failed: %s\n",
                 s.message().c_str());
    std::abort();
  }
  for (size_t i = 0; i < outs.size(); ++i)
    if (std::memcmp(first[i].data.get(), outs[i].data.get(), outs[i].bytes)) {
      std::fprintf(stderr,
                   "fuzz-host-program: output %zu differs between two runs "
                   "on the same inputs\n",
                   i);
      std::abort();
    }
  return 0;
}
