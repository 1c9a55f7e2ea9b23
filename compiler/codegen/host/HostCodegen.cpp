//===- HostCodegen.cpp - host program of one tfc kernel ------------------===//
//
// A direct serialization: one line per value, attributes spelled out. The
// interpreter re-validates everything it reads, so this side only has to be
// faithful; it checks what the text cannot express (non-static types, ops
// that never belong in a kernel) and reports those as diagnostics.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/host/HostCodegen.h"

#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// Shortest decimal that reads back as exactly `v` (std::to_chars).
template <typename T> std::string formatFloat(T v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string formatInts(ArrayRef<int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

constexpr HostOpSchema kHostOps[] = {
#define TFC_HOST_OP(Code, name, group, operands, optionalFrom, results,        \
                    attributes)                                                \
  {name, operands, optionalFrom, results, attributes},
#include "common/HostOps.def"
};

/// Checks one op line (its operands, `_` for absent ones, and the
/// " key=value" attributes) against the op's row of common/HostOps.def.
LogicalResult checkAgainstSchema(Operation *op, StringRef name,
                                 ArrayRef<Value> operands,
                                 StringRef attributes) {
  const HostOpSchema *row = llvm::find_if(
      kHostOps, [&](const HostOpSchema &r) { return r.name == name; });
  auto drift = [&]() {
    return op->emitOpError("host program (internal): the line of '")
           << name << "' disagrees with common/HostOps.def: ";
  };
  if (row == std::end(kHostOps))
    return drift() << "no row for this op";
  size_t n = operands.size();
  if (row->operands < 0 ? n == 0 : n != size_t(row->operands))
    return drift() << n << " operands";
  for (size_t i = 0; i < n; ++i)
    if (!operands[i] && (row->optionalFrom < 0 || i < size_t(row->optionalFrom)))
      return drift() << "operand " << i << " is absent";
  // sgd without a momentum buffer has one result fewer.
  int results = row->results;
  if (isa<SgdOp>(op) && !operands.back())
    --results;
  if (int(op->getNumResults()) != results)
    return drift() << op->getNumResults() << " results";
  SmallVector<StringRef> written, keys;
  for (StringRef kv : llvm::split(attributes.ltrim(), ' '))
    written.push_back(kv.split('=').first);
  if (attributes.empty())
    written.clear();
  llvm::SplitString(row->attributes, keys, " ");
  if (written != keys)
    return drift() << "attributes '" << llvm::join(written, " ")
                   << "', expected '" << row->attributes << "'";
  return success();
}

class HostProgramWriter {
public:
  HostProgramWriter(Block &body, KernelKind kind) : body(body), kind(kind) {}
  LogicalResult write(std::string &out);

private:
  FailureOr<std::string> typeOf(Operation *where, Value v);
  FailureOr<std::string> ref(Operation *where, Value v);
  std::string define(Value v) {
    ids[v] = next;
    return "%" + std::to_string(next++);
  }
  LogicalResult writeOp(Operation *op);
  FailureOr<std::string> attributes(Operation *op);
  FailureOr<std::string> constantValues(ConstantOp op);

  Block &body;
  KernelKind kind;
  llvm::DenseMap<Value, int64_t> ids;
  int64_t next = 0;
  std::string text;
};

Location bodyLoc(Block &body) {
  if (Operation *parent = body.getParentOp())
    return parent->getLoc();
  if (!body.empty())
    return body.front().getLoc();
  return UnknownLoc::get(body.getParent() ? body.getParent()->getContext()
                                          : nullptr);
}

FailureOr<std::string> HostProgramWriter::typeOf(Operation *where, Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  auto fail = [&]() -> FailureOr<std::string> {
    InFlightDiagnostic d =
        where ? where->emitOpError() : mlir::emitError(bodyLoc(body));
    d << "host program: unsupported type " << v.getType()
      << " (expected a statically shaped tensor of f16, bf16, f32, f64, i1, "
         "i32, i64 or ui8)";
    return failure();
  };
  if (!t || !t.hasStaticShape())
    return fail();
  Type e = t.getElementType();
  const char *name = e.isF32()                ? "f32"
                     : e.isF64()              ? "f64"
                     : e.isF16()              ? "f16"
                     : e.isBF16()             ? "bf16"
                     : e.isInteger(1)         ? "i1"
                     : e.isInteger(32)        ? "i32"
                     : e.isInteger(64)        ? "i64"
                     : e.isUnsignedInteger(8) ? "ui8"
                                              : nullptr;
  if (!name ||
      (e.isInteger() && !e.isSignlessInteger() && !e.isUnsignedInteger(8)))
    return fail();
  std::string shape;
  for (int64_t d : t.getShape())
    shape += (shape.empty() ? "" : "x") + std::to_string(d);
  return std::string(name) + " " + (shape.empty() ? "scalar" : shape);
}

FailureOr<std::string> HostProgramWriter::ref(Operation *where, Value v) {
  auto it = ids.find(v);
  if (it == ids.end()) {
    where->emitOpError("host program: operand is not defined inside the "
                       "kernel body");
    return failure();
  }
  return "%" + std::to_string(it->second);
}

FailureOr<std::string> HostProgramWriter::constantValues(ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense) {
    op.emitOpError("host program: constant values must be a dense elements "
                   "attribute, got ")
        << op.getValue();
    return failure();
  }
  Type e = dense.getElementType();
  std::string s = "[";
  auto add = [&](const std::string &v) { s += (s.size() > 1 ? "," : "") + v; };
  // A splat is written once; the interpreter broadcasts a 1-value list.
  int64_t count = dense.isSplat() ? 1 : dense.getNumElements();
  if (isa<FloatType>(e)) {
    auto values = dense.getValues<APFloat>();
    for (int64_t i = 0; i < count; ++i) {
      double d = values[i].convertToDouble(); // exact for f16/bf16/f32
      add(e.isF64() ? formatFloat(d) : formatFloat(float(d)));
    }
  } else {
    auto values = dense.getValues<APInt>();
    for (int64_t i = 0; i < count; ++i)
      add(e.isInteger(1) ? std::to_string(values[i].getBoolValue() ? 1 : 0)
                         : std::to_string(values[i].getSExtValue()));
  }
  return s + "]";
}

