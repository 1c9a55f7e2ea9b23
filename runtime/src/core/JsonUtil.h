//===- JsonUtil.h - checked access to untrusted JSON ------------*- C++ -*-===//
//
// Internal helpers for the artifact manifest and safetensors headers. Both
// are untrusted: every access checks presence and type and reports an error
// naming the field by its path ("buffers[3].shape[1]").
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_JSONUTIL_H
#define TFC_RUNTIME_CORE_JSONUTIL_H

#include "runtime/src/core/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tfc::rt::json {

using Json = nlohmann::json;

/// Parses `text` into `out`. Rejects syntax errors, objects with duplicate
/// keys (nlohmann would silently keep the last one) and nesting deeper than
/// 64 levels. `what` (may be empty) prefixes error messages.
Status parse(const std::string &text, const std::string &what, Json &out);

/// `path` + "." + `key`, or `key` when `path` is empty.
std::string child(const std::string &path, const std::string &key);
/// `path` + "[i]".
std::string element(const std::string &path, size_t index);

/// The member `key` of object `obj` (at `path`); error when `obj` is not an
/// object or the member is missing.
Status member(const Json &obj, const std::string &path, const char *key,
              const Json *&out);

/// Typed reads of member `key`; errors name `path.key` and the expected type.
Status getInt(const Json &obj, const std::string &path, const char *key,
              int64_t &out);
Status getNumber(const Json &obj, const std::string &path, const char *key,
                 double &out);
Status getBool(const Json &obj, const std::string &path, const char *key,
               bool &out);
Status getString(const Json &obj, const std::string &path, const char *key,
                 std::string &out);
/// An array of integers, each checked against [minValue, maxValue].
Status getIntArray(const Json &obj, const std::string &path, const char *key,
                   int64_t minValue, int64_t maxValue,
                   std::vector<int64_t> &out);

/// Reads `value` (at `path`) as an integer (not a float, no overflow).
Status asInt(const Json &value, const std::string &path, int64_t &out);

} // namespace tfc::rt::json

#endif // TFC_RUNTIME_CORE_JSONUTIL_H
