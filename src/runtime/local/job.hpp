// The runtime of a job as one host sees it: who this process is in the job, where every rank runs,
// its host's peers' processes, the job-wide barrier, the doorbells every wait sleeps on, the cards
// ranks publish for each other, and deaths. Its shared state is the runtime's part of the segment
// the ranks of this host share (runtime/local/layout.hpp). Three ways in:
// - rmplrun started the job: the segment is rmplrun's memfd, named by RMPL_SHM_FD, RMPL_RANK and
//   RMPL_SIZE; every rank of the job is on this host, unless RMPL_HOSTS lists the hosts of a job
//   rmplrun -H started (tools/rmplrun/hosts.hpp): then this host's rmplrun (its host agent) made
//   the segment for its ranks, and the last of them to reach a barrier hands it to the agent
//   (RMPL_AGENT_FD, an eventfd), which completes it across hosts and brings back the cards of the
//   other hosts' ranks;
// - a PMIx server started it (Open MPI's mpirun, srun --mpi=pmix, prterun): rank, size and hosts
//   come from PMIx (runtime/pmix/job.hpp), the lowest rank of each host creates the host's segment
//   and the others open it through /proc, and barriers and cards go through PMIx;
// - neither: the program creates a segment of its own and is a job of one rank.
// The transport's part of the segment is handed to the shm provider (transport()). Concrete and
// inline where the engine polls it (failed_rank, on every pass).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/doorbell.hpp"
#include "runtime/local/layout.hpp"
#include "runtime/local/liveness.hpp"
#include "runtime/local/segment.hpp"
#include "runtime/pmix/job.hpp"

namespace rmpl::runtime::local {

class job {
 public:
  /// Joins the job named by RMPL_SHM_FD / RMPL_RANK / RMPL_SIZE, or the job of the PMIx server
  /// that started this process, or creates a job of one rank. `create(nranks)` makes a segment (the
  /// transport, which knows the bytes its part takes, makes it: it returns the descriptor).
  /// Registers this process as alive. Throws rmpl::error.
  explicit job(int (*create)(int nranks));
  /// Marks this rank finalized.
  ~job();
  job(const job&) = delete;
  job& operator=(const job&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// The transport's part of the segment.
  std::byte* transport() const noexcept { return map_->transport(); }
  std::size_t transport_bytes() const noexcept { return map_->transport_bytes(); }
  /// The process of rank r, once every rank has joined (after the first barrier()).
  pid_t pid(int r) const noexcept { return pids_[r]; }
  /// The host of rank r: 0 for every rank of a one-host job, unless RMPL_PRETEND_HOSTS (a test
  /// setting: a comma-separated host number per rank, repeated as needed, "0,0,1,1" or "0,1")
  /// splits the ranks among pretended hosts, so that what a job spanning hosts does differently
  /// (collectives without the node's shared areas, MPI_COMM_TYPE_SHARED) runs on one machine.
  int host_of(int r) const noexcept {
    if (!pretend_hosts_.empty())
      return pretend_hosts_[static_cast<std::size_t>(r) % pretend_hosts_.size()];
    return hosts_.empty() ? 0 : hosts_[static_cast<std::size_t>(r)];
  }
  /// How many hosts the job spans (pretended ones included).
  int host_count() const noexcept;
  /// The name of host h (its number when the hosts are pretended or there is one).
  std::string host_name(int h) const;
  /// The ranks that share this process's segment (its host's), in increasing order.
  const std::vector<int>& segment_ranks() const noexcept { return segment_ranks_; }
  /// Processing units of this host, and whether its ranks outnumber them.
  int cores() const noexcept { return cores_; }
  bool oversubscribed() const noexcept { return static_cast<int>(segment_ranks_.size()) > cores_; }
  /// Whether a PMIx server started the job.
  bool under_pmix() const noexcept { return pmix_ != nullptr; }

  // ---- cards: what each rank publishes for its peers (a network provider's address) ----
  /// Publishes this rank's card. Throws rmpl::error if it does not fit.
  void publish_card(std::span<const std::byte> bytes);
  /// Waits until every rank has published its card (every rank calls it; `what` names the step in
  /// errors).
  void exchange_cards(const char* what);
  /// Rank r's card as published (empty if it published none), after exchange_cards(). Its length is
  /// checked against the card's size (a rank writes it).
  std::span<const std::byte> card_of(int r) const;

  // ---- the job-wide barrier: arrive, then wait until done (the caller keeps progressing) ----
  /// Under PMIx a fence that does not block (it rings this rank's bell when it ends). Throws
  /// rmpl::error if it cannot start.
  std::uint32_t barrier_arrive();
  bool barrier_done(std::uint32_t generation) const noexcept {
    if (pmix_) return fence_done_.load(std::memory_order_acquire);
    return head_->barrier_generation.load(std::memory_order_acquire) != generation;
  }
  /// A barrier for start-up, when nothing else needs progressing: sleeps between looks, and
  /// throws errc::dead_rank (`what` says what this rank was doing) if a rank dies first.
  void barrier(const char* what);
  /// Records that rank r's pids are known (every rank joined): read once after the first barrier.
  void learn_pids();

  // ---- doorbells: every wait sleeps on this rank's bell; producers ring the bell of whom they fed
  doorbell& bell(int r) const noexcept { return records_[r].bell; }
  /// Wakes `peer` if it sleeps. Call after publishing anything `peer` may wait for.
  void notify(int peer) const noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // publish before reading `sleeping`
    runtime::wake_if_sleeping(records_[peer].bell);
  }
  /// First half of going to sleep: announces it and returns the bell's value. The caller must then
  /// look for work once more (anything published before this point is visible) and either
  /// sleep(value) or cancel_sleep().
  std::uint32_t prepare_sleep() const noexcept {
    doorbell& b = records_[rank_].bell;
    std::uint32_t value = b.ring.load(std::memory_order_acquire);
    b.sleeping.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return value;
  }
  /// Sleeps until the bell rings (or `timeout_ms` passes), then clears the sleeping flag. First,
  /// at most every watcher::interval_ns, checks that the peers and the launcher still run
  /// (runtime/local/liveness.hpp): a death found marks the segment and rings this bell too, so the
  /// sleep returns at once.
  void sleep(std::uint32_t value, int timeout_ms) const noexcept;
  /// sleep() for MPI_THREAD_MULTIPLE, where several threads of the rank may sleep on its bell: the
  /// sleeping flag stays set (the engine clears it when the last of them wakes), so a peer still
  /// rings for the others.
  void sleep_leaving_flag(std::uint32_t value, int timeout_ms) const noexcept;
  /// Rings this rank's own bell and wakes every thread of it asleep there (a thread that completed
  /// what another waits for).
  void wake_own_threads() const noexcept { ring_all(records_[rank_].bell); }
  void cancel_sleep() const noexcept {
    records_[rank_].bell.sleeping.store(0, std::memory_order_relaxed);
  }

