//===- TfcrtOps.cpp - tfcrt ops: assembly forms and verifiers -------------===//
//
// Every rule a consumer of a lowered module relies on is checked here, so
// that the artifact writer and the runtime can trust a verified module:
// buffers lie inside the arena, launches match their kernels, and every
// element a GEMM touches lies inside its buffers.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfcrt/TfcrtOps.h"
#include "dialects/tfcrt/TfcrtInPlace.h"

#include "common/GemmEpilogues.h"
#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcKernelSchedule.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfcrt;

//===----------------------------------------------------------------------===//
// Buffer helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::tfcrt::getStorageBytes(Type elementType) {
  if (elementType.isInteger(1) || elementType.isUnsignedInteger(8))
    return 1;
  if (elementType.isF16() || elementType.isBF16())
    return 2;
  if (elementType.isF32() || elementType.isInteger(32))
    return 4;
  if (elementType.isF64() || elementType.isInteger(64))
    return 8;
  return std::nullopt;
}

std::optional<int64_t> mlir::tfcrt::getBufferBytes(ShapedType type) {
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> bytes = getStorageBytes(type.getElementType());
  for (int64_t size : type.getShape()) {
    if (!bytes)
      break;
    bytes = llvm::checkedMul(*bytes, size);
  }
  return bytes;
}

MemRefType mlir::tfcrt::getBufferType(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType());
}

bool mlir::tfcrt::bufferMatchesTensor(Type buffer, Type tensor) {
  auto bufferType = dyn_cast<ShapedType>(buffer);
  auto tensorType = dyn_cast<ShapedType>(tensor);
  return bufferType && tensorType && bufferType.hasRank() &&
         tensorType.hasRank() &&
         bufferType.getShape() == tensorType.getShape() &&
         bufferType.getElementType() == tensorType.getElementType();
}

/// True for a statically shaped ranked tensor of a tfc element type, the
/// only tensors a kernel signature may hold.
static bool isKernelTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         getStorageBytes(tensor.getElementType());
}

//===----------------------------------------------------------------------===//
// custom<KernelSignature>: `(tensor types) -> tensor types`
//===----------------------------------------------------------------------===//

static ParseResult parseKernelSignature(OpAsmParser &parser,
                                        TypeAttr &functionType) {
  FunctionType type;
  if (parser.parseType(type))
    return failure();
  functionType = TypeAttr::get(type);
  return success();
}

static void printKernelSignature(OpAsmPrinter &printer, Operation *,
                                 TypeAttr functionType) {
  printer << functionType.getValue();
}

//===----------------------------------------------------------------------===//
// custom<CopyTypes>: `type` when both buffers agree, else `type -> type`
//===----------------------------------------------------------------------===//

static ParseResult parseCopyTypes(OpAsmParser &parser, Type &srcType,
                                  Type &dstType) {
  if (parser.parseType(srcType))
    return failure();
  dstType = srcType;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(dstType);
  return success();
}

static void printCopyTypes(OpAsmPrinter &printer, Operation *, Type srcType,
                           Type dstType) {
  printer << srcType;
  if (dstType != srcType)
    printer << " -> " << dstType;
}

#define GET_OP_CLASSES
#include "dialects/tfcrt/TfcrtOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ArenaOp
//===----------------------------------------------------------------------===//

ArenaOp ArenaOp::lookup(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (!module)
    return {};
  for (Operation &child : module.getBody()->getOperations())
    if (auto arena = dyn_cast<ArenaOp>(child))
      return arena;
  return {};
}

