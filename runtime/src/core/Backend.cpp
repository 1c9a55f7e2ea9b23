//===- Backend.cpp - default behaviour of a Backend -----------------------===//

#include "runtime/src/core/Backend.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tfc::rt {

Status checkGemmOperands(const GemmDesc &g, const GemmOperands &ops) {
  if (!ops.a || !ops.b || !ops.c)
    return Status::error("null operand address (a, b or c)");
  struct {
    const char *name;
    DevicePtr address;
    bool wanted;
  } extras[] = {{"bias", ops.bias, epilogueHasBias(g.epilogue)},
                {"aux", ops.aux, epilogueHasAux(g.epilogue)}};
  for (const auto &x : extras)
    if ((x.address != 0) != x.wanted)
      return Status::error(
          std::string("epilogue '") + gemmEpilogueName(g.epilogue) + "' " +
          (x.wanted ? "needs" : "takes no") + " " + x.name + " operand");
  return Status::ok();
}

Status Backend::allocateZeroed(size_t bytes, DevicePtr &out) {
  DevicePtr dst;
  TFC_RETURN_IF_ERROR(allocate(bytes, dst));
  constexpr size_t kPiece = size_t(1) << 20;
  std::vector<uint8_t> zeros(std::min(bytes, kPiece), 0);
  for (size_t done = 0; done < bytes; done += kPiece) {
    Status s =
        copyToDevice(dst + done, zeros.data(), std::min(kPiece, bytes - done));
    if (!s) {
      free(dst);
      return s;
    }
  }
  out = dst;
  return Status::ok();
}

Status Backend::prepareKernels(const std::vector<KernelDesc> &kernels,
                               std::vector<std::unique_ptr<PreparedKernel>> &out,
                               PrepareStats &stats) {
  out.clear();
  out.resize(kernels.size());
  std::set<std::string> sources;
  for (size_t i = 0; i < kernels.size(); ++i) {
    Status s = prepareKernel(kernels[i], out[i]);
    if (!s)
      return Status::error("preparing kernel '" + kernels[i].name +
                           "': " + s.message());
    sources.insert(kernels[i].hostProgram + std::string(1, '\0') + kernels[i].cudaSource);
  }
  stats.kernels = int64_t(kernels.size());
  stats.distinct = int64_t(sources.size());
  stats.compiled = int64_t(kernels.size());
  stats.cacheHits = 0;
  stats.threads = 1;
  return Status::ok();
}

} // namespace tfc::rt
