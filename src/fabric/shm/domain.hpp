// The shm provider on one host: this rank's view of the provider's part of the job segment (the
// runtime, runtime/local/job.hpp, maps the segment and owns the job's words: ranks, barrier,
// deaths, doorbells). Areas in the symmetric segment where bytes are put, words that are
// fetch-added or compare-exchanged, and single-copy reads of a peer's private memory.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fabric/node_segment.hpp"
#include "fabric/shm/bounce.hpp"
#include "fabric/shm/eager_pool.hpp"
#include "fabric/shm/layout.hpp"
#include "fabric/shm/segment.hpp"
#include "runtime/local/job.hpp"

namespace rmpl::fabric::shm {

class domain {
 public:
  /// Takes the provider's part of `job`'s segment; waits until every rank has joined and agrees on
  /// single copy. Throws rmpl::error.
  explicit domain(runtime::local::job& job);
  /// What a job started without rmplrun creates its host's segment with (runtime::local::job).
  static int create(int nranks) { return create_job_segment(nranks); }
  domain(const domain&) = delete;
  domain& operator=(const domain&) = delete;

  /// The job this provider serves (its ranks, barrier, doorbells and deaths).
  runtime::local::job& job() const noexcept { return job_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  const params& p() const noexcept { return p_; }

  // ---- areas (symmetric: computed from ranks alone) ----
  rank_info& info(int r) const noexcept { return infos_[r]; }
  ring_control& ring(int dst, int src) const noexcept {
    return *reinterpret_cast<ring_control*>(rings_ +
                                            (std::size_t(dst) * size_ + src) * ring_bytes_);
  }
  cell* ring_cells(int dst, int src) const noexcept {
    return reinterpret_cast<cell*>(reinterpret_cast<std::byte*>(&ring(dst, src)) +
                                   sizeof(ring_control));
  }
  /// The receiver's pool map: pool_words(p().eager_slots) words.
  pool_word* pool(int dst) const noexcept {
    return reinterpret_cast<pool_word*>(pools_ + std::size_t(dst) * pool_bytes_);
  }
  chunk_state* slot_states(int dst) const noexcept {
    return reinterpret_cast<chunk_state*>(pool(dst) + pool_words(p_.eager_slots));
  }
  std::byte* slot(int dst, std::uint32_t i) const noexcept {
    return reinterpret_cast<std::byte*>(slot_states(dst) + p_.eager_slots) +
           std::size_t(i) * p_.eager_slot_bytes;
  }
  /// Rank dst's eager pool.
  eager_pool pool_of(int dst) const noexcept {
    return eager_pool(pool(dst), slot_states(dst), slot(dst, 0), p_.eager_slots,
                      p_.eager_slot_bytes);
  }
  chunk_state* bounce_states(int dst, int src) const noexcept {
    return reinterpret_cast<chunk_state*>(bounces_ +
                                          (std::size_t(dst) * size_ + src) * bounce_bytes_);
  }
  std::byte* bounce_chunk(int dst, int src, std::uint32_t i) const noexcept {
    return reinterpret_cast<std::byte*>(bounce_states(dst, src) + p_.bounce_chunks) +
           std::size_t(i) * p_.bounce_chunk_bytes;
  }
  /// The bounce chunks of the pair src -> dst.
  bounce_chunks bounce_of(int dst, int src) const noexcept {
    return bounce_chunks(bounce_states(dst, src), bounce_chunk(dst, src, 0), p_.bounce_chunks,
                         p_.bounce_chunk_bytes);
  }

  // ---- the node's shared areas for the collectives ----
  const node_segment& node() const noexcept { return node_; }

  // ---- doorbells (the job's): producers ring the bell of whom they fed ----
  /// Wakes `peer` if it sleeps. Call after publishing anything `peer` may wait for.
  void notify(int peer) const noexcept { job_.notify(peer); }
  /// notify() without its fence, for waking several peers after one fence (runtime/doorbell.hpp).
  void wake_if_sleeping(int peer) const noexcept { runtime::wake_if_sleeping(job_.bell(peer)); }

  // ---- single copy of a peer's private memory ----
  bool single_copy() const noexcept { return single_copy_error_ == 0; }
  std::string single_copy_reason() const;
  /// Copies `bytes` at `remote` in `peer`'s memory into `local`; returns 0 or an errno.
  int read_peer(int peer, const void* remote, void* local, std::size_t bytes) const noexcept;
  /// Copies the segments `remote` of `peer`'s memory into the segments `local` (at most IOV_MAX
  /// entries each; both consumed as the copy goes); returns 0 or an errno.
  int read_peer(int peer, iovec* local, std::size_t nlocal, iovec* remote,
                std::size_t nremote) const noexcept;
  /// Copies `bytes` from `local` to `remote` in `peer`'s memory; returns 0 or an errno.
  int write_peer(int peer, void* remote, const void* local, std::size_t bytes) const noexcept;

  bool oversubscribed() const noexcept { return job_.oversubscribed(); }
  int cores() const noexcept { return job_.cores(); }

 private:
  void probe_single_copy();

  runtime::local::job& job_;
  params p_{};
  int rank_ = 0;
  int size_ = 1;
  rank_info* infos_ = nullptr;
  std::byte* rings_ = nullptr;
  std::byte* pools_ = nullptr;
  std::byte* bounces_ = nullptr;
  std::size_t ring_bytes_ = 0, pool_bytes_ = 0, bounce_bytes_ = 0;
  node_segment node_;
  int single_copy_error_ = 0;      // 0 on, errno of the probe, -1 turned off, -2 a peer failed
  std::uint64_t probe_value_ = 0;  // private memory a peer reads to prove single copy works
};

}  // namespace rmpl::fabric::shm