  // ---- deaths ----
  /// The first rank seen dead (by the launcher or by a rank's watcher), size() when the job's
  /// launcher is gone, or -1.
  int failed_rank() const noexcept { return head_->failed_rank.load(std::memory_order_acquire); }
  /// Whether rank r has died.
  bool dead(int r) const noexcept {
    return records_[r].state.load(std::memory_order_acquire) == rank_state::dead;
  }
  /// Whether rank r has finalized (it owes nobody anything any more).
  bool finalized(int r) const noexcept {
    return records_[r].state.load(std::memory_order_acquire) == rank_state::finalized;
  }
  /// "rank 3 was killed by signal 9 (Killed)", "rank 2 exited with status 1", or for size(): "the
  /// job's launcher (rmplrun, pid 1234) is gone ...".
  std::string describe_death(int r) const;
  /// Checks the peers' and the launcher's processes if watcher::interval_ns has passed since the
  /// last check (for waits that do not sleep through sleep()).
  void check_liveness() const noexcept {
    if (watcher_) watcher_->check_if_due();
  }

 private:
  /// Joins the job of the PMIx server that started this process: returns its host's segment.
  int join_pmix(int (*create)(int nranks));
  /// describe_death() without the host.
  std::string describe_death_here(int r) const;
  /// Reads RMPL_HOSTS ("name:count,...", ranks placed in that order) and RMPL_HOST (this host's
  /// index in it): the hosts of a job rmplrun -H started.
  void join_hosts(const char* hosts);
  int agent_fd_ = -1;  ///< RMPL_AGENT_FD: this host's agent completes barriers across hosts
  std::unique_ptr<pmix::job> pmix_;  ///< the PMIx client, when a PMIx server started the job
  std::atomic<bool> fence_done_{false};
  std::vector<int> hosts_;  ///< PMIx or rmplrun -H: the host of each rank (into host_names_)
  std::vector<std::string> host_names_;  ///< PMIx or rmplrun -H: the hosts' names
  std::vector<int> segment_ranks_;
  /// PMIx: the cards read so far (fetched on first use).
  mutable std::vector<std::vector<std::byte>> cards_;
  std::unique_ptr<mapping> map_;
  job_header* head_ = nullptr;
  rank_record* records_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  int cores_ = 1;
  std::vector<pid_t> pids_;
  std::vector<int> pretend_hosts_;  ///< RMPL_PRETEND_HOSTS, or empty
  // Owned here, changed by const waits (sleep, check_liveness): this rank's own bookkeeping.
  std::unique_ptr<watcher> watcher_;
  pid_t launcher_pid_ = 0;     ///< RMPL_LAUNCHER_PID, or 0
  std::string launcher_name_;  ///< RMPL_LAUNCHER ("rmplrun"), or "launcher"
};

}  // namespace rmpl::runtime::local
