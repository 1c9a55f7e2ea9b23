//===- CApi.cpp - libtfcrt public C API -----------------------------------===//
//
// Thin C layer over Artifact/Executor. Every entry point catches C++
// exceptions (std::bad_alloc, in practice) so none escapes into C callers.
//
// Handles are checked against the set of live ones this library created
// (LiveHandles): a destroyed, never-created or twice-destroyed device,
// program or status is an error status (or, for the destroy functions and
// the accessors that return no status, ignored), never a use of freed
// memory. A handle whose address a newer object reuses cannot be told apart.
//
//===----------------------------------------------------------------------===//

#include "runtime/include/tfc/runtime.h"
#include "runtime/src/core/CApiInternal.h"
#include "runtime/src/core/Executor.h"
#include "runtime/src/core/Safetensors.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <unordered_set>

using namespace tfc::rt;

struct tfc_program_t {
  std::shared_ptr<Backend> backend;
  std::shared_ptr<const Artifact> artifact;
  std::unique_ptr<Executor> executor;
  std::vector<int64_t> externals; ///< Buffer ids of externals, in order.
  /// The last tfc_program_profile result (the C records point into it).
  std::vector<StepProfile> profile;
  std::vector<tfc_step_profile> profileRecords;
};

namespace {
/// The handles created and not yet destroyed (see the file comment).
class LiveHandles {
public:
  void add(const void *h) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(h);
  }
  /// Removes `h`; false when it was not live.
  bool remove(const void *h) {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.erase(h) != 0;
  }
  bool contains(const void *h) {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.count(h) != 0;
  }

private:
  std::mutex mutex_;
  std::unordered_set<const void *> live_;
};

/// Never destroyed, so handles freed during static destruction still work.
LiveHandles &liveHandles() {
  static LiveHandles *handles = new LiveHandles;
  return *handles;
}

/// A destroy function handed a handle that is not live: ignored, with a
/// line on stderr (a double destroy is a bug in the caller worth seeing).
void warnNotLive(const char *api, const void *h) {
  std::fprintf(stderr,
               "libtfcrt: %s(%p): not a live handle (destroyed twice, or "
               "never created); ignored\n",
               api, h);
}


// Returned when even allocating an error fails; tfc_status_free ignores it.
tfc_status_t outOfMemoryStatus{"out of memory"};

tfc_status errorStatus(const std::string &message) {
  return toCStatus(Status::error(message));
}

template <typename Fn> tfc_status guarded(Fn &&fn) {
  try {
    return toCStatus(fn());
  } catch (const std::bad_alloc &) {
    return &outOfMemoryStatus;
  } catch (const std::exception &e) {
    return errorStatus(std::string("internal error: ") + e.what());
  }
}

tfc_dtype toC(DType d) {
  switch (d) {
  case DType::F32:
    return TFC_DTYPE_F32;
  case DType::F64:
    return TFC_DTYPE_F64;
  case DType::F16:
    return TFC_DTYPE_F16;
  case DType::BF16:
    return TFC_DTYPE_BF16;
  case DType::I1:
    return TFC_DTYPE_I1;
  case DType::I32:
    return TFC_DTYPE_I32;
  case DType::I64:
    return TFC_DTYPE_I64;
  case DType::U8:
    return TFC_DTYPE_U8;
  }
  return TFC_DTYPE_F32;
}

/// The role as the error messages name it.
const char *roleName(BufferRole r) {
  switch (r) {
  case BufferRole::Param:
    return "parameter";
  case BufferRole::Input:
    return "input";
  case BufferRole::State:
    return "state tensor";
  default:
    return "output";
  }
}

tfc_role toC(BufferRole r) {
  switch (r) {
  case BufferRole::Param:
    return TFC_ROLE_PARAM;
  case BufferRole::Input:
    return TFC_ROLE_INPUT;
  case BufferRole::State:
    return TFC_ROLE_STATE;
  default:
    return TFC_ROLE_OUTPUT;
  }
}

void describe(const BufferDesc &b, tfc_binding *out) {
  out->name = b.name.c_str();
  out->role = toC(b.role);
  out->dtype = toC(b.dtype);
  out->rank = b.shape.size();
  out->shape = b.shape.data();
  out->bytes = static_cast<size_t>(b.bytes);
}

Status checkProgram(const tfc_program *program) {
  if (!program)
    return Status::error("null program");
  if (!liveHandles().contains(program))
    return Status::error("program handle is not live (destroyed, or never "
                         "created by tfc_program_load)");
  return Status::ok();
}

