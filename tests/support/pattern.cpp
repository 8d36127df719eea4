// Pattern fill and verification: the hot loops of the size tests (up to 64 MiB per message), kept
// in their own file so the build can optimise them even in Debug builds.
#include <cstdio>

#include "mp_test.hpp"

namespace rmpl_test {
namespace {

std::uint8_t pattern_byte(std::uint64_t seed, std::size_t i) {
  std::uint64_t x = (static_cast<std::uint64_t>(i) + seed) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::uint8_t>(x >> 56);
}

}  // namespace

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  // splitmix64's finaliser over a combination of both values.
  std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t seed_of(std::size_t size, std::size_t offset, int source) {
  return mix(mix(size, offset), static_cast<std::uint64_t>(source + 1000));
}

void fill_pattern(std::span<std::byte> data, std::uint64_t seed) {
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::byte{pattern_byte(seed, i)};
}

std::string check_pattern(std::span<const std::byte> data, std::uint64_t seed) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] != std::byte{pattern_byte(seed, i)}) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return {};
  char text[160];
  std::snprintf(text, sizeof text,
                "%zu of %zu bytes wrong; the first at offset %zu: 0x%02x, expected 0x%02x", wrong,
                data.size(), first, static_cast<unsigned>(data[first]),
                static_cast<unsigned>(pattern_byte(seed, first)));
  return text;
}

std::string check_filled(std::span<const std::byte> data, std::byte value) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] != value) {
      char text[120];
      std::snprintf(text, sizeof text, "byte %zu of %zu was overwritten: 0x%02x instead of 0x%02x",
                    i, data.size(), static_cast<unsigned>(data[i]), static_cast<unsigned>(value));
      return text;
    }
  }
  return {};
}

}  // namespace rmpl_test
