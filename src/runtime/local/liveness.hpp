// Liveness without the launcher: the ranks of a host watch each other's processes, and the
// launcher's, themselves. The launcher (rmplrun) notices a death first as a rule: it reaps the rank
// and marks it dead in the segment within milliseconds. But a launcher that is stopped (SIGSTOP, a
// debugger), gone, or foreign (one that knows nothing of the segment) says nothing, and the
// survivors would wait forever. So a rank about to sleep in a wait checks, at most every
// watcher::interval, whether the peers that joined the job and the launcher still run: one poll()
// over a pidfd per process (Linux >= 5.3), or /proc/<pid>/stat where pidfds are unavailable. A peer
// found gone without having finalized is marked dead in the segment exactly as the launcher would
// mark it (its wait status read from its zombie's /proc/<pid>/stat while no one has reaped it), and
// every rank's doorbell is rung; a launcher found gone ends the job the same way (failed_rank =
// nranks). Nothing of this runs on the fast path: only on the way to sleep.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "runtime/local/layout.hpp"

namespace rmpl::runtime::local {

/// A wait status no process can end with (0x7f is the "stopped" pattern of waitpid): a rank found
/// gone by a peer after someone had already reaped it, so that how it ended is unknown.
inline constexpr int wait_status_unknown = 0x7f;
/// Another that no process ends with (the "stopped" pattern with a signal number no signal has):
/// a rank of a host the job lost (rmplrun -H: its link closed before the rank ended).
inline constexpr int wait_status_host_lost = 0xff7f;

/// Marks `rank` dead with `wait_status` and wakes every rank: the launcher's job_view and the
/// ranks' watcher share it. The first rank marked is the one every survivor reports.
void mark_dead(job_header& head, rank_record* infos, int nranks, int rank,
               int wait_status) noexcept;

/// Ends the job because its launcher is gone: failed_rank becomes `nranks` (no rank: the
/// launcher), unless a rank's death came first, and every rank is woken.
void mark_launcher_gone(job_header& head, rank_record* infos, int nranks) noexcept;

/// What /proc/<pid>/stat says of a process: whether it exists and runs (is no zombie), its start
/// time (clock ticks after boot), and for a zombie its wait status if the kernel shows it.
struct process_info {
  bool exists = false;
  bool zombie = false;
  bool status_known = false;
  int wait_status = 0;
  std::uint64_t start_time = 0;
};
process_info read_process(pid_t pid) noexcept;

class watcher {
 public:
  /// How often a waiting rank checks (at most): a death is noticed within about this plus the
  /// wait's sleep (100 ms).
  static constexpr std::int64_t interval_ns = 50'000'000;
  /// How long a peer may be gone and reaped (by the launcher, which then marks it itself) before
  /// the watcher marks it dead, not knowing how it ended (a launcher that reaps but does not mark).
  static constexpr std::int64_t reaped_grace_ns = 1'000'000'000;

  /// Watches the ranks of the job (`infos`, `nranks`) other than `self`, and `launcher` (0: none).
  /// If the launcher is this process's parent and armed PR_SET_PDEATHSIG with SIGKILL, that is
  /// cleared: the ranks now notice the launcher's death themselves and report it.
  watcher(job_header& head, rank_record* infos, int nranks, int self, pid_t launcher) noexcept;
  ~watcher();
  watcher(const watcher&) = delete;
  watcher& operator=(const watcher&) = delete;

  /// check(), if interval_ns has passed since the last one. Safe to call from several threads at
  /// once: one checks, the others return.
  void check_if_due() noexcept;
  /// Stops watching rank r (a rank of another host: its process is not this host's to watch).
  void ignore(int r) noexcept { peers_[static_cast<std::size_t>(r)].done = true; }

 private:
  /// Looks at every watched process once; marks in the segment what it finds gone. One thread at
  /// a time (check_if_due sees to it).
  void check() noexcept;
  struct peer {
    pid_t pid = 0;  ///< 0 until the rank has joined
    int fd = -1;    ///< its pidfd, or -1: /proc is read instead
    std::uint64_t start_time = 0;
    std::int64_t reaped_since = 0;  ///< when it was first found reaped, not yet marked
    bool done = false;              ///< finalized, dead, or marked: no longer watched
  };
  void open(peer& p, pid_t pid) noexcept;
  /// The process behind `p` has ended (or is gone); fills `end` from /proc.
  bool ended(const peer& p, bool pidfd_readable, process_info& end) const noexcept;

  job_header& head_;
  rank_record* infos_;
  int nranks_;
  int self_;
  std::vector<peer> peers_;  ///< by rank; peers_[nranks_] is the launcher
  std::atomic<std::int64_t> next_check_{0};
  std::atomic_flag checking_;  ///< a thread is in check()
  std::vector<pollfd> fds_;    ///< the last check's poll set
  std::vector<int> who_;       ///< the rank of each entry of fds_ (nranks_: the launcher)
};

}  // namespace rmpl::runtime::local
