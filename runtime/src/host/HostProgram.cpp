//===- HostProgram.cpp - host program parser and validator ---------------===//
//
// The program text comes from an artifact on disk, so nothing in it is
// trusted: every check the interpreter would otherwise have to make per
// element (operand arity, dtypes, shapes, attribute ranges) is made here,
// once, and reported with the line number.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostProgram.h"
#include "runtime/src/host/HostProgramVerify.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

namespace tfc::rt::host {

namespace {

constexpr OpSchema kOps[] = {
#define TFC_HOST_OP(Code, name, group, operands, optionalFrom, results,        \
                    attributes)                                                \
  {OpCode::Code, name,       OpGroup::group, operands,                          \
   optionalFrom, results,    attributes},
#include "common/HostOps.def"
};

/// Limits that keep a hostile program from requesting absurd work or
/// overflowing index arithmetic; far above any real kernel.
constexpr int64_t kMaxRank = 16;
constexpr int64_t kMaxElements = int64_t(1) << 40;

/// Results of a parsed op: the first is on the op's line, the others on the
/// 'result' lines that follow it. sgd has no momentum-buffer result when its
/// buffer (operand 4) is absent.
int64_t expectedResults(const HostOp &op) {
  int64_t n = opSchema(op.code).results;
  if (op.code == OpCode::Sgd && op.operands.size() == 5 && op.operands[4] < 0)
    --n;
  return n;
}

/// A cursor over one line.
struct Cursor {
  std::string_view s;
  size_t pos = 0;
  void skipSpace() {
    while (pos < s.size() &&
           (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r'))
      ++pos;
  }
  bool atEnd() {
    skipSpace();
    return pos >= s.size();
  }
  /// A whitespace-delimited word, stopping before '('.
  std::string_view word() {
    skipSpace();
    size_t b = pos;
    while (pos < s.size() && s[pos] != ' ' && s[pos] != '\t' &&
           s[pos] != '\r' && s[pos] != '(')
      ++pos;
    return s.substr(b, pos - b);
  }
};

std::vector<std::string_view> splitOn(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  }
  return parts;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// The operand and attribute rules of common/HostOps.def for one op line;
/// an empty string when they hold.
std::string checkSchema(const OpSchema &schema,
                        const std::vector<int64_t> &operands,
                        const AttrMap &attrs) {
  size_t n = operands.size();
  if (schema.operands < 0 ? n == 0 : n != (size_t)schema.operands)
    return schema.operands < 0
               ? "expected at least one operand"
               : "expected " + std::to_string(schema.operands) +
                     " operands, got " + std::to_string(n);
  for (size_t i = 0; i < n; ++i)
    if (operands[i] < 0 &&
        (schema.optionalFrom < 0 || i < (size_t)schema.optionalFrom))
      return "operand " + std::to_string(i) + " may not be absent";
  std::vector<std::string_view> keys;
  for (std::string_view k : splitOn(schema.attributes, ' '))
    if (!k.empty())
      keys.push_back(k);
  for (std::string_view k : keys)
    if (!attrs.count(std::string(k)))
      return "missing attribute '" + std::string(k) + "'";
  for (const auto &[key, value] : attrs)
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      return "unknown attribute '" + key + "'";
  return "";
}

class Parser {
public:
  explicit Parser(HostProgram &prog) : prog(prog) {}
  Status parse(std::string_view text);

private:
  Status err(const std::string &msg) {
    return Status::error("host program line " + std::to_string(line) + ": " +
                         msg);
  }
  Status parseShape(std::string_view s, std::vector<int64_t> &shape);
  Status parseType(std::string_view dt, std::string_view sh, ValueType &t);
  Status parseValueRef(std::string_view s, int64_t &dense);
  Status defineValue(std::string_view s, const ValueType &t, int64_t &dense);
  Status parseOpLine(Cursor &c);

  Status finishPendingIfComplete();
  std::string pendingMissing();

  HostProgram &prog;
  int line = 0;
  /// A multi-result op waiting for its 'result' lines.
  std::optional<HostOp> pending;
  AttrMap pendingAttrs;
  std::unordered_map<int64_t, int64_t> ids; // text id -> dense index
  std::string opNameForErr;
};

Status Parser::parseShape(std::string_view s, std::vector<int64_t> &shape) {
  shape.clear();
  if (s == "scalar")
    return Status::ok();
  if (s.empty())
    return err("missing shape");
  for (std::string_view d : splitOn(s, 'x')) {
    // Digits only: "4x-1" or "4x" must not parse.
    if (d.empty() || !std::all_of(d.begin(), d.end(), [](char ch) {
          return ch >= '0' && ch <= '9';
        }))
      return err("bad shape '" + std::string(s) + "'");
    auto v = parseIntToken(d);
    if (!v)
      return err("bad shape '" + std::string(s) + "'");
    shape.push_back(*v);
  }
  if ((int64_t)shape.size() > kMaxRank)
    return err("shape '" + std::string(s) + "' has rank above " +
               std::to_string(kMaxRank));
  return Status::ok();
}

Status Parser::parseType(std::string_view dt, std::string_view sh,
                         ValueType &t) {
  auto d = parseDType(std::string(dt));
  if (!d)
    return err("unknown dtype '" + std::string(dt) + "'");
  t.dtype = *d;
  TFC_RETURN_IF_ERROR(parseShape(sh, t.shape));
  auto n = numElements(t.shape);
  if (!n || *n > kMaxElements)
    return err("shape '" + std::string(sh) + "' has too many elements");
  t.numel = *n;
  return Status::ok();
}

static std::optional<int64_t> parseId(std::string_view s) {
  if (s.size() < 2 || s[0] != '%')
    return std::nullopt;
  s.remove_prefix(1);
  if (!std::all_of(s.begin(), s.end(),
                   [](char ch) { return ch >= '0' && ch <= '9'; }))
    return std::nullopt;
  return parseIntToken(s);
}

Status Parser::parseValueRef(std::string_view s, int64_t &dense) {
  auto id = parseId(s);
  if (!id)
    return err(opNameForErr + "bad value id '" + std::string(s) + "'");
  auto it = ids.find(*id);
  if (it == ids.end())
    return err(opNameForErr + "value " + std::string(s) + " is not defined");
  dense = it->second;
  return Status::ok();
}

Status Parser::defineValue(std::string_view s, const ValueType &t,
                           int64_t &dense) {
  auto id = parseId(s);
  if (!id)
    return err("bad value id '" + std::string(s) + "'");
  if (ids.count(*id))
    return err("value " + std::string(s) + " is defined twice");
  dense = (int64_t)prog.values.size();
  ids[*id] = dense;
  prog.values.push_back(t);
  return Status::ok();
}

Status Parser::parse(std::string_view text) {
  prog = HostProgram();
  bool sawHeader = false, sawKind = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos)
      nl = text.size();
    std::string_view ln = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line;
    if (ln.empty() || ln.front() == '#')
      continue;
    if (ln.find('\0') != std::string_view::npos)
      return err("unexpected NUL byte");
    Cursor c{ln};
    std::string_view head = c.word();
    opNameForErr.clear();
    if (!sawHeader) {
      std::string_view ver = c.word();
      if (head != "tfc-host-program")
        return err("expected 'tfc-host-program 1' as the first line");
      if (ver != "1" || !c.atEnd())
        return err("unsupported host program version '" + std::string(ver) +
                   "' (this runtime reads version 1)");
      sawHeader = true;
      continue;
    }
    if (!sawKind) {
      if (head != "kind")
        return err("expected 'kind <kernel kind>' after the version line");
      std::string_view k = c.word();
      static const char *kinds[] = {"pointwise",        "row_reduction",
                                    "column_reduction", "gather",
                                    "multi_tensor",     "block_quantized",
                                    "scatter",          "sort"};
      if (std::none_of(std::begin(kinds), std::end(kinds),
                       [&](const char *n) { return k == n; }))
        return err("unknown kernel kind '" + std::string(k) + "'");
      if (!c.atEnd())
        return err("unexpected text after the kernel kind");
      prog.kind = std::string(k);
      sawKind = true;
      continue;
    }
    if (pending && head != "op")
      return err(pendingMissing());
    if (head == "in") {
      if (!prog.ops.empty() || !prog.outputs.empty())
        return err("'in' lines must come before ops and outputs");
      std::string_view id = c.word(), dt = c.word(), sh = c.word();
      if (!c.atEnd())
        return err("unexpected text after an 'in' line");
      ValueType t;
      TFC_RETURN_IF_ERROR(parseType(dt, sh, t));
      int64_t dense;
      TFC_RETURN_IF_ERROR(defineValue(id, t, dense));
      prog.inputs.push_back(dense);
    } else if (head == "op") {
      if (!prog.outputs.empty())
        return err("ops must come before 'out' lines");
      TFC_RETURN_IF_ERROR(parseOpLine(c));
    } else if (head == "out") {
      std::string_view id = c.word();
      if (!c.atEnd())
        return err("unexpected text after an 'out' line");
      int64_t dense;
      TFC_RETURN_IF_ERROR(parseValueRef(id, dense));
      prog.outputs.push_back(dense);
    } else if (head == "tfc-host-program" || head == "kind") {
      return err("duplicate '" + std::string(head) + "' line");
    } else {
      return err("unknown line '" + std::string(head) +
                 "' (expected in, op or out)");
    }
  }
  if (pending)
    return err(pendingMissing());
  line = 0;
  if (!sawHeader)
    return Status::error("host program: empty (expected 'tfc-host-program 1')");
  if (!sawKind)
    return Status::error("host program: missing 'kind' line");
  if (prog.outputs.empty())
    return Status::error("host program: no 'out' line");
  return Status::ok();
}

Status Parser::parseOpLine(Cursor &c) {
  std::string_view idTok = c.word(), name = c.word();
  std::string_view dt = c.word(), sh = c.word();
  bool projection = name == "result";
  const OpSchema *info = nullptr;
  for (const OpSchema &i : kOps)
    if (name == i.name)
      info = &i;
  if (!info && !projection) {
    if (name == "matmul")
      return err("op 'matmul' cannot be in a kernel (GEMMs are gemm steps)");
    return err("unknown op '" + std::string(name) + "'");
  }
  if (pending && !projection)
    return err(pendingMissing());
  if (projection && !pending)
    return err("'result' line without a multi-result op before it");
  opNameForErr = "op '" + std::string(name) + "': ";
  ValueType resultType;
  TFC_RETURN_IF_ERROR(parseType(dt, sh, resultType));

  // Operand list "(%a, %b, _)".
  std::vector<int64_t> operands;
  c.skipSpace();
  if (c.pos >= c.s.size() || c.s[c.pos] != '(')
    return err(opNameForErr + "expected '(' before the operands");
  size_t close = c.s.find(')', c.pos);
  if (close == std::string_view::npos)
    return err(opNameForErr + "missing ')' after the operands");
  std::string_view inner = trim(c.s.substr(c.pos + 1, close - c.pos - 1));
  c.pos = close + 1;
  if (!inner.empty()) {
    for (std::string_view o : splitOn(inner, ',')) {
      o = trim(o);
      if (o == "_") {
        operands.push_back(-1);
        continue;
      }
      int64_t dense;
      TFC_RETURN_IF_ERROR(parseValueRef(o, dense));
      operands.push_back(dense);
    }
  }

  // key=value attributes; a list value may contain spaces inside brackets.
  AttrMap attrs;
  while (!c.atEnd()) {
    size_t b = c.pos;
    size_t eq = c.s.find('=', b);
    if (eq == std::string_view::npos)
      return err(opNameForErr + "expected key=value, got '" +
                 std::string(c.s.substr(b)) + "'");
    std::string key(trim(c.s.substr(b, eq - b)));
    if (key.empty() || key.find_first_of(" \t") != std::string::npos)
      return err(opNameForErr + "bad attribute near '" +
                 std::string(c.s.substr(b)) + "'");
    size_t vb = eq + 1, ve = vb;
    if (vb < c.s.size() && c.s[vb] == '[') {
      ve = c.s.find(']', vb);
      if (ve == std::string_view::npos)
        return err(opNameForErr + "unterminated list in attribute '" + key +
                   "'");
      ++ve;
    } else {
      while (ve < c.s.size() && c.s[ve] != ' ' && c.s[ve] != '\t')
        ++ve;
    }
    if (attrs.count(key))
      return err(opNameForErr + "attribute '" + key + "' given twice");
    attrs[key] = std::string(c.s.substr(vb, ve - vb));
    c.pos = ve;
  }

  if (projection) {
    // "op %5 result f32 8x1 (%4) index=1": result 1 of the op defining %4.
    HostOp &op = *pending;
    auto it = attrs.find("index");
    auto index = it == attrs.end() ? std::nullopt : parseIntToken(it->second);
    if (operands.size() != 1 || operands[0] != op.results[0])
      return err("'result' must name the primary result of the op on line " +
                 std::to_string(op.line));
    if (!index || *index != (int64_t)op.results.size() || attrs.size() != 1)
      return err("'result' expects index=" + std::to_string(op.results.size()) +
                 " and no other attribute");
    int64_t dense;
    TFC_RETURN_IF_ERROR(defineValue(idTok, resultType, dense));
    op.results.push_back(dense);
    return finishPendingIfComplete();
  }

  std::string problem = checkSchema(*info, operands, attrs);
  if (!problem.empty())
    return err(opNameForErr + problem);
  HostOp op;
  op.line = line;
  op.code = info->code;
  op.operands = std::move(operands);
  // Results are defined after the operands were resolved, so an op cannot
  // use its own result.
  int64_t dense;
  TFC_RETURN_IF_ERROR(defineValue(idTok, resultType, dense));
  op.results.push_back(dense);
  pending = std::move(op);
  pendingAttrs = std::move(attrs);
  return finishPendingIfComplete();
}

Status Parser::finishPendingIfComplete() {
  HostOp &op = *pending;
  if ((int64_t)op.results.size() < expectedResults(op))
    return Status::ok();
  int saved = line;
  line = op.line;
  opNameForErr = std::string("op '") + opName(op.code) + "': ";
  std::string problem = verifyHostOp(prog, op, pendingAttrs);
  if (!problem.empty())
    return err(opNameForErr + problem);
  if (!pendingAttrs.empty())
    return err(opNameForErr + "unknown attribute '" +
               pendingAttrs.begin()->first + "'");
  line = saved;
  prog.ops.push_back(std::move(op));
  pending.reset();
  return Status::ok();
}

std::string Parser::pendingMissing() {
  return std::string("op '") + opName(pending->code) + "' on line " +
         std::to_string(pending->line) + " has " +
         std::to_string(expectedResults(*pending)) +
         " results; expected 'result' lines for the others";
}

} // namespace

