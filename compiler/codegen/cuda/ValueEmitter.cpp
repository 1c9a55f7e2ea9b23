//===- ValueEmitter.cpp - tfc values as CUDA expressions ------------------===//
//
// Numerics follow docs/dialect.md: ops compute in fp32 (f64 for f64), and an
// op whose result is f16/bf16 rounds its value to that type right away, so a
// fused chain gives bit-identical results to the same ops run one kernel
// each (and to the host interpreter, which stores every value). Reads are
// always in bounds: pad, concat and embedding clamp the index they read and
// select the result, instead of branching around the read, which keeps
// every value hoistable (see KernelWriter.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/ValueEmitter.h"

#include "common/ScalarOps.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

ArrayRef<int64_t> mlir::tfc::cuda::shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

Type mlir::tfc::cuda::elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

ValueEmitter::ValueEmitter(KernelWriter &writer, Block &body,
                           std::string indexType)
    : w(writer), body(body), indexTy(std::move(indexType)) {}

std::string ValueEmitter::paramName(BlockArgument arg) {
  return "in" + std::to_string(arg.getArgNumber());
}

std::string ValueEmitter::keyOf(Value value, ArrayRef<IndexExpr> coords) const {
  return linearize(coords, shapeOf(value)).render();
}

SmallVector<IndexExpr> ValueEmitter::coordsOf(const IndexExpr &linear,
                                              ArrayRef<int64_t> shape) {
  SmallVector<IndexExpr> coords;
  // A tensor without elements is never indexed at run time; any in-rank
  // coordinates do.
  if (llvm::is_contained(shape, 0))
    return SmallVector<IndexExpr>(shape.size(), IndexExpr::constant(0));
  if (linear.delinearize(shape, coords))
    return coords;
  // Not a plain mixed-radix number (a permuted or shifted index): name it,
  // and take the digits of the new variable.
  int level = linear.level();
  CExpr named = w.declare(level, indexTy, linear.render(), "t");
  int id = w.addVar(named.code, linear.upperBound(), level);
  IndexExpr var = IndexExpr::variable(w.vars(), id);
  bool ok = var.delinearize(shape, coords);
  assert(ok && "a single variable always delinearizes");
  (void)ok;
  return coords;
}

SmallVector<IndexExpr>
ValueEmitter::broadcastCoords(ArrayRef<IndexExpr> coords,
                              ArrayRef<int64_t> resultShape,
                              ArrayRef<int64_t> operandShape) {
  SmallVector<IndexExpr> out;
  size_t lead = resultShape.size() - operandShape.size();
  for (size_t d = 0; d < operandShape.size(); ++d)
    out.push_back(operandShape[d] == 1 ? IndexExpr::constant(0)
                                       : coords[lead + d]);
  return out;
}

IndexExpr ValueEmitter::clampedCoord(const IndexExpr &coord, int64_t offset,
                                     int64_t size) {
  if (size == 1)
    return IndexExpr::constant(0);
  std::string shifted =
      offset ? fmt::format("{} - {}", coord.render(), offset) : coord.render();
  std::string expr =
      fmt::format("tfc_clamp<{}>({}, 0, {})", indexTy, shifted, size - 1);
  return IndexExpr::opaque(expr, size, coord.level());
}

FailureOr<CExpr> ValueEmitter::emit(Value value, ArrayRef<IndexExpr> coords) {
  std::string key = keyOf(value, coords);
  if (std::optional<CExpr> known = w.lookup(value, key))
    return *known;

  FailureOr<CExpr> result = failure();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &body) {
      emitError(arg.getLoc()) << "codegen: a value from outside the kernel "
                                 "body is used inside it";
      return failure();
    }
    IndexExpr linear = linearize(coords, shapeOf(value));
    std::optional<CExpr> hooked =
        loadHook ? loadHook(arg, linear) : std::nullopt;
    if (hooked) {
      result = *hooked;
    } else {
      Type et = elementTypeOf(value);
      std::string load = paramName(arg) + "[" + linear.render() + "]";
      result =
          w.declare(linear.level(), computeType(et), loadConversion(et, load));
    }
  } else {
    result = emitOp(cast<OpResult>(value), coords);
  }
  if (succeeded(result))
    w.remember(value, key, *result);
  return result;
}

