// Creating and mapping the job segment. The launcher creates it with create_job_segment() and hands
// the descriptor to every rank (inherited across the rank's exec, named in RMPL_SHM_FD;
// close-on-exec everywhere else, so that nothing a rank or the launcher starts holds it). It is an
// anonymous memfd: no name in /dev/shm, so nothing is left behind whatever way the job ends. Pages
// materialise only when touched, so unused areas (a fallback path's bounce buffers, say) cost no
// memory.
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

/// Creates and initialises the segment of a job of `nranks` ranks; returns its descriptor,
/// close-on-exec: a launcher clears the flag where a rank is to inherit it (between fork and exec).
/// Throws rmpl::error on failure; errc::exhausted,
/// naming the bytes needed (by area) and the bytes free, when the segment would not fit in memory.
int create_job_segment(int nranks);

/// The launcher's view of a job segment: the rank states, and marking a rank dead. It maps only the
/// header and the rank_info words, at offsets computed from the rank count alone (never from the
/// header, which every rank can write).
class job_view {
 public:
  /// Maps segment `fd` of a job of `nranks`. Throws rmpl::error.
  job_view(int fd, int nranks);
  ~job_view();
  job_view(const job_view&) = delete;
  job_view& operator=(const job_view&) = delete;

  /// What `rank` last said of itself: absent (never joined), alive, finalized, or dead.
  rank_state state(int rank) const noexcept;
  /// The pid `rank` published when it joined (0 before); a rank writes it, so only a hint.
  pid_t pid(int rank) const noexcept;
  /// Records the pid `rank` was started with (the launcher's fork), before it joins.
  void launched(int rank, pid_t pid) noexcept;
  /// Marks `rank` dead (its wait status is `wait_status`) and wakes every rank, so that peers
  /// blocked on it report an error naming it instead of waiting. The first rank marked is the one
  /// the others report.
  void mark_dead(int rank, int wait_status) noexcept;

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int nranks_ = 0;
  header* head_ = nullptr;
  rank_info* infos_ = nullptr;
};

/// A mapped segment.
class mapping {
 public:
  /// Maps segment `fd` and checks its header (magic, version, size). Throws rmpl::error.
  explicit mapping(int fd);
  ~mapping();
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;

  header& head() const noexcept { return *reinterpret_cast<header*>(base_); }
  std::byte* base() const noexcept { return base_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::byte* base_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace rmpl::fabric::shm
