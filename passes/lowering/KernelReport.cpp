//===- KernelReport.cpp - --tfc-kernel-report -----------------------------===//
//
// What a lowered step costs, read off the tfcrt module: the grouping into
// kernels, how often each runs, the GEMMs and copies left, and the bytes
// every step touches. The graph level cannot say this yet (bufferization
// decides copies and in-place updates, deduplication decides which
// launches share a kernel), so the report runs after lowering.
//
// Bytes are the nominal traffic of each step: the sizes of the buffers it
// reads and writes, once each (a broadcast input is counted at its own
// size, a copy as its source plus its destination). That is the figure the
// fusion work is measured by (issue 9), not a cache simulation.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfcrt/TfcrtOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfc {
#define GEN_PASS_DEF_TFCKERNELREPORTPASS
#include "passes/lowering/Passes.h.inc"
} // namespace tfc

using namespace mlir;
namespace tfcrt = mlir::tfcrt;

namespace {

/// One kernel as an entry uses it.
struct KernelUse {
  /// (mutable: op handles are used through const reports; their accessors
  /// are not const.)
  mutable tfcrt::KernelOp kernel;
  int64_t readBytes = 0;
  int64_t writtenBytes = 0;
  int64_t launches = 0;
};

/// The figures of one entry.
struct EntryReport {
  std::string name;
  /// Kernels in order of first launch.
  llvm::MapVector<Operation *, KernelUse> kernels;
  int64_t launches = 0;
  int64_t distinctBodies = 0;
  int64_t gemms = 0;
  int64_t copies = 0;
  int64_t launchBytes = 0;
  int64_t copyBytes = 0;
  int64_t gemmBytes = 0;
  /// GEMMs per epilogue other than none, by name (sorted: deterministic).
  std::map<std::string, int64_t> gemmEpilogues;
};

int64_t bytesOf(Value buffer) {
  return tfcrt::getBufferBytes(cast<ShapedType>(buffer.getType())).value_or(0);
}

int64_t bytesOf(ValueRange buffers) {
  int64_t total = 0;
  for (Value buffer : buffers)
    total += bytesOf(buffer);
  return total;
}

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

/// The names of the tfc ops in `kernel`'s body, in order, terminator aside.
std::string opsOf(tfcrt::KernelOp kernel) {
  std::string ops;
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    ops += (ops.empty() ? "" : ", ") + op.getName().getStringRef().str();
  return ops;
}

FailureOr<EntryReport> analyze(tfcrt::EntryOp entry,
                               SymbolTableCollection &symbols) {
  EntryReport report;
  report.name = entry.getSymName().str();
  for (Operation &op : entry.getBodyBlock()) {
    if (auto launch = dyn_cast<tfcrt::LaunchOp>(op)) {
      auto kernel = symbols.lookupNearestSymbolFrom<tfcrt::KernelOp>(
          launch, launch.getKernelAttr());
      if (!kernel)
        return launch.emitOpError("'")
               << launch.getKernel() << "' does not name a tfcrt.kernel";
      KernelUse &use = report.kernels[kernel];
      use.kernel = kernel;
      use.readBytes = bytesOf(launch.getInputs());
      use.writtenBytes = bytesOf(launch.getOutputs());
      ++use.launches;
      ++report.launches;
      report.launchBytes += use.readBytes + use.writtenBytes;
    } else if (auto gemm = dyn_cast<tfcrt::GemmOp>(op)) {
      ++report.gemms;
      // a, b, bias and c, aux: what it reads and writes once each.
      report.gemmBytes += bytesOf(gemm->getOperands());
      if (gemm.getEpilogue() != tfcrt::GemmEpilogue::none)
        ++report.gemmEpilogues[tfcrt::stringifyGemmEpilogue(gemm.getEpilogue())
                                   .str()];
    } else if (auto copy = dyn_cast<tfcrt::CopyOp>(op)) {
      ++report.copies;
      report.copyBytes += bytesOf(copy.getSrc()) + bytesOf(copy.getDst());
    }
  }
  // Bodies that --tfc-dedupe-kernels would merge count once.
  std::vector<tfcrt::KernelOp> classes;
  for (auto &entry : report.kernels) {
    tfcrt::KernelOp kernel = entry.second.kernel;
    if (llvm::none_of(classes, [&](tfcrt::KernelOp other) {
          return other.isEquivalentIgnoringName(kernel);
        }))
      classes.push_back(kernel);
  }
  report.distinctBodies = classes.size();
  return report;
}

/// A GEMM --tfc-pad-shapes padded (tfc.pad_from), as the graph-level
/// functions left beside the entries show it.
struct PaddedGemm {
  std::string function;
  int64_t m, n, k, paddedM, paddedN, paddedK;
  /// Bytes of the padded A, B and C minus those of the unpadded ones.
  int64_t extraBytes;
};

SmallVector<PaddedGemm> paddedGemms(ModuleOp module) {
  SmallVector<PaddedGemm> gemms;
  for (auto func : module.getOps<func::FuncOp>())
    func.walk([&](mlir::tfc::MatmulOp matmul) {
      auto from = matmul->getAttrOfType<DenseI64ArrayAttr>(
          mlir::tfc::TfcDialect::kPadFromAttrName);
      if (!from || from.size() != 3)
        return;
      auto a = cast<RankedTensorType>(matmul.getA().getType());
      auto b = cast<RankedTensorType>(matmul.getB().getType());
      auto c = cast<RankedTensorType>(matmul.getType());
      PaddedGemm g{func.getSymName().str(), from[0], from[1], from[2], 0, 0,
                   0, 0};
      g.paddedM = c.getDimSize(c.getRank() - 2);
      g.paddedN = c.getShape().back();
      g.paddedK = matmul.getTransposeA() ? a.getDimSize(a.getRank() - 2)
                                         : a.getShape().back();
      auto bytes = [](RankedTensorType t) {
        return t.getNumElements() *
               int64_t(t.getElementTypeBitWidth() / 8);
      };
      auto scaled = [](RankedTensorType t, int64_t padded, int64_t orig) {
        return t.getNumElements() / padded * orig *
               int64_t(t.getElementTypeBitWidth() / 8);
      };
      // Each padded operand scales by the ratio of its two padded dims.
      int64_t aOrig = scaled(a, g.paddedM * g.paddedK, g.m * g.k);
      int64_t bOrig = scaled(b, g.paddedK * g.paddedN, g.k * g.n);
      int64_t cOrig = scaled(c, g.paddedM * g.paddedN, g.m * g.n);
      g.extraBytes = bytes(a) + bytes(b) + bytes(c) - aOrig - bOrig - cOrig;
      gemms.push_back(g);
    });
  return gemms;
}

void printPadding(llvm::raw_ostream &os, ArrayRef<PaddedGemm> gemms) {
  for (const PaddedGemm &g : gemms) {
    os << "padded gemm @" << g.function << ": m " << g.m;
    if (g.paddedM != g.m)
      os << " -> " << g.paddedM;
    os << ", n " << g.n;
    if (g.paddedN != g.n)
      os << " -> " << g.paddedN;
    os << ", k " << g.k;
    if (g.paddedK != g.k)
      os << " -> " << g.paddedK;
    os << " (+" << g.extraBytes
       << " bytes of operands and result; the backward GEMMs follow)\n";
  }
}

void printText(llvm::raw_ostream &os, ArrayRef<EntryReport> reports) {
  for (const EntryReport &report : reports) {
    os << "tfc kernel report: entry @" << report.name << "\n";
    // Column widths from the widest cell of each column.
    size_t nameWidth = 6, kindWidth = 4;
    for (auto &[op, use] : report.kernels) {
      nameWidth = std::max(nameWidth, use.kernel.getSymName().size() + 1);
      kindWidth =
          std::max(kindWidth,
                   mlir::tfc::stringifyKernelKind(use.kernel.getKind()).size());
    }
    auto row = [&](StringRef name, StringRef kind, StringRef launches,
                   StringRef read, StringRef written, StringRef ops) {
      os << "  " << llvm::left_justify(name, nameWidth) << "  "
         << llvm::left_justify(kind, kindWidth) << "  "
         << llvm::right_justify(launches, 8) << "  "
         << llvm::right_justify(read, 12) << "  "
         << llvm::right_justify(written, 14) << "  " << ops << "\n";
    };
    row("kernel", "kind", "launches", "read/launch", "written/launch", "ops");
    for (auto &[op, use] : report.kernels)
      row(("@" + use.kernel.getSymName()).str(),
          mlir::tfc::stringifyKernelKind(use.kernel.getKind()),
          std::to_string(use.launches), std::to_string(use.readBytes),
          std::to_string(use.writtenBytes), opsOf(use.kernel));
    os << llvm::formatv(
        "totals @{0}: {1} launches of {2} kernels ({3} distinct bodies), "
        "{4} GEMMs, {5} copies; moved {6:F2} MiB non-GEMM ({7:F2} launches + "
        "{8:F2} copies), {9:F2} MiB GEMM\n",
        report.name, report.launches, report.kernels.size(),
        report.distinctBodies, report.gemms, report.copies,
        mib(report.launchBytes + report.copyBytes), mib(report.launchBytes),
        mib(report.copyBytes), mib(report.gemmBytes));
    if (!report.gemmEpilogues.empty()) {
      os << "gemm epilogues @" << report.name << ":";
      llvm::ListSeparator separator(",");
      for (auto &[name, count] : report.gemmEpilogues)
        os << separator << " " << count << " " << name;
      os << "\n";
    }
  }
}

void printJson(llvm::raw_ostream &os, ArrayRef<EntryReport> reports,
               ArrayRef<PaddedGemm> gemms) {
  llvm::json::Array padded;
  for (const PaddedGemm &g : gemms)
    padded.push_back(llvm::json::Object{{"function", g.function},
                                        {"m", g.m},
                                        {"n", g.n},
                                        {"k", g.k},
                                        {"padded_m", g.paddedM},
                                        {"padded_n", g.paddedN},
                                        {"padded_k", g.paddedK},
                                        {"extra_bytes", g.extraBytes}});
  llvm::json::Array entries;
  for (const EntryReport &report : reports) {
    llvm::json::Array kernels;
    for (auto &[op, use] : report.kernels) {
      llvm::json::Array ops;
      for (Operation &bodyOp : use.kernel.getBodyBlock().without_terminator())
        ops.push_back(bodyOp.getName().getStringRef().str());
      kernels.push_back(llvm::json::Object{
          {"name", use.kernel.getSymName()},
          {"kind", mlir::tfc::stringifyKernelKind(use.kernel.getKind())},
          {"ops", std::move(ops)},
          {"read_bytes", use.readBytes},
          {"written_bytes", use.writtenBytes},
          {"launches", use.launches}});
    }
    llvm::json::Object epilogues;
    for (auto &[name, count] : report.gemmEpilogues)
      epilogues[name] = count;
    entries.push_back(llvm::json::Object{
        {"name", report.name},
        {"kernels", std::move(kernels)},
        {"totals",
         llvm::json::Object{
             {"launches", report.launches},
             {"kernels", static_cast<int64_t>(report.kernels.size())},
             {"distinct_bodies", report.distinctBodies},
             {"gemms", report.gemms},
             {"copies", report.copies},
             {"launch_bytes", report.launchBytes},
             {"copy_bytes", report.copyBytes},
             {"non_gemm_bytes", report.launchBytes + report.copyBytes},
             {"gemm_bytes", report.gemmBytes},
             {"gemm_epilogues", std::move(epilogues)}}}});
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"entries", std::move(entries)},
                                   {"padded_gemms", std::move(padded)}}))
     << "\n";
}

