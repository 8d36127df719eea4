// Where a communicator's shared-area rounds (coll/shared_area.hpp) lie in its members' areas, and
// which earlier round every member must have released before a round may be written. Each round
// takes a span of the area as large as it uses (a power of two), at the next free position of a
// cursor that runs over the area, taken modulo the collective's *lap*: twice its round's span for
// a collective whose every round waits for every member (allreduce, allgather, ...), which so
// alternates between two buffers that stay in the caches; the whole area for one whose root may
// run ahead (broadcast), which may then have as many rounds in flight as fit (at most
// `max_ahead`), where two buffers let it run one round ahead: with more ranks than cores a member
// only reads when it gets a core, and each round the others wait for it costs a hand-off. A round
// may be written once every member has released the last round that used any of its bytes; a
// table of the area's granules remembers which that is.
//
// Every member claims the same rounds with the same sizes and laps in the same order (collectives
// start in the same order everywhere), so every member computes the same placement without a word
// between them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rmpl::core {

class area_ring {
 public:
  /// At most this many rounds of a collective in flight, however small they are: small rounds
  /// then cycle through a few lines of the area instead of walking all of it.
  static constexpr std::uint64_t max_ahead = 256;
  /// The area is tracked in this many granules; a round takes at least one.
  static constexpr std::size_t granules = 1024;

  /// The rounds of one collective: round first + i starts at byte offset(i) of every member's area
  /// and may be written once every member has released round must_release(i).
  class rounds {
   public:
    std::uint64_t first() const noexcept { return first_; }
    std::size_t offset(std::uint64_t i) const noexcept {
      return static_cast<std::size_t>((start_ + i * span_) & (lap_ - 1));
    }
    std::uint64_t must_release(std::uint64_t i) const noexcept {
      if (i < early_.size()) return early_[i];
      // The collective's own round a lap back used the same bytes. A collective of more than
      // early_.size() rounds has at most that many in a lap (its rounds are a quarter or half of
      // the area each); with more the answer would be stricter than needed, never too lax.
      return first_ + i - std::min<std::uint64_t>(lap_ / span_, early_.size());
    }

   private:
    friend class area_ring;
    std::uint64_t first_ = 0, start_ = 0;
    std::size_t span_ = 1, lap_ = 1;
    std::array<std::uint64_t, 4> early_{};
  };

  /// Claims `count` rounds of `bytes` each for one collective (0: rounds that carry no data) in an
  /// area of `capacity` bytes (a power of two of at least `granules`; `bytes` at most half of it),
  /// cycling through `lap` bytes of it (see above). Call in the order the collectives start.
  rounds claim(std::uint64_t count, std::size_t bytes, std::size_t lap, std::size_t capacity) {
    rounds r;
    r.first_ = claimed_ + 1;
    claimed_ += count;
    if (bytes == 0) return r;  // nothing to place, nothing to wait for
    const std::size_t granule = capacity / granules;
    if (last_user_.empty()) last_user_.assign(granules, 0);
    r.span_ = std::bit_ceil(std::max(bytes, granule));
    // At least two spans (span <= capacity / 2), at most the area and max_ahead spans.
    r.lap_ = std::clamp(std::bit_ceil(lap), 2 * r.span_, std::min(capacity, max_ahead * r.span_));
    r.start_ = (head_ + r.span_ - 1) / r.span_ * r.span_;
    head_ = r.start_ + count * r.span_;
    const std::uint64_t per_lap = r.lap_ / r.span_;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::size_t g0 = r.offset(i) / granule, g1 = g0 + r.span_ / granule;
      if (i < r.early_.size()) {
        // The latest round that used any of these granules (this collective's own included).
        r.early_[i] = *std::max_element(last_user_.begin() + g0, last_user_.begin() + g1);
      }
      // Later rounds ask only for the first few rounds' users and the last lap's.
      if (i < r.early_.size() || i + per_lap >= count)
        std::fill(last_user_.begin() + g0, last_user_.begin() + g1, r.first_ + i);
    }
    return r;
  }

  /// Rounds claimed so far (the last one's number).
  std::uint64_t claimed() const noexcept { return claimed_; }
  /// Rounds this rank has finished (it finishes them in order).
  std::uint64_t done = 0;

 private:
  std::uint64_t claimed_ = 0;
  std::uint64_t head_ = 0;                ///< the cursor: where the next round may start
  std::vector<std::uint64_t> last_user_;  ///< per granule of the area, the last round to use it
};

}  // namespace rmpl::core
