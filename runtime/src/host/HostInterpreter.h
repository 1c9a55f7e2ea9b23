//===- HostInterpreter.h - runs host programs -------------------*- C++ -*-===//
//
// The reference interpreter of the host backend. A program is planned once:
// constants and iotas are materialized, and the ops are grouped so that runs
// of pointwise ops producing one shape (a pointwise chain, e.g. bias + gelu +
// dropout + residual) are evaluated chunk by chunk over that shape. A chunk's
// intermediates live in small scratch buffers that stay in cache; only values
// needed after the chain are written whole. Every other op (reductions, row
// ops such as layer_norm or softmax, shape ops, embedding) runs on whole
// tensors, row by row where it has rows. View ops (reshape, transpose,
// broadcast_to, slice, pad) fold into their readers' indexing
// (HostViews.h): the chains that read a view gather it per chunk from the
// value it views, and it is stored only where a whole-tensor op reads it
// or the caller does.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTINTERPRETER_H
#define TFC_RUNTIME_HOST_HOSTINTERPRETER_H

#include "runtime/src/host/HostProgram.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace tfc::rt::host {

/// Elements per chunk of a pointwise chain by default: a few chunk buffers
/// of this size fit in L2 alongside the inputs' lines.
constexpr int64_t kDefaultChunkElements = 4096;

class Interpreter {
public:
  /// Plans `program` (already validated by parseHostProgram). With
  /// `foldViews` false every view op copies its result whole (the results
  /// are the same; tests compare the two).
  explicit Interpreter(HostProgram program,
                       int64_t chunkElements = kDefaultChunkElements,
                       bool foldViews = true);
  ~Interpreter();
  Interpreter(const Interpreter &) = delete;
  Interpreter &operator=(const Interpreter &) = delete;

  /// Parses `text` and plans it.
  static Status create(std::string_view text, std::unique_ptr<Interpreter> &out,
                       int64_t chunkElements = kDefaultChunkElements,
                       bool foldViews = true);

  const HostProgram &program() const { return prog_; }
  /// Number of op groups (pointwise chains count as one).
  size_t numGroups() const;
  /// Whether output `output` is written directly over input `input` when a
  /// run passes them the same memory (planInPlace), instead of staged.
  bool writesInPlace(size_t output, size_t input) const;

  /// Runs the program. `inputs[i]` / `outputs[i]` point at the storage of
  /// the program's i-th `in` / `out` value (row-major, its dtype's storage:
  /// 16-bit floats as 16 bits, i1 as one byte). Outputs may overlap inputs:
  /// an output that is exactly an input's memory and that the plan proves
  /// safe (planInPlace: an in-place update) is written directly; any other
  /// overlap is staged and copied out at the end. Not thread-safe:
  /// one run at a time per Interpreter (it reuses its staging memory).
  /// Intermediates live in a scratch memory of the calling thread that
  /// every run on that thread reuses.
  Status run(const std::vector<const void *> &inputs,
             const std::vector<void *> &outputs);

private:
  struct Plan;
  struct RunState;
  Status runImpl(const std::vector<const void *> &inputs,
                 const std::vector<void *> &outputs);
  Status runGroup(size_t g, RunState &st);
  Status runPointwiseGroup(size_t g, RunState &st);
  /// Decides which outputs may be written over the input they share memory
  /// with (in-place updates) without staging.
  void planInPlace();
  /// Lays out the scratch memory of a run (chunk slots, intermediates).
  void planScratch();

  HostProgram prog_;
  int64_t chunk_;
  std::unique_ptr<Plan> plan_;
};

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTINTERPRETER_H
