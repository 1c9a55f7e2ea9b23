//===- ArtifactWriter.cpp - tfcrt module -> artifact directory ------------===//

#include "compiler/artifact/ArtifactWriter.h"
#include "compiler/codegen/cuda/CudaCodegen.h"
#include "compiler/codegen/host/HostCodegen.h"
#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfcrt/TfcrtOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace json = llvm::json;

namespace {

std::string sha256Hex(StringRef text) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()),
                        text.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

FailureOr<std::string> dtypeName(Operation *op, Type type) {
  if (type.isF32())
    return std::string("f32");
  if (type.isF64())
    return std::string("f64");
  if (type.isF16())
    return std::string("f16");
  if (type.isBF16())
    return std::string("bf16");
  if (isa<FloatTF32Type>(type)) // only as a GEMM's compute type
    return std::string("tf32");
  if (type.isInteger(1))
    return std::string("i1");
  if (type.isInteger(32))
    return std::string("i32");
  if (type.isInteger(64))
    return std::string("i64");
  if (type.isUnsignedInteger(8))
    return std::string("ui8");
  op->emitError() << "element type " << type << " has no artifact dtype";
  return failure();
}

LogicalResult writeFile(Operation *op, const std::string &path,
                        StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return op->emitError() << "cannot write '" << path << "': " << ec.message();
  os << contents;
  os.close();
  if (os.has_error())
    return op->emitError() << "cannot write '" << path
                           << "': " << os.error().message();
  return success();
}

/// Builds the manifest while walking the module; buffers get ids in the order
/// they are defined, externals are shared by name across entries.
class ManifestBuilder {
public:
  explicit ManifestBuilder(StringRef tmpDir) : tmpDir(tmpDir) {}

  LogicalResult addKernel(tfcrt::KernelOp kernel) {
    Block &body = kernel.getBodyBlock();
    StringRef name = kernel.getSymName();
    FailureOr<std::string> host =
        mlir::tfc::emitHostProgram(body, kernel.getKind());
    if (failed(host))
      return failure();
    std::string hostPath = ("kernels/" + name + ".host").str();
    if (failed(writeFile(kernel, tmpDir + "/" + hostPath, *host)))
      return failure();
    json::Object entry{{"name", name},
                       {"kind", mlir::tfc::stringifyKernelKind(kernel.getKind())},
                       {"host", hostPath}};
    json::Object sha{{"host", sha256Hex(*host)}};
    // A kernel scheduled for the host gets no CUDA source (and no launch).
    mlir::tfc::KernelScheduleAttr schedule = kernel.getScheduleAttr();
    if (!schedule || schedule.getTarget() != mlir::tfc::KernelTarget::host) {
      FailureOr<mlir::tfc::CudaKernel> cuda =
          mlir::tfc::emitCudaKernel(body, kernel.getKind(), name);
      if (failed(cuda))
        return failure();
      std::string cudaPath = ("kernels/" + name + ".cu").str();
      if (failed(writeFile(kernel, tmpDir + "/" + cudaPath, cuda->source)))
        return failure();
      entry["cuda"] = cudaPath;
      entry["grid"] = json::Array(cuda->grid);
      entry["block"] = json::Array(cuda->block);
      entry["shared_bytes"] = cuda->sharedBytes;
      sha["cuda"] = sha256Hex(cuda->source);
    }
    entry["sha256"] = std::move(sha);
    kernelIndex[name] = kernels.size();
    kernels.push_back(std::move(entry));
    return success();
  }