namespace {
/// The math-library name for the compute type ("expf" or "exp").
std::string fn(StringRef name, Type et) {
  return et.isF64() ? name.str() : (name + "f").str();
}

/// A call of the element formula `name` of common/ScalarOps.h with the
/// device math policy, in compute type `ct`.
std::string scalarCall(StringRef name, StringRef ct,
                       std::initializer_list<std::string> args) {
  return fmt::format("tfc::scalar::{}<tfc_math, {}>({})", name.str(), ct.str(),
                     llvm::join(args, ", "));
}

/// A C literal of `value` in the compute type of float type `et`.
std::string lit(Type et, double value) { return floatLiteral(et, value); }

bool isFloat(Type et) { return isa<FloatType>(et); }
} // namespace

FailureOr<CExpr> ValueEmitter::emitConstant(Operation *op, Type type,
                                            ArrayRef<IndexExpr> coords) {
  auto attr = cast<ConstantOp>(op).getValue();
  auto tensorType = cast<RankedTensorType>(type);
  Type et = tensorType.getElementType();
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense) {
    op->emitError("codegen: only dense constants are supported");
    return failure();
  }
  auto literalAt = [&](int64_t index) -> std::string {
    if (isFloat(et))
      return floatLiteral(et, dense.getValues<APFloat>()[index]);
    APInt v = dense.getValues<APInt>()[index];
    return intLiteral(et,
                      et.isInteger(1) ? v.getZExtValue() : v.getSExtValue());
  };
  if (dense.isSplat())
    return CExpr{literalAt(0), 0};
  int64_t n = dense.getNumElements();
  // Dense constants become a table in the module; the folder keeps them
  // small (<= 1024 elements), bigger ones are still correct, only larger.
  std::string table = w.tableFor(op);
  if (table.empty()) {
    table = w.fresh("tfc_table");
    std::string values;
    for (int64_t k = 0; k < n; ++k)
      values += (k ? ", " : "") + literalAt(k);
    w.global(fmt::format("__device__ const {} {}[{}] = {{{}}};",
                         computeType(et), table, n, values));
    w.setTable(op, table);
  }
  IndexExpr linear = linearize(coords, tensorType.getShape());
  return CExpr{table + "[" + linear.render() + "]", linear.level()};
}