const OpSchema &opSchema(OpCode code) {
  // kOps and OpCode are expanded from the same rows in the same order.
  return kOps[size_t(code)];
}

ComputeKind computeKind(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return ComputeKind::Double;
  case DType::F32:
  case DType::F16:
  case DType::BF16:
    return ComputeKind::Float;
  default:
    return ComputeKind::Int;
  }
}

DType accumulationDType(DType dtype) {
  if (dtype == DType::F16 || dtype == DType::BF16)
    return DType::F32;
  return dtype;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::optional<int64_t> parseIntToken(std::string_view s) {
  int64_t v = 0;
  if (s.empty())
    return std::nullopt;
  const char *b = s.data(), *e = s.data() + s.size();
  if (*b == '+')
    ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e)
    return std::nullopt;
  return v;
}

std::optional<double> parseFloatToken(std::string_view s) {
  if (s.empty())
    return std::nullopt;
  const char *b = s.data(), *e = s.data() + s.size();
  if (*b == '+')
    ++b;
  double v = 0;
  auto [p, ec] = std::from_chars(b, e, v);
  // from_chars reports out-of-range for denormal-underflow and overflow;
  // both are programming errors in a serialized program.
  if (ec != std::errc() || p != e)
    return std::nullopt;
  return v;
}

Status parseHostProgram(std::string_view text, HostProgram &out) {
  HostProgram prog;
  Parser p(prog);
  TFC_RETURN_IF_ERROR(p.parse(text));
  out = std::move(prog);
  return Status::ok();
}

} // namespace tfc::rt::host
