//===- Json.h - bounded JSON parsing for tfc-train --------------*- C++ -*-===//
//
// Every JSON text tfc-train reads from a file (safetensors headers, a
// checkpoint's meta.json, metrics.jsonl lines) goes through parseJson:
// llvm::json::parse recurses once per nested array or object, so a file of
// 50,000 '[' would overflow the stack. The runtime's reader has the same
// 64-level limit (runtime/src/core/JsonUtil.h).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_JSON_H
#define TFC_TOOLS_TFC_TRAIN_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace tfc::train {

/// The deepest nesting of arrays and objects parseJson accepts.
constexpr int kMaxJsonDepth = 64;

/// Whether `text` nests arrays and objects deeper than `limit` levels
/// (brackets inside strings do not count). Linear, no recursion.
bool jsonNestsDeeperThan(llvm::StringRef text, int limit);

/// Parses `text` into `value`. False with `why` otherwise: a phrase to
/// follow the thing's name, "nests deeper than 64 levels" or "is not JSON:
/// " and llvm::json's message.
bool parseJson(llvm::StringRef text, llvm::json::Value &value,
               std::string &why);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_JSON_H
