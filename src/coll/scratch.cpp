#include "coll/scratch.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace rmpl::coll {
namespace {

struct cached {
  std::unique_ptr<std::byte[]> block;
  std::size_t capacity;
};

// Enough for the few buffers one algorithm holds at once, and a few collectives in flight.
constexpr std::size_t max_cached = 16;
constexpr std::size_t max_cached_bytes = std::size_t{256} << 20;

std::vector<cached>& cache() {
  static std::vector<cached> blocks;
  return blocks;
}

}  // namespace

scratch::scratch(std::size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  auto& blocks = cache();
  // The smallest cached block that fits.
  auto best = blocks.end();
  for (auto it = blocks.begin(); it != blocks.end(); ++it) {
    if (it->capacity >= bytes && (best == blocks.end() || it->capacity < best->capacity)) best = it;
  }
  if (best != blocks.end()) {
    block_ = std::move(best->block);
    capacity_ = best->capacity;
    blocks.erase(best);
    return;
  }
  block_.reset(new std::byte[bytes]);  // default-initialised: no zeroing
  capacity_ = bytes;
}

scratch scratch::copy_of(std::span<const std::byte> contents) {
  scratch s(contents.size());
  if (!contents.empty()) std::memcpy(s.data(), contents.data(), contents.size());
  return s;
}

scratch& scratch::operator=(scratch&& other) noexcept {
  if (this != &other) {
    scratch gone(std::move(*this));
    block_ = std::move(other.block_);
    capacity_ = std::exchange(other.capacity_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

scratch::~scratch() {
  if (!block_) return;
  auto& blocks = cache();
  std::size_t total = capacity_;
  for (const cached& c : blocks) total += c.capacity;
  if (blocks.size() >= max_cached || total > max_cached_bytes) {
    // Drop the smallest cached block if this one is larger; otherwise free this one.
    auto smallest =
        std::min_element(blocks.begin(), blocks.end(),
                         [](const cached& a, const cached& b) { return a.capacity < b.capacity; });
    if (smallest == blocks.end() || smallest->capacity >= capacity_ ||
        total - smallest->capacity > max_cached_bytes) {
      return;
    }
    blocks.erase(smallest);
  }
  blocks.push_back({std::move(block_), capacity_});
}

}  // namespace rmpl::coll
