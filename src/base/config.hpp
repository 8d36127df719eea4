// Tunables read from RMPL_* environment variables. Every rank of a job inherits the launcher's
// environment; the values that shape shared memory are fixed by whoever creates the segment and
// stored in its header, so ranks can never disagree about the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rmpl::base {

/// A variable's value parsed as an unsigned integer with an optional K/M/G suffix; `fallback` when
/// unset. A malformed value or one outside [min, max] throws errc::invalid_argument naming it.
std::uint64_t env_size(const char* name, std::uint64_t fallback, std::uint64_t min,
                       std::uint64_t max);

/// "auto" (-1), "0"/"off"/"no" (0) or "1"/"on"/"yes" (1); anything else throws.
int env_tristate(const char* name);

/// The raw value, or `fallback` when unset.
std::string env_string(const char* name, const std::string& fallback);

}  // namespace rmpl::base
