// Temporary buffers for the algorithms, recycled between collectives: a fresh megabyte from the
// allocator costs a page fault per 4 KiB the first time it is touched (and std::vector would also
// zero it), which costs more than the collective itself. Blocks go back to a small per-process
// cache when the buffer is destroyed; their contents are not initialised.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace rmpl::coll {

class scratch {
 public:
  scratch() = default;
  explicit scratch(std::size_t bytes);
  /// A buffer holding a copy of `contents`.
  static scratch copy_of(std::span<const std::byte> contents);
  scratch(scratch&& other) noexcept
      : block_(std::move(other.block_)), capacity_(other.capacity_), size_(other.size_) {
    other.capacity_ = other.size_ = 0;
  }
  scratch& operator=(scratch&& other) noexcept;
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  ~scratch();

  std::byte* data() noexcept { return block_.get(); }
  const std::byte* data() const noexcept { return block_.get(); }
  std::size_t size() const noexcept { return size_; }
  operator std::span<std::byte>() noexcept { return {block_.get(), size_}; }
  operator std::span<const std::byte>() const noexcept { return {block_.get(), size_}; }
  std::span<std::byte> span() noexcept { return {block_.get(), size_}; }

 private:
  std::unique_ptr<std::byte[]> block_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rmpl::coll
