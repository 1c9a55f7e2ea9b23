//===- HostCodegenTest.cpp - tfc kernel bodies -> host programs ----------===//
//
// Parses tfc IR with MLIR, emits the host program of each tfc.fusion and
// checks the text (every op's attributes, multi-result ops, constants,
// absent operands), the diagnostics for bodies that cannot be a host
// program, and that every emitted program is accepted by the runtime's
// parser and computes the right values in its interpreter.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/host/HostCodegen.h"
#include "dialects/Registration.h"
#include "dialects/tfc/TfcOps.h"

#include "runtime/src/host/HostInterpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>

using namespace mlir;

namespace {

class HostCodegen : public ::testing::Test {
protected:
  HostCodegen() {
    DialectRegistry registry;
    ::tfc::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Parses `ir` and returns the host programs of its fusions, in order.
  /// Diagnostics are collected in `diags`; an emission failure yields "" (a
  /// valid program is never empty).
  std::vector<std::string> emitAll(const std::string &ir) {
    ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &d) {
      diags += d.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(ir, context.get());
    EXPECT_TRUE(module) << "IR does not parse: " << diags;
    std::vector<std::string> out;
    if (!module)
      return out;
    module->walk([&](mlir::tfc::FusionOp f) {
      FailureOr<std::string> text =
          mlir::tfc::emitHostProgram(f.getBodyBlock(), f.getKind());
      out.push_back(succeeded(text) ? *text : std::string());
    });
    return out;
  }

  /// Emits the only fusion of `ir`.
  std::string emitOne(const std::string &ir) {
    auto all = emitAll(ir);
    EXPECT_EQ(all.size(), 1u);
    return all.empty() ? "" : all[0];
  }

  /// Emits `body` (the block of a func) directly as a kernel of `kind`.
  std::string emitFuncBody(const std::string &ir, mlir::tfc::KernelKind kind) {
    ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &d) {
      diags += d.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(ir, context.get());
    EXPECT_TRUE(module) << diags;
    if (!module)
      return "";
    auto func = *module->getOps<func::FuncOp>().begin();
    FailureOr<std::string> text =
        mlir::tfc::emitHostProgram(func.getBody().front(), kind);
    return succeeded(text) ? *text : std::string();
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::string diags;
};

/// Parses `text` with the runtime's parser; fails the test on error.
std::unique_ptr<::tfc::rt::host::Interpreter> load(const std::string &text) {
  std::unique_ptr<::tfc::rt::host::Interpreter> interp;
  ::tfc::rt::Status s = ::tfc::rt::host::Interpreter::create(text, interp);
  EXPECT_TRUE(s.isOk()) << s.message() << "\nin:\n" << text;
  return interp;
}

bool contains(const std::string &text, const std::string &needle) {
  return text.find(needle) != std::string::npos;
}

} // namespace

TEST_F(HostCodegen, DocumentedExampleExactly) {
  std::string text = emitOne(R"mlir(
func.func @f(%x: tensor<16x64x128xf32>, %b: tensor<128xf32>) -> tensor<16x64x128xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<16x64x128xf32>, %c = %b : tensor<128xf32>) -> tensor<16x64x128xf32> {
    %0 = tfc.add %a, %c : tensor<16x64x128xf32>, tensor<128xf32>
    %1 = tfc.gelu %0 approximate tanh : tensor<16x64x128xf32>
    tfc.yield %1 : tensor<16x64x128xf32>
  }
  return %r : tensor<16x64x128xf32>
}
)mlir");
  EXPECT_EQ(text, "tfc-host-program 1\n"
                  "kind pointwise\n"
                  "in %0 f32 16x64x128\n"
                  "in %1 f32 128\n"
                  "op %2 add f32 16x64x128 (%0, %1)\n"
                  "op %3 gelu f32 16x64x128 (%2) approximate=tanh\n"
                  "out %3\n");
  load(text);
}

