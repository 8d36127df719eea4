#include "coll/agreement.hpp"

#include <fmt/format.h>

#include <iterator>

#include "coll/select.hpp"

namespace rmpl::coll {

const char* field_name(std::size_t f) noexcept {
  static constexpr const char* names[compared_fields] = {"which collective they call", "the root",
                                                         "the byte count", "the reduction operator",
                                                         "the per-rank counts"};
  return f < compared_fields ? names[f] : "?";
}

std::string value_text(std::size_t f, std::uint64_t v) {
  if (v == unchecked) return "(none)";
  switch (f) {
    case 0:
      return v < std::size(collective_names) ? std::string(collective_names[v]) : "?";
    case 1:
      return "root " + std::to_string(v);
    case 2:
      return std::to_string(v) + " bytes";
    case 3:
      if ((v >> 56) == 0)
        return fmt::format("a user operator on {}-byte elements", v & 0xffffffffffff);
      return fmt::format("operator {} on type {} ({}-byte elements)", v >> 56, (v >> 48) & 0xff,
                         v & 0xffffffffffff);
    default:
      return fmt::format("counts with hash {:#x}", v);
  }
}

}  // namespace rmpl::coll
