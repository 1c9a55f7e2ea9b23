//===- Artifact.cpp - load and validate an artifact directory -------------===//
//
// The manifest is untrusted input (it may be corrupt, truncated, hand-edited
// or from another version), so nothing here assumes the writer was correct:
// every field is type-checked, every id bounds-checked and every size
// recomputed before the executor is allowed to turn offsets into addresses.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Artifact.h"

#include "runtime/src/core/FileUtil.h"
#include "runtime/src/core/JsonUtil.h"
#include "runtime/src/core/Sha256.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace tfc::rt {

using json::Json;

const EntryDesc *Artifact::findEntry(const std::string &name) const {
  for (const EntryDesc &e : entries)
    if (e.name == name)
      return &e;
  return nullptr;
}

const BufferDesc *Artifact::findExternal(const std::string &name) const {
  for (const BufferDesc &b : buffers)
    if (b.kind == BufferKind::External && b.name == name)
      return &b;
  return nullptr;
}

std::optional<GemmEpilogue> parseGemmEpilogue(const std::string &name) {
  for (const GemmEpilogueInfo &e : kGemmEpilogues)
    if (name == e.name)
      return e.epilogue;
  return std::nullopt;
}

std::string gemmEpilogueNameList() {
  std::string list;
  size_t count = std::size(kGemmEpilogues);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0)
      list += i + 1 == count ? " or " : ", ";
    list += kGemmEpilogues[i].name;
  }
  return list;
}

namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
constexpr size_t kMaxManifestBytes = 64u << 20;
constexpr size_t kMaxKernelFileBytes = 64u << 20;

