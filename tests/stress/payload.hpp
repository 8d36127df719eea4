// The contents of every stress message: a deterministic function of (source, dest, sequence number)
// that the receiver recomputes and compares byte for byte.
//
// A message of n bytes is the first n bytes of: a 16-byte identity record {h, source, dest, seq}
// (h = a hash of the seed and the three numbers), then the bytes of a random pool starting at an
// offset drawn from h. So every byte depends on which message it is (a message delivered to the
// wrong receive, shifted, truncated or mixed with another fails), even a 1-byte message differs
// from its neighbours, and the receiver can name the message it actually got (identify) when it was
// the wrong one. Comparing against the pool runs at memcmp speed, which keeps a million-message run
// about moving data rather than computing patterns.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "schedule.hpp"

namespace stress {

struct identity {
  int source = 0;
  int dest = 0;
  std::uint64_t seq = 0;
};

class payload {
 public:
  static constexpr std::size_t record_bytes = 16;

  payload(std::uint64_t seed, std::size_t max_size)
      : seed_(seed), pool_(max_size + (std::size_t{1} << 20)) {
    rng r(mix(seed, 0x706f6f6c));
    for (std::size_t i = 0; i < pool_.size(); i += 8) {
      const std::uint64_t v = r.next();
      std::memcpy(pool_.data() + i, &v, std::min<std::size_t>(8, pool_.size() - i));
    }
  }

  void fill(std::span<std::byte> out, int source, int dest, std::uint64_t seq) const {
    const auto rec = record(source, dest, seq);
    const std::size_t head = std::min(out.size(), record_bytes);
    std::memcpy(out.data(), rec.data(), head);
    if (out.size() > head) {
      std::memcpy(out.data() + head, pool_.data() + offset(rec, out.size()) + head,
                  out.size() - head);
    }
  }

  /// Empty if `in` is exactly message (source, dest, seq); otherwise the first wrong byte and how
  /// many are wrong.
  std::string check(std::span<const std::byte> in, int source, int dest, std::uint64_t seq) const {
    const auto rec = record(source, dest, seq);
    const std::size_t head = std::min(in.size(), record_bytes);
    const std::byte* tail = pool_.data() + offset(rec, in.size());
    if (std::memcmp(in.data(), rec.data(), head) == 0 &&
        (in.size() == head || std::memcmp(in.data() + head, tail + head, in.size() - head) == 0)) {
      return {};
    }
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::byte want = i < head ? rec[i] : tail[i];
      if (in[i] != want && wrong++ == 0) first = i;
    }
    char text[160];
    std::snprintf(text, sizeof text,
                  "%zu of %zu bytes wrong, the first at offset %zu (0x%02x, expected 0x%02x)",
                  wrong, in.size(), first, static_cast<unsigned>(in[first]),
                  static_cast<unsigned>(first < head ? rec[first] : tail[first]));
    return text;
  }

  /// Which message `in` claims to be, if it is long enough to carry a whole, consistent record.
  std::optional<identity> identify(std::span<const std::byte> in) const {
    if (in.size() < record_bytes) return std::nullopt;
    std::uint16_t src = 0, dst = 0;
    std::uint32_t seq = 0;
    std::memcpy(&src, in.data() + 8, 2);
    std::memcpy(&dst, in.data() + 10, 2);
    std::memcpy(&seq, in.data() + 12, 4);
    const auto rec = record(src, dst, seq);
    if (std::memcmp(in.data(), rec.data(), record_bytes) != 0) return std::nullopt;
    return identity{src, dst, seq};
  }

 private:
  using record_t = std::array<std::byte, record_bytes>;

  record_t record(int source, int dest, std::uint64_t seq) const {
    record_t r{};
    const std::uint64_t h = mix(mix(seed_, seq), static_cast<std::uint64_t>(source) << 16 |
                                                     static_cast<std::uint64_t>(dest));
    const auto src = static_cast<std::uint16_t>(source), dst = static_cast<std::uint16_t>(dest);
    const auto s32 = static_cast<std::uint32_t>(seq);
    std::memcpy(r.data(), &h, 8);
    std::memcpy(r.data() + 8, &src, 2);
    std::memcpy(r.data() + 10, &dst, 2);
    std::memcpy(r.data() + 12, &s32, 4);
    return r;
  }
  std::size_t offset(const record_t& rec, std::size_t size) const {
    std::uint64_t h = 0;
    std::memcpy(&h, rec.data(), 8);
    return static_cast<std::size_t>(h >> 8) % (pool_.size() - size + 1);
  }

  std::uint64_t seed_;
  std::vector<std::byte> pool_;
};

}  // namespace stress