TEST_F(HostCodegen, ElementwiseAttributesAndConstants) {
  std::string text = emitOne(R"mlir(
func.func @f(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %h: tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf16>) {
  %r:3 = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>, %b = %y : tensor<8xf32>, %c = %h : tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf16>) {
    %k = tfc.constant dense<2.500000e-01> : tensor<f32>
    %t = tfc.constant dense<[1.0, -2.0, 0.1, 3.0e38, 0.0, -0.0, 7.0, 8.0]> : tensor<8xf32>
    %m = tfc.compare ge, %a, %b : tensor<4x8xf32>, tensor<8xf32>
    %s = tfc.select %m, %a, %k : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
    %p = tfc.pow %s, 3.000000e+00 : tensor<4x8xf32>
    %g = tfc.gelu %p : tensor<4x8xf32>
    %u = tfc.sub %g, %t : tensor<4x8xf32>, tensor<8xf32>
    %i = tfc.convert %u : tensor<4x8xf32> -> tensor<4x8xi32>
    %e = tfc.convert %c : tensor<4x8xbf16> -> tensor<4x8xf16>
    tfc.yield %u, %i, %e : tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf16>
  }
  return %r#0, %r#1, %r#2 : tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf16>
}
)mlir");
  EXPECT_TRUE(contains(text, "op %3 constant f32 scalar () value=[0.25]\n"))
      << text;
  EXPECT_TRUE(contains(text, "op %4 constant f32 8 () "
                             "value=[1,-2,0.1,3e+38,0,-0,7,8]\n"))
      << text;
  EXPECT_TRUE(contains(text, "op %5 compare i1 4x8 (%0, %1) direction=ge\n"))
      << text;
  EXPECT_TRUE(contains(text, "op %6 select f32 4x8 (%5, %0, %3)\n")) << text;
  EXPECT_TRUE(contains(text, "op %7 pow f32 4x8 (%6) exponent=3\n")) << text;
  EXPECT_TRUE(contains(text, "op %8 gelu f32 4x8 (%7) approximate=none\n"))
      << text;
  EXPECT_TRUE(contains(text, "op %10 convert i32 4x8 (%9)\n")) << text;
  EXPECT_TRUE(contains(text, "op %11 convert f16 4x8 (%2)\n")) << text;
  EXPECT_TRUE(contains(text, "out %9\nout %10\nout %11\n")) << text;
  load(text);
}