FailureOr<CExpr> ValueEmitter::emitOp(OpResult result,
                                      ArrayRef<IndexExpr> coords) {
  Operation *op = result.getOwner();
  Type et = elementTypeOf(result);
  ArrayRef<int64_t> shape = shapeOf(result);
  std::string ct = computeType(et);

  // Operand `k` at the coordinates a broadcasting op reads it at.
  auto operandAt = [&](unsigned k) -> FailureOr<CExpr> {
    Value operand = op->getOperand(k);
    return emit(operand, broadcastCoords(coords, shape, shapeOf(operand)));
  };
  // Declares `expr` (in the compute type of the result) at the deepest
  // level among `deps`, rounding 16-bit results.
  auto define = [&](const std::string &expr, ArrayRef<int> levels,
                    bool round = true) -> CExpr {
    int level = 0;
    for (int l : levels)
      level = std::max(level, l);
    return w.declare(level, ct, round ? roundToStorage(et, expr) : expr);
  };
  auto unary = [&](auto formula) -> FailureOr<CExpr> {
    FailureOr<CExpr> x = operandAt(0);
    if (failed(x))
      return failure();
    return define(formula(x->code), {x->level});
  };
  auto binary = [&](auto formula) -> FailureOr<CExpr> {
    FailureOr<CExpr> a = operandAt(0);
    if (failed(a))
      return failure();
    FailureOr<CExpr> b = operandAt(1);
    if (failed(b))
      return failure();
    return define(formula(a->code, b->code), {a->level, b->level});
  };
  Type operandEt = op->getNumOperands() ? elementTypeOf(op->getOperand(0)) : et;
  bool isF = isFloat(operandEt);

  return llvm::TypeSwitch<Operation *, FailureOr<CExpr>>(op)
      // Unary math.
      // Integer -, |x|, +, -, * and / wrap (two's complement, as torch's and
      // the host's) instead of overflowing, which C++ leaves undefined:
      // through the unsigned type (wrappingArith), -INT_MIN and
      // |INT_MIN| = INT_MIN, INT_MIN / -1 = INT_MIN.
      .Case([&](NegOp) {
        return unary([&](auto x) { return wrappingNeg(et, x); });
      })
      .Case([&](AbsOp) {
        return unary([&](auto x) {
          if (isF)
            return fn("fabs", et) + "(" + x + ")";
          return "(" + x + " < 0 ? " + wrappingNeg(et, x) + " : " + x + ")";
        });
      })
      .Case([&](ExpOp) {
        return unary([&](auto x) { return fn("exp", et) + "(" + x + ")"; });
      })
      .Case([&](LogOp) {
        return unary([&](auto x) { return fn("log", et) + "(" + x + ")"; });
      })
      .Case([&](SqrtOp) {
        return unary([&](auto x) { return fn("sqrt", et) + "(" + x + ")"; });
      })
      .Case([&](RsqrtOp) {
        // 1/sqrt rather than the approximate rsqrtf: matches the host.
        return unary([&](auto x) {
          return lit(et, 1.0) + " / " + fn("sqrt", et) + "(" + x + ")";
        });
      })
      .Case([&](CosOp) {
        return unary([&](auto x) { return fn("cos", et) + "(" + x + ")"; });
      })
      .Case([&](SinOp) {
        return unary([&](auto x) { return fn("sin", et) + "(" + x + ")"; });
      })
      .Case([&](TanhOp) {
        return unary([&](auto x) { return fn("tanh", et) + "(" + x + ")"; });
      })
      .Case([&](ErfOp) {
        return unary([&](auto x) { return fn("erf", et) + "(" + x + ")"; });
      })
      .Case([&](SigmoidOp) {
        return unary([&](auto x) {
          return lit(et, 1.0) + " / (" + lit(et, 1.0) + " + " + fn("exp", et) +
                 "(-" + x + "))";
        });
      })
      .Case([&](ReluOp) {
        // `x < 0 ? 0 : x` lets NaN through, as torch.relu does.
        return unary([&](auto x) {
          return "(" + x + " < " + lit(et, 0.0) + " ? " + lit(et, 0.0) + " : " +
                 x + ")";
        });
      })
      // Activations and their gradients: the formulas of common/ScalarOps.h
      // (shared with the host interpreter) in the compute type, rounded
      // once.
      .Case([&](SiluOp) {
        return unary([&](auto x) { return scalarCall("silu", ct, {x}); });
      })
      .Case([&](GeluOp g) {
        bool tanhForm = g.getApproximate() == GeluApproximation::tanh;
        return unary([&](auto x) {
          return scalarCall(tanhForm ? "geluTanh" : "geluErf", ct, {x});
        });
      })
      .Case([&](SiluGradOp) {
        return binary([&](auto dy, auto x) {
          return scalarCall("siluGrad", ct, {dy, x});
        });
      })
      .Case([&](GeluGradOp g) {
        bool tanhForm = g.getApproximate() == GeluApproximation::tanh;
        return binary([&](auto dy, auto x) {
          return scalarCall(tanhForm ? "geluTanhGrad" : "geluErfGrad", ct,
                            {dy, x});
        });
      })
      .Case([&](PowOp p) {
        double e = p.getExponent().convertToDouble();
        return unary([&](auto x) {
          // The exponents PyTorch special-cases, computed the same way.
          if (e == 2.0)
            return x + " * " + x;
          if (e == 3.0)
            return x + " * " + x + " * " + x;
          if (e == 0.5)
            return fn("sqrt", et) + "(" + x + ")";
          if (e == -1.0)
            return lit(et, 1.0) + " / " + x;
          if (e == -0.5)
            return lit(et, 1.0) + " / " + fn("sqrt", et) + "(" + x + ")";
          if (e == -2.0)
            return lit(et, 1.0) + " / (" + x + " * " + x + ")";
          if (e == 1.0)
            return std::string(x);
          if (e == 0.0)
            return lit(et, 1.0);
          return fn("pow", et) + "(" + x + ", " + lit(et, e) + ")";
        });
      })
      // Binary math (broadcasting).
      .Case([&](AddOp) {
        return binary(
            [&](auto a, auto b) { return wrappingArith(et, '+', a, b); });
      })
      .Case([&](SubOp) {
        return binary(
            [&](auto a, auto b) { return wrappingArith(et, '-', a, b); });
      })
      .Case([&](MulOp) {
        return binary(
            [&](auto a, auto b) { return wrappingArith(et, '*', a, b); });
      })
      .Case([&](DivOp) {
        return binary([&](auto a, auto b) -> std::string {
          if (isF)
            return a + " / " + b;
          return "(" + b + " == -1 ? " + wrappingNeg(et, a) + " : " + a +
                 " / " + b + ")";
        });
      })
      .Case([&](MaximumOp) {
        return binary(
            [](auto a, auto b) { return "tfc_max(" + a + ", " + b + ")"; });
      })
      .Case([&](MinimumOp) {
        return binary(
            [](auto a, auto b) { return "tfc_min(" + a + ", " + b + ")"; });
      })
      .Case([&](Atan2Op) {
        // atan2f / atan2 (16-bit types in f32), as the host's std::atan2.
        return binary([&](auto y, auto x) {
          return fn("atan2", et) + "(" + y + ", " + x + ")";
        });
      })
      .Case([&](FmodOp) {
        // fmodf / fmod (16-bit types in f32: the remainder is exact, so the
        // rounding back is too), as the host's std::fmod.
        return binary([&](auto x, auto y) {
          return fn("fmod", et) + "(" + x + ", " + y + ")";
        });
      })
      // Bitwise ops (integers only): C's operators on int / long long, two's
      // complement as the host's; on i1 (bool) &, |, ^ are logic and not is
      // `!` (`~` of a bool is -1 or -2, both true).
      .Case([&](BitwiseAndOp) {
        return binary([](auto a, auto b) { return a + " & " + b; });
      })
      .Case([&](BitwiseOrOp) {
        return binary([](auto a, auto b) { return a + " | " + b; });
      })
      .Case([&](BitwiseXorOp) {
        return binary([](auto a, auto b) { return a + " ^ " + b; });
      })
      .Case([&](BitwiseNotOp) {
        return unary([&](auto x) { return (et.isInteger(1) ? "!" : "~") + x; });
      })
      // Shifts: common/ScalarOps.h's formulas, defined for every amount
      // (C's << and >> are undefined outside [0, bits) and << on negatives).
      .Case([&](ShiftLeftOp) {
        return binary([&](auto a, auto b) {
          return fmt::format("tfc::scalar::shiftLeft<{}>({}, {})", ct, a, b);
        });
      })
      .Case([&](ShiftRightOp) {
        return binary([&](auto a, auto b) {
          return fmt::format("tfc::scalar::shiftRight<{}>({}, {})", ct, a, b);
        });
      })
      .Case([&](CompareOp c) {
        StringRef cmp;
        switch (c.getDirection()) {
        case CompareDirection::eq:
          cmp = "==";
          break;
        case CompareDirection::ne:
          cmp = "!=";
          break;
        case CompareDirection::lt:
          cmp = "<";
          break;
        case CompareDirection::le:
          cmp = "<=";
          break;
        case CompareDirection::gt:
          cmp = ">";
          break;
        case CompareDirection::ge:
          cmp = ">=";
          break;
        }
        return binary([&](auto a, auto b) {
          return "(" + a + " " + cmp.str() + " " + b + ")";
        });
      })
      .Case([&](SelectOp) -> FailureOr<CExpr> {
        FailureOr<CExpr> c = operandAt(0), t = failure(), f = failure();
        if (failed(c) || failed(t = operandAt(1)) || failed(f = operandAt(2)))
          return failure();
        return define(c->code + " ? " + t->code + " : " + f->code,
                      {c->level, t->level, f->level}, /*round=*/false);
      })
      .Case([&](ConvertOp) -> FailureOr<CExpr> {
        FailureOr<CExpr> x = operandAt(0);
        if (failed(x))
          return failure();
        std::string expr;
        if (et.isInteger(1)) {
          expr = "(" + x->code + " != 0)";
        } else if ((et.isF16() || et.isBF16()) &&
                   !(operandEt.isF32() || operandEt.isF16() ||
                     operandEt.isBF16())) {
          // Round once from the exact source value: f64 and integers
          // convert through double (exact for i32, and for i64 up to
          // 2^53), never through float, which could round twice.
          StringRef conv = et.isF16() ? "__double2half" : "__double2bfloat16";
          StringRef back = et.isF16() ? "__half2float" : "__bfloat162float";
          expr = (back + "(" + conv + "((double)(" + x->code + ")))").str();
        } else {
          // Float to integer truncates toward zero (cvt.rzi), as .to() does.
          expr = roundToStorage(et, "(" + ct + ")(" + x->code + ")");
        }
        return define(expr, {x->level}, /*round=*/false);
      })
      .Case([&](ConstantOp) {
        return emitConstant(op, result.getType(), coords);
      })
      // Data movement: remap the index.
      .Case([&](ReshapeOp r) {
        IndexExpr linear = linearize(coords, shape);
        return emit(r.getX(), coordsOf(linear, shapeOf(r.getX())));
      })
      .Case([&](TransposeOp t) {
        ArrayRef<int64_t> perm = t.getPermutation();
        SmallVector<IndexExpr> in(coords.size());
        for (size_t d = 0; d < perm.size(); ++d)
          in[perm[d]] = coords[d];
        return emit(t.getX(), in);
      })
      .Case([&](BroadcastToOp b) {
        return emit(b.getX(),
                    broadcastCoords(coords, shape, shapeOf(b.getX())));
      })
      .Case([&](SliceOp s) {
        SmallVector<int64_t> step = s.getStepOrOnes();
        ArrayRef<int64_t> start = s.getStart();
        SmallVector<IndexExpr> in;
        for (size_t d = 0; d < coords.size(); ++d)
          in.push_back((coords[d] * step[d]).plus(start[d]));
        return emit(s.getX(), in);
      })
      .Case([&](ConcatOp c) -> FailureOr<CExpr> {
        int64_t dim = *normalizeDim(static_cast<int64_t>(c.getDim()),
                                    static_cast<int64_t>(shape.size()));
        const IndexExpr &cd = coords[dim];
        // Every input at its clamped coordinate, then a select chain on the
        // concatenated coordinate (a constant coordinate picks directly).
        SmallVector<std::pair<int64_t, CExpr>> parts;
        int64_t offset = 0;
        int level = cd.level();
        for (Value input : c.getInputs()) {
          int64_t size = shapeOf(input)[dim];
          if (cd.isConstant() && (cd.getConstant() < offset ||
                                  cd.getConstant() >= offset + size)) {
            offset += size;
            continue;
          }
          SmallVector<IndexExpr> in(coords.begin(), coords.end());
          in[dim] = cd.isConstant()
                        ? IndexExpr::constant(cd.getConstant() - offset)
                        : clampedCoord(cd, offset, size);
          FailureOr<CExpr> v = emit(input, in);
          if (failed(v))
            return failure();
          level = std::max(level, v->level);
          offset += size;
          parts.push_back({offset, *v});
        }
        std::string expr = parts.back().second.code;
        std::string c0 = cd.render();
        for (int k = static_cast<int>(parts.size()) - 2; k >= 0; --k)
          expr = "(" + c0 + " < " + std::to_string(parts[k].first) + " ? " +
                 parts[k].second.code + " : " + expr + ")";
        return w.declare(level, ct, expr);
      })
      .Case([&](PadOp p) -> FailureOr<CExpr> {
        ArrayRef<int64_t> low = p.getLow(), high = p.getHigh();
        ArrayRef<int64_t> inShape = shapeOf(p.getX());
        SmallVector<IndexExpr> in;
        std::string inside;
        for (size_t d = 0; d < coords.size(); ++d) {
          if (low[d] == 0 && high[d] == 0) {
            in.push_back(coords[d]);
            continue;
          }
          in.push_back(clampedCoord(coords[d], low[d], inShape[d]));
          std::string c0 = coords[d].render();
          if (!inside.empty())
            inside += " && ";
          if (low[d] > 0)
            inside += fmt::format("{} >= {} && ", c0, low[d]);
          inside += fmt::format("{} < {}", c0, low[d] + inShape[d]);
        }
        FailureOr<CExpr> x = emit(p.getX(), in);
        if (failed(x))
          return failure();
        if (inside.empty())
          return *x;
        double value = p.getValue().convertToDouble();
        std::string padValue =
            isFloat(et) ? lit(et, value) : intLiteral(et, (int64_t)value);
        int level = x->level;
        for (const IndexExpr &c0 : coords)
          level = std::max(level, c0.level());
        return w.declare(level, ct,
                         "(" + inside + ") ? " + x->code + " : " + padValue);
      })
      .Case([&](IotaOp i) -> FailureOr<CExpr> {
        int64_t dim = *normalizeDim(static_cast<int64_t>(i.getDim()),
                                    static_cast<int64_t>(shape.size()));
        const IndexExpr &c0 = coords[dim];
        return w.declare(
            c0.level(), ct,
            roundToStorage(et, "(" + ct + ")(" + c0.render() + ")"));
      })
      .Case([&](DropoutOp d) -> FailureOr<CExpr> {
        FailureOr<CExpr> x = emit(d.getX(), coords);
        if (failed(x))
          return failure();
        double p = d.getP().convertToDouble();
        if (p == 0.0)
          return *x;
        FailureOr<CExpr> seed = emit(d.getSeed(), {});
        if (failed(seed))
          return failure();
        FailureOr<CExpr> offset = emit(d.getOffset(), {});
        if (failed(offset))
          return failure();
        IndexExpr linear = linearize(coords, shape);
        // Keep iff the first Philox word >= floor(p * 2^32) (TfcNNOps.td).
        unsigned long long threshold = ::tfc::scalar::dropoutThreshold(p);
        Type acc = accumulationType(et);
        std::string keep = fmt::format(
            "tfc::scalar::dropoutKeep({}, {}, (unsigned long long)({}), {}ull)",
            seed->code, offset->code, linear.render(), threshold);
        std::string scaled = roundToStorage(
            et, x->code + " * " + floatLiteral(acc, 1.0 / (1.0 - p)));
        int level =
            std::max({x->level, seed->level, offset->level, linear.level()});
        return w.declare(level, ct,
                         keep + " ? " + scaled + " : " + lit(et, 0.0));
      })
      .Case([&](RandomOp r) -> FailureOr<CExpr> {
        FailureOr<CExpr> seed = emit(r.getSeed(), {});
        if (failed(seed))
          return failure();
        FailureOr<CExpr> offset = emit(r.getOffset(), {});
        if (failed(offset))
          return failure();
        IndexExpr linear = linearize(coords, shape);
        std::string args =
            fmt::format("{}, {}, (unsigned long long)({})", seed->code,
                        offset->code, linear.render());
        // The element formulas of TfcNNOps.td, in common/ScalarOps.h: f64
        // in double, the others in float (their uniforms exact in it).
        std::string value;
        if (r.getDistribution() == RandomDistribution::normal)
          value = fmt::format("tfc::scalar::randomNormal<tfc_math, {}>({})",
                              et.isF64() ? "double" : "float", args);
        else if (et.isF64())
          value = "tfc::scalar::randomUniformDouble(" + args + ")";
        else
          value = fmt::format("tfc::scalar::randomUniformFloat({}, {})", args,
                              et.isF16()    ? ::tfc::scalar::kUniformBitsF16
                              : et.isBF16() ? ::tfc::scalar::kUniformBitsBF16
                                            : ::tfc::scalar::kUniformBitsF32);
        int level = std::max({seed->level, offset->level, linear.level()});
        return w.declare(level, ct, roundToStorage(et, value));
      })
      .Case([&](EmbeddingOp e) -> FailureOr<CExpr> {
        Value ids = e.getIds();
        size_t idRank = shapeOf(ids).size();
        FailureOr<CExpr> id = emit(ids, coords.take_front(idRank));
        if (failed(id))
          return failure();
        int64_t vocab = shapeOf(e.getTable())[0];
        // Out-of-range ids (PyTorch raises) read row 0 and yield zeros.
        CExpr clamped = w.declare(id->level, indexTy,
                                  fmt::format("tfc_clamp<{}>({}, 0, {})",
                                              indexTy, id->code, vocab - 1),
                                  "id");
        SmallVector<IndexExpr> at = {
            IndexExpr::opaque(clamped.code, vocab, clamped.level),
            coords.back()};
        FailureOr<CExpr> row = emit(e.getTable(), at);
        if (failed(row))
          return failure();
        return w.declare(std::max(row->level, id->level), ct,
                         fmt::format("({0} >= 0 && {0} < {1}) ? {2} : {3}",
                                     id->code, vocab, row->code, lit(et, 0.0)));
      })
      .Default([&](Operation *other) -> FailureOr<CExpr> {
        if (anchorHook)
          return anchorHook(result, coords);
        other->emitError() << "codegen: '" << other->getName()
                           << "' cannot be emitted in this kernel";
        return failure();
      });
}