  LogicalResult addEntry(tfcrt::EntryOp entry) {
    json::Array steps;
    for (Operation &op : entry.getBody().front()) {
      if (auto external = dyn_cast<tfcrt::ExternalOp>(op)) {
        auto it = externals.find(external.getName());
        if (it != externals.end()) {
          // One name is one buffer of the program: entries that bind it
          // must agree on what it is.
          auto [first, firstRole] = externalTypes.lookup(external.getName());
          if (first != external.getBuffer().getType() ||
              firstRole != external.getRole())
            return external.emitError("external '")
                   << external.getName() << "' is "
                   << tfcrt::stringifyBufferRole(external.getRole()) << " "
                   << external.getBuffer().getType() << " here but "
                   << tfcrt::stringifyBufferRole(firstRole) << " " << first
                   << " in an earlier entry; entries share externals by name";
          ids[external.getBuffer()] = it->second;
          continue;
        }
        FailureOr<int64_t> id = addBuffer(
            &op, external.getBuffer(),
            json::Object{
                {"kind", "external"},
                {"role", tfcrt::stringifyBufferRole(external.getRole())},
                {"name", external.getName()}});
        if (failed(id))
          return failure();
        externals[external.getName()] = *id;
        externalTypes[external.getName()] = {external.getBuffer().getType(),
                                             external.getRole()};
      } else if (auto view = dyn_cast<tfcrt::ArenaViewOp>(op)) {
        if (failed(addBuffer(&op, view.getBuffer(),
                             json::Object{{"kind", "arena"},
                                          {"offset", int64_t(view.getOffset())}})))
          return failure();
      } else if (auto alias = dyn_cast<tfcrt::AliasOp>(op)) {
        int64_t root = roots.lookup(ids.lookup(alias.getSource()));
        FailureOr<int64_t> id = addBuffer(&op, alias.getResult(),
                                          json::Object{{"kind", "alias"}, {"of", root}});
        if (failed(id))
          return failure();
        roots[*id] = root;
      } else if (auto launch = dyn_cast<tfcrt::LaunchOp>(op)) {
        steps.push_back(json::Object{
            {"op", "launch"},
            {"kernel", launch.getKernel()},
            {"args", idsOf(launch.getInputs())},
            {"results", idsOf(launch.getOutputs())}});
      } else if (auto gemm = dyn_cast<tfcrt::GemmOp>(op)) {
        FailureOr<json::Object> step = gemmStep(gemm);
        if (failed(step))
          return failure();
        steps.push_back(std::move(*step));
      } else if (auto copy = dyn_cast<tfcrt::CopyOp>(op)) {
        steps.push_back(json::Object{{"op", "copy"},
                                     {"src", ids.lookup(copy.getSrc())},
                                     {"dst", ids.lookup(copy.getDst())}});
      } else if (!isa<tfcrt::ReturnOp>(op)) {
        return op.emitError("cannot write this op into an artifact");
      }
    }
    json::Object object{{"name", entry.getSymName()},
                        {"steps", std::move(steps)}};
    if (entry.getRefresh())
      object["refresh"] = true;
    // Informational (the runtime ignores it): tfc-train's memory report.
    if (auto saved = entry->getAttrOfType<IntegerAttr>(
            mlir::tfc::TfcDialect::kSavedActivationBytesAttrName))
      object["saved_activation_bytes"] = saved.getInt();
    entries.push_back(std::move(object));
    return success();
  }

  json::Value finish(tfcrt::ArenaOp arena) {
    return json::Object{
        {"format", "tfc-artifact"},
        {"version", ::tfc::kArtifactVersion},
        {"arena", json::Object{{"size", int64_t(arena.getSize())},
                               {"alignment", int64_t(arena.getAlignment())}}},
        {"buffers", std::move(buffers)},
        {"kernels", std::move(kernels)},
        {"entries", std::move(entries)}};
  }

private:
  FailureOr<int64_t> addBuffer(Operation *op, Value buffer,
                               json::Object fields) {
    auto type = cast<MemRefType>(buffer.getType());
    FailureOr<std::string> dtype = dtypeName(op, type.getElementType());
    if (failed(dtype))
      return failure();
    int64_t id = buffers.size();
    fields["id"] = id;
    fields["dtype"] = *dtype;
    fields["shape"] = json::Array(type.getShape());
    buffers.push_back(std::move(fields));
    ids[buffer] = id;
    roots[id] = id;
    return id;
  }

  json::Array idsOf(ValueRange values) {
    json::Array out;
    for (Value v : values)
      out.push_back(ids.lookup(v));
    return out;
  }

  FailureOr<json::Object> gemmStep(tfcrt::GemmOp gemm) {
    json::Object step{
        {"op", "gemm"},
        {"a", ids.lookup(gemm.getA())},
        {"b", ids.lookup(gemm.getB())},
        {"c", ids.lookup(gemm.getC())},
        {"transpose_a", gemm.getTransposeA()},
        {"transpose_b", gemm.getTransposeB()},
        {"m", int64_t(gemm.getM())},
        {"n", int64_t(gemm.getN())},
        {"k", int64_t(gemm.getK())},
        {"batch", int64_t(gemm.getBatch())},
        {"lda", int64_t(gemm.getLda())},
        {"ldb", int64_t(gemm.getLdb())},
        {"ldc", int64_t(gemm.getLdc())},
        {"stride_a", int64_t(gemm.getStrideA())},
        {"stride_b", int64_t(gemm.getStrideB())},
        {"stride_c", int64_t(gemm.getStrideC())},
        {"epilogue", tfcrt::stringifyGemmEpilogue(gemm.getEpilogue())},
        {"alpha", gemm.getAlpha().convertToDouble()},
        {"beta", gemm.getBeta().convertToDouble()}};
    std::pair<const char *, Type> types[] = {{"a_type", gemm.getAType()},
                                             {"b_type", gemm.getBType()},
                                             {"c_type", gemm.getCType()},
                                             {"compute_type",
                                              gemm.getComputeType()}};
    for (auto [key, type] : types) {
      FailureOr<std::string> name = dtypeName(gemm, type);
      if (failed(name))
        return failure();
      step[key] = *name;
    }
    // The epilogue's operands, present exactly when it uses them.
    if (Value bias = gemm.getBias())
      step["bias"] = ids.lookup(bias);
    if (Value aux = gemm.getAux())
      step["aux"] = ids.lookup(aux);
    return step;
  }

