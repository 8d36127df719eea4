// What every rank of a collective must pass alike (the call's signature): which collective, the
// root, the byte count, the operator, the counts of the v-forms. The checked mode
// (RMPL_CHECK_COLLECTIVES=1, coll/start.cpp) exchanges it before every collective; a blocking
// collective that stalls publishes it for its peers to compare (coll/stall.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rmpl::coll {

/// A field of the record that this collective does not compare.
inline constexpr std::uint64_t unchecked = ~std::uint64_t{0};

/// What every rank of a collective must agree on (sent and published as raw words).
struct agreement {
  std::uint64_t kind = unchecked;
  std::uint64_t root = unchecked;
  std::uint64_t bytes = unchecked;
  std::uint64_t op = unchecked;      ///< operator, element type and size
  std::uint64_t counts = unchecked;  ///< a hash of the per-rank counts
  /// Not compared: the error code with which this rank rejected its own arguments, or 0.
  std::uint64_t failed = 0;

  std::uint64_t field(std::size_t f) const noexcept {
    return reinterpret_cast<const std::uint64_t*>(this)[f];
  }
};
/// The fields above that every rank must pass alike.
inline constexpr std::size_t compared_fields = 5;

/// What field f is, for messages: "which collective they call", "the byte count"...
const char* field_name(std::size_t f) noexcept;
/// Field f's value v, for messages: "allreduce", "root 2", "16 bytes"...
std::string value_text(std::size_t f, std::uint64_t v);

}  // namespace rmpl::coll
