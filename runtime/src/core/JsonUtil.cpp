//===- JsonUtil.cpp - checked access to untrusted JSON --------------------===//

#include "runtime/src/core/JsonUtil.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

namespace tfc::rt::json {

Status parse(const std::string &text, const std::string &what, Json &out) {
  // Track the keys of every open object to detect duplicates, and the depth to
  // bound recursion. The callback sees events in document order.
  std::vector<std::set<std::string>> openObjects;
  std::string error;
  constexpr int kMaxDepth = 64;
  auto callback = [&](int depth, Json::parse_event_t event,
                      Json &parsed) -> bool {
    if (!error.empty())
      return true;
    switch (event) {
    case Json::parse_event_t::object_start:
    case Json::parse_event_t::array_start:
      if (depth >= kMaxDepth)
        error = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
      if (event == Json::parse_event_t::object_start)
        openObjects.emplace_back();
      break;
    case Json::parse_event_t::object_end:
      if (!openObjects.empty())
        openObjects.pop_back();
      break;
    case Json::parse_event_t::key:
      if (!openObjects.empty() && parsed.is_string() &&
          !openObjects.back().insert(parsed.get<std::string>()).second)
        error = "duplicate key \"" + parsed.get<std::string>() + "\"";
      break;
    default:
      break;
    }
    return true;
  };
  std::string prefix = what.empty() ? "" : what + ": ";
  try {
    out = Json::parse(text, callback, /*allow_exceptions=*/true,
                      /*ignore_comments=*/false);
  } catch (const std::exception &e) {
    return Status::error(prefix + "invalid JSON: " + e.what());
  }
  if (!error.empty())
    return Status::error(prefix + "invalid JSON: " + error);
  return Status::ok();
}

std::string child(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

std::string element(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

Status member(const Json &obj, const std::string &path, const char *key,
              const Json *&out) {
  if (!obj.is_object())
    return Status::error((path.empty() ? std::string("document") : path) +
                         ": expected an object");
  auto it = obj.find(key);
  if (it == obj.end())
    return Status::error(child(path, key) + ": missing field");
  out = &*it;
  return Status::ok();
}

Status asInt(const Json &value, const std::string &path, int64_t &out) {
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Status::error(path + ": integer out of range");
    out = static_cast<int64_t>(u);
    return Status::ok();
  }
  if (value.is_number_integer()) {
    out = value.get<int64_t>();
    return Status::ok();
  }
  return Status::error(path + ": expected an integer, got " +
                       std::string(value.type_name()));
}

Status getInt(const Json &obj, const std::string &path, const char *key,
              int64_t &out) {
  const Json *v;
  TFC_RETURN_IF_ERROR(member(obj, path, key, v));
  return asInt(*v, child(path, key), out);
}

Status getNumber(const Json &obj, const std::string &path, const char *key,
                 double &out) {
  const Json *v;
  TFC_RETURN_IF_ERROR(member(obj, path, key, v));
  if (!v->is_number())
    return Status::error(child(path, key) + ": expected a number, got " +
                         std::string(v->type_name()));
  out = v->get<double>();
  if (!std::isfinite(out))
    return Status::error(child(path, key) + ": number is not finite");
  return Status::ok();
}

Status getBool(const Json &obj, const std::string &path, const char *key,
               bool &out) {
  const Json *v;
  TFC_RETURN_IF_ERROR(member(obj, path, key, v));
  if (!v->is_boolean())
    return Status::error(child(path, key) + ": expected a boolean, got " +
                         std::string(v->type_name()));
  out = v->get<bool>();
  return Status::ok();
}

Status getString(const Json &obj, const std::string &path, const char *key,
                 std::string &out) {
  const Json *v;
  TFC_RETURN_IF_ERROR(member(obj, path, key, v));
  if (!v->is_string())
    return Status::error(child(path, key) + ": expected a string, got " +
                         std::string(v->type_name()));
  out = v->get<std::string>();
  return Status::ok();
}

Status getIntArray(const Json &obj, const std::string &path, const char *key,
                   int64_t minValue, int64_t maxValue,
                   std::vector<int64_t> &out) {
  const Json *v;
  TFC_RETURN_IF_ERROR(member(obj, path, key, v));
  std::string p = child(path, key);
  if (!v->is_array())
    return Status::error(p + ": expected an array, got " +
                         std::string(v->type_name()));
  out.clear();
  for (size_t i = 0; i < v->size(); ++i) {
    int64_t x;
    TFC_RETURN_IF_ERROR(asInt((*v)[i], element(p, i), x));
    if (x < minValue || x > maxValue)
      return Status::error(element(p, i) + ": value " + std::to_string(x) +
                           " outside [" + std::to_string(minValue) + ", " +
                           std::to_string(maxValue) + "]");
    out.push_back(x);
  }
  return Status::ok();
}

} // namespace tfc::rt::json
