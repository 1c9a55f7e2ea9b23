//===- Executor.cpp - runs an artifact's entries on a Backend -------------===//

#include "runtime/src/core/Executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <vector>

namespace tfc::rt {

Executor::Executor(std::shared_ptr<Backend> backend,
                   std::shared_ptr<const Artifact> artifact)
    : backend_(std::move(backend)), artifact_(std::move(artifact)) {}

Executor::~Executor() {
  kernels_.clear();
  for (DevicePtr p : allocations_)
    backend_->free(p);
}

Status Executor::create(std::shared_ptr<Backend> backend,
                        std::shared_ptr<const Artifact> artifact,
                        std::unique_ptr<Executor> &out) {
  if (!backend || !artifact)
    return Status::error("executor: null backend or artifact");
  std::unique_ptr<Executor> e(
      new Executor(std::move(backend), std::move(artifact)));
  TFC_RETURN_IF_ERROR(e->init());
  out = std::move(e);
  return Status::ok();
}

Status Executor::init() {
  const Artifact &art = *artifact_;
  size_t n = art.buffers.size();
  addresses_.assign(n, 0);
  written_.assign(n, false);

  // Fill new memory with zeros so that a read of a never-written buffer is
  // deterministic across backends rather than whatever was there before.
  auto allocZeroed = [&](int64_t bytes, DevicePtr &out) -> Status {
    // Empty tensors still get a (1-byte) allocation: a distinct valid address.
    TFC_RETURN_IF_ERROR(backend_->allocateZeroed(
        static_cast<size_t>(bytes > 0 ? bytes : 1), out));
    allocations_.push_back(out);
    return Status::ok();
  };

  DevicePtr arena = 0;
  if (art.arenaSize > 0) {
    // Arena views are aligned relative to the arena base; align the base too
    // in case the backend's allocator gives less than the plan's alignment.
    DevicePtr raw;
    TFC_RETURN_IF_ERROR(backend_->allocate(
        static_cast<size_t>(art.arenaSize + art.arenaAlignment - 1), raw));
    allocations_.push_back(raw);
    uint64_t a = static_cast<uint64_t>(art.arenaAlignment);
    arena = (raw + a - 1) & ~(a - 1);
  }
  for (const BufferDesc &b : art.buffers) {
    if (b.kind == BufferKind::Arena)
      addresses_[b.id] = arena + static_cast<uint64_t>(b.offset);
    else if (b.kind == BufferKind::External) {
      Status s = allocZeroed(b.bytes, addresses_[b.id]);
      if (!s)
        return Status::error("allocating external '" + b.name + "' (" +
                             std::to_string(b.bytes) +
                             " bytes): " + s.message());
    }
  }
  for (const BufferDesc &b : art.buffers)
    if (b.kind == BufferKind::Alias)
      addresses_[b.id] = addresses_[b.aliasOf]; // loader resolved the root

  auto start = std::chrono::steady_clock::now();
  TFC_RETURN_IF_ERROR(
      backend_->prepareKernels(art.kernels, kernels_, prepareStats_));
  prepareStats_.wallMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  if (kernels_.size() != art.kernels.size())
    return Status::error("backend prepared " + std::to_string(kernels_.size()) +
                         " of " + std::to_string(art.kernels.size()) +
                         " kernels");
  for (size_t i = 0; i < art.kernels.size(); ++i)
    if (!kernels_[i])
      return Status::error("preparing kernel '" + art.kernels[i].name +
                           "': backend returned no kernel");
  return Status::ok();
}

static const BufferDesc *findExternal(const Artifact &art,
                                      const std::string &name, Status &err) {
  const BufferDesc *b = art.findExternal(name);
  if (!b) {
    std::string known;
    for (const BufferDesc &d : art.buffers)
      if (d.kind == BufferKind::External)
        known += (known.empty() ? "" : ", ") + d.name;
    err = Status::error("no external buffer named '" + name + "' (externals: " +
                        (known.empty() ? "none" : known) + ")");
  }
  return b;
}

Status Executor::setExternal(const std::string &name, const void *data,
                             size_t bytes) {
  Status err;
  const BufferDesc *b = findExternal(*artifact_, name, err);
  if (!b)
    return err;
  if (bytes != static_cast<size_t>(b->bytes))
    return Status::error("external '" + name + "' (" + dtypeName(b->dtype) +
                         ", " + std::to_string(b->bytes) + " bytes) set with " +
                         std::to_string(bytes) + " bytes");
  if (!data && bytes)
    return Status::error("external '" + name + "': null data");
  // Empty tensors: nothing to copy (and `data` may legitimately be null).
  if (bytes)
    TFC_RETURN_IF_ERROR(backend_->copyToDevice(addresses_[b->id], data, bytes));
  written_[b->id] = true;
  if (b->role == BufferRole::Param)
    derivedStale_ = true;
  return Status::ok();
}

Status Executor::getExternal(const std::string &name, void *data,
                             size_t bytes) {
  Status err;
  const BufferDesc *b = findExternal(*artifact_, name, err);
  if (!b)
    return err;
  if (bytes != static_cast<size_t>(b->bytes))
    return Status::error("external '" + name + "' (" + dtypeName(b->dtype) +
                         ", " + std::to_string(b->bytes) +
                         " bytes) read into " + std::to_string(bytes) +
                         " bytes");
  if (!data && bytes)
    return Status::error("external '" + name + "': null data");
  if (!bytes)
    return Status::ok();
  TFC_RETURN_IF_ERROR(backend_->synchronize());
  return backend_->copyToHost(data, addresses_[b->id], bytes);
}

bool Executor::isExternalSet(const std::string &name) const {
  const BufferDesc *b = artifact_->findExternal(name);
  return b && written_[b->id];
}

Status Executor::runStep(const Step &step) {
  const Artifact &art = *artifact_;
  switch (step.kind) {
  case StepKind::Launch: {
    std::vector<DevicePtr> ptrs;
    std::vector<const BufferDesc *> descs;
    for (const auto *ids : {&step.args, &step.results})
      for (int64_t id : *ids) {
        ptrs.push_back(addresses_[id]);
        descs.push_back(&art.buffers[id]);
      }
    return backend_->launch(*kernels_[step.kernel], art.kernels[step.kernel],
                            ptrs, descs);
  }
  case StepKind::Gemm: {
    const GemmDesc &g = step.gemm;
    GemmOperands ops;
    ops.a = addresses_[g.a];
    ops.b = addresses_[g.b];
    ops.c = addresses_[g.c];
    if (g.bias >= 0)
      ops.bias = addresses_[g.bias];
    if (g.aux >= 0)
      ops.aux = addresses_[g.aux];
    return backend_->gemm(g, ops);
  }
  case StepKind::Copy:
    if (art.buffers[step.src].bytes == 0)
      return Status::ok();
    return backend_->copyOnDevice(
        addresses_[step.dst], addresses_[step.src],
        static_cast<size_t>(art.buffers[step.src].bytes));
  }
  return Status::error("unknown step kind");
}

/// The external buffer behind `id` (through an alias), or null.
static const BufferDesc *externalRoot(const Artifact &art, int64_t id) {
  const BufferDesc *b = &art.buffers[id];
  if (b->kind == BufferKind::Alias)
    b = &art.buffers[b->aliasOf];
  return b->kind == BufferKind::External ? b : nullptr;
}

Status Executor::findEntry(const std::string &name,
                           const EntryDesc *&entry) const {
  const Artifact &art = *artifact_;
  entry = art.findEntry(name);
  if (entry)
    return Status::ok();
  std::string known;
  for (const EntryDesc &e : art.entries)
    known += (known.empty() ? "" : ", ") + e.name;
  return Status::error("no entry named '" + name + "' (entries: " +
                       (known.empty() ? "none" : known) + ")");
}

Status Executor::checkReads(const EntryDesc &entry,
                            std::vector<bool> &written) const {
  const Artifact &art = *artifact_;
  // A param or input read before anything wrote it was never bound: that is
  // a caller bug better reported than computed on zeros.
  auto checkRead = [&](int64_t id) -> Status {
    const BufferDesc *b = externalRoot(art, id);
    // State (optimizer moments, step, loss scale) starts zeroed and counts
    // as set: a training step's first run reads the zeros.
    if (b && b->role != BufferRole::Output && b->role != BufferRole::State &&
        !written[b->id])
      return Status::error(
          std::string(b->role == BufferRole::Param ? "parameter" : "input") +
          " '" + b->name + "' was never set before running '" + entry.name +
          "'");
    return Status::ok();
  };
  auto markWritten = [&](int64_t id) {
    if (const BufferDesc *b = externalRoot(art, id))
      written[b->id] = true;
  };
  for (const Step &s : entry.steps) {
    switch (s.kind) {
    case StepKind::Launch:
      for (int64_t id : s.args)
        TFC_RETURN_IF_ERROR(checkRead(id));
      for (int64_t id : s.results)
        markWritten(id);
      break;
    case StepKind::Gemm: {
      // The epilogue's bias and aux go either way (epilogueBias,
      // epilogueAux): a forward epilogue reads its bias and writes aux, a
      // backward one reads aux (the stored GELU input) and writes the bias
      // gradient. Every read is checked before anything is marked written.
      const GemmDesc &g = s.gemm;
      const EpilogueOperand bias = epilogueBias(g.epilogue);
      const EpilogueOperand aux = epilogueAux(g.epilogue);
      TFC_RETURN_IF_ERROR(checkRead(g.a));
      TFC_RETURN_IF_ERROR(checkRead(g.b));
      if (bias == EpilogueOperand::Read)
        TFC_RETURN_IF_ERROR(checkRead(g.bias));
      if (aux == EpilogueOperand::Read)
        TFC_RETURN_IF_ERROR(checkRead(g.aux));
      if (g.beta != 0.0)
        TFC_RETURN_IF_ERROR(checkRead(g.c));
      markWritten(g.c);
      if (bias == EpilogueOperand::Written)
        markWritten(g.bias);
      if (aux == EpilogueOperand::Written)
        markWritten(g.aux);
      break;
    }
    case StepKind::Copy:
      TFC_RETURN_IF_ERROR(checkRead(s.src));
      markWritten(s.dst);
      break;
    }
  }
  return Status::ok();
}

std::string Executor::stepLabel(const Step &step) const {
  switch (step.kind) {
  case StepKind::Launch:
    return "launch " + artifact_->kernels[step.kernel].name;
  case StepKind::Gemm: {
    // Shape and epilogue, so a profile tells the GEMMs of a step apart.
    const GemmDesc &g = step.gemm;
    std::string label = "gemm " + std::to_string(g.m) + "x" +
                        std::to_string(g.n) + "x" + std::to_string(g.k);
    if (g.batch != 1)
      label += " batch " + std::to_string(g.batch);
    if (g.epilogue != GemmEpilogue::None)
      label += std::string(" ") + gemmEpilogueName(g.epilogue);
    return label;
  }
  case StepKind::Copy:
    return "copy";
  }
  return "?";
}

int64_t Executor::stepBytes(const Step &step) const {
  const std::vector<BufferDesc> &buffers = artifact_->buffers;
  int64_t bytes = 0;
  switch (step.kind) {
  case StepKind::Launch:
    for (int64_t id : step.args)
      bytes += buffers[id].bytes;
    for (int64_t id : step.results)
      bytes += buffers[id].bytes;
    break;
  case StepKind::Gemm:
    // Each buffer once, read or written (a bias or aux either way).
    bytes = buffers[step.gemm.a].bytes + buffers[step.gemm.b].bytes +
            buffers[step.gemm.c].bytes;
    for (int64_t id : {step.gemm.bias, step.gemm.aux})
      if (id >= 0)
        bytes += buffers[id].bytes;
    break;
  case StepKind::Copy:
    bytes = 2 * buffers[step.src].bytes;
    break;
  }
  return bytes;
}

Status Executor::runSteps(const EntryDesc &entry,
                          std::vector<std::vector<double>> *stepMs) {
  for (size_t i = 0; i < entry.steps.size(); ++i) {
    const Step &s = entry.steps[i];
    auto start = std::chrono::steady_clock::now();
    Status st = runStep(s);
    // Profiling waits for each step so its time is its own.
    if (st && stepMs)
      st = backend_->synchronize();
    if (!st)
      return Status::error("entry '" + entry.name + "' step " +
                           std::to_string(i) + " (" + stepLabel(s) +
                           "): " + st.message());
    if (stepMs)
      (*stepMs)[i].push_back(std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
  }
  Status st = backend_->synchronize();
  if (!st)
    return Status::error("entry '" + entry.name + "': " + st.message());
  return Status::ok();
}

Status Executor::refreshDerivedState(const EntryDesc &entry) {
  if (entry.refresh || !derivedStale_)
    return Status::ok();
  for (const EntryDesc &refresh : artifact_->entries)
    if (refresh.refresh)
      TFC_RETURN_IF_ERROR(run(refresh.name));
  derivedStale_ = false;
  return Status::ok();
}

Status Executor::run(const std::string &name) {
  const EntryDesc *entry = nullptr;
  TFC_RETURN_IF_ERROR(findEntry(name, entry));
  TFC_RETURN_IF_ERROR(refreshDerivedState(*entry));
  std::vector<bool> written = written_;
  TFC_RETURN_IF_ERROR(checkReads(*entry, written));
  TFC_RETURN_IF_ERROR(runSteps(*entry, nullptr));
  written_ = std::move(written);
  return Status::ok();
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Status Executor::profile(const std::string &name, int repeat,
                         std::vector<StepProfile> &out) {
  if (repeat < 1)
    return Status::error("profile: repeat must be at least 1");
  const EntryDesc *entry = nullptr;
  TFC_RETURN_IF_ERROR(findEntry(name, entry));
  TFC_RETURN_IF_ERROR(refreshDerivedState(*entry));
  std::vector<bool> written = written_;
  TFC_RETURN_IF_ERROR(checkReads(*entry, written));
  std::vector<std::vector<double>> stepMs(entry->steps.size());
  for (int r = 0; r < repeat; ++r)
    TFC_RETURN_IF_ERROR(runSteps(*entry, &stepMs));
  written_ = std::move(written);
  out.clear();
  for (size_t i = 0; i < entry->steps.size(); ++i) {
    const Step &s = entry->steps[i];
    StepProfile p;
    p.label = stepLabel(s);
    p.kind = s.kind == StepKind::Launch ? artifact_->kernels[s.kernel].kind
             : s.kind == StepKind::Gemm ? "gemm"
                                        : "copy";
    p.bytes = stepBytes(s);
    p.medianMs = median(stepMs[i]);
    out.push_back(std::move(p));
  }
  return Status::ok();
}

Status Executor::profileCopy(size_t bytes, int repeat, double &medianMs) {
  if (repeat < 1 || bytes == 0)
    return Status::error("profileCopy: need bytes > 0 and repeat >= 1");
  DevicePtr src = 0, dst = 0;
  TFC_RETURN_IF_ERROR(backend_->allocate(bytes, src));
  Status st = backend_->allocate(bytes, dst);
  std::vector<double> times;
  for (int r = 0; st && r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    st = backend_->copyOnDevice(dst, src, bytes);
    if (st)
      st = backend_->synchronize();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  if (dst)
    backend_->free(dst);
  backend_->free(src);
  TFC_RETURN_IF_ERROR(st);
  medianMs = median(times);
  return Status::ok();
}

} // namespace tfc::rt
