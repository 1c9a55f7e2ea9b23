//===- IndexExpr.cpp - symbolic integer indices of generated CUDA --------===//
//
// The canonical form is what makes the generated code cheap: delinearizing a
// loop index into coordinates and linearizing them again in a broadcast
// operand's shape must give back `i % 128` (one digit), not
// `i / 128 % 1 * 0 + i % 128`. Merging adjacent digits of one variable does
// that: `(i % 64) + 64 * (i / 64 % 16)` is `i % 1024`.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/IndexExpr.h"

#include "llvm/ADT/STLExtras.h"
#include <algorithm>

using namespace mlir::tfc::cuda;

int IndexVarTable::add(std::string name, int64_t extent, int level) {
  vars.push_back(
      IndexVar{std::move(name), std::max<int64_t>(extent, 1), level});
  return static_cast<int>(vars.size()) - 1;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

IndexExpr IndexExpr::constant(int64_t value) {
  IndexExpr e;
  e.constantValue = value;
  return e;
}

IndexExpr IndexExpr::variable(const IndexVarTable &vars, int id) {
  IndexExpr e;
  e.table = &vars;
  IndexTerm t;
  t.var = id;
  t.div = 1;
  t.mod = vars[id].extent;
  e.terms.push_back(t);
  e.normalize();
  return e;
}

IndexExpr IndexExpr::opaque(std::string expr, int64_t range, int level) {
  IndexExpr e;
  IndexTerm t;
  t.opaque = std::move(expr);
  t.opaqueRange = std::max<int64_t>(range, 1);
  t.opaqueLevel = level;
  e.terms.push_back(std::move(t));
  e.normalize();
  return e;
}

IndexExpr IndexExpr::operator+(const IndexExpr &other) const {
  IndexExpr e = *this;
  e.constantValue += other.constantValue;
  e.terms.append(other.terms.begin(), other.terms.end());
  if (!e.table)
    e.table = other.table;
  e.normalize();
  return e;
}

IndexExpr IndexExpr::operator*(int64_t factor) const {
  IndexExpr e = *this;
  e.constantValue *= factor;
  for (IndexTerm &t : e.terms)
    t.scale *= factor;
  e.normalize();
  return e;
}

IndexExpr IndexExpr::plus(int64_t value) const {
  IndexExpr e = *this;
  e.constantValue += value;
  return e;
}

void IndexExpr::normalize() {
  // Clamp each digit's modulus to the values it can take: once
  // div * mod covers the variable's extent the `% mod` is a no-op, and a
  // digit that is always 0 disappears.
  auto clampDigit = [&](IndexTerm &t) {
    int64_t extent = (*table)[t.var].extent;
    int64_t reachable = ceilDiv(extent, t.div);
    if (t.mod > reachable)
      t.mod = reachable;
  };
  for (IndexTerm &t : terms)
    if (t.isVar())
      clampDigit(t);
  llvm::erase_if(terms, [](const IndexTerm &t) {
    return t.scale == 0 || (t.isVar() ? t.mod <= 1 : t.opaqueRange <= 1);
  });

  auto order = [](const IndexTerm &a, const IndexTerm &b) {
    if (a.isVar() != b.isVar())
      return a.isVar();
    if (a.isVar())
      return std::tie(a.var, a.div, a.mod) < std::tie(b.var, b.div, b.mod);
    return a.opaque < b.opaque;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::sort(terms, order);
    for (size_t x = 0; x < terms.size() && !changed; ++x) {
      for (size_t y = 0; y < terms.size() && !changed; ++y) {
        if (x == y)
          continue;
        IndexTerm &a = terms[x];
        const IndexTerm &b = terms[y];
        if (a.isVar() != b.isVar())
          continue;
        // The same digit (or opaque expression) twice: add the scales.
        bool same = a.isVar()
                        ? (a.var == b.var && a.div == b.div && a.mod == b.mod)
                        : (a.opaque == b.opaque);
        if (same && x < y) {
          a.scale += b.scale;
          terms.erase(terms.begin() + y);
          changed = true;
          continue;
        }
        // Adjacent digits of one variable with matching scales form one
        // wider digit: (v/d)%m*s + (v/(d*m))%n*(s*m) = (v/d)%(m*n)*s.
        if (a.isVar() && a.var == b.var && b.div == a.div * a.mod &&
            b.scale == a.scale * a.mod) {
          a.mod *= b.mod;
          clampDigit(a);
          terms.erase(terms.begin() + y);
          changed = true;
        }
      }
    }
    if (changed)
      llvm::erase_if(terms, [](const IndexTerm &t) {
        return t.scale == 0 || (t.isVar() ? t.mod <= 1 : t.opaqueRange <= 1);
      });
  }
}

int64_t IndexExpr::upperBound() const {
  int64_t bound = constantValue;
  for (const IndexTerm &t : terms)
    bound += t.scale * ((t.isVar() ? t.mod : t.opaqueRange) - 1);
  return bound + 1;
}

int IndexExpr::level() const {
  int level = 0;
  for (const IndexTerm &t : terms)
    level = std::max(level, t.isVar() ? (*table)[t.var].level : t.opaqueLevel);
  return level;
}

std::string IndexExpr::render() const {
  std::string out;
  for (const IndexTerm &t : terms) {
    if (!out.empty())
      out += " + ";
    if (t.isVar()) {
      const IndexVar &v = (*table)[t.var];
      out += v.name;
      if (t.div != 1)
        out += " / " + std::to_string(t.div);
      if (t.div * t.mod < v.extent)
        out += " % " + std::to_string(t.mod);
    } else {
      out += "(" + t.opaque + ")";
    }
    if (t.scale != 1)
      out += " * " + std::to_string(t.scale);
  }
  if (out.empty())
    return std::to_string(constantValue);
  if (constantValue != 0)
    out += " + " + std::to_string(constantValue);
  return out;
}

bool IndexExpr::delinearize(llvm::ArrayRef<int64_t> shape,
                            llvm::SmallVectorImpl<IndexExpr> &result) const {
  llvm::SmallVector<IndexExpr> coords(shape.size(), IndexExpr::constant(0));
  if (constantValue != 0 || llvm::is_contained(shape, 0))
    return false;
  // Digits sorted by scale must form a dense mixed-radix number: scale 1,
  // then each scale the previous one times its modulus.
  // An opaque term is a digit too, of width its range: it cannot be split
  // (its value is not known to codegen), only taken whole, alone or with
  // neighbouring digits (the class a cross_entropy picks at its label, read
  // through a reshape of the logits).
  llvm::SmallVector<IndexTerm> digits(terms.begin(), terms.end());
  auto width = [](const IndexTerm &t) {
    return t.isVar() ? t.mod : t.opaqueRange;
  };
  llvm::sort(digits, [](const IndexTerm &a, const IndexTerm &b) {
    return a.scale < b.scale;
  });
  int64_t expected = 1;
  for (const IndexTerm &t : digits) {
    if (t.scale != expected)
      return false;
    expected = t.scale * width(t);
  }
  int64_t top = expected;

  // A coordinate of one term (a digit of a variable, or an opaque value).
  auto single = [&](const IndexTerm &term) {
    IndexExpr coord;
    coord.table = table;
    coord.terms.push_back(term);
    coord.normalize();
    return coord;
  };
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t st = strides[d], size = shape[d];
    if (size == 1 || st >= top)
      continue;
    // The digit holding position `st`.
    size_t a = 0;
    while (a < digits.size() &&
           !(digits[a].scale <= st && st < digits[a].scale * width(digits[a])))
      ++a;
    if (a == digits.size())
      return false;
    const IndexTerm &da = digits[a];
    if (st % da.scale != 0)
      return false;
    int64_t q = st / da.scale;
    bool isTop = a + 1 == digits.size();
    if (!da.isVar()) {
      // An opaque digit starts no dimension inside it; at the top it is the
      // whole coordinate (in-bounds indices keep it below `size`).
      if (q != 1)
        return false;
      if (isTop) {
        IndexTerm c = da;
        c.scale = 1;
        coords[d] = single(c);
        continue;
      }
    }
    bool wraps = da.isVar() && da.div * da.mod < (*table)[da.var].extent;
    // Inside one digit: exact when the digit's modulus is a multiple of the
    // dimension's span, or when nothing above it can wrap around.
    if (da.isVar() && ((isTop && !wraps) ||
                       (q * size <= da.mod && da.mod % (q * size) == 0))) {
      IndexTerm c = da;
      c.div = da.div * q;
      c.mod = size;
      c.scale = 1;
      coords[d] = single(c);
      continue;
    }
    // The dimension spans several digits: whole ones, or the upper part of
    // the first (from position `st`, where it splits evenly) and whole ones
    // above it (a [R, 3, 8] row kernel's element row * 24 + j read as
    // [9, 8]: the first coordinate is row * 3 + j / 8).
    if (q != 1 && (!da.isVar() || da.mod % q != 0))
      return false;
    size_t b = a;
    while (b + 1 < digits.size() &&
           digits[b].scale * width(digits[b]) < st * size)
      ++b;
    int64_t covered = digits[b].scale * width(digits[b]);
    if (covered != st * size &&
        !(b + 1 == digits.size() && covered < st * size))
      return false;
    IndexExpr coord;
    coord.table = table;
    for (size_t t = a; t <= b; ++t) {
      IndexTerm c = digits[t];
      if (t == a && q != 1) {
        c.div = da.div * q;
        c.mod = da.mod / q;
        c.scale = 1;
      } else {
        c.scale = digits[t].scale / st;
      }
      coord.terms.push_back(c);
    }
    coord.normalize();
    coords[d] = coord;
  }
  result.assign(coords.begin(), coords.end());
  return true;
}

llvm::SmallVector<int64_t>
mlir::tfc::cuda::stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

int64_t mlir::tfc::cuda::numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

IndexExpr mlir::tfc::cuda::linearize(llvm::ArrayRef<IndexExpr> coords,
                                     llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  IndexExpr sum = IndexExpr::constant(0);
  for (size_t d = 0; d < coords.size(); ++d)
    if (shape[d] != 1)
      sum = sum + coords[d] * strides[d];
  return sum;
}