  std::string tmpDir;
  json::Array buffers, kernels, entries;
  llvm::DenseMap<Value, int64_t> ids;
  llvm::DenseMap<int64_t, int64_t> roots;
  llvm::StringMap<int64_t> externals;
  /// The buffer type and role of each external, as first defined.
  llvm::StringMap<std::pair<Type, tfcrt::BufferRole>> externalTypes;
  llvm::StringMap<size_t> kernelIndex;
};

/// Where the artifact goes (see checkArtifactDestination), or an error.
std::string checkDestination(StringRef directory, std::string &dest) {
  StringRef trimmed = directory;
  while (trimmed.size() > 1 && llvm::sys::path::is_separator(trimmed.back()))
    trimmed = trimmed.drop_back();
  StringRef last = llvm::sys::path::filename(trimmed);
  if (trimmed.empty() || last == "." || last == ".." ||
      trimmed == llvm::sys::path::root_path(trimmed))
    return ("'" + directory +
            "' cannot be replaced by an artifact: name a new directory")
        .str();
  dest = trimmed.str();
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(dest, status, /*Follow=*/false))
    return ""; // does not exist: a plain rename publishes it
  if (llvm::sys::fs::is_symlink_file(status)) {
    llvm::SmallString<256> target;
    if (std::error_code ec = llvm::sys::fs::real_path(dest, target))
      return "'" + dest + "' is a symbolic link that cannot be resolved: " +
             ec.message();
    return checkDestination(target, dest);
  }
  if (!llvm::sys::fs::is_directory(status) ||
      !llvm::sys::fs::is_regular_file(dest + "/manifest.json"))
    return "'" + dest +
           "' exists and is not a tfc artifact; remove it or choose another "
           "path";
  return "";
}

/// Creates a fresh directory named `prefix` plus a random suffix next to
/// the destination (so renames stay on one file system).
std::error_code createSibling(const std::string &prefix, std::string &out) {
  std::error_code ec;
  for (int attempt = 0; attempt < 16; ++attempt) {
    llvm::SmallString<256> path;
    llvm::sys::fs::createUniquePath(prefix + "%%%%%%", path,
                                    /*MakeAbsolute=*/false);
    ec = llvm::sys::fs::create_directory(path, /*IgnoreExisting=*/false);
    if (!ec) {
      out = std::string(path);
      return ec;
    }
    if (ec != std::errc::file_exists)
      return ec;
  }
  return ec;
}

} // namespace

