//===- Status.h - runtime error reporting -----------------------*- C++ -*-===//
//
// Every runtime operation that can fail on bad input returns a Status: ok, or
// an error message. The runtime never aborts on bad input.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_STATUS_H
#define TFC_RUNTIME_CORE_STATUS_H

#include <string>
#include <utility>

namespace tfc::rt {

/// Success, or an error with a human-readable message.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed_ = true;
    s.message_ = std::move(message);
    return s;
  }
  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return message_; }

private:
  bool failed_ = false;
  std::string message_;
};

/// Returns early from the enclosing function when `expr` is an error.
#define TFC_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    ::tfc::rt::Status tfcStatus_ = (expr);                                     \
    if (!tfcStatus_.isOk())                                                    \
      return tfcStatus_;                                                       \
  } while (0)

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_STATUS_H
