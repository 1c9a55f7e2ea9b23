//===- HostProgramVerify.h - per-op rules of host programs ------*- C++ -*-===//
//
// Internal to the host program parser: the dtype/shape/attribute rules of
// each op, mirroring the tfc dialect's verifiers and type inference.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTPROGRAMVERIFY_H
#define TFC_RUNTIME_HOST_HOSTPROGRAMVERIFY_H

#include "runtime/src/host/HostProgram.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tfc::rt::host {

/// The `key=value` attributes of one op line (values unparsed).
using AttrMap = std::map<std::string, std::string>;

/// Checks `op` (operands and results already resolved in `prog.values`) and
/// moves its attributes from `attrs` into `op`'s fields, erasing each key it
/// reads. Returns an empty string when the op is valid, else the problem.
std::string verifyHostOp(const HostProgram &prog, HostOp &op, AttrMap &attrs);

/// verifyHostOp for the optimizer ops (adamw, adam, sgd); defined in
/// HostOptimizerOps.cpp next to their interpreter.
std::string verifyOptimizerOp(const HostProgram &prog, HostOp &op,
                              AttrMap &attrs);

/// verifyHostOp for adamw8bit (HostOptimizerOps.cpp).
std::string verifyAdamW8bitOp(const HostProgram &prog, HostOp &op,
                              AttrMap &attrs);

/// verifyHostOp for the backward ops (HostGradOps.cpp).
std::string verifyGradOp(const HostProgram &prog, HostOp &op, AttrMap &attrs);

/// verifyHostOp for sort (HostSortOps.cpp).
std::string verifySortOp(const HostProgram &prog, HostOp &op, AttrMap &attrs);

/// Decimal integer / round-trippable float (`inf`, `-inf`, `nan` accepted)
/// spanning all of `s`; std::nullopt otherwise.
std::optional<int64_t> parseIntToken(std::string_view s);
std::optional<double> parseFloatToken(std::string_view s);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTPROGRAMVERIFY_H