// I64Attr getters return uint64_t; the fields are signed in the IR, so every
// verifier reads them as int64_t to see negative values as negative.
LogicalResult ArenaOp::verify() {
  auto size = static_cast<int64_t>(getSize());
  auto alignment = static_cast<int64_t>(getAlignment());
  if (size < 0)
    return emitOpError("size must be non-negative, got ") << size;
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return emitOpError("alignment must be a positive power of two, got ")
           << alignment;
  // Reported at the second arena, the one to remove.
  for (Operation *other = (*this)->getPrevNode(); other;
       other = other->getPrevNode())
    if (isa<ArenaOp>(other))
      return emitOpError("a module has at most one arena");
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     tfc::KernelKind kind, FunctionType functionType) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getKindAttrName(state.name),
                     tfc::KernelKindAttr::get(builder.getContext(), kind));
  state.addAttribute(getFunctionTypeAttrName(state.name),
                     TypeAttr::get(functionType));
  Region *body = state.addRegion();
  auto *block = new Block();
  body->push_back(block);
  SmallVector<Location> locations(functionType.getNumInputs(), state.location);
  block->addArguments(functionType.getInputs(), locations);
}

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  for (BlockArgument argument : region.getArguments())
    setNameFn(argument, "in");
}

LogicalResult KernelOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() == 0)
    return emitOpError("must have at least one output");
  for (auto [index, input] : llvm::enumerate(type.getInputs()))
    if (!isKernelTensor(input))
      return emitOpError("input #")
             << index << " must be a statically shaped tensor of a tfc "
             << "element type, got " << input;
  for (auto [index, output] : llvm::enumerate(type.getResults()))
    if (!isKernelTensor(output))
      return emitOpError("output #")
             << index << " must be a statically shaped tensor of a tfc "
             << "element type, got " << output;
  Block &body = getBodyBlock();
  if (body.getNumArguments() != type.getNumInputs())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the signature has "
           << type.getNumInputs() << " inputs";
  for (auto [index, argument, input] :
       llvm::enumerate(body.getArguments(), type.getInputs()))
    if (argument.getType() != input)
      return emitOpError("body argument #")
             << index << " has type " << argument.getType() << " but input #"
             << index << " is " << input;
  return success();
}

std::optional<unsigned> KernelOp::getInPlaceInput(unsigned output) {
  std::optional<ArrayRef<int64_t>> inPlace = getInPlace();
  if (!inPlace || output >= inPlace->size() || (*inPlace)[output] < 0)
    return std::nullopt;
  return static_cast<unsigned>((*inPlace)[output]);
}

/// Every attribute of `kernel` (inherent ones included) except its name.
static DictionaryAttr attributesIgnoringName(KernelOp kernel) {
  NamedAttrList attributes(kernel->getAttrDictionary());
  attributes.erase(kernel.getSymNameAttrName());
  return attributes.getDictionary(kernel.getContext());
}

llvm::hash_code KernelOp::hashIgnoringName() {
  llvm::hash_code hash = hash_value(attributesIgnoringName(*this));
  for (Operation &op : getBodyBlock())
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     &op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  return hash;
}

bool KernelOp::isEquivalentIgnoringName(KernelOp other) {
  return attributesIgnoringName(*this) == attributesIgnoringName(other) &&
         OperationEquivalence::isRegionEquivalentTo(
             &getBody(), &other.getBody(),
             OperationEquivalence::IgnoreLocations);
}