namespace tfc {
std::string checkArtifactDestination(StringRef directory) {
  std::string dest;
  return checkDestination(directory, dest);
}

std::string checkArtifactDigests(StringRef directory) {
  auto read = [&](StringRef name, std::string &out) -> std::string {
    auto buffer = llvm::MemoryBuffer::getFile(directory + "/" + name,
                                              /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return (name + ": " + buffer.getError().message()).str();
    out = (*buffer)->getBuffer().str();
    return "";
  };
  std::string manifest, digest;
  if (std::string problem = read("manifest.json", manifest); !problem.empty())
    return problem;
  if (std::string problem = read("manifest.sha256", digest); !problem.empty())
    return problem;
  if (digest != sha256Hex(manifest) + "  manifest.json\n")
    return "manifest.json does not match manifest.sha256";
  llvm::Expected<json::Value> parsed = json::parse(manifest);
  if (!parsed)
    return "manifest.json: " + llvm::toString(parsed.takeError());
  const json::Object *root = parsed->getAsObject();
  const json::Array *list = root ? root->getArray("kernels") : nullptr;
  if (!list)
    return "manifest.json has no kernels array";
  for (const json::Value &kernel : *list) {
    const json::Object *entry = kernel.getAsObject();
    const json::Object *sha = entry ? entry->getObject("sha256") : nullptr;
    if (!sha)
      return "manifest.json: a kernel without sha256";
    for (const auto &[key, expected] : *sha) {
      std::optional<StringRef> file = entry->getString(key);
      std::optional<StringRef> want = expected.getAsString();
      if (!file || !want)
        return "manifest.json: kernel file '" + key.str() + "' is not named";
      std::string text;
      if (std::string problem = read(*file, text); !problem.empty())
        return problem;
      if (sha256Hex(text) != *want)
        return (*file + " does not match its sha256 in manifest.json").str();
    }
  }
  return "";
}

LogicalResult writeArtifact(ModuleOp module, StringRef directory,
                            ArtifactPublish publish) {
  tfcrt::ArenaOp arena = tfcrt::ArenaOp::lookup(module);
  if (!arena)
    return module.emitError(
        "module has no tfcrt.arena: lower it with --tfc-lower-to-exec first");

  // Refused before any work, and checked again when publishing.
  std::string dest;
  if (std::string problem = checkDestination(directory, dest); !problem.empty())
    return mlir::emitError(module.getLoc(), problem);

  // Write everything under a fresh sibling directory, then swap it in.
  StringRef parent = llvm::sys::path::parent_path(dest);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent))
      return mlir::emitError(module.getLoc())
             << "cannot create '" << parent << "': " << ec.message();
  std::string tmpDir;
  if (std::error_code ec = createSibling(dest + ".tmp-", tmpDir))
    return module.emitError() << "cannot create a directory next to '" << dest
                              << "': " << ec.message();
  auto cleanup = llvm::make_scope_exit(
      [&] { llvm::sys::fs::remove_directories(tmpDir); });
  if (std::error_code ec = llvm::sys::fs::create_directory(tmpDir + "/kernels"))
    return module.emitError() << "cannot create '" << tmpDir
                              << "/kernels': " << ec.message();

  ManifestBuilder builder(tmpDir);
  for (auto kernel : module.getOps<tfcrt::KernelOp>())
    if (failed(builder.addKernel(kernel)))
      return failure();
  for (auto entry : module.getOps<tfcrt::EntryOp>())
    if (failed(builder.addEntry(entry)))
      return failure();

  std::string manifest;
  llvm::raw_string_ostream os(manifest);
  os << llvm::formatv("{0:2}", builder.finish(arena)) << "\n";
  if (failed(writeFile(module, tmpDir + "/manifest.json", os.str())))
    return failure();
  // manifest.sha256 (runtime/src/core/Artifact.h): the manifest's digest in
  // sha256sum's format; the manifest holds every kernel file's.
  if (failed(writeFile(module, tmpDir + "/manifest.sha256",
                       sha256Hex(os.str()) + "  manifest.json\n")))
    return failure();

  if (publish == ArtifactPublish::KeepExisting) {
    // rename(2) onto a non-empty directory fails: then another process won
    // the race with the same content, and its entry stays untouched.
    std::error_code ec = llvm::sys::fs::rename(tmpDir, dest);
    if (!ec)
      cleanup.release();
    else if (!llvm::sys::fs::exists(dest + "/manifest.json"))
      return module.emitError() << "cannot move the artifact to '" << dest
                                << "': " << ec.message();
    return success();
  }
  // Replace: only an artifact is ever moved away (and deleted once the new
  // one is in place); a path that appeared meanwhile is refused as above.
  std::string recheck;
  if (std::string problem = checkDestination(directory, recheck);
      !problem.empty())
    return mlir::emitError(module.getLoc(), problem);
  std::string old;
  if (llvm::sys::fs::exists(dest)) {
    if (std::error_code ec = createSibling(dest + ".old-", old))
      return module.emitError() << "cannot create a directory next to '"
                                << dest << "': " << ec.message();
    // rename(2) replaces the empty placeholder directory.
    if (std::error_code ec = llvm::sys::fs::rename(dest, old)) {
      llvm::sys::fs::remove(old);
      return module.emitError() << "cannot move the old artifact '" << dest
                                << "' aside: " << ec.message();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpDir, dest)) {
    if (!old.empty())
      (void)llvm::sys::fs::rename(old, dest);
    return module.emitError() << "cannot move the artifact to '" << dest
                              << "': " << ec.message();
  }
  cleanup.release();
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  return success();
}
} // namespace tfc