std::string shapeString(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::string describe(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + " " + shapeString(shape);
}

Status getDType(const Json &obj, const std::string &path, const char *key,
                DType &out) {
  std::string name;
  TFC_RETURN_IF_ERROR(json::getString(obj, path, key, name));
  auto d = parseDType(name);
  if (!d)
    return Status::error(json::child(path, key) + ": unknown dtype '" + name +
                         "' (expected f32, f64, f16, bf16, i1, i32 or i64)");
  out = *d;
  return Status::ok();
}

/// Reads a buffer id member and checks it names a buffer.
Status getBufferId(const Json &obj, const std::string &path, const char *key,
                   size_t numBuffers, int64_t &out) {
  TFC_RETURN_IF_ERROR(json::getInt(obj, path, key, out));
  if (out < 0 || static_cast<size_t>(out) >= numBuffers)
    return Status::error(json::child(path, key) + ": buffer id " +
                         std::to_string(out) + " out of range (" +
                         std::to_string(numBuffers) + " buffers)");
  return Status::ok();
}

/// A relative path inside the artifact: no absolute paths, no "..", so a
/// manifest cannot make the runtime read files outside its directory.
Status checkRelativePath(const std::string &p, const std::string &path) {
  if (p.empty())
    return Status::error(path + ": empty path");
  if (p[0] == '/')
    return Status::error(path + ": '" + p + "' must be relative");
  if (p.find('\0') != std::string::npos)
    return Status::error(path + ": path contains a NUL byte");
  std::stringstream ss(p);
  std::string part;
  while (std::getline(ss, part, '/'))
    if (part == "..")
      return Status::error(path + ": '" + p +
                           "' must not leave the artifact directory");
  return Status::ok();
}

bool isHex64(const std::string &s) {
  if (s.size() != 64)
    return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The loader's state: the artifact being built plus lookups used while
/// validating steps.
class Loader {
public:
  Loader(const std::string &directory, Artifact &out)
      : directory_(directory), art_(out) {}

  Status load(const Json &doc) {
    std::string format;
    TFC_RETURN_IF_ERROR(json::getString(doc, "", "format", format));
    if (format != "tfc-artifact")
      return Status::error("format: expected \"tfc-artifact\", got \"" +
                           format + "\"");
    int64_t version;
    TFC_RETURN_IF_ERROR(json::getInt(doc, "", "version", version));
    if (version != kArtifactVersion)
      return Status::error("version: unsupported artifact version " +
                           std::to_string(version) + " (this runtime reads " +
                           std::to_string(kArtifactVersion) + ")");
    TFC_RETURN_IF_ERROR(loadArena(doc));
    TFC_RETURN_IF_ERROR(loadBuffers(doc));
    TFC_RETURN_IF_ERROR(loadKernels(doc));
    return loadEntries(doc);
  }

private:
  Status loadArena(const Json &doc) {
    const Json *arena;
    TFC_RETURN_IF_ERROR(json::member(doc, "", "arena", arena));
    TFC_RETURN_IF_ERROR(json::getInt(*arena, "arena", "size", art_.arenaSize));
    if (art_.arenaSize < 0)
      return Status::error("arena.size: negative size");
    TFC_RETURN_IF_ERROR(
        json::getInt(*arena, "arena", "alignment", art_.arenaAlignment));
    int64_t a = art_.arenaAlignment;
    if (a < 1 || a > (1 << 20) || (a & (a - 1)))
      return Status::error("arena.alignment: " + std::to_string(a) +
                           " is not a power of two in [1, 2^20]");
    return Status::ok();
  }

  Status loadBuffers(const Json &doc) {
    const Json *list;
    TFC_RETURN_IF_ERROR(json::member(doc, "", "buffers", list));
    if (!list->is_array())
      return Status::error("buffers: expected an array");
    size_t n = list->size();
    std::vector<BufferDesc> buffers(n);
    std::vector<bool> seen(n, false);
    std::vector<size_t> position(n, 0); // id -> index in the JSON array
    std::set<std::string> externalNames;
    for (size_t i = 0; i < n; ++i) {
      std::string path = json::element("buffers", i);
      const Json &j = (*list)[i];
      BufferDesc b;
      TFC_RETURN_IF_ERROR(json::getInt(j, path, "id", b.id));
      if (b.id < 0 || static_cast<size_t>(b.id) >= n)
        return Status::error(path + ".id: " + std::to_string(b.id) +
                             " out of range (ids must be 0.." +
                             std::to_string(n - 1) + ")");
      if (seen[b.id])
        return Status::error(path + ".id: duplicate id " +
                             std::to_string(b.id));
      seen[b.id] = true;
      position[b.id] = i;
      TFC_RETURN_IF_ERROR(getDType(j, path, "dtype", b.dtype));
      TFC_RETURN_IF_ERROR(
          json::getIntArray(j, path, "shape", 0, kMaxInt, b.shape));
      auto elems = numElements(b.shape);
      if (!elems || *elems > kMaxInt / dtypeSize(b.dtype))
        return Status::error(path + ".shape: byte size overflows");
      b.bytes = *elems * dtypeSize(b.dtype);

      std::string kind;
      TFC_RETURN_IF_ERROR(json::getString(j, path, "kind", kind));
      if (kind == "external") {
        b.kind = BufferKind::External;
        std::string role;
        TFC_RETURN_IF_ERROR(json::getString(j, path, "role", role));
        if (role == "param")
          b.role = BufferRole::Param;
        else if (role == "input")
          b.role = BufferRole::Input;
        else if (role == "output")
          b.role = BufferRole::Output;
        else if (role == "state")
          b.role = BufferRole::State;
        else
          return Status::error(path + ".role: unknown role '" + role +
                               "' (expected param, input, output or state)");
        TFC_RETURN_IF_ERROR(json::getString(j, path, "name", b.name));
        if (b.name.empty())
          return Status::error(path + ".name: empty external name");
        if (!externalNames.insert(b.name).second)
          return Status::error(path + ".name: duplicate external name '" +
                               b.name + "'");
      } else if (kind == "arena") {
        b.kind = BufferKind::Arena;
        TFC_RETURN_IF_ERROR(json::getInt(j, path, "offset", b.offset));
        if (b.offset < 0 || b.offset % art_.arenaAlignment)
          return Status::error(path + ".offset: " + std::to_string(b.offset) +
                               " is not a non-negative multiple of the arena "
                               "alignment " +
                               std::to_string(art_.arenaAlignment));
        if (b.offset > art_.arenaSize || b.bytes > art_.arenaSize - b.offset)
          return Status::error(
              path + ".offset: arena view [" + std::to_string(b.offset) + ", " +
              std::to_string(b.offset) + "+" + std::to_string(b.bytes) +
              ") lies outside the arena (size " +
              std::to_string(art_.arenaSize) + ")");
      } else if (kind == "alias") {
        b.kind = BufferKind::Alias;
        TFC_RETURN_IF_ERROR(json::getInt(j, path, "of", b.aliasOf));
        if (b.aliasOf < 0 || static_cast<size_t>(b.aliasOf) >= n)
          return Status::error(path + ".of: buffer id " +
                               std::to_string(b.aliasOf) + " out of range (" +
                               std::to_string(n) + " buffers)");
        if (b.aliasOf == b.id)
          return Status::error(path + ".of: a buffer cannot alias itself");
      } else {
        return Status::error(path + ".kind: unknown buffer kind '" + kind +
                             "' (expected external, arena or alias)");
      }
      buffers[b.id] = std::move(b);
    }
    // Resolve alias chains to their root (a non-alias buffer); a chain longer
    // than the number of buffers is a cycle.
    for (BufferDesc &b : buffers) {
      if (b.kind != BufferKind::Alias)
        continue;
      int64_t root = b.aliasOf;
      size_t steps = 0;
      while (buffers[root].kind == BufferKind::Alias) {
        if (++steps > n)
          return Status::error(json::element("buffers", position[b.id]) +
                               ".of: alias chain is a cycle");
        root = buffers[root].aliasOf;
      }
      if (buffers[root].bytes != b.bytes)
        return Status::error(
            json::element("buffers", position[b.id]) + ".of: alias of buffer " +
            std::to_string(root) + " has " + std::to_string(b.bytes) +
            " bytes (" + describe(b.dtype, b.shape) + ") but its source has " +
            std::to_string(buffers[root].bytes) + " (" +
            describe(buffers[root].dtype, buffers[root].shape) + ")");
      b.aliasOf = root;
    }
    art_.buffers = std::move(buffers);
    return Status::ok();
  }

  Status readKernelFile(const Json &j, const std::string &path, const char *key,
                        const Json &sha, std::string &out) {
    std::string rel;
    TFC_RETURN_IF_ERROR(json::getString(j, path, key, rel));
    TFC_RETURN_IF_ERROR(checkRelativePath(rel, json::child(path, key)));
    Status s = readFile(directory_ + "/" + rel, out, kMaxKernelFileBytes);
    if (!s)
      return Status::error(json::child(path, key) + ": " + s.message());
    std::string shaPath = json::child(path, "sha256");
    std::string expected;
    TFC_RETURN_IF_ERROR(json::getString(sha, shaPath, key, expected));
    if (!isHex64(expected))
      return Status::error(json::child(shaPath, key) +
                           ": expected 64 hex digits");
    std::string actual = sha256Hex(out);
    if (lower(expected) != actual)
      return Status::error(json::child(shaPath, key) + ": '" + rel +
                           "' has sha256 " + actual + ", manifest says " +
                           lower(expected) + " (corrupt or modified file)");
    return Status::ok();
  }

  /// The CUDA half of a kernel entry: its source and launch geometry.
  Status loadLaunch(const Json &j, const std::string &path, const Json &sha,
                    KernelDesc &k) {
    TFC_RETURN_IF_ERROR(readKernelFile(j, path, "cuda", sha, k.cudaSource));
    // CUDA's launch limits: grid.x < 2^31, grid.y/z <= 65535, at most 1024
    // threads per block with block.z <= 64.
    std::vector<int64_t> grid, block;
    TFC_RETURN_IF_ERROR(json::getIntArray(j, path, "grid", 1, kMaxInt, grid));
    TFC_RETURN_IF_ERROR(
        json::getIntArray(j, path, "block", 1, kMaxInt, block));
    if (grid.size() != 3 || block.size() != 3)
      return Status::error(path + (grid.size() != 3 ? ".grid" : ".block") +
                           ": expected 3 dimensions");
    if (grid[0] > 0x7fffffff || grid[1] > 65535 || grid[2] > 65535)
      return Status::error(path + ".grid: exceeds CUDA grid limits");
    if (block[0] > 1024 || block[1] > 1024 || block[2] > 64 ||
        block[0] * block[1] * block[2] > 1024)
      return Status::error(path + ".block: exceeds 1024 threads per block");
    for (int d = 0; d < 3; ++d) {
      k.grid[d] = static_cast<uint32_t>(grid[d]);
      k.block[d] = static_cast<uint32_t>(block[d]);
    }
    int64_t shared;
    TFC_RETURN_IF_ERROR(json::getInt(j, path, "shared_bytes", shared));
    if (shared < 0 || shared > 0xffffffffLL)
      return Status::error(path + ".shared_bytes: " + std::to_string(shared) +
                           " out of range");
    k.sharedBytes = static_cast<uint32_t>(shared);
    return Status::ok();
  }

  Status loadKernels(const Json &doc) {
    const Json *list;
    TFC_RETURN_IF_ERROR(json::member(doc, "", "kernels", list));
    if (!list->is_array())
      return Status::error("kernels: expected an array");
    static const std::set<std::string> kinds = {
        "pointwise",    "row_reduction", "column_reduction", "gather",
        "multi_tensor", "gemm",          "block_quantized", "scatter",
        "sort"};
    for (size_t i = 0; i < list->size(); ++i) {
      std::string path = json::element("kernels", i);
      const Json &j = (*list)[i];
      KernelDesc k;
      TFC_RETURN_IF_ERROR(json::getString(j, path, "name", k.name));
      // The name becomes a CUDA symbol (extern "C"): a C identifier.
      bool ident = !k.name.empty() && !std::isdigit((unsigned char)k.name[0]);
      for (char c : k.name)
        ident = ident && (std::isalnum((unsigned char)c) || c == '_');
      if (!ident)
        return Status::error(path + ".name: '" + k.name +
                             "' is not a C identifier");
      if (kernelIndex_.count(k.name))
        return Status::error(path + ".name: duplicate kernel '" + k.name + "'");
      TFC_RETURN_IF_ERROR(json::getString(j, path, "kind", k.kind));
      if (!kinds.count(k.kind))
        return Status::error(path + ".kind: unknown kernel kind '" + k.kind +
                             "'");
      const Json *sha;
      TFC_RETURN_IF_ERROR(json::member(j, path, "sha256", sha));
      if (!sha->is_object())
        return Status::error(path + ".sha256: expected an object");
      TFC_RETURN_IF_ERROR(readKernelFile(j, path, "host", *sha, k.hostProgram));
      // A kernel compiled for the host (target=host) has no CUDA source and
      // no launch geometry; the cuda backend refuses it at load.
      bool hostOnly = !j.contains("cuda");
      for (const char *key : {"grid", "block", "shared_bytes"})
        if (hostOnly && j.contains(key))
          return Status::error(path + "." + key +
                               ": present without a CUDA source");
      if (!hostOnly)
        TFC_RETURN_IF_ERROR(loadLaunch(j, path, *sha, k));

      std::string hostKind;
      Status s = readHostProgramSignature(k.hostProgram, hostKind, k.inputs,
                                          k.outputs);
      if (!s)
        return Status::error(path + ".host: " + s.message());
      if (hostKind != k.kind)
        return Status::error(path + ".host: host program kind '" + hostKind +
                             "' differs from the manifest's '" + k.kind + "'");
      kernelIndex_[k.name] = static_cast<int64_t>(art_.kernels.size());
      art_.kernels.push_back(std::move(k));
    }
    return Status::ok();
  }

  Status getIds(const Json &j, const std::string &path, const char *key,
                std::vector<int64_t> &out) {
    size_t n = art_.buffers.size();
    TFC_RETURN_IF_ERROR(json::getIntArray(j, path, key, 0, kMaxInt, out));
    for (size_t i = 0; i < out.size(); ++i)
      if (static_cast<size_t>(out[i]) >= n)
        return Status::error(json::element(json::child(path, key), i) +
                             ": buffer id " + std::to_string(out[i]) +
                             " out of range (" + std::to_string(n) +
                             " buffers)");
    return Status::ok();
  }

  /// Checks launch operands against the kernel signature, one by one.
  Status checkOperands(const std::string &path, const char *key,
                       const std::vector<int64_t> &ids,
                       const std::vector<TensorSig> &sigs,
                       const std::string &kernel) {
    std::string what = std::string(key) == "args" ? "inputs" : "outputs";
    if (ids.size() != sigs.size())
      return Status::error(json::child(path, key) + ": kernel '" + kernel +
                           "' has " + std::to_string(sigs.size()) + " " + what +
                           ", step gives " + std::to_string(ids.size()));
    for (size_t i = 0; i < ids.size(); ++i) {
      const BufferDesc &b = art_.buffers[ids[i]];
      // Exact dtype and shape: the lowering gives each kernel parameter the
      // type of the launch operand, so any difference is a writer bug.
      if (b.dtype != sigs[i].dtype || b.shape != sigs[i].shape)
        return Status::error(json::element(json::child(path, key), i) +
                             ": buffer " + std::to_string(b.id) + " is " +
                             describe(b.dtype, b.shape) + ", kernel '" +
                             kernel + "' expects " +
                             describe(sigs[i].dtype, sigs[i].shape));
    }
    return Status::ok();
  }

  /// Byte range of a buffer within its root allocation.
  bool mayOverlap(int64_t x, int64_t y) const {
    const BufferDesc *a = &art_.buffers[x], *b = &art_.buffers[y];
    if (a->kind == BufferKind::Alias)
      a = &art_.buffers[a->aliasOf];
    if (b->kind == BufferKind::Alias)
      b = &art_.buffers[b->aliasOf];
    if (a == b)
      return a->bytes > 0;
    if (a->kind != BufferKind::Arena || b->kind != BufferKind::Arena)
      return false;
    return a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
  }

  Status loadGemm(const Json &j, const std::string &path, GemmDesc &g) {
    size_t n = art_.buffers.size();
    TFC_RETURN_IF_ERROR(getBufferId(j, path, "a", n, g.a));
    TFC_RETURN_IF_ERROR(getBufferId(j, path, "b", n, g.b));
    TFC_RETURN_IF_ERROR(getBufferId(j, path, "c", n, g.c));
    TFC_RETURN_IF_ERROR(json::getBool(j, path, "transpose_a", g.transposeA));
    TFC_RETURN_IF_ERROR(json::getBool(j, path, "transpose_b", g.transposeB));
    struct {
      const char *key;
      int64_t *value;
      int64_t min;
    } ints[] = {{"m", &g.m, 1},
                {"n", &g.n, 1},
                {"k", &g.k, 1},
                {"batch", &g.batch, 1},
                {"lda", &g.lda, 1},
                {"ldb", &g.ldb, 1},
                {"ldc", &g.ldc, 1},
                {"stride_a", &g.strideA, 0},
                {"stride_b", &g.strideB, 0},
                {"stride_c", &g.strideC, 0}};
    for (auto &f : ints) {
      TFC_RETURN_IF_ERROR(json::getInt(j, path, f.key, *f.value));
      // 2^40 keeps every product below (2^40)^2 * 4 < 2^127 in checks below
      // and is far beyond any real tensor dimension.
      if (*f.value < f.min || *f.value > (int64_t(1) << 40))
        return Status::error(json::child(path, f.key) + ": " +
                             std::to_string(*f.value) + " out of range");
    }
    TFC_RETURN_IF_ERROR(getDType(j, path, "a_type", g.aType));
    TFC_RETURN_IF_ERROR(getDType(j, path, "b_type", g.bType));
    TFC_RETURN_IF_ERROR(getDType(j, path, "c_type", g.cType));
    TFC_RETURN_IF_ERROR(
        json::getString(j, path, "compute_type", g.computeType));
    std::string epilogue;
    TFC_RETURN_IF_ERROR(json::getString(j, path, "epilogue", epilogue));
    auto parsedEpilogue = parseGemmEpilogue(epilogue);
    if (!parsedEpilogue)
      return Status::error(path + ".epilogue: unknown epilogue '" + epilogue +
                           "' (expected " + gemmEpilogueNameList() + ")");
    g.epilogue = *parsedEpilogue;
    TFC_RETURN_IF_ERROR(json::getNumber(j, path, "alpha", g.alpha));
    TFC_RETURN_IF_ERROR(json::getNumber(j, path, "beta", g.beta));

    auto isFloat = [](DType d) {
      return d == DType::F32 || d == DType::F64 || d == DType::F16 ||
             d == DType::BF16;
    };
    struct {
      const char *key;
      DType type;
      int64_t id;
    } ops[] = {{"a_type", g.aType, g.a},
               {"b_type", g.bType, g.b},
               {"c_type", g.cType, g.c}};
    bool anyF64 = false, allF64 = true;
    for (auto &op : ops) {
      if (!isFloat(op.type))
        return Status::error(json::child(path, op.key) + ": " +
                             dtypeName(op.type) +
                             " is not a floating-point GEMM type");
      if (art_.buffers[op.id].dtype != op.type)
        return Status::error(json::child(path, op.key) + ": " +
                             dtypeName(op.type) + " but buffer " +
                             std::to_string(op.id) + " is " +
                             dtypeName(art_.buffers[op.id].dtype));
      anyF64 |= op.type == DType::F64;
      allF64 &= op.type == DType::F64;
    }
    if (anyF64 && !allF64)
      return Status::error(path + ": f64 GEMMs need f64 a, b and c");
    std::string wantCompute = allF64 ? "f64" : "f32";
    // TF32 tensor cores: an accumulation choice for f32 operands only.
    bool tf32 = g.computeType == "tf32" && g.aType == DType::F32;
    if (g.computeType != wantCompute && !tf32)
      return Status::error(path + ".compute_type: '" + g.computeType +
                           "' (expected '" + wantCompute + "'" +
                           (g.aType == DType::F32 ? " or 'tf32'" : "") +
                           " for these types)");

    // Row-major storage: op(A) is m x k, so A is stored m x k (k x m when
    // transposed) with leading dimension lda >= its column count; likewise B
    // (k x n) and C (m x n). Every element any batch touches must lie inside
    // the buffer.
    struct Operand {
      const char *name;
      int64_t id, rows, cols, ld, stride;
    } operands[] = {{"a", g.a, g.transposeA ? g.k : g.m,
                     g.transposeA ? g.m : g.k, g.lda, g.strideA},
                    {"b", g.b, g.transposeB ? g.n : g.k,
                     g.transposeB ? g.k : g.n, g.ldb, g.strideB},
                    {"c", g.c, g.m, g.n, g.ldc, g.strideC}};
    for (auto &o : operands) {
      std::string ldKey = std::string("ld") + o.name;
      if (o.ld < o.cols)
        return Status::error(json::child(path, ldKey) + ": " +
                             std::to_string(o.ld) + " < row length " +
                             std::to_string(o.cols));
      __int128 footprint = (__int128)(o.rows - 1) * o.ld + o.cols;
      __int128 extent = (__int128)(g.batch - 1) * o.stride + footprint;
      const BufferDesc &buf = art_.buffers[o.id];
      int64_t elems = buf.bytes / dtypeSize(buf.dtype);
      if (extent > elems)
        return Status::error(
            path + ": operand " + o.name + " reaches element " +
            std::to_string((long long)(extent > kMaxInt ? kMaxInt : extent)) +
            " but buffer " + std::to_string(o.id) + " (" +
            describe(buf.dtype, buf.shape) + ") has " + std::to_string(elems));
    }
    if (g.batch > 1 && g.strideC < (g.m - 1) * g.ldc + g.n)
      return Status::error(path + ".stride_c: " + std::to_string(g.strideC) +
                           " makes the batches of c overlap");
    if (mayOverlap(g.c, g.a) || mayOverlap(g.c, g.b))
      return Status::error(path + ": c overlaps an input buffer");
    // The GEMM writes its whole result buffer: batch blocks of m rows of
    // ldc elements. A smaller m or batch would leave rows unwritten and a
    // later step reading stale data.
    {
      const BufferDesc &c = art_.buffers[g.c];
      int64_t elems = c.bytes / dtypeSize(c.dtype);
      __int128 rows = (__int128)(g.batch - 1) * g.strideC +
                      (__int128)g.m * g.ldc;
      if (rows != elems)
        return Status::error(
            path + ": c is " + std::to_string(g.batch) + " x " +
            std::to_string(g.m) + " rows of " + std::to_string(g.ldc) +
            " elements (" +
            std::to_string((long long)(rows > kMaxInt ? kMaxInt : rows)) +
            ") but buffer " + std::to_string(g.c) + " (" +
            describe(c.dtype, c.shape) + ") has " + std::to_string(elems) +
            ": a GEMM must write its whole result");
    }
    return loadGemmEpilogue(j, path, g);
  }

  /// The epilogue operands: "bias" exactly when the epilogue reads one (the
  /// names ending in "bias") or writes one (dgelu_bgrad's bias gradient),
  /// "aux" exactly when it writes one (gelu_aux, gelu_aux_bias) or reads one
  /// (dgelu, dgelu_bgrad); each of c_type, inside its buffer, and apart from
  /// everything the GEMM writes (what it writes also apart from what it
  /// reads).
  Status loadGemmEpilogue(const Json &j, const std::string &path, GemmDesc &g) {
    size_t n = art_.buffers.size();
    std::string name =
        std::string("epilogue '") + gemmEpilogueName(g.epilogue) + "'";
    const EpilogueOperand biasUse = epilogueBias(g.epilogue);
    const EpilogueOperand auxUse = epilogueAux(g.epilogue);
    struct {
      const char *key;
      bool wanted;
      int64_t *id;
    } operands[] = {{"bias", biasUse != EpilogueOperand::None, &g.bias},
                    {"aux", auxUse != EpilogueOperand::None, &g.aux}};
    for (auto &o : operands) {
      if (!o.wanted) {
        if (j.contains(o.key))
          return Status::error(json::child(path, o.key) +
                               ": not allowed with " + name);
        continue;
      }
      if (!j.contains(o.key))
        return Status::error(json::child(path, o.key) + ": missing field (" +
                             name + " needs it)");
      TFC_RETURN_IF_ERROR(getBufferId(j, path, o.key, n, *o.id));
      const BufferDesc &buf = art_.buffers[*o.id];
      if (buf.dtype != g.cType)
        return Status::error(json::child(path, o.key) + ": buffer " +
                             std::to_string(*o.id) + " is " +
                             dtypeName(buf.dtype) + " but c_type is " +
                             dtypeName(g.cType));
    }
    if (g.epilogue == GemmEpilogue::None)
      return Status::ok();
    // cuBLASLt's bias and aux have no batch strides here, and the bias is
    // added to (or summed from) the product alone.
    if (g.batch != 1)
      return Status::error(json::child(path, "batch") + ": " +
                           std::to_string(g.batch) + " with " + name +
                           " (epilogues need batch 1)");
    if (g.beta != 0.0)
      return Status::error(json::child(path, "beta") + ": " +
                           std::to_string(g.beta) + " with " + name +
                           " (an epilogue GEMM never accumulates into c)");
    auto elementsOf = [&](int64_t id) {
      const BufferDesc &buf = art_.buffers[id];
      return buf.bytes / dtypeSize(buf.dtype);
    };
    const bool biasWritten = biasUse == EpilogueOperand::Written;
    const bool auxWritten = auxUse == EpilogueOperand::Written;
    if (g.bias >= 0) {
      const BufferDesc &buf = art_.buffers[g.bias];
      // Only bias[0..n) is read; the bias gradient writes its whole buffer,
      // as c must be (no stale elements for a later step to read).
      if (elementsOf(g.bias) < g.n ||
          (biasWritten && elementsOf(g.bias) != g.n))
        return Status::error(path + ".bias: buffer " + std::to_string(g.bias) +
                             " (" + describe(buf.dtype, buf.shape) + ") has " +
                             std::to_string(elementsOf(g.bias)) +
                             " elements, " +
                             (biasWritten ? "the bias gradient writes exactly"
                                          : "the bias needs") +
                             " n = " + std::to_string(g.n));
      if (mayOverlap(g.c, g.bias))
        return Status::error(path + ": c overlaps the bias");
      if (biasWritten)
        for (auto [what, id] :
             {std::pair<const char *, int64_t>{"a", g.a}, {"b", g.b}})
          if (mayOverlap(g.bias, id))
            return Status::error(path + ": the bias gradient (bias) overlaps " +
                                 what);
    }
    if (g.aux < 0)
      return Status::ok();
    // aux is laid out like c: m rows of n elements, ldc apart (batch 1).
    __int128 footprint = (__int128)(g.m - 1) * g.ldc + g.n;
    if (footprint > elementsOf(g.aux))
      return Status::error(
          path + ".aux: m = " + std::to_string(g.m) +
          " rows of ldc = " + std::to_string(g.ldc) + " reach element " +
          std::to_string(
              (long long)(footprint > kMaxInt ? kMaxInt : footprint)) +
          " but buffer " + std::to_string(g.aux) + " (" +
          describe(art_.buffers[g.aux].dtype, art_.buffers[g.aux].shape) +
          ") has " + std::to_string(elementsOf(g.aux)));
    // A written aux stays apart from every other operand; a read one (the
    // GELU input of dgelu*) only from what the GEMM writes: c and the bias
    // gradient. It may share memory with a or b, which are read too.
    struct {
      const char *name;
      int64_t id;
      bool written;
    } others[] = {{"a", g.a, false},
                  {"b", g.b, false},
                  {"c", g.c, true},
                  {"bias", g.bias, biasWritten}};
    for (auto &o : others)
      if (o.id >= 0 && (auxWritten || o.written) && mayOverlap(g.aux, o.id))
        return Status::error(path + ": aux overlaps " + o.name);
    return Status::ok();
  }

  Status loadStep(const Json &j, const std::string &path, Step &step) {
    std::string op;
    TFC_RETURN_IF_ERROR(json::getString(j, path, "op", op));
    if (op == "launch") {
      step.kind = StepKind::Launch;
      std::string kernel;
      TFC_RETURN_IF_ERROR(json::getString(j, path, "kernel", kernel));
      auto it = kernelIndex_.find(kernel);
      if (it == kernelIndex_.end())
        return Status::error(path + ".kernel: unknown kernel '" + kernel + "'");
      step.kernel = it->second;
      TFC_RETURN_IF_ERROR(getIds(j, path, "args", step.args));
      TFC_RETURN_IF_ERROR(getIds(j, path, "results", step.results));
      const KernelDesc &k = art_.kernels[step.kernel];
      TFC_RETURN_IF_ERROR(
          checkOperands(path, "args", step.args, k.inputs, kernel));
      return checkOperands(path, "results", step.results, k.outputs, kernel);
    }
    if (op == "gemm") {
      step.kind = StepKind::Gemm;
      return loadGemm(j, path, step.gemm);
    }
    if (op == "copy") {
      step.kind = StepKind::Copy;
      size_t n = art_.buffers.size();
      TFC_RETURN_IF_ERROR(getBufferId(j, path, "src", n, step.src));
      TFC_RETURN_IF_ERROR(getBufferId(j, path, "dst", n, step.dst));
      const BufferDesc &s = art_.buffers[step.src], &d = art_.buffers[step.dst];
      if (s.bytes != d.bytes)
        return Status::error(
            path + ": copy from buffer " + std::to_string(s.id) + " (" +
            std::to_string(s.bytes) + " bytes) to buffer " +
            std::to_string(d.id) + " (" + std::to_string(d.bytes) + " bytes)");
      if (mayOverlap(step.src, step.dst))
        return Status::error(path + ": copy source and destination overlap");
      return Status::ok();
    }
    return Status::error(path + ".op: unknown step op '" + op +
                         "' (expected launch, gemm or copy)");
  }

  Status loadEntries(const Json &doc) {
    const Json *list;
    TFC_RETURN_IF_ERROR(json::member(doc, "", "entries", list));
    if (!list->is_array())
      return Status::error("entries: expected an array");
    std::set<std::string> names;
    for (size_t i = 0; i < list->size(); ++i) {
      std::string path = json::element("entries", i);
      const Json &j = (*list)[i];
      EntryDesc e;
      TFC_RETURN_IF_ERROR(json::getString(j, path, "name", e.name));
      if (e.name.empty())
        return Status::error(path + ".name: empty entry name");
      if (!names.insert(e.name).second)
        return Status::error(path + ".name: duplicate entry '" + e.name + "'");
      if (j.is_object() && j.contains("refresh"))
        TFC_RETURN_IF_ERROR(json::getBool(j, path, "refresh", e.refresh));
      const Json *steps;
      TFC_RETURN_IF_ERROR(json::member(j, path, "steps", steps));
      if (!steps->is_array())
        return Status::error(path + ".steps: expected an array");
      for (size_t s = 0; s < steps->size(); ++s) {
        Step step;
        TFC_RETURN_IF_ERROR(
            loadStep((*steps)[s], json::element(path + ".steps", s), step));
        e.steps.push_back(std::move(step));
      }
      TFC_RETURN_IF_ERROR(checkArenaLifetimes(e, path));
      art_.entries.push_back(std::move(e));
    }
    return Status::ok();
  }

  /// Arena buffers whose bytes overlap must never hold live values at once:
  /// within an entry, a buffer is live from the first step that names it to
  /// the last (the compiler's ArenaPlanner gives overlapping bytes only to
  /// buffers whose such lifetimes are disjoint). Catches an offset moved
  /// onto another live buffer, which no per-step check sees.
  Status checkArenaLifetimes(const EntryDesc &e, const std::string &path) {
    struct Live {
      int64_t id, first, last;
    };
    std::map<int64_t, Live> live; // root arena buffer id -> lifetime
    auto use = [&](int64_t id, int64_t step) {
      if (id < 0)
        return;
      const BufferDesc *b = &art_.buffers[id];
      if (b->kind == BufferKind::Alias)
        b = &art_.buffers[b->aliasOf];
      if (b->kind != BufferKind::Arena || b->bytes == 0)
        return;
      auto [it, fresh] = live.try_emplace(b->id, Live{b->id, step, step});
      if (!fresh)
        it->second.last = step;
    };
    for (int64_t i = 0; i < (int64_t)e.steps.size(); ++i) {
      const Step &st = e.steps[i];
      for (int64_t id : st.args)
        use(id, i);
      for (int64_t id : st.results)
        use(id, i);
      if (st.kind == StepKind::Gemm)
        for (int64_t id : {st.gemm.a, st.gemm.b, st.gemm.c, st.gemm.bias,
                           st.gemm.aux})
          use(id, i);
      if (st.kind == StepKind::Copy) {
        use(st.src, i);
        use(st.dst, i);
      }
    }
    // Sweep in offset order: each buffer against the later-starting ones
    // that begin before it ends.
    std::vector<Live> order;
    for (auto &[id, l] : live)
      order.push_back(l);
    auto offset = [&](const Live &l) { return art_.buffers[l.id].offset; };
    std::sort(order.begin(), order.end(), [&](const Live &x, const Live &y) {
      return offset(x) != offset(y) ? offset(x) < offset(y) : x.id < y.id;
    });
    for (size_t x = 0; x < order.size(); ++x) {
      const BufferDesc &a = art_.buffers[order[x].id];
      for (size_t y = x + 1;
           y < order.size() && offset(order[y]) < a.offset + a.bytes; ++y) {
        const Live &p = order[x], &q = order[y];
        if (p.last < q.first || q.last < p.first)
          continue;
        const BufferDesc &b = art_.buffers[q.id];
        return Status::error(
            path + ": arena buffers " + std::to_string(a.id) + " (bytes " +
            std::to_string(a.offset) + ".." +
            std::to_string(a.offset + a.bytes) + ", steps " +
            std::to_string(p.first) + ".." + std::to_string(p.last) +
            ") and " + std::to_string(b.id) + " (bytes " +
            std::to_string(b.offset) + ".." +
            std::to_string(b.offset + b.bytes) + ", steps " +
            std::to_string(q.first) + ".." + std::to_string(q.last) +
            ") overlap while both are live");
      }
    }
    return Status::ok();
  }

  std::string directory_;
  Artifact &art_;
  std::map<std::string, int64_t> kernelIndex_;
};

} // namespace

Status loadArtifactFromManifest(const std::string &directory,
                                const std::string &manifestText,
                                Artifact &out) {
  out = Artifact();
  out.directory = directory;
  Json doc;
  TFC_RETURN_IF_ERROR(json::parse(manifestText, "", doc));
  if (!doc.is_object())
    return Status::error("expected a JSON object");
  Status s = Loader(directory, out).load(doc);
  if (!s) {
    out = Artifact();
    return s;
  }
  return Status::ok();
}

std::string manifestDigestText(const std::string &manifestText) {
  return sha256Hex(manifestText) + "  manifest.json\n";
}

Status loadArtifact(const std::string &directory, Artifact &out) {
  std::string prefix = "artifact '" + directory + "': ";
  std::string text;
  Status s = readFile(directory + "/manifest.json", text, kMaxManifestBytes);
  if (!s)
    return Status::error(prefix + s.message());
  // The digest before any parsing: a manifest changed after it was written
  // (a reordered step, a moved offset, a smaller GEMM) would otherwise load.
  std::string digest;
  s = readFile(directory + "/" + kManifestDigestFile, digest, 4096);
  if (!s)
    return Status::error(prefix + "no readable " + kManifestDigestFile +
                         " (" + s.message() +
                         "); artifacts carry the SHA-256 of their manifest: "
                         "rewrite it with this tfc's tfc-translate "
                         "--emit-artifact");
  if (digest != manifestDigestText(text))
    return Status::error(prefix + "manifest.json does not match its SHA-256 "
                         "in " + kManifestDigestFile +
                         " (corrupt or modified after it was written)");
  s = loadArtifactFromManifest(directory, text, out);
  if (!s)
    return Status::error(prefix + "manifest.json: " + s.message());
  return Status::ok();
}

} // namespace tfc::rt