TEST_F(HostCodegen, ShapeOpAttributes) {
  auto texts = emitAll(R"mlir(
func.func @f(%x: tensor<2x3x4xf32>, %y: tensor<2x3x1xf32>) -> (tensor<4x3x2xf32>, tensor<2x2x3xf32>, tensor<2x3x5xf32>, tensor<2x4x6xf32>, tensor<3x4xi64>) {
  %t = tfc.fusion pointwise (%a = %x : tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
    %0 = tfc.transpose %a, [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
    tfc.yield %0 : tensor<4x3x2xf32>
  }
  %s = tfc.fusion pointwise (%a = %x : tensor<2x3x4xf32>) -> tensor<2x2x3xf32> {
    %0 = tfc.slice %a [0, 1, 0] to [2, 3, 4] step [1, 1, 1] : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
    %1 = tfc.slice %0 [0, 0, 1] to [2, 2, 4] : tensor<2x2x4xf32> -> tensor<2x2x3xf32>
    tfc.yield %1 : tensor<2x2x3xf32>
  }
  %c = tfc.fusion pointwise (%a = %x : tensor<2x3x4xf32>, %b = %y : tensor<2x3x1xf32>) -> tensor<2x3x5xf32> {
    %0 = tfc.concat %a, %b dim -1 : tensor<2x3x4xf32>, tensor<2x3x1xf32> -> tensor<2x3x5xf32>
    tfc.yield %0 : tensor<2x3x5xf32>
  }
  %p = tfc.fusion pointwise (%a = %x : tensor<2x3x4xf32>) -> tensor<2x4x6xf32> {
    %0 = tfc.pad %a low [0, 1, 0] high [0, 0, 2] value -1.500000e+00 : tensor<2x3x4xf32> -> tensor<2x4x6xf32>
    tfc.yield %0 : tensor<2x4x6xf32>
  }
  %i = tfc.fusion pointwise () -> tensor<3x4xi64> {
    %0 = tfc.iota dim 1 : tensor<3x4xi64>
    tfc.yield %0 : tensor<3x4xi64>
  }
  return %t, %s, %c, %p, %i : tensor<4x3x2xf32>, tensor<2x2x3xf32>, tensor<2x3x5xf32>, tensor<2x4x6xf32>, tensor<3x4xi64>
}
)mlir");
  ASSERT_EQ(texts.size(), 5u) << diags;
  EXPECT_TRUE(contains(texts[0], "op %1 transpose f32 4x3x2 (%0) "
                                 "permutation=[2,1,0]\n"))
      << texts[0];
  EXPECT_TRUE(contains(texts[1], "op %1 slice f32 2x2x4 (%0) start=[0,1,0] "
                                 "limit=[2,3,4] step=[1,1,1]\n"))
      << texts[1];
  // An absent step is written as ones.
  EXPECT_TRUE(contains(texts[1], "op %2 slice f32 2x2x3 (%1) start=[0,0,1] "
                                 "limit=[2,2,4] step=[1,1,1]\n"))
      << texts[1];
  EXPECT_TRUE(contains(texts[2], "op %2 concat f32 2x3x5 (%0, %1) dim=-1\n"))
      << texts[2];
  EXPECT_TRUE(contains(texts[3], "op %1 pad f32 2x4x6 (%0) low=[0,1,0] "
                                 "high=[0,0,2] value=-1.5\n"))
      << texts[3];
  EXPECT_TRUE(contains(texts[4], "op %0 iota i64 3x4 () dim=1\nout %0\n"))
      << texts[4];
  for (const std::string &t : texts)
    load(t);
}

TEST_F(HostCodegen, ReductionAndNNOps) {
  auto texts = emitAll(R"mlir(
func.func @f(%x: tensor<8x32xbf16>, %b: tensor<32xf32>, %l: tensor<8xi32>, %s: tensor<i64>, %o: tensor<i64>, %w: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x32xbf16>, tensor<8x1xf32>, tensor<f32>, tensor<8x32xbf16>, tensor<32xbf16>, tensor<2x3x4xf32>) {
  %ln:3 = tfc.fusion row_reduction (%a = %x : tensor<8x32xbf16>, %c = %b : tensor<32xf32>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>) {
    %y, %m, %r = tfc.layer_norm %a bias %c eps 1.000000e-06 : (tensor<8x32xbf16>, tensor<32xf32>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
    tfc.yield %y, %m, %r : tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>
  }
  %rms:2 = tfc.fusion row_reduction (%a = %x : tensor<8x32xbf16>, %c = %b : tensor<32xf32>) -> (tensor<8x32xbf16>, tensor<8x1xf32>) {
    %y, %r = tfc.rms_norm %a weight %c : (tensor<8x32xbf16>, tensor<32xf32>) -> (tensor<8x32xbf16>, tensor<8x1xf32>)
    tfc.yield %y, %r : tensor<8x32xbf16>, tensor<8x1xf32>
  }
  %ce = tfc.fusion row_reduction (%a = %x : tensor<8x32xbf16>, %c = %l : tensor<8xi32>) -> tensor<f32> {
    %0 = tfc.cross_entropy %a, %c ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<8x32xbf16>, tensor<8xi32> -> tensor<f32>
    tfc.yield %0 : tensor<f32>
  }
  %sm = tfc.fusion row_reduction (%a = %x : tensor<8x32xbf16>, %c = %s : tensor<i64>, %d = %o : tensor<i64>) -> tensor<8x32xbf16> {
    %0 = tfc.log_softmax %a dim -1 : tensor<8x32xbf16>
    %1 = tfc.dropout %0, %c, %d p 1.000000e-01 : tensor<8x32xbf16>
    tfc.yield %1 : tensor<8x32xbf16>
  }
  %cs = tfc.fusion column_reduction (%a = %x : tensor<8x32xbf16>) -> tensor<32xbf16> {
    %0 = tfc.reduce_sum %a dims [0] : tensor<8x32xbf16> -> tensor<32xbf16>
    tfc.yield %0 : tensor<32xbf16>
  }
  %e = tfc.fusion gather (%t = %w : tensor<10x4xf32>, %i = %ids : tensor<2x3xi64>) -> tensor<2x3x4xf32> {
    %0 = tfc.embedding %t, %i : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
    tfc.yield %0 : tensor<2x3x4xf32>
  }
  return %ln#0, %ln#1, %ln#2, %rms#0, %rms#1, %ce, %sm, %cs, %e : tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x32xbf16>, tensor<8x1xf32>, tensor<f32>, tensor<8x32xbf16>, tensor<32xbf16>, tensor<2x3x4xf32>
}
)mlir");
  ASSERT_EQ(texts.size(), 6u) << diags;
  EXPECT_EQ(texts[0], "tfc-host-program 1\n"
                      "kind row_reduction\n"
                      "in %0 bf16 8x32\n"
                      "in %1 f32 32\n"
                      "op %2 layer_norm bf16 8x32 (%0, _, %1) eps=1e-06 "
                      "normalized_rank=1\n"
                      "op %3 result f32 8x1 (%2) index=1\n"
                      "op %4 result f32 8x1 (%2) index=2\n"
                      "out %2\nout %3\nout %4\n");
  EXPECT_TRUE(contains(texts[1], "op %2 rms_norm bf16 8x32 (%0, %1) eps=1e-05 "
                                 "normalized_rank=1\n"
                                 "op %3 result f32 8x1 (%2) index=1\n"))
      << texts[1];
  EXPECT_TRUE(contains(texts[2], "op %2 cross_entropy f32 scalar (%0, %1) "
                                 "ignore_index=0 label_smoothing=0.1 "
                                 "reduction=sum\n"))
      << texts[2];
  EXPECT_TRUE(contains(texts[3],
                       "op %3 log_softmax bf16 8x32 (%0) dim=-1\n"
                       "op %4 dropout bf16 8x32 (%3, %1, %2) p=0.1\n"))
      << texts[3];
  EXPECT_TRUE(contains(texts[4], "op %1 reduce_sum bf16 32 (%0) dims=[0] "
                                 "keepdim=false\n"))
      << texts[4];
  EXPECT_TRUE(contains(texts[5], "kind gather\n")) << texts[5];
  EXPECT_TRUE(contains(texts[5], "op %2 embedding f32 2x3x4 (%0, %1)\n"))
      << texts[5];
  for (const std::string &t : texts)
    load(t);
}

TEST_F(HostCodegen, EmittedProgramsComputeTheRightValues) {
  // bias + gelu(erf) + scale by a constant, run by the runtime interpreter.
  std::string text = emitOne(R"mlir(
func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<2x3xf32>, %c = %b : tensor<3xf32>) -> tensor<2x3xf32> {
    %k = tfc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %0 = tfc.add %a, %c : tensor<2x3xf32>, tensor<3xf32>
    %1 = tfc.gelu %0 : tensor<2x3xf32>
    %2 = tfc.mul %1, %k : tensor<2x3xf32>, tensor<3xf32>
    tfc.yield %2 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}
)mlir");
  auto interp = load(text);
  ASSERT_TRUE(interp);
  std::vector<float> x = {-1, 0, 1, 2, 3, -2}, b = {0.5, -0.5, 0}, y(6);
  ASSERT_TRUE(interp->run({x.data(), b.data()}, {y.data()}).isOk());
  for (int i = 0; i < 6; ++i) {
    double v = x[i] + b[i % 3];
    double g = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(y[i], g * (i % 3 + 1), 1e-6) << i;
  }
}

TEST_F(HostCodegen, RejectsOpsThatCannotBeInAKernel) {
  // A matmul body (gemm kind) has no host program.
  std::string text = emitOne(R"mlir(
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %r = tfc.fusion gemm (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x2xf32>) -> tensor<4x2xf32> {
    %0 = tfc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    tfc.yield %0 : tensor<4x2xf32>
  }
  return %r : tensor<4x2xf32>
}
)mlir");
  EXPECT_EQ(text, "");
  EXPECT_TRUE(contains(diags, "gemm kernels run as tfcrt.gemm steps")) << diags;

  // A function body handed in directly: matmul fails the pointwise rules.
  diags.clear();
  text = emitFuncBody(R"mlir(
func.func @g(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = tfc.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
)mlir",
                      mlir::tfc::KernelKind::pointwise);
  EXPECT_EQ(text, "");
  EXPECT_TRUE(contains(diags, "host program: ")) << diags;

  // Attention is composite: decomposed before kernels exist.
  diags.clear();
  text = emitFuncBody(R"mlir(
func.func @h(%q: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tfc.attention %q, %q, %q causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
)mlir",
                      mlir::tfc::KernelKind::row_reduction);
  EXPECT_EQ(text, "");
  EXPECT_FALSE(diags.empty());
}