FailureOr<std::string> HostProgramWriter::attributes(Operation *op) {
  auto kv = [](const char *k, const std::string &v) {
    return std::string(" ") + k + "=" + v;
  };
  auto f64 = [](const APFloat &v) { return formatFloat(v.convertToDouble()); };
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case([&](GeluOp o) {
        return kv("approximate",
                  stringifyGeluApproximation(o.getApproximate()).str());
      })
      .Case([&](PowOp o) { return kv("exponent", f64(o.getExponent())); })
      .Case([&](CompareOp o) {
        return kv("direction",
                  stringifyCompareDirection(o.getDirection()).str());
      })
      .Case([&](ConstantOp o) -> FailureOr<std::string> {
        FailureOr<std::string> v = constantValues(o);
        if (failed(v))
          return failure();
        return kv("value", *v);
      })
      .Case([&](TransposeOp o) {
        return kv("permutation", formatInts(o.getPermutation()));
      })
      .Case([&](SliceOp o) {
        return kv("start", formatInts(o.getStart())) +
               kv("limit", formatInts(o.getLimit())) +
               kv("step", formatInts(o.getStepOrOnes()));
      })
      .Case([&](ConcatOp o) {
        return kv("dim", std::to_string(int64_t(o.getDim())));
      })
      .Case([&](PadOp o) {
        return kv("low", formatInts(o.getLow())) +
               kv("high", formatInts(o.getHigh())) +
               kv("value", f64(o.getValue()));
      })
      .Case([&](IotaOp o) {
        return kv("dim", std::to_string(int64_t(o.getDim())));
      })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>([&](auto o) {
        return kv("dims", formatInts(o.getDims())) +
               kv("keepdim", o.getKeepdim() ? "true" : "false");
      })
      .Case([&](SortOp o) {
        return kv("descending", o.getDescending() ? "true" : "false");
      })
      .Case<LayerNormOp, RmsNormOp>([&](auto o) {
        return kv("eps", f64(o.getEps())) +
               kv("normalized_rank",
                  std::to_string(int64_t(o.getNormalizedRank())));
      })
      .Case<SoftmaxOp, LogSoftmaxOp>([&](auto o) {
        return kv("dim", std::to_string(int64_t(o.getDim())));
      })
      .Case([&](DropoutOp o) { return kv("p", f64(o.getP())); })
      .Case([&](RandomOp o) {
        return kv("distribution",
                  stringifyRandomDistribution(o.getDistribution()).str());
      })
      // Backward ops.
      .Case([&](GeluGradOp o) {
        return kv("approximate",
                  stringifyGeluApproximation(o.getApproximate()).str());
      })
      .Case<SoftmaxGradOp, LogSoftmaxGradOp>([&](auto o) {
        return kv("dim", std::to_string(int64_t(o.getDim())));
      })
      .Case<LayerNormGradInputOp, RmsNormGradInputOp>([&](auto o) {
        return kv("normalized_rank",
                  std::to_string(int64_t(o.getNormalizedRank())));
      })
      .Case([&](CrossEntropyGradOp o) {
        return kv("ignore_index", std::to_string(int64_t(o.getIgnoreIndex()))) +
               kv("label_smoothing", f64(o.getLabelSmoothing())) +
               kv("reduction", stringifyLossReduction(o.getReduction()).str());
      })
      .Case([&](CrossEntropyOp o) {
        return kv("ignore_index", std::to_string(int64_t(o.getIgnoreIndex()))) +
               kv("label_smoothing", f64(o.getLabelSmoothing())) +
               kv("reduction", stringifyLossReduction(o.getReduction()).str());
      })
      .Case<AdamWOp, AdamOp>([&](auto o) {
        return kv("beta1", f64(o.getBeta1())) + kv("beta2", f64(o.getBeta2())) +
               kv("eps", f64(o.getEps())) +
               kv("weight_decay", f64(o.getWeightDecay())) +
               kv("maximize", o.getMaximize() ? "true" : "false");
      })
      .Case([&](AdamW8bitOp o) {
        return kv("beta1", f64(o.getBeta1())) + kv("beta2", f64(o.getBeta2())) +
               kv("eps", f64(o.getEps())) +
               kv("weight_decay", f64(o.getWeightDecay())) +
               kv("block_size", std::to_string(o.getBlockSize()));
      })
      .Case([&](SgdOp o) {
        return kv("momentum", f64(o.getMomentum())) +
               kv("dampening", f64(o.getDampening())) +
               kv("weight_decay", f64(o.getWeightDecay())) +
               kv("nesterov", o.getNesterov() ? "true" : "false") +
               kv("maximize", o.getMaximize() ? "true" : "false");
      })
      .Default([](Operation *) { return std::string(); });
}