// The kernel rules query the body ops' interfaces, which is only safe once
// those ops have verified themselves; so does the in-place rule.
LogicalResult KernelOp::verifyRegions() {
  if (!isa<YieldOp>(getBodyBlock().getTerminator()))
    return emitOpError("body must end with tfcrt.yield");
  if (failed(tfc::verifyKernelBody(getBodyBlock(), getKind(),
                                   [&] { return emitOpError(); })))
    return failure();
  if (tfc::KernelScheduleAttr schedule = getScheduleAttr())
    if (failed(tfc::verifyKernelSchedule(getKind(), getBodyBlock(), schedule,
                                         [&] { return emitOpError(); })))
      return failure();
  std::optional<ArrayRef<int64_t>> inPlace = getInPlace();
  if (!inPlace)
    return success();
  FunctionType type = getFunctionType();
  if (inPlace->size() != type.getNumResults())
    return emitOpError("in_place has ")
           << inPlace->size() << " entries but the kernel has "
           << type.getNumResults() << " outputs";
  llvm::SmallDenseMap<int64_t, unsigned> outputOf;
  for (auto [output, input] : llvm::enumerate(*inPlace)) {
    if (input == -1)
      continue;
    if (input < 0 || input >= static_cast<int64_t>(type.getNumInputs()))
      return emitOpError("in_place entry #")
             << output << " is " << input << ", neither -1 nor an input "
             << "index (the kernel has " << type.getNumInputs() << " inputs)";
    // Two outputs written into one buffer would race.
    auto [it, inserted] = outputOf.try_emplace(input, output);
    if (!inserted)
      return emitOpError("outputs #")
             << it->second << " and #" << output << " both update input #"
             << input << " in place";
    if (failed(checkInPlaceOutput(getBodyBlock(), getKind(), input, output,
                                  [&] { return emitOpError(); })))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  auto kernel = cast<KernelOp>((*this)->getParentOp());
  ArrayRef<Type> outputs = kernel.getFunctionType().getResults();
  if (getValues().size() != outputs.size())
    return emitOpError("yields ")
           << getValues().size() << " values but the kernel has "
           << outputs.size() << " outputs";
  for (auto [index, value, output] : llvm::enumerate(getValues(), outputs))
    if (value.getType() != output)
      return emitOpError("value #")
             << index << " has type " << value.getType()
             << " but the kernel's output #" << index << " is " << output;
  return success();
}

//===----------------------------------------------------------------------===//
// EntryOp
//===----------------------------------------------------------------------===//

void EntryOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                    bool refresh) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  if (refresh)
    state.addAttribute(getRefreshAttrName(state.name), builder.getUnitAttr());
  state.addRegion()->push_back(new Block());
}

