//===- HostSignature.cpp - kernel signatures from host programs -----------===//
//
// The manifest does not repeat each kernel's parameter types; they are in the
// host program's `in`/`out` lines (docs/execution.md section 5). The loader
// reads just those lines to check every launch, leaving the ops to the host
// backend's interpreter.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Artifact.h"

#include <cstdint>
#include <map>
#include <sstream>

namespace tfc::rt {

namespace {
Status parseShapeToken(const std::string &tok, std::vector<int64_t> &shape) {
  shape.clear();
  if (tok == "scalar")
    return Status::ok();
  std::stringstream ss(tok);
  std::string dim;
  size_t parts = 0;
  while (std::getline(ss, dim, 'x')) {
    ++parts;
    if (dim.empty() || dim.size() > 18 ||
        dim.find_first_not_of("0123456789") != std::string::npos)
      return Status::error("bad shape '" + tok + "'");
    shape.push_back(std::stoll(dim));
  }
  if (parts == 0 || tok.back() == 'x' || !numElements(shape))
    return Status::error("bad shape '" + tok + "'");
  return Status::ok();
}

Status parseValueId(const std::string &tok, int64_t &id) {
  if (tok.size() < 2 || tok.size() > 12 || tok[0] != '%' ||
      tok.find_first_not_of("0123456789", 1) != std::string::npos)
    return Status::error("bad value id '" + tok + "'");
  id = std::stoll(tok.substr(1));
  return Status::ok();
}

} // namespace

Status readHostProgramSignature(const std::string &program, std::string &kind,
                                std::vector<TensorSig> &inputs,
                                std::vector<TensorSig> &outputs) {
  kind.clear();
  inputs.clear();
  outputs.clear();
  std::map<int64_t, TensorSig> values;
  std::stringstream lines(program);
  std::string line;
  int lineNo = 0;
  bool sawHeader = false;
  auto err = [&](const std::string &msg) {
    return Status::error("line " + std::to_string(lineNo) + ": " + msg);
  };
  while (std::getline(lines, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::stringstream ls(line);
    std::vector<std::string> toks;
    for (std::string t; ls >> t;)
      toks.push_back(t);
    if (toks.empty() || toks[0][0] == '#')
      continue;
    if (!sawHeader) {
      if (toks.size() != 2 || toks[0] != "tfc-host-program")
        return err("expected 'tfc-host-program 1' first");
      if (toks[1] != "1")
        return err("unsupported host program version '" + toks[1] + "'");
      sawHeader = true;
      continue;
    }
    const std::string &head = toks[0];
    if (head == "kind") {
      if (toks.size() != 2)
        return err("expected 'kind <name>'");
      kind = toks[1];
    } else if (head == "in" || head == "op") {
      size_t dtypeAt = head == "in" ? 2 : 3;
      if (toks.size() < dtypeAt + 2)
        return err("'" + head + "' line is too short");
      int64_t id;
      Status idStatus = parseValueId(toks[1], id);
      if (!idStatus)
        return err(idStatus.message());
      TensorSig sig;
      auto d = parseDType(toks[dtypeAt]);
      if (!d)
        return err("unknown dtype '" + toks[dtypeAt] + "'");
      sig.dtype = *d;
      Status s = parseShapeToken(toks[dtypeAt + 1], sig.shape);
      if (!s)
        return err(s.message());
      if (!values.emplace(id, sig).second)
        return err("value %" + std::to_string(id) + " defined twice");
      if (head == "in")
        inputs.push_back(sig);
    } else if (head == "out") {
      if (toks.size() < 2)
        return err("expected 'out %<id>'");
      for (size_t i = 1; i < toks.size(); ++i) {
        int64_t id;
        Status s = parseValueId(toks[i], id);
        if (!s)
          return err(s.message());
        auto it = values.find(id);
        if (it == values.end())
          return err("output %" + std::to_string(id) + " is not defined");
        outputs.push_back(it->second);
      }
    }
    // Other lines are the interpreter's business (runtime/src/host).
  }
  if (!sawHeader)
    return Status::error("empty host program (expected 'tfc-host-program 1')");
  if (kind.empty())
    return Status::error("host program has no 'kind' line");
  if (outputs.empty())
    return Status::error("host program has no 'out' line");
  return Status::ok();
}

} // namespace tfc::rt
