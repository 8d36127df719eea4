// Creating and mapping a one-host job's segment. The launcher creates it and hands the descriptor
// to every rank (inherited across the rank's exec, named in RMPL_SHM_FD; close-on-exec everywhere
// else, so that nothing a rank or the launcher starts holds it). It is an anonymous memfd: no name
// in /dev/shm, so nothing is left behind whatever way the job ends. Pages materialise only when
// touched, so areas a run does not use (a fallback path's bounce buffers, say) cost no memory.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "runtime/local/layout.hpp"

namespace rmpl::runtime::local {

/// Creates the segment of a job of `nranks` ranks whose transport part takes `transport_bytes`,
/// writes the runtime's header and returns the descriptor, close-on-exec (a launcher clears the
/// flag where a rank is to inherit it, between fork and exec), sized and sealed. The caller
/// writes the transport's header at job_layout(nranks).transport_offset. Throws rmpl::error.
int create_segment(int nranks, std::uint64_t transport_bytes);

/// Maps `bytes` at offset `at` (page-aligned) of a segment being created, for its creator to write
/// a header there (then munmap); on failure closes `fd` and throws rmpl::error.
void* map_for_header(int fd, std::uint64_t at, std::size_t bytes);

/// A rank's mapping of the whole segment, its runtime header checked.
class mapping {
 public:
  /// Maps segment `fd` and checks its header (magic, version, sizes). Throws rmpl::error.
  explicit mapping(int fd);
  ~mapping();
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;

  job_header& head() const noexcept { return *reinterpret_cast<job_header*>(base_); }
  rank_record* records() const noexcept {
    return reinterpret_cast<rank_record*>(base_ + job_layout(head().nranks).records_offset);
  }
  card* cards() const noexcept {
    return reinterpret_cast<card*>(base_ + job_layout(head().nranks).cards_offset);
  }
  /// The transport's part: transport_bytes() bytes from here.
  std::byte* transport() const noexcept { return base_ + transport_offset_; }
  std::size_t transport_bytes() const noexcept { return bytes_ - transport_offset_; }

 private:
  std::byte* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t transport_offset_ = 0;
};

/// The launcher's view of a job segment: the rank states, marking a rank dead, and for a host agent
/// of a job across hosts the cards and the barrier. It maps only the runtime's part (header, rank
/// records, cards), at offsets computed from the rank count alone (never from the header, which
/// every rank can write).
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

  /// Rank `rank`'s card as it published it (empty if none, or if its length is out of bounds).
  std::span<const std::byte> card_of(int rank) const noexcept;
  /// Writes rank `rank`'s card (another host's rank, for this host's ranks to read); false if it
  /// does not fit.
  bool set_card(int rank, std::span<const std::byte> bytes) noexcept;
  /// Ends the barrier this host's ranks (`count` from `first`: rmplrun -H places them so) wait
  /// in: the job-wide one is complete.
  void release_barrier(int first, int count) noexcept;

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int nranks_ = 0;
  job_header* head_ = nullptr;
  rank_record* records_ = nullptr;
  card* cards_ = nullptr;
};

}  // namespace rmpl::runtime::local
