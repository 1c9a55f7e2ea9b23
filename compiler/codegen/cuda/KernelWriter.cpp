//===- KernelWriter.cpp - scoped C++ text of one CUDA kernel --------------===//

#include "compiler/codegen/cuda/KernelWriter.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc::cuda;

//===----------------------------------------------------------------------===//
// Types and literals
//===----------------------------------------------------------------------===//

bool mlir::tfc::cuda::isSupportedElementType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64() || t.isInteger(1) ||
         t.isInteger(32) || t.isInteger(64) || t.isUnsignedInteger(8);
}

std::string mlir::tfc::cuda::storageType(Type t) {
  if (t.isF16())
    return "__half";
  if (t.isBF16())
    return "__nv_bfloat16";
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isInteger(1) || t.isUnsignedInteger(8))
    return "unsigned char";
  if (t.isInteger(32))
    return "int";
  return "long long";
}

std::string mlir::tfc::cuda::computeType(Type t) {
  if (t.isF16() || t.isBF16() || t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isInteger(1))
    return "bool";
  if (t.isInteger(32) || t.isUnsignedInteger(8))
    return "int";
  return "long long";
}

int64_t mlir::tfc::cuda::storageBytes(Type t) {
  if (t.isInteger(1) || t.isUnsignedInteger(8))
    return 1;
  if (t.isF16() || t.isBF16())
    return 2;
  if (t.isF32() || t.isInteger(32))
    return 4;
  return 8;
}

std::string mlir::tfc::cuda::loadConversion(Type t, StringRef value) {
  if (t.isF16())
    return ("__half2float(" + value + ")").str();
  if (t.isBF16())
    return ("__bfloat162float(" + value + ")").str();
  if (t.isInteger(1))
    return ("(" + value + " != 0)").str();
  return value.str();
}

std::string mlir::tfc::cuda::storeConversion(Type t, StringRef value) {
  if (t.isF16())
    return ("__float2half_rn(" + value + ")").str();
  if (t.isBF16())
    return ("__float2bfloat16_rn(" + value + ")").str();
  if (t.isInteger(1) || t.isUnsignedInteger(8))
    return ("(unsigned char)(" + value + ")").str();
  return value.str();
}

std::string mlir::tfc::cuda::roundToStorage(Type t, StringRef value) {
  if (t.isF16())
    return ("tfc_round_f16(" + value + ")").str();
  if (t.isBF16())
    return ("tfc_round_bf16(" + value + ")").str();
  return value.str();
}

/// Shortest round-trip spelling of a finite value, made a floating literal.
template <typename T> static std::string finiteLiteral(T value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text;
}

std::string mlir::tfc::cuda::floatLiteral(Type t, const llvm::APFloat &value) {
  if (t.isF64()) {
    double d = value.convertToDouble();
    if (std::isfinite(d))
      return finiteLiteral(d);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    return fmt::format("__longlong_as_double(0x{:016x}LL)", bits);
  }
  // f16, bf16 and f32 values are exactly representable as float.
  llvm::APFloat f = value;
  bool losesInfo = false;
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  float x = f.convertToFloat();
  if (std::isfinite(x))
    return finiteLiteral(x) + "f";
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return fmt::format("__int_as_float(0x{:08x})", bits);
}

std::string mlir::tfc::cuda::floatLiteral(Type t, double value) {
  llvm::APFloat v(value);
  if (auto ft = dyn_cast<FloatType>(t)) {
    bool losesInfo = false;
    v.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
  }
  return floatLiteral(t, v);
}

std::string mlir::tfc::cuda::intLiteral(Type t, int64_t value) {
  if (t.isInteger(1))
    return value ? "true" : "false";
  if (t.isInteger(32)) {
    int32_t v = static_cast<int32_t>(value);
    return v == INT32_MIN ? "(-2147483647 - 1)" : std::to_string(v);
  }
  return value == INT64_MIN ? "(-9223372036854775807LL - 1)"
                            : std::to_string(value) + "LL";
}

std::string mlir::tfc::cuda::wrappingArith(Type t, char op, StringRef a,
                                           StringRef b) {
  if (!t.isInteger(32) && !t.isInteger(64))
    return fmt::format("{} {} {}", a.str(), op, b.str());
  std::string ct = computeType(t), ut = "unsigned " + ct;
  return fmt::format("({0})(({1}){2} {3} ({1}){4})", ct, ut, a.str(), op,
                     b.str());
}

std::string mlir::tfc::cuda::wrappingNeg(Type t, StringRef x) {
  if (!t.isInteger(32) && !t.isInteger(64))
    return ("-" + x).str();
  return wrappingArith(t, '-', "0", x);
}

//===----------------------------------------------------------------------===//
// KernelWriter
//===----------------------------------------------------------------------===//

KernelWriter::KernelWriter() { scopes.emplace_back(); }

int KernelWriter::addVar(StringRef name, int64_t extent, int level) {
  return varTable.add(name.str(), extent, level);
}

void KernelWriter::push(const Twine &header, const Twine &footer) {
  Scope scope;
  scope.header = header.str();
  scope.footer = footer.str();
  scopes.push_back(std::move(scope));
}

/// Appends the lines of `text` to `out`, each indented by `indent`.
static void appendIndented(std::vector<std::string> &out, StringRef text,
                           StringRef indent) {
  SmallVector<StringRef> parts;
  text.split(parts, '\n');
  for (StringRef part : parts)
    out.push_back((indent + part).str());
}

void KernelWriter::pop() {
  Scope scope = std::move(scopes.back());
  scopes.pop_back();
  std::vector<std::string> &parent = scopes.back().lines;
  if (!scope.header.empty())
    appendIndented(parent, scope.header, "");
  for (const std::string &l : scope.lines)
    parent.push_back("  " + l);
  if (!scope.footer.empty())
    appendIndented(parent, scope.footer, "");
}

void KernelWriter::setHeader(int level, const Twine &header) {
  scopes[level].header = header.str();
}

bool KernelWriter::contains(int level, StringRef text) const {
  for (size_t s = level; s < scopes.size(); ++s)
    for (const std::string &l : scopes[s].lines)
      if (StringRef(l).contains(text))
        return true;
  return false;
}

void KernelWriter::line(const Twine &text) { lineAt(depth(), text); }

void KernelWriter::lineAt(int level, const Twine &text) {
  appendIndented(scopes[level].lines, text.str(), "");
}

void KernelWriter::global(const Twine &text) {
  globalLines.push_back(text.str());
}

std::string KernelWriter::fresh(StringRef prefix) {
  return (prefix + Twine(counter++)).str();
}

CExpr KernelWriter::declare(int level, StringRef type, const Twine &expr,
                            StringRef prefix) {
  std::string name = fresh(prefix);
  lineAt(level, "const " + type + " " + name + " = " + expr + ";");
  return CExpr{name, level};
}

std::optional<CExpr> KernelWriter::lookup(Value value, StringRef key) const {
  auto k = std::make_pair(value.getAsOpaquePointer(), key.str());
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->memo.find(k);
    if (found != it->memo.end())
      return found->second;
  }
  return std::nullopt;
}

void KernelWriter::remember(Value value, StringRef key, const CExpr &expr) {
  scopes[std::min(expr.level, depth())]
      .memo[std::make_pair(value.getAsOpaquePointer(), key.str())] = expr;
}

std::string KernelWriter::body() const {
  std::string out;
  for (const std::string &l : scopes.front().lines)
    out += "  " + l + "\n";
  return out;
}

std::string KernelWriter::globals() const {
  std::string out;
  for (const std::string &l : globalLines)
    out += l + "\n";
  return out;
}