// The caller binds externals by name, so a name must pick one buffer.
LogicalResult EntryOp::verifyRegions() {
  llvm::StringMap<ExternalOp> seen;
  for (auto external : getBodyBlock().getOps<ExternalOp>()) {
    auto [it, inserted] = seen.try_emplace(external.getName(), external);
    if (!inserted)
      return external.emitOpError("name '")
                 .append(external.getName(), "' is already bound by another "
                                             "tfcrt.external of this entry")
                 .attachNote(it->second.getLoc())
             << "first bound here";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

LogicalResult ExternalOp::verify() {
  if (getName().empty())
    return emitOpError("name must not be empty");
  return success();
}

LogicalResult ArenaViewOp::verify() {
  auto offset = static_cast<int64_t>(getOffset());
  if (offset < 0)
    return emitOpError("offset must be non-negative, got ") << offset;
  ArenaOp arena = ArenaOp::lookup(*this);
  if (!arena)
    return emitOpError("needs a tfcrt.arena in the enclosing module");
  // A bad alignment is reported by the arena's own verifier.
  auto alignment = static_cast<int64_t>(arena.getAlignment());
  auto arenaSize = static_cast<int64_t>(arena.getSize());
  if (alignment > 0 && offset % alignment != 0)
    return emitOpError("offset ")
           << offset << " is not a multiple of the arena alignment "
           << alignment;
  std::optional<int64_t> bytes = getBufferBytes(getType());
  std::optional<int64_t> end =
      bytes ? llvm::checkedAdd(offset, *bytes) : std::nullopt;
  if (!end || *end > arenaSize)
    return emitOpError("buffer of ")
           << (bytes ? std::to_string(*bytes) : std::string("too many"))
           << " bytes at offset " << offset << " ends past the arena ("
           << arenaSize << " bytes)";
  return success();
}

LogicalResult AliasOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError("element type ")
           << result.getElementType() << " differs from the source's "
           << source.getElementType();
  if (source.getNumElements() != result.getNumElements())
    return emitOpError("has ")
           << result.getNumElements() << " elements but the source has "
           << source.getNumElements();
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

/// The buffer `buffer` is a view of: aliases are followed to their source.
static Value rootBuffer(Value buffer) {
  while (auto alias = buffer.getDefiningOp<AliasOp>())
    buffer = alias.getSource();
  return buffer;
}

/// Whether two buffers of an entry may share bytes: views of one root, or
/// arena views whose byte ranges intersect. Externals are distinct buffers
/// of the caller (one per name).
static bool buffersMayOverlap(Value a, Value b) {
  a = rootBuffer(a);
  b = rootBuffer(b);
  if (a == b)
    return true;
  auto viewA = a.getDefiningOp<ArenaViewOp>();
  auto viewB = b.getDefiningOp<ArenaViewOp>();
  if (!viewA || !viewB)
    return false;
  std::optional<int64_t> bytesA = getBufferBytes(viewA.getType());
  std::optional<int64_t> bytesB = getBufferBytes(viewB.getType());
  if (!bytesA || !bytesB || *bytesA == 0 || *bytesB == 0)
    return false;
  auto offsetA = static_cast<int64_t>(viewA.getOffset());
  auto offsetB = static_cast<int64_t>(viewB.getOffset());
  return offsetA < offsetB + *bytesB && offsetB < offsetA + *bytesA;
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("'") << getKernel() << "' does not name a tfcrt.kernel";
  FunctionType type = kernel.getFunctionType();
  auto check = [&](StringRef what, ValueRange buffers,
                   ArrayRef<Type> tensors) -> LogicalResult {
    if (buffers.size() != tensors.size())
      return emitOpError("has ")
             << buffers.size() << " " << what << "s but kernel @" << getKernel()
             << " has " << tensors.size();
    for (auto [index, buffer, tensor] : llvm::enumerate(buffers, tensors))
      if (!bufferMatchesTensor(buffer.getType(), tensor))
        return emitOpError()
               << what << " #" << index << " " << buffer.getType()
               << " does not hold kernel @" << getKernel() << "'s " << tensor
               << " (same shape and element type expected)";
    return success();
  };
  if (failed(check("input", getInputs(), type.getInputs())) ||
      failed(check("output", getOutputs(), type.getResults())))
    return failure();
  // Two outputs written to one buffer would race on the device, and an
  // output over an input is only safe where the kernel says so.
  for (auto [i, first] : llvm::enumerate(getOutputs())) {
    for (auto [j, second] : llvm::enumerate(getOutputs().drop_front(i + 1)))
      if (buffersMayOverlap(first, second))
        return emitOpError("outputs #")
               << i << " and #" << i + 1 + j
               << (first == second ? " are the same buffer"
                                   : " overlap in memory");
    std::optional<unsigned> inPlace = kernel.getInPlaceInput(i);
    for (auto [j, input] : llvm::enumerate(getInputs())) {
      if (!buffersMayOverlap(first, input))
        continue;
      if (first == input && inPlace == j)
        continue;
      InFlightDiagnostic diag = emitOpError("output #")
                                << i << " overlaps input #" << j;
      if (first == input)
        diag << ", which kernel @" << getKernel()
             << " does not declare in_place for it";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

namespace {
/// One operand of a GEMM as cuBLASLt sees it: a stored row-major matrix of
/// `rows x cols` with leading dimension `ld`, repeated `batch` times
/// `stride` elements apart.
struct GemmOperand {
  StringRef name;
  Value buffer;
  Type declaredType;
  int64_t rows, cols, ld, stride;
};
} // namespace

/// Elements from the first to one past the last element the GEMM touches in
/// `operand`, or std::nullopt on overflow.
static std::optional<int64_t> footprint(const GemmOperand &operand,
                                        int64_t batch) {
  std::optional<int64_t> last = llvm::checkedMul(batch - 1, operand.stride);
  std::optional<int64_t> rows = llvm::checkedMul(operand.rows - 1, operand.ld);
  if (!last || !rows)
    return std::nullopt;
  last = llvm::checkedAdd(*last, *rows);
  return last ? llvm::checkedAdd(*last, operand.cols) : std::nullopt;
}

LogicalResult GemmOp::verify() {
  // Dtypes: the declared types are the buffers' and follow tfc.matmul.
  Type aType = getAType(), bType = getBType(), cType = getCType();
  for (auto [name, declared, buffer] :
       {std::tuple{"a", aType, getA()}, std::tuple{"b", bType, getB()},
        std::tuple{"c", cType, getC()}}) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    if (declared != element)
      return emitOpError() << name << "_type " << declared
                           << " does not match the element type " << element
                           << " of " << name;
  }
  if (!isa<FloatType>(aType) || aType != bType)
    return emitOpError("a_type and b_type must be one float type, got ")
           << aType << " and " << bType;
  bool isHalf = aType.isF16() || aType.isBF16();
  if (cType != aType && !(isHalf && cType.isF32()))
    return emitOpError("c_type must be ")
           << aType << (isHalf ? " or f32" : "") << " for " << aType
           << " operands, got " << cType;
  // TF32 tensor cores are an accumulation choice for f32 operands only.
  Type accumulation = tfc::accumulationType(aType);
  bool tf32 = aType.isF32() && isa<FloatTF32Type>(getComputeType());
  if (getComputeType() != accumulation && !tf32)
    return emitOpError("compute_type must be ")
           << accumulation << (aType.isF32() ? " or tf32" : "") << " for "
           << aType << " operands, got " << getComputeType();
  if (!std::isfinite(getAlpha().convertToDouble()) ||
      !std::isfinite(getBeta().convertToDouble()))
    return emitOpError("alpha and beta must be finite");

  auto field = [](uint64_t value) { return static_cast<int64_t>(value); };
  int64_t m = field(getM()), n = field(getN()), k = field(getK()),
          batch = field(getBatch());
  if (m < 1 || n < 1 || k < 1 || batch < 1)
    return emitOpError("m, n, k and batch must be positive, got m=")
           << m << " n=" << n << " k=" << k << " batch=" << batch;
  if (getC() == getA() || getC() == getB())
    return emitOpError("c must be a buffer other than a and b");

  // Stored (row-major) shapes: op(A) is m x k, op(B) is k x n, C is m x n.
  GemmOperand operands[] = {
      {"a", getA(), aType, getTransposeA() ? k : m, getTransposeA() ? m : k,
       field(getLda()), field(getStrideA())},
      {"b", getB(), bType, getTransposeB() ? n : k, getTransposeB() ? k : n,
       field(getLdb()), field(getStrideB())},
      {"c", getC(), cType, m, n, field(getLdc()), field(getStrideC())}};
  for (const GemmOperand &operand : operands) {
    if (operand.ld < operand.cols)
      return emitOpError("ld")
             << operand.name << " " << operand.ld
             << " is less than the column count " << operand.cols
             << " of the stored " << operand.rows << "x" << operand.cols << " "
             << operand.name;
    if (operand.stride < 0)
      return emitOpError("stride_")
             << operand.name << " must be non-negative, got " << operand.stride;
    int64_t elements =
        cast<MemRefType>(operand.buffer.getType()).getNumElements();
    std::optional<int64_t> extent = footprint(operand, batch);
    if (!extent || *extent > elements)
      return emitOpError("reads or writes ")
             << (extent ? std::to_string(*extent) : std::string("too many"))
             << " elements of " << operand.name << ", which has only "
             << elements;
  }
  // Each batch writes its own C matrix; a shared or overlapping one races.
  if (batch > 1) {
    std::optional<int64_t> matrix = footprint(operands[2], 1);
    if (!matrix || field(getStrideC()) < *matrix)
      return emitOpError("stride_c ")
             << field(getStrideC()) << " makes the batch's C matrices overlap "
             << "(each spans " << (matrix ? *matrix : 0) << " elements)";
  }
  // C is written whole: batch blocks of m rows of ldc elements. A GEMM that
  // leaves part of its result unwritten would hand stale data to the next
  // step (the runtime's loader checks the same).
  std::optional<int64_t> rows = llvm::checkedMul(batch - 1, operands[2].stride);
  std::optional<int64_t> block = llvm::checkedMul(m, operands[2].ld);
  std::optional<int64_t> covered =
      rows && block ? llvm::checkedAdd(*rows, *block) : std::nullopt;
  int64_t cElements = cast<MemRefType>(getC().getType()).getNumElements();
  if (!covered || *covered != cElements)
    return emitOpError("writes ")
           << batch << " x " << m << " rows of " << operands[2].ld
           << " elements of c, which has " << cElements
           << " (a GEMM must write its whole result)";
  return verifyEpilogue();
}

LogicalResult GemmOp::verifyEpilogue() {
  GemmEpilogue epilogue = getEpilogue();
  StringRef name = stringifyGemmEpilogue(epilogue);
  // How the epilogue uses bias and aux: common/GemmEpilogues.h, by name.
  const ::tfc::GemmEpilogueInfo *info =
      ::tfc::findGemmEpilogue(name.str().c_str());
  if (!info)
    return emitOpError("epilogue '")
           << name << "' has no row in common/GemmEpilogues.h (internal)";
  bool writesBias = info->bias == ::tfc::EpilogueOperand::Written;
  bool wantsBias = info->bias != ::tfc::EpilogueOperand::None;
  bool wantsAux = info->aux != ::tfc::EpilogueOperand::None;
  if (bool(getBias()) != wantsBias)
    return emitOpError("epilogue '")
           << name << "' " << (wantsBias ? "needs" : "takes no")
           << " bias operand";
  if (bool(getAux()) != wantsAux)
    return emitOpError("epilogue '")
           << name << "' " << (wantsAux ? "needs" : "takes no")
           << " aux operand";
  if (epilogue == GemmEpilogue::none)
    return success();
  if (getBatch() != 1 || !getBeta().isZero())
    return emitOpError("epilogue '")
           << name << "' needs batch 1 and beta 0 (an epilogue GEMM never "
           << "accumulates into c)";
  if (!wantsBias)
    return verifyAux();

  // bias: n elements of c_type, broadcast over the rows.
  auto biasType = cast<MemRefType>(getBias().getType());
  if (biasType.getElementType() != getCType())
    return emitOpError("bias element type ")
           << biasType.getElementType() << " must be c_type " << getCType();
  if (biasType.getNumElements() != static_cast<int64_t>(getN()))
    return emitOpError("bias has ")
           << biasType.getNumElements() << " elements, expected n = "
           << getN();
  if (buffersMayOverlap(getBias(), getC()))
    return emitOpError("c overlaps bias");
  if (writesBias)
    for (auto [operandName, operand] :
         {std::pair{"a", getA()}, std::pair{"b", getB()}})
      if (buffersMayOverlap(getBias(), operand))
        return emitOpError("the bias gradient overlaps ") << operandName;
  return verifyAux();
}

LogicalResult GemmOp::verifyAux() {
  if (!getAux())
    return success();
  // aux: laid out like C, written next to it, read by no operand.
  auto auxType = cast<MemRefType>(getAux().getType());
  auto cType = cast<MemRefType>(getC().getType());
  if (auxType.getElementType() != getCType() ||
      auxType.getNumElements() != cType.getNumElements())
    return emitOpError("aux ")
           << auxType << " must hold as many elements of c_type as c "
           << cType;
  for (auto [operandName, operand] :
       {std::pair{"a", getA()}, std::pair{"b", getB()},
        std::pair{"bias", getBias()}, std::pair{"c", getC()}})
    if (operand && buffersMayOverlap(getAux(), operand))
      return emitOpError("aux overlaps ") << operandName;
  return success();
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  if (getSrc() == getDst())
    return emitOpError("copies a buffer onto itself");
  std::optional<int64_t> srcBytes = getBufferBytes(getSrc().getType());
  std::optional<int64_t> dstBytes = getBufferBytes(getDst().getType());
  if (srcBytes != dstBytes)
    return emitOpError("source has ")
           << srcBytes.value_or(-1) << " bytes but the destination has "
           << dstBytes.value_or(-1);
  return success();
}
