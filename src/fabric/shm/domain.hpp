// The one-sided layer on one host: this rank's view of the job segment. Everything above (core)
// reaches peers only through it: areas in the symmetric segment where bytes are put, words that are
// fetch-added or compare-exchanged, single-copy reads of a peer's private memory, and the doorbells
// on which every wait of the library sleeps.
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
#include "fabric/shm/liveness.hpp"
#include "fabric/shm/segment.hpp"

namespace rmpl::fabric::shm {

class domain {
 public:
  /// Joins the job named by RMPL_SHM_FD / RMPL_RANK / RMPL_SIZE, or creates a job of one rank when
  /// they are absent (a program started without rmplrun). Waits until every rank has joined and
  /// agrees on single copy. Throws rmpl::error.
  domain();
  ~domain();
  domain(const domain&) = delete;
  domain& operator=(const domain&) = delete;

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

  // ---- doorbells: every wait sleeps on this rank's bell; producers ring the bell of whom they fed
  // ----
  /// Wakes `peer` if it sleeps. Call after publishing anything `peer` may wait for.
  void notify(int peer) const noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // publish before reading `sleeping`
    wake_if_sleeping(peer);
  }
  /// notify() without its fence, for waking several peers after one fence (fabric/doorbell.hpp).
  void wake_if_sleeping(int peer) const noexcept { fabric::wake_if_sleeping(infos_[peer].bell); }
  /// First half of going to sleep: announces it and returns the bell's value. The caller must then
  /// look for work once more (anything published before this point is visible) and either
  /// sleep(value) or cancel_sleep().
  std::uint32_t prepare_sleep() const noexcept {
    doorbell& b = infos_[rank_].bell;
    std::uint32_t value = b.ring.load(std::memory_order_acquire);
    b.sleeping.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return value;
  }
  /// Sleeps until the bell rings (or `timeout_ms` passes), then clears the sleeping flag. First,
  /// at most every watcher::interval_ns, checks that the peers and the launcher still run
  /// (fabric/shm/liveness.hpp): a death found marks the segment and rings this bell too, so the
  /// sleep returns at once.
  void sleep(std::uint32_t value, int timeout_ms) const noexcept;
  /// sleep() for MPI_THREAD_MULTIPLE, where several threads of the rank may sleep on its bell: the
  /// sleeping flag stays set (the engine clears it when the last of them wakes), so a peer still
  /// rings for the others.
  void sleep_leaving_flag(std::uint32_t value, int timeout_ms) const noexcept;
  /// Rings this rank's own bell and wakes every thread of it asleep there (a thread that completed
  /// what another waits for).
  void wake_own_threads() const noexcept;
  void cancel_sleep() const noexcept {
    infos_[rank_].bell.sleeping.store(0, std::memory_order_relaxed);
  }

  // ---- liveness ----
  /// The first rank seen dead (by the launcher or by a rank's watcher), size() when the job's
  /// launcher is gone, or -1.
  int failed_rank() const noexcept { return head_->failed_rank.load(std::memory_order_acquire); }
  /// "rank 3 was killed by signal 9 (Killed)", "rank 2 exited with status 1", or for size(): "the
  /// job's launcher (rmplrun, pid 1234) is gone ...".
  std::string describe_death(int r) const;
  /// Checks the peers' and the launcher's processes if watcher::interval_ns has passed since the
  /// last check (for waits that do not sleep through sleep()).
  void check_liveness() const noexcept {
    if (watcher_) watcher_->check_if_due();
  }

  // ---- job-wide barrier (used at start-up and finalize; the caller keeps progressing) ----
  std::uint32_t barrier_arrive() noexcept;
  bool barrier_done(std::uint32_t generation) const noexcept {
    return head_->barrier_generation.load(std::memory_order_acquire) != generation;
  }

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

  bool oversubscribed() const noexcept { return oversubscribed_; }
  int cores() const noexcept { return cores_; }

 private:
  void startup_barrier();
  void probe_single_copy();

  std::unique_ptr<mapping> map_;
  header* head_ = nullptr;
  params p_{};
  int rank_ = 0;
  int size_ = 1;
  rank_info* infos_ = nullptr;
  std::byte* rings_ = nullptr;
  std::byte* pools_ = nullptr;
  std::byte* bounces_ = nullptr;
  std::size_t ring_bytes_ = 0, pool_bytes_ = 0, bounce_bytes_ = 0;
  node_segment node_;
  int single_copy_error_ = 0;  // 0 on, errno of the probe, -1 turned off, -2 a peer failed
  bool oversubscribed_ = false;
  int cores_ = 1;
  std::vector<pid_t> pids_;
  // Owned here, changed by const waits (sleep, check_liveness): this rank's own bookkeeping.
  std::unique_ptr<watcher> watcher_;
  pid_t launcher_pid_ = 0;         ///< RMPL_LAUNCHER_PID, or 0
  std::string launcher_name_;      ///< RMPL_LAUNCHER ("rmplrun"), or "launcher"
  std::uint64_t probe_value_ = 0;  // private memory a peer reads to prove single copy works
};

}  // namespace rmpl::fabric::shm
