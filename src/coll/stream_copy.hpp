// A copy whose destination bypasses the caches, for the end of a long collective: the result of a
// 16 MiB reduction is written once and not read again by the collective, and ordinary stores would
// first read every destination line in (read for ownership) and push useful lines out of the cache.
// Streaming stores write whole lines without reading them. For short data, which the caller will
// likely read next, plain memcpy stays the better choice; the callers decide by the total size.
#pragma once

#include <cstddef>

namespace rmpl::coll {

/// Copies n bytes (the ranges must not overlap) with non-temporal stores where the target has them
/// (x86 SSE2), memcpy elsewhere. Ends with a store fence, so the bytes are ordered before any later
/// store (a flag another process reads).
void stream_copy(std::byte* to, const std::byte* from, std::size_t n) noexcept;

}  // namespace rmpl::coll