TEST_F(HostCodegen, RejectsAKernelWithoutOutputs) {
  std::string text = emitFuncBody(R"mlir(
func.func @g(%x: tensor<4xf32>) {
  %0 = tfc.neg %x : tensor<4xf32>
  return
}
)mlir",
                                  mlir::tfc::KernelKind::pointwise);
  EXPECT_EQ(text, "");
  EXPECT_TRUE(contains(diags, "a kernel needs an output")) << diags;
}

// common/HostOps.def against ODS: every row names a tfc op, its attribute
// keys are exactly that op's ODS attributes (a new attribute cannot be left
// out of host programs), and every tfc op that can be in a kernel body has a
// row (a new op cannot reach the host backend without its opcode). The
// exceptions are the ops that never are in a kernel body, each with why.
TEST_F(HostCodegen, HostOpsTableMatchesTheDialect) {
  const std::set<std::string> notInKernels = {
      "fusion", "yield",  // structure: a kernel's region and terminator
      "checkpoint",       // a recompute mark, dissolved before anything runs
      "stop_gradient",    // autodiff's mark, dropped by autodiff and decompose
      "straight_through", // the same
      "matmul",           // a tfcrt.gemm step, never a kernel body
      "attention",        // composite: decomposed before kernels exist
      "layer_norm_grad", "rms_norm_grad", // composite too
  };
  std::set<std::string> rows;
  for (const mlir::tfc::HostOpSchema &row : mlir::tfc::hostOpSchemas()) {
    rows.insert(row.name.str());
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(("tfc." + row.name).str(),
                                        context.get());
    ASSERT_TRUE(op) << "HostOps.def row '" << row.name.str()
                    << "' names no tfc op";
    std::set<std::string> ods, keys;
    for (StringAttr a : op->getAttributeNames())
      if (a.getValue() != "operandSegmentSizes") // structure, not an attribute
        ods.insert(a.str());
    SmallVector<StringRef> split;
    llvm::SplitString(row.attributes, split, " ");
    for (StringRef k : split)
      keys.insert(k.str());
    EXPECT_EQ(keys, ods) << "attribute keys of '" << row.name.str() << "'";
    EXPECT_FALSE(notInKernels.count(row.name.str())) << row.name.str();
  }
  for (RegisteredOperationName op : context->getRegisteredOperations()) {
    if (op.getDialectNamespace() != "tfc")
      continue;
    std::string name = op.stripDialect().str();
    EXPECT_TRUE(rows.count(name) || notInKernels.count(name))
        << "tfc." << name << " has no row in common/HostOps.def";
  }
}

