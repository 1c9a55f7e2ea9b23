//===- KernelWriter.h - scoped C++ text of one CUDA kernel ------*- C++ -*-===//
//
// The text buffer codegen writes a kernel into: nested scopes (the kernel
// body, a row loop, a per-lane loop, ...), a memo of values already computed
// at an index, and the C types and literals of tfc element types.
//
// Every scope has a level (0 = kernel body). A value is declared in the
// outermost scope where everything it depends on exists, so a scalar read or
// a per-row statistic is computed once before the loop that uses it instead
// of once per element ("hoisting"). All reads codegen emits are in bounds for
// every value of the variables in scope, which is what makes hoisting safe.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_KERNELWRITER_H
#define TFC_COMPILER_CODEGEN_CUDA_KERNELWRITER_H

#include "compiler/codegen/cuda/IndexExpr.h"

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfc::cuda {

//===----------------------------------------------------------------------===//
// C types and literals of tfc element types (docs/execution.md §3)
//===----------------------------------------------------------------------===//

/// The storage type in memory: float, double, __half, __nv_bfloat16,
/// unsigned char (i1 as 0/1), int, long long.
std::string storageType(Type elementType);
/// The type values are computed in: float for f16/bf16/f32, double for f64,
/// bool for i1, int for i32, long long for i64.
std::string computeType(Type elementType);
/// Whether codegen supports `elementType` at all.
bool isSupportedElementType(Type elementType);
/// Size in bytes of the storage type.
int64_t storageBytes(Type elementType);
/// `value` (of storage type) widened to the compute type.
std::string loadConversion(Type elementType, llvm::StringRef value);
/// `value` (of compute type) narrowed to the storage type; exact, because
/// 16-bit values are rounded when they are computed (roundToStorage).
std::string storeConversion(Type elementType, llvm::StringRef value);
/// For f16/bf16: `value` rounded to nearest even in the 16-bit type and
/// widened back, so a fused chain rounds exactly like an unfused one that
/// stores every intermediate in memory. Identity for other types.
std::string roundToStorage(Type elementType, llvm::StringRef value);

/// A literal of the compute type of `elementType` holding `value` after
/// rounding it to `elementType` (non-finite values are spelled exactly).
std::string floatLiteral(Type elementType, double value);
/// A literal of the compute type of float type `elementType` for an exact
/// value already of that type.
std::string floatLiteral(Type elementType, const llvm::APFloat &value);
/// An integer literal of the compute type of `elementType` (i1, i32, i64).
std::string intLiteral(Type elementType, int64_t value);
/// `a op b` (op one of + - *) in the compute type of `elementType`: C's
/// operator for floats; for i32 / i64 through the unsigned type and back, so
/// overflow wraps (two's complement, as torch's and the host interpreter's)
/// where signed overflow would be undefined behaviour.
std::string wrappingArith(Type elementType, char op, llvm::StringRef a,
                          llvm::StringRef b);
/// `-x` in the compute type of `elementType`, wrapping for integers
/// (-INT_MIN is INT_MIN).
std::string wrappingNeg(Type elementType, llvm::StringRef x);

//===----------------------------------------------------------------------===//
// KernelWriter
//===----------------------------------------------------------------------===//

/// A C expression in the generated code (a variable, an array element or a
/// literal) and the level of the scope where it is available.
struct CExpr {
  std::string code;
  int level = 0;
};

/// Scoped text buffer of one kernel plus the memo of computed values.
class KernelWriter {
public:
  KernelWriter();

  /// The variables index expressions refer to.
  IndexVarTable &vars() { return varTable; }
  /// Adds an index variable defined at `level` (the caller writes its C
  /// declaration) and returns its id.
  int addVar(llvm::StringRef name, int64_t extent, int level);

  /// The innermost open level.
  int depth() const { return static_cast<int>(scopes.size()) - 1; }
  /// Opens a scope: `header` lines are written in the current scope, the
  /// scope's own lines are indented below them, and `footer` closes it.
  void push(const llvm::Twine &header, const llvm::Twine &footer);
  /// Closes the innermost scope, writing it into its parent.
  void pop();
  /// Replaces the header of the open scope at `level` (> 0).
  void setHeader(int level, const llvm::Twine &header);
  /// Whether a line written so far into the open scope at `level` (or a
  /// scope nested in it) contains `text`.
  bool contains(int level, llvm::StringRef text) const;

  /// Appends a statement to the innermost scope.
  void line(const llvm::Twine &text);
  /// Appends a statement to the scope at `level` (an enclosing one).
  void lineAt(int level, const llvm::Twine &text);
  /// Appends a file-scope declaration (constant tables, scratch buffers).
  void global(const llvm::Twine &text);

  /// A fresh C identifier `<prefix><n>`.
  std::string fresh(llvm::StringRef prefix);
  /// Declares `const <type> <fresh> = <expr>;` at `level` and returns it.
  CExpr declare(int level, llvm::StringRef type, const llvm::Twine &expr,
                llvm::StringRef prefix = "v");

  /// A value computed earlier at the index rendered as `key`, if it is
  /// visible from the innermost scope.
  std::optional<CExpr> lookup(Value value, llvm::StringRef key) const;
  /// Records `expr` as `value` at index `key`, visible while the scope at
  /// `expr.level` is open.
  void remember(Value value, llvm::StringRef key, const CExpr &expr);

  /// The name of the file-scope table already emitted for `key` (a constant
  /// op), or an empty string.
  std::string tableFor(const void *key) const {
    auto it = tables.find(key);
    return it == tables.end() ? std::string() : it->second;
  }
  void setTable(const void *key, std::string name) { tables[key] = name; }

  /// Level-0 body text (call once every scope but level 0 is closed).
  std::string body() const;
  /// File-scope declarations.
  std::string globals() const;

private:
  struct Scope {
    std::string header, footer;
    std::vector<std::string> lines;
    std::map<std::pair<const void *, std::string>, CExpr> memo;
  };
  std::vector<Scope> scopes;
  std::vector<std::string> globalLines;
  std::map<const void *, std::string> tables;
  IndexVarTable varTable;
  unsigned counter = 0;
};

} // namespace mlir::tfc::cuda

#endif // TFC_COMPILER_CODEGEN_CUDA_KERNELWRITER_H