LogicalResult HostProgramWriter::writeOp(Operation *op) {
  if (!isa<TfcDialect>(op->getDialect())) {
    op->emitOpError("host program: only tfc ops can be in a kernel");
    return failure();
  }
  if (isa<MatmulOp>(op)) {
    op->emitOpError("host program: matmul never runs in a kernel (it is "
                    "lowered to a tfcrt.gemm step)");
    return failure();
  }
  if (isa<AttentionOp>(op)) {
    op->emitOpError("host program: attention must be decomposed "
                    "(--tfc-decompose) before kernels are formed");
    return failure();
  }
  if (isa<FusionOp, YieldOp>(op) || op->getNumRegions() != 0 ||
      op->getNumResults() == 0) {
    op->emitOpError("host program: op cannot be in a kernel body");
    return failure();
  }

  // Operands; layer_norm / rms_norm keep the positions of absent optional
  // weight and bias as `_`, sgd that of an absent momentum buffer.
  SmallVector<Value> operands;
  if (auto ln = dyn_cast<LayerNormOp>(op))
    operands = {ln.getX(), ln.getWeight(), ln.getBias()};
  else if (auto rms = dyn_cast<RmsNormOp>(op))
    operands = {rms.getX(), rms.getWeight()};
  else if (auto lng = dyn_cast<LayerNormGradInputOp>(op))
    operands = {lng.getDy(), lng.getX(), lng.getMean(), lng.getRstd(),
                lng.getWeight()};
  else if (auto rmsg = dyn_cast<RmsNormGradInputOp>(op))
    operands = {rmsg.getDy(), rmsg.getX(), rmsg.getRstd(), rmsg.getWeight()};
  else if (auto sgd = dyn_cast<SgdOp>(op))
    operands = {sgd.getParam(), sgd.getGrad(), sgd.getLr(), sgd.getStep(),
                sgd.getMomentumBuffer()};
  else
    operands.append(op->operand_begin(), op->operand_end());
  std::string args;
  for (Value v : operands) {
    if (!args.empty())
      args += ", ";
    if (!v) {
      args += "_";
      continue;
    }
    FailureOr<std::string> r = ref(op, v);
    if (failed(r))
      return failure();
    args += *r;
  }
  FailureOr<std::string> attrs = attributes(op);
  if (failed(attrs))
    return failure();

  StringRef name = op->getName().stripDialect();
  if (failed(checkAgainstSchema(op, name, operands, *attrs)))
    return failure();
  std::string first;
  for (OpResult res : op->getResults()) {
    FailureOr<std::string> type = typeOf(op, res);
    if (failed(type))
      return failure();
    std::string id = define(res);
    if (res.getResultNumber() == 0) {
      first = id;
      text += "op " + id + " " + name.str() + " " + *type + " (" + args + ")" +
              *attrs + "\n";
    } else {
      text += "op " + id + " result " + *type + " (" + first +
              ") index=" + std::to_string(res.getResultNumber()) + "\n";
    }
  }
  return success();
}