bool liveProgram(const tfc_program *program) {
  return program && liveHandles().contains(program);
}
} // namespace

namespace tfc::rt {

tfc_status toCStatus(const Status &status) {
  if (status.isOk())
    return nullptr;
  try {
    tfc_status created = new tfc_status_t{status.message()};
    liveHandles().add(created);
    return created;
  } catch (...) {
    return &outOfMemoryStatus;
  }
}

tfc_device *wrapBackend(std::shared_ptr<Backend> backend) {
  auto *d = new tfc_device_t;
  d->kind = backend->name();
  d->description = backend->deviceDescription();
  d->backend = std::move(backend);
  liveHandles().add(d);
  return d;
}

} // namespace tfc::rt

extern "C" {

const char *tfc_status_message(tfc_status status) {
  if (!status)
    return "";
  if (status != &outOfMemoryStatus && !liveHandles().contains(status))
    return "(not a live tfc_status: already freed?)";
  return status->message.c_str();
}

void tfc_status_free(tfc_status status) {
  if (!status || status == &outOfMemoryStatus)
    return;
  if (!liveHandles().remove(status))
    return warnNotLive("tfc_status_free", status);
  delete status;
}

const char *tfc_dtype_name(tfc_dtype dtype) {
  if (dtype < TFC_DTYPE_F32 || dtype > TFC_DTYPE_U8)
    return "?";
  return dtypeName(static_cast<DType>(dtype));
}

size_t tfc_dtype_size(tfc_dtype dtype) {
  if (dtype < TFC_DTYPE_F32 || dtype > TFC_DTYPE_U8)
    return 0;
  return static_cast<size_t>(dtypeSize(static_cast<DType>(dtype)));
}

const char *tfc_role_name(tfc_role role) {
  switch (role) {
  case TFC_ROLE_PARAM:
    return "param";
  case TFC_ROLE_INPUT:
    return "input";
  case TFC_ROLE_OUTPUT:
    return "output";
  case TFC_ROLE_STATE:
    return "state";
  }
  return "?";
}

const char *tfc_device_kind(const tfc_device *device) {
  return device && liveHandles().contains(device) ? device->kind.c_str() : "";
}

const char *tfc_device_description(const tfc_device *device) {
  return device && liveHandles().contains(device) ? device->description.c_str()
                                                   : "";
}

void tfc_device_destroy(tfc_device *device) {
  if (!device)
    return;
  if (!liveHandles().remove(device))
    return warnNotLive("tfc_device_destroy", device);
  delete device;
}

tfc_status tfc_program_load(tfc_device *device, const char *artifact_dir,
                            tfc_program **out) {
  return guarded([&]() -> Status {
    if (!device || !artifact_dir || !out)
      return Status::error("tfc_program_load: null argument");
    *out = nullptr;
    if (!liveHandles().contains(device))
      return Status::error("tfc_program_load: device handle is not live "
                           "(destroyed, or never created)");
    auto artifact = std::make_shared<Artifact>();
    TFC_RETURN_IF_ERROR(loadArtifact(artifact_dir, *artifact));
    auto program = std::make_unique<tfc_program_t>();
    program->backend = device->backend;
    program->artifact = artifact;
    TFC_RETURN_IF_ERROR(
        Executor::create(device->backend, artifact, program->executor));
    for (const BufferDesc &b : artifact->buffers)
      if (b.kind == BufferKind::External)
        program->externals.push_back(b.id);
    liveHandles().add(program.get());
    *out = program.release();
    return Status::ok();
  });
}

void tfc_program_destroy(tfc_program *program) {
  if (!program)
    return;
  if (!liveHandles().remove(program))
    return warnNotLive("tfc_program_destroy", program);
  delete program;
}

size_t tfc_program_binding_count(const tfc_program *program) {
  return liveProgram(program) ? program->externals.size() : 0;
}

tfc_status tfc_program_binding(const tfc_program *program, size_t index,
                               tfc_binding *out) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!out)
      return Status::error("tfc_program_binding: null output");
    if (index >= program->externals.size())
      return Status::error(
          "binding index " + std::to_string(index) + " out of range (" +
          std::to_string(program->externals.size()) + " bindings)");
    describe(program->artifact->buffers[program->externals[index]], out);
    return Status::ok();
  });
}

tfc_status tfc_program_find_binding(const tfc_program *program,
                                    const char *name, tfc_binding *out) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!name || !out)
      return Status::error("tfc_program_find_binding: null argument");
    const BufferDesc *b = program->artifact->findExternal(name);
    if (!b)
      return Status::error(std::string("no binding named '") + name + "'");
    describe(*b, out);
    return Status::ok();
  });
}

