//===- IndexExpr.h - symbolic integer indices of generated CUDA -*- C++ -*-===//
//
// Codegen computes, for every value of a kernel body, the index at which it
// is needed. Indices are kept symbolic so that the common cases collapse to
// the cheapest C expression: a same-shape operand is read at `i`, a bias at
// `i % 128`, a per-row statistic at `i / 128`, and only a real permutation
// costs a sum of divisions. Two indices that render to the same string denote
// the same element, which is what memoization of computed values relies on.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_INDEXEXPR_H
#define TFC_COMPILER_CODEGEN_CUDA_INDEXEXPR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tfc::cuda {

/// A variable of the generated code that indices refer to (a loop index, a
/// row number, ...): its C name, the exclusive upper bound of its values and
/// the scope level where it is defined.
struct IndexVar {
  std::string name;
  int64_t extent = 1;
  int level = 0;
};

/// The variables of one kernel; IndexTerm refers to them by position.
class IndexVarTable {
public:
  /// Adds a variable and returns its id.
  int add(std::string name, int64_t extent, int level);
  const IndexVar &operator[](int id) const { return vars[id]; }

private:
  llvm::SmallVector<IndexVar> vars;
};

/// One summand of an IndexExpr: `scale * ((var / div) % mod)` for a variable
/// term (a "digit" of the variable in a mixed-radix representation), or
/// `scale * (opaque)` for a data-dependent C expression with values in
/// [0, range) (an embedding id, a clamped coordinate).
struct IndexTerm {
  int var = -1; ///< -1 for an opaque term
  int64_t div = 1;
  int64_t mod = 1;
  int64_t scale = 1;
  std::string opaque;
  int64_t opaqueRange = 1;
  int opaqueLevel = 0;

  bool isVar() const { return var >= 0; }
};

/// `constant + sum(terms)`, kept in a canonical form: terms sorted, digits of
/// one variable that tile it merged, always-zero terms dropped.
class IndexExpr {
public:
  IndexExpr() = default;
  static IndexExpr constant(int64_t value);
  /// The whole variable `id` (scale 1).
  static IndexExpr variable(const IndexVarTable &vars, int id);
  /// A data-dependent term with values in [0, range) computed at `level`.
  static IndexExpr opaque(std::string expr, int64_t range, int level);

  IndexExpr operator+(const IndexExpr &other) const;
  IndexExpr operator*(int64_t factor) const;
  IndexExpr plus(int64_t value) const;

  bool isConstant() const { return terms.empty(); }
  int64_t getConstant() const { return constantValue; }
  llvm::ArrayRef<IndexTerm> getTerms() const { return terms; }

  /// An exclusive upper bound of the expression's values (>= 1), assuming
  /// non-negative scales (codegen never builds others).
  int64_t upperBound() const;
  /// The deepest scope level this expression depends on (0 for constants).
  int level() const;

  /// The C expression, e.g. `i / 128 % 64 * 128 + i % 128`; canonical, so
  /// equal strings mean equal indices.
  std::string render() const;

  /// When the expression is a dense mixed-radix number of digits (no
  /// constant; an opaque term is a digit that is never split), returns its
  /// coordinates in `shape` (row-major) in `coords` as digits of the same
  /// variables and returns true; false otherwise (the caller then binds the
  /// expression to a fresh variable first).
  bool delinearize(llvm::ArrayRef<int64_t> shape,
                   llvm::SmallVectorImpl<IndexExpr> &coords) const;

private:
  /// Re-establishes the canonical form (called after every construction).
  void normalize();

  int64_t constantValue = 0;
  llvm::SmallVector<IndexTerm> terms;
  /// The table of the variables of `terms` (null while there are none).
  const IndexVarTable *table = nullptr;
};

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// Product of `shape` (1 for rank 0).
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// The row-major linear index of `coords` in `shape`.
IndexExpr linearize(llvm::ArrayRef<IndexExpr> coords,
                    llvm::ArrayRef<int64_t> shape);

} // namespace mlir::tfc::cuda

#endif // TFC_COMPILER_CODEGEN_CUDA_INDEXEXPR_H
