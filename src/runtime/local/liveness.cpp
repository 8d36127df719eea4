#include "runtime/local/liveness.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434  // the same number on every architecture
#endif

namespace rmpl::runtime::local {
namespace {

void ring_every_bell(rank_record* infos, int nranks) noexcept {
  for (int r = 0; r < nranks; ++r) ring_one(infos[r].bell);
}

std::int64_t now_ns() noexcept {
  timespec ts{};
  // Coarse: a few ms of resolution is plenty for a 50 ms period, and it is the cheapest clock.
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

void mark_dead(job_header& head, rank_record* infos, int nranks, int rank,
               int wait_status) noexcept {
  if (rank < 0 || rank >= nranks) return;
  infos[rank].exit_status.store(wait_status, std::memory_order_relaxed);
  infos[rank].state.store(rank_state::dead, std::memory_order_release);
  std::int32_t none = -1;
  head.failed_rank.compare_exchange_strong(none, rank, std::memory_order_acq_rel);
  ring_every_bell(infos, nranks);
}

void mark_launcher_gone(job_header& head, rank_record* infos, int nranks) noexcept {
  std::int32_t none = -1;
  head.failed_rank.compare_exchange_strong(none, nranks, std::memory_order_acq_rel);
  ring_every_bell(infos, nranks);
}

process_info read_process(pid_t pid) noexcept {
  process_info info;
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return info;  // no such process (reaped), or no /proc: nothing to say
  char text[1024];
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (got <= 0) return info;
  text[got] = '\0';
  // "pid (comm) state field4 ...": comm may hold spaces and parentheses, so fields are counted
  // from the last ')'. Field 22 is the start time, field 52 the exit code (Linux >= 3.5; shown for
  // a zombie to whoever may ptrace-read it: the same user, as the ranks of a job are).
  const char* p = std::strrchr(text, ')');
  if (!p || p[1] != ' ') return info;
  p += 2;
  info.exists = true;
  const char state = *p;
  info.zombie = state == 'Z' || state == 'X';
  int field = 3;
  while (*p && field < 52) {
    while (*p && *p != ' ') ++p;
    if (*p == ' ') ++p;
    ++field;
    if (field == 22) info.start_time = std::strtoull(p, nullptr, 10);
  }
  if (field == 52 && *p >= '0' && *p <= '9') {
    info.wait_status = static_cast<int>(std::strtol(p, nullptr, 10));
    info.status_known = info.zombie;
  }
  return info;
}

watcher::watcher(job_header& head, rank_record* infos, int nranks, int self,
                 pid_t launcher) noexcept
    : head_(head),
      infos_(infos),
      nranks_(nranks),
      self_(self),
      peers_(static_cast<std::size_t>(nranks) + 1) {
  peers_[static_cast<std::size_t>(self)].done = true;
  peer& l = peers_[static_cast<std::size_t>(nranks)];
  if (launcher > 0) {
    open(l, launcher);
    // rmplrun arms PR_SET_PDEATHSIG = SIGKILL in each rank, so that a rank dies with it: silently,
    // in the middle of whatever it was doing. A rank inside rmpl now notices the launcher's death
    // itself and reports it (the launcher's stand-in group leader still ends whatever remains, see
    // tools/rmplrun/job.cpp). Checked against the parent after clearing: a launcher that died just
    // before is then found gone at the first check.
    int sig = 0;
    if (::getppid() == launcher && ::prctl(PR_GET_PDEATHSIG, &sig) == 0 && sig == SIGKILL) {
      ::prctl(PR_SET_PDEATHSIG, 0);
    }
  } else {
    l.done = true;  // started alone, or by a launcher that did not say who it is
  }
}

watcher::~watcher() {
  for (peer& p : peers_) {
    if (p.fd >= 0) ::close(p.fd);
  }
}

void watcher::open(peer& p, pid_t pid) noexcept {
  p.pid = pid;
  if (pid <= 0) {  // nothing to watch (not a pid a rank can have)
    p.done = true;
    return;
  }
  // A pidfd refers to this very process, never to a later one that reuses the pid; it is
  // close-on-exec from the start. Where there is none (Linux < 5.3, a seccomp filter, the
  // descriptor limit), /proc/<pid>/stat is read at each check, its start time telling a reused pid.
  // A job so large that its pidfds would take more than a quarter of the descriptors the program
  // may open reads /proc for every process: the program's own files come first.
  rlimit files{};
  const bool fits = ::getrlimit(RLIMIT_NOFILE, &files) == 0 &&
                    static_cast<rlim_t>(nranks_) + 1 <= files.rlim_cur / 4;
  p.fd = fits ? static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)) : -1;
  if (p.fd < 0) p.fd = -1;
  p.start_time = read_process(pid).start_time;
}

bool watcher::ended(const peer& p, bool pidfd_readable, process_info& end) const noexcept {
  if (p.fd >= 0 && !pidfd_readable) return false;
  end = read_process(p.pid);
  if (!end.exists) return true;  // reaped
  if (p.start_time != 0 && end.start_time != p.start_time) {
    end = process_info{};  // reaped, and its pid already taken by another process
    return true;
  }
  return end.zombie;
}

void watcher::check_if_due() noexcept {
  const std::int64_t now = now_ns();
  if (now < next_check_.load(std::memory_order_relaxed)) return;
  if (checking_.test_and_set(std::memory_order_acquire)) return;
  next_check_.store(now + interval_ns, std::memory_order_relaxed);
  check();
  checking_.clear(std::memory_order_release);
}

void watcher::check() noexcept {
  if (head_.failed_rank.load(std::memory_order_acquire) >= 0) return;  // over already
  std::vector<pollfd>& fds = fds_;  // kept between checks: no allocation after the first
  std::vector<int>& who = who_;
  fds.clear();
  who.clear();
  for (int r = 0; r <= nranks_; ++r) {
    peer& p = peers_[static_cast<std::size_t>(r)];
    if (p.done) continue;
    if (r < nranks_) {
      const rank_state s = infos_[r].state.load(std::memory_order_acquire);
      if (s == rank_state::finalized || s == rank_state::dead) {
        p.done = true;  // nobody waits for a finalized rank; a dead one is marked already
        continue;
      }
      if (s == rank_state::absent) {
        // Not joined yet: watched by the pid its launcher wrote at the fork, if any (else the
        // launcher alone watches it until it joins).
        if (p.pid == 0) {
          const pid_t launched = infos_[r].launched_pid.load(std::memory_order_acquire);
          if (launched == 0) continue;
          open(p, launched);
        }
      } else if (const pid_t own = infos_[r].pid.load(std::memory_order_relaxed); p.pid != own) {
        // Joined: its own pid from now on (the launched one may have been a wrapper's).
        if (p.fd >= 0) ::close(p.fd);
        p.fd = -1;
        open(p, own);
      }
      if (p.done) continue;
    }
    fds.push_back({p.fd, POLLIN, 0});  // fd -1: poll ignores it, /proc is read instead
    who.push_back(r);
  }
  if (fds.empty()) return;
  if (::poll(fds.data(), fds.size(), 0) < 0) return;  // EINTR, ENOMEM: the next check
  for (std::size_t i = 0; i < fds.size(); ++i) {
    const int r = who[i];
    peer& p = peers_[static_cast<std::size_t>(r)];
    process_info end;
    if (!ended(p, fds[i].revents != 0, end)) continue;
    if (r == nranks_) {
      p.done = true;
      mark_launcher_gone(head_, infos_, nranks_);
      return;
    }
    // Gone. Read its state again: it may have finalized just before it exited, which is no failure
    // (item 19), or been marked by the launcher meanwhile.
    const rank_state s = infos_[r].state.load(std::memory_order_acquire);
    if (s == rank_state::finalized || s == rank_state::dead) {
      p.done = true;
      continue;
    }
    if (end.status_known) {  // a zombie nobody reaped yet: the launcher is stopped, or gone
      p.done = true;
      mark_dead(head_, infos_, nranks_, r, end.wait_status);
      return;
    }
    // Reaped already: by the launcher, which marks it within milliseconds; only one that keeps
    // silent is overtaken.
    const std::int64_t now = now_ns();
    if (p.reaped_since == 0) {
      p.reaped_since = now;
    } else if (now - p.reaped_since >= reaped_grace_ns) {
      p.done = true;
      mark_dead(head_, infos_, nranks_, r, wait_status_unknown);
      return;
    }
  }
}

}  // namespace rmpl::runtime::local