LogicalResult HostProgramWriter::write(std::string &out) {
  Location loc = bodyLoc(body);
  if (kind == KernelKind::gemm)
    return mlir::emitError(loc, "host program: gemm kernels run as tfcrt.gemm "
                                "steps and have no host program");
  if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>())
    return mlir::emitError(loc, "host program: kernel body has no terminator");
  if (failed(verifyKernelBody(body, kind, [&]() {
        return mlir::emitError(loc) << "host program: ";
      })))
    return failure();
  Operation *term = &body.back();
  if (term->getNumOperands() == 0)
    return term->emitOpError("host program: a kernel needs an output");

  text = "tfc-host-program 1\nkind " + stringifyKernelKind(kind).str() + "\n";
  for (BlockArgument arg : body.getArguments()) {
    FailureOr<std::string> type = typeOf(body.getParentOp(), arg);
    if (failed(type))
      return failure();
    text += "in " + define(arg) + " " + *type + "\n";
  }
  for (Operation &op : body.without_terminator())
    if (failed(writeOp(&op)))
      return failure();
  for (Value v : term->getOperands()) {
    FailureOr<std::string> r = ref(term, v);
    if (failed(r))
      return failure();
    text += "out " + *r + "\n";
  }
  out = std::move(text);
  return success();
}

} // namespace

ArrayRef<HostOpSchema> mlir::tfc::hostOpSchemas() { return kHostOps; }

FailureOr<std::string> mlir::tfc::emitHostProgram(Block &body,
                                                  KernelKind kind) {
  std::string out;
  if (failed(HostProgramWriter(body, kind).write(out)))
    return failure();
  return out;
}
