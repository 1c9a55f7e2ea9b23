//===- ArenaPlanner.h - liveness-based arena offsets ------------*- C++ -*-===//
//
// Plans where each intermediate buffer of a step lives inside one arena, so
// that buffers whose lifetimes do not overlap share memory. Pure C++ (no
// MLIR types) so that it can be unit-tested on its own and reused by any
// later planner (e.g. the training step's).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_LOWERING_ARENAPLANNER_H
#define TFC_PASSES_LOWERING_ARENAPLANNER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfc {

/// The steps during which a buffer holds a live value: from the step that
/// writes it (`first`) to the last step that reads it (`last`), both
/// inclusive. A step that reads one buffer and writes another makes both
/// live at once, so a kernel never writes over its own inputs.
struct BufferLifetime {
  int64_t first = 0;
  int64_t last = 0;
};

/// Where the buffers go: `offsets[i]` is the byte offset of buffer `i`, and
/// `size` the arena size (the end of the last buffer rounded up to the
/// alignment).
struct ArenaPlan {
  std::vector<int64_t> offsets;
  int64_t size = 0;
};

/// Plans offsets for buffers of `sizes[i]` bytes live during `lifetimes[i]`:
/// first-fit in the order buffers become live (ties by index), each at the
/// lowest multiple of `alignment` where it overlaps no buffer placed so far
/// whose lifetime intersects its own. Two buffers with overlapping lifetimes
/// therefore never overlap in bytes. Zero-byte buffers get offset 0 and
/// conflict with nothing. Fails (std::nullopt, with a message in `*error`
/// when given) when the vectors differ in length, `alignment` is not a
/// positive power of two, a size is negative, a lifetime ends before it
/// begins, or the arena would exceed INT64_MAX bytes.
std::optional<ArenaPlan> planArena(const std::vector<int64_t> &sizes,
                                   const std::vector<BufferLifetime> &lifetimes,
                                   int64_t alignment,
                                   std::string *error = nullptr);

} // namespace tfc

#endif // TFC_PASSES_LOWERING_ARENAPLANNER_H
