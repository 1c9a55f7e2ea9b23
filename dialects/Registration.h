//===- Registration.h - dialects and passes every tfc tool uses -*- C++ -*-===//
//
// The one place that decides which dialects and upstream passes tfc's tools
// know. Only the upstream dialects tfc uses are registered (registering all of
// MLIR costs minutes of build time per tool).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_REGISTRATION_H
#define TFC_DIALECTS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tfc {

/// Adds the tfc and tfcrt dialects and the upstream dialects tfc IR uses
/// (builtin, func).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the upstream passes tfc pipelines and tests use (canonicalize,
/// cse, inline, symbol-dce, ...) with the global pass registry.
void registerUpstreamPasses();

} // namespace tfc

#endif // TFC_DIALECTS_REGISTRATION_H
