// The shm provider's part of a one-host job's segment (runtime/local/segment.hpp makes the segment
// and its runtime part): its parameters, from RMPL_* variables, its layout, and its header.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "fabric/shm/layout.hpp"

namespace rmpl::fabric::shm {

/// The segment parameters for a job of `nranks`, from RMPL_RING_CELLS, RMPL_EAGER_SLOTS,
/// RMPL_EAGER_MAX, RMPL_BOUNCE_CHUNKS, RMPL_BOUNCE_CHUNK, RMPL_COLL_SLOTS and RMPL_COLL_AREA
/// (invalid values throw, naming the variable).
params params_from_env(int nranks);

/// Creates and initialises the segment of a job of `nranks` ranks (the runtime's part, then this
/// provider's); returns its descriptor, close-on-exec: a launcher clears the flag where a rank is
/// to inherit it (between fork and exec). Throws rmpl::error; errc::exhausted, naming the bytes
/// needed (by area) and the bytes free, when the segment would not fit in memory.
int create_job_segment(int nranks);

/// Checks the provider's part of a segment (`bytes` bytes at `part`): its header's magic, version,
/// parameters and offsets, recomputed from the parameters, never trusted. Returns the header.
/// Throws rmpl::error.
const header& check_part(const std::byte* part, std::size_t bytes);

}  // namespace rmpl::fabric::shm
