#include "coll/shared_area.hpp"

namespace rmpl::coll {

std::size_t shared_area::chunk_for(std::size_t area_bytes) noexcept {
  return area_bytes / 4 / fabric::shm::cache_line * fabric::shm::cache_line;
}

shared_area::shared_area(exchange x) noexcept
    : engine_(&x.engine()),
      comm_(&x.comm()),
      slot_(x.comm().area),
      chunk_(chunk_for(x.engine().fabric().p().coll_area_bytes)) {}

std::uint64_t shared_area::claim(std::uint64_t rounds) noexcept {
  const std::uint64_t first = comm_->area_rounds + 1;
  comm_->area_rounds += rounds;
  return first;
}

fabric::shm::area_flags& shared_area::flags(int r) const noexcept {
  return engine_->fabric().area(comm_->to_world(r), slot_);
}

std::byte* shared_area::operand(int r, std::uint64_t s) const noexcept {
  return engine_->fabric().area_data(comm_->to_world(r), slot_) + (s % 2) * 2 * chunk_;
}

std::byte* shared_area::result(int r, std::uint64_t s) const noexcept {
  return operand(r, s) + chunk_;
}

bool shared_area::writable(std::uint64_t s) const noexcept {
  if (comm_->area_done + 1 < s) return false;
  if (s <= 2) return true;
  for (int r = 0; r < comm_->size; ++r) {
    if (flags(r).released.load(std::memory_order_acquire) < s - 2) return false;
  }
  return true;
}

bool shared_area::posted(int r, std::uint64_t s) const noexcept {
  return flags(r).posted.load(std::memory_order_acquire) >= s;
}

bool shared_area::all_posted(std::uint64_t s) const noexcept {
  for (int r = 0; r < comm_->size; ++r) {
    if (!posted(r, s)) return false;
  }
  return true;
}

bool shared_area::all_reduced(std::uint64_t s) const noexcept {
  for (int r = 0; r < comm_->size; ++r) {
    if (flags(r).reduced.load(std::memory_order_acquire) < s) return false;
  }
  return true;
}

void shared_area::wake_members() const noexcept {
  for (int r = 0; r < comm_->size; ++r) {
    if (r != comm_->rank) engine_->fabric().notify(comm_->to_world(r));
  }
}

void shared_area::post(std::uint64_t s) noexcept {
  flags(comm_->rank).posted.store(s, std::memory_order_release);
  wake_members();
}

void shared_area::reduced(std::uint64_t s) noexcept {
  flags(comm_->rank).reduced.store(s, std::memory_order_release);
  wake_members();
}

void shared_area::release(std::uint64_t s) noexcept {
  flags(comm_->rank).released.store(s, std::memory_order_release);
  comm_->area_done = s;
  wake_members();
}

}  // namespace rmpl::coll