struct TfcKernelReportPass
    : public ::tfc::impl::TfcKernelReportPassBase<TfcKernelReportPass> {
  using TfcKernelReportPassBase::TfcKernelReportPassBase;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    if (format != "text" && format != "json") {
      module.emitError("--tfc-kernel-report: unknown format '")
          << format << "' (expected text or json)";
      return signalPassFailure();
    }
    SmallVector<EntryReport> reports;
    SymbolTableCollection symbols;
    for (auto entry : module.getOps<tfcrt::EntryOp>()) {
      FailureOr<EntryReport> report = analyze(entry, symbols);
      if (failed(report))
        return signalPassFailure();
      reports.push_back(std::move(*report));
    }
    if (reports.empty()) {
      module.emitError("--tfc-kernel-report: the module has no tfcrt.entry; "
                       "lower it first (--tfc-lower-to-exec or "
                       "--tfc-train-pipeline)");
      return signalPassFailure();
    }

    std::optional<llvm::raw_fd_ostream> file;
    llvm::raw_ostream *os = &llvm::errs();
    if (output == "-") {
      os = &llvm::outs();
    } else if (!output.empty()) {
      std::error_code error;
      file.emplace(output, error, llvm::sys::fs::OF_Text);
      if (error) {
        module.emitError("--tfc-kernel-report: cannot write '")
            << output << "': " << error.message();
        return signalPassFailure();
      }
      os = &*file;
    }
    SmallVector<PaddedGemm> padded = paddedGemms(module);
    if (format == "json") {
      printJson(*os, reports, padded);
    } else {
      printText(*os, reports);
      printPadding(*os, padded);
    }
    os->flush();
  }
};

} // namespace