size_t tfc_program_entry_count(const tfc_program *program) {
  return liveProgram(program) ? program->artifact->entries.size() : 0;
}

const char *tfc_program_entry_name(const tfc_program *program, size_t index) {
  if (!liveProgram(program) || index >= program->artifact->entries.size())
    return nullptr;
  return program->artifact->entries[index].name.c_str();
}

int tfc_program_entry_is_refresh(const tfc_program *program, size_t index) {
  if (!liveProgram(program) || index >= program->artifact->entries.size())
    return 0;
  return program->artifact->entries[index].refresh ? 1 : 0;
}

tfc_status tfc_program_set(tfc_program *program, const char *name,
                           const void *data, size_t bytes) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!name)
      return Status::error("tfc_program_set: null name");
    return program->executor->setExternal(name, data, bytes);
  });
}

tfc_status tfc_program_run(tfc_program *program, const char *entry) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!entry)
      return Status::error("tfc_program_run: null entry name");
    return program->executor->run(entry);
  });
}

tfc_status tfc_program_get(tfc_program *program, const char *name, void *data,
                           size_t bytes) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!name)
      return Status::error("tfc_program_get: null name");
    return program->executor->getExternal(name, data, bytes);
  });
}

} // extern "C"

namespace {
/// The safetensors metadata key listing (one per line) the saved tensors
/// that are derived state: written by a refresh entry from the parameters
/// (the 16-bit weight copies), so a program restoring the file recomputes
/// them and need not have the same ones (another target pads other copies).
constexpr const char *kDerivedStateKey = "tfc.derived_state";

/// The names of the state externals a refresh entry writes.
std::set<std::string> derivedState(const Artifact &artifact) {
  std::set<std::string> names;
  auto add = [&](int64_t id) {
    if (id < 0 || static_cast<size_t>(id) >= artifact.buffers.size())
      return;
    const BufferDesc *b = &artifact.buffers[id];
    if (b->kind == BufferKind::Alias)
      b = &artifact.buffers[b->aliasOf];
    if (b->kind == BufferKind::External && b->role == BufferRole::State)
      names.insert(b->name);
  };
  for (const EntryDesc &entry : artifact.entries) {
    if (!entry.refresh)
      continue;
    for (const Step &step : entry.steps) {
      for (int64_t id : step.results)
        add(id);
      add(step.dst);
      if (step.kind == StepKind::Gemm)
        add(step.gemm.c);
    }
  }
  return names;
}

/// Sets externals from the safetensors file `path`. Tensors naming no
/// external are an error unless `ignoreUnknown`; with `exactMask` non-zero
/// the file must hold exactly the externals whose role is in it (no more,
/// none missing), except derived state when parameters are restored too:
/// the file's (listed under kDerivedStateKey) may name no external and the
/// program's may be missing, as setting the parameters recomputes it.
/// Everything is checked before anything is set, so a bad file changes
/// nothing.
Status loadTensors(tfc_program *program, const char *path, bool ignoreUnknown,
                   unsigned exactMask, const char *api) {
  TFC_RETURN_IF_ERROR(checkProgram(program));
  if (!path)
    return Status::error(std::string(api) + ": null path");
  SafetensorsFile file;
  TFC_RETURN_IF_ERROR(readSafetensors(path, file));
  bool rederived = exactMask & static_cast<unsigned>(TFC_ROLE_PARAM);
  std::set<std::string> fileDerived;
  if (auto it = file.metadata.find(kDerivedStateKey);
      rederived && it != file.metadata.end()) {
    std::string names = it->second;
    for (size_t start = 0; start <= names.size();) {
      size_t end = names.find('\n', start);
      if (end == std::string::npos)
        end = names.size();
      if (end > start)
        fileDerived.insert(names.substr(start, end - start));
      start = end + 1;
    }
  }
  std::set<std::string> programDerived;
  if (rederived)
    programDerived = derivedState(*program->artifact);
  std::set<std::string> present;
  for (const SafeTensor &t : file.tensors) {
    const BufferDesc *b = program->artifact->findExternal(t.name);
    if (!b) {
      if (ignoreUnknown || fileDerived.count(t.name))
        continue;
      return Status::error(std::string(path) + ": tensor '" + t.name +
                           "' names no external of the program");
    }
    if (exactMask && !(exactMask & static_cast<unsigned>(toC(b->role))))
      return Status::error(std::string(path) + ": tensor '" + t.name +
                           "' is the program's " + roleName(b->role) +
                           ", not one of the roles restored");
    if (b->dtype != t.dtype || b->shape != t.shape) {
      auto str = [](DType d, const std::vector<int64_t> &s) {
        std::string r = dtypeName(d);
        r += " [";
        for (size_t i = 0; i < s.size(); ++i)
          r += (i ? "," : "") + std::to_string(s[i]);
        return r + "]";
      };
      return Status::error(std::string(path) + ": tensor '" + t.name +
                           "' is " + str(t.dtype, t.shape) +
                           ", the program expects " + str(b->dtype, b->shape));
    }
    present.insert(t.name);
  }
  if (exactMask)
    for (int64_t id : program->externals) {
      const BufferDesc &b = program->artifact->buffers[id];
      if ((exactMask & static_cast<unsigned>(toC(b.role))) &&
          !present.count(b.name) && !programDerived.count(b.name))
        return Status::error(std::string(path) + ": lacks the " +
                             roleName(b.role) + " '" + b.name + "'");
    }
  for (const SafeTensor &t : file.tensors)
    if (program->artifact->findExternal(t.name))
      TFC_RETURN_IF_ERROR(program->executor->setExternal(
          t.name, t.data.data(), t.data.size()));
  return Status::ok();
}
} // namespace

