//===- Json.cpp - bounded JSON parsing for tfc-train ----------------------===//

#include "compiler/tools/tfc-train/Json.h"

#include "llvm/Support/Error.h"

using namespace tfc::train;

bool tfc::train::jsonNestsDeeperThan(llvm::StringRef text, int limit) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return false;
}

bool tfc::train::parseJson(llvm::StringRef text, llvm::json::Value &value,
                           std::string &why) {
  if (jsonNestsDeeperThan(text, kMaxJsonDepth)) {
    why = "nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return false;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    why = "is not JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  value = std::move(*parsed);
  return true;
}