extern "C" {

tfc_status tfc_program_load_safetensors(tfc_program *program, const char *path,
                                        int ignore_unknown) {
  return guarded([&]() -> Status {
    return loadTensors(program, path, ignore_unknown != 0, 0,
                       "tfc_program_load_safetensors");
  });
}

tfc_status tfc_program_restore_safetensors(tfc_program *program,
                                           const char *path,
                                           unsigned role_mask) {
  return guarded([&]() -> Status {
    if (role_mask == 0)
      return Status::error("tfc_program_restore_safetensors: empty role mask");
    return loadTensors(program, path, false, role_mask,
                       "tfc_program_restore_safetensors");
  });
}

tfc_status tfc_program_save_safetensors(tfc_program *program, const char *path,
                                        unsigned role_mask) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!path)
      return Status::error("tfc_program_save_safetensors: null path");
    SafetensorsFile file;
    std::set<std::string> derived = derivedState(*program->artifact);
    std::string derivedSaved;
    for (int64_t id : program->externals) {
      const BufferDesc &b = program->artifact->buffers[id];
      if (!(role_mask & static_cast<unsigned>(toC(b.role))))
        continue;
      if (derived.count(b.name))
        derivedSaved += (derivedSaved.empty() ? "" : "\n") + b.name;
      SafeTensor t;
      t.name = b.name;
      t.dtype = b.dtype;
      t.shape = b.shape;
      t.data.resize(static_cast<size_t>(b.bytes));
      TFC_RETURN_IF_ERROR(
          program->executor->getExternal(b.name, t.data.data(), t.data.size()));
      file.tensors.push_back(std::move(t));
    }
    if (!derivedSaved.empty())
      file.metadata[kDerivedStateKey] = derivedSaved;
    return writeSafetensors(path, file);
  });
}

} // extern "C"

tfc_status tfc_program_profile(tfc_program *program, const char *entry,
                               int repeat, const tfc_step_profile **steps,
                               size_t *count) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!entry || !steps || !count)
      return Status::error("tfc_program_profile: null argument");
    std::vector<StepProfile> profile;
    TFC_RETURN_IF_ERROR(program->executor->profile(entry, repeat, profile));
    program->profile = std::move(profile);
    program->profileRecords.clear();
    for (const StepProfile &p : program->profile)
      program->profileRecords.push_back({p.label.c_str(), p.kind.c_str(),
                                         static_cast<size_t>(p.bytes),
                                         p.medianMs});
    *steps = program->profileRecords.data();
    *count = program->profileRecords.size();
    return Status::ok();
  });
}

tfc_status tfc_program_profile_copy(tfc_program *program, size_t bytes,
                                    int repeat, double *median_ms) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!median_ms)
      return Status::error("tfc_program_profile_copy: null argument");
    return program->executor->profileCopy(bytes, repeat, *median_ms);
  });
}

tfc_status tfc_program_compile_info(const tfc_program *program,
                                    tfc_compile_info *out) {
  return guarded([&]() -> Status {
    TFC_RETURN_IF_ERROR(checkProgram(program));
    if (!out)
      return Status::error("tfc_program_compile_info: null argument");
    const PrepareStats &p = program->executor->prepareStats();
    *out = {size_t(p.kernels), size_t(p.distinct), size_t(p.compiled),
            size_t(p.cacheHits), p.threads, p.wallMs};
    return Status::ok();
  });
}
