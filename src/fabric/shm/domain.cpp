#include "fabric/shm/domain.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/config.hpp"
#include "base/error.hpp"
#include "fabric/shm/single_copy.hpp"

namespace rmpl::fabric::shm {
namespace {

int env_int(const char* name, int fallback, int min, int max) {
  const char* text = std::getenv(name);
  if (!text) return fallback;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max) {
    base::fail(errc::invalid_argument, "{}={} is not a whole number from {} to {}", name, text, min,
               max);
  }
  return static_cast<int>(v);
}

constexpr std::uint64_t probe_magic = 0x70726f62652d726dull;

}  // namespace

domain::domain() {
  const char* fd_text = std::getenv("RMPL_SHM_FD");
  int fd = -1;
  bool own_segment = false;
  if (fd_text && *fd_text) {
    fd = env_int("RMPL_SHM_FD", -1, 0, INT_MAX);
    size_ = env_int("RMPL_SIZE", 1, 1, 4096);
    rank_ = env_int("RMPL_RANK", 0, 0, 4095);
    if (rank_ >= size_) {
      base::fail(errc::invalid_argument, "RMPL_RANK={} is not below RMPL_SIZE={}", rank_, size_);
    }
    // The launcher, watched like a peer (fabric/shm/liveness.hpp): rmplrun names itself.
    launcher_pid_ = env_int("RMPL_LAUNCHER_PID", 0, 0, INT_MAX);
    const char* name = std::getenv("RMPL_LAUNCHER");
    launcher_name_ = name && *name ? name : "launcher";
  } else {
    fd = create_job_segment(1);  // a job of one: started without rmplrun
    own_segment = true;
  }
  map_ = std::make_unique<mapping>(fd);
  if (own_segment) {
    ::close(fd);
  } else {
    // The launcher's descriptor stays open (its number is the launcher's to give, and the mapping
    // is what the rank uses), close-on-exec: a program the rank starts (system(), fork and exec)
    // must not inherit the job's memory, which it would keep alive after the job.
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0 || ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0)
      base::fail_errno("setting close-on-exec on the job segment (RMPL_SHM_FD)", errno);
  }
  head_ = &map_->head();
  p_ = head_->p;
  if (static_cast<int>(p_.nranks) != size_) {
    base::fail(errc::invalid_argument, "the job segment is for {} ranks but RMPL_SIZE={}",
               p_.nranks, size_);
  }
  const layout l(p_);
  infos_ = reinterpret_cast<rank_info*>(map_->base() + l.rank_info_offset);
  rings_ = map_->base() + l.ring_offset;
  pools_ = map_->base() + l.pool_offset;
  bounces_ = map_->base() + l.bounce_offset;
  node_ = node_segment({.areas = map_->base() + l.coll_offset,
                        .area_stride = l.coll_bytes,
                        .slots = p_.coll_slots,
                        .area_bytes = p_.coll_area_bytes,
                        .ranks = reinterpret_cast<std::byte*>(infos_),
                        .rank_stride = sizeof(rank_info),
                        .stall_at = offsetof(rank_info, stall),
                        .bell_at = offsetof(rank_info, bell)});
  ring_bytes_ = l.ring_bytes;
  pool_bytes_ = l.pool_bytes;
  bounce_bytes_ = l.bounce_bytes;

  cores_ = static_cast<int>(std::thread::hardware_concurrency());
  if (cores_ < 1) cores_ = 1;
  oversubscribed_ = size_ > cores_;

  allow_peer_reads();
  rank_info& me = infos_[rank_];
  me.probe_value = probe_magic ^ static_cast<std::uint64_t>(rank_);
  me.probe_address.store(reinterpret_cast<std::uint64_t>(&probe_value_), std::memory_order_relaxed);
  probe_value_ = me.probe_value;
  me.pid.store(static_cast<std::int32_t>(::getpid()), std::memory_order_relaxed);
  me.state.store(rank_state::alive, std::memory_order_release);
  if (size_ > 1 || launcher_pid_ != 0) {
    watcher_ = std::make_unique<watcher>(*head_, infos_, size_, rank_, launcher_pid_);
  }
  startup_barrier();
  pids_.resize(size_);
  for (int r = 0; r < size_; ++r) pids_[r] = infos_[r].pid.load(std::memory_order_acquire);
  probe_single_copy();
}

domain::~domain() {
  if (infos_) infos_[rank_].state.store(rank_state::finalized, std::memory_order_release);
}

void domain::sleep(std::uint32_t value, int timeout_ms) const noexcept {
  // Only here, on the way to sleep: never on the fast path. Every wait of the library sleeps
  // through this function with a bounded timeout, so a waiting rank checks at least that often.
  check_liveness();
  doorbell& b = infos_[rank_].bell;
  sleep_on(b, value, timeout_ms);
  b.sleeping.store(0, std::memory_order_relaxed);
}

void domain::sleep_leaving_flag(std::uint32_t value, int timeout_ms) const noexcept {
  sleep_on(infos_[rank_].bell, value, timeout_ms);
}

void domain::wake_own_threads() const noexcept {
  ring_all(infos_[rank_].bell);
}

std::string domain::describe_death(int r) const {
  if (r == size_) {
    return fmt::format(
        "the job's launcher ({}, pid {}) is gone: killed or ended before its ranks; the job is "
        "over",
        launcher_name_, launcher_pid_);
  }
  if (r < 0 || r >= size_) return "an unknown rank died";
  const int st = infos_[r].exit_status.load(std::memory_order_relaxed);
  if (st == wait_status_unknown) {
    return fmt::format(
        "rank {} died (its process is gone, and whoever reaped it did not say how it ended)", r);
  }
  if (WIFSIGNALED(st)) {
    return fmt::format("rank {} was killed by signal {} ({})", r, WTERMSIG(st),
                       ::strsignal(WTERMSIG(st)));
  }
  if (WIFEXITED(st)) return fmt::format("rank {} exited with status {}", r, WEXITSTATUS(st));
  return fmt::format("rank {} died", r);
}

std::uint32_t domain::barrier_arrive() noexcept {
  const std::uint32_t generation = head_->barrier_generation.load(std::memory_order_acquire);
  if (head_->barrier_arrived.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      static_cast<std::uint32_t>(size_)) {
    head_->barrier_arrived.store(0, std::memory_order_relaxed);
    head_->barrier_generation.fetch_add(1, std::memory_order_release);
    for (int r = 0; r < size_; ++r) {
      if (r != rank_) notify(r);
    }
  }
  return generation;
}

void domain::startup_barrier() {
  const std::uint32_t generation = barrier_arrive();
  while (!barrier_done(generation)) {
    const std::uint32_t bell = prepare_sleep();
    if (barrier_done(generation)) {
      cancel_sleep();
      break;
    }
    const int dead = failed_rank();
    if (dead >= 0) {
      cancel_sleep();
      base::fail(errc::dead_rank, "rank {} cannot start: {} before every rank joined", rank_,
                 describe_death(dead));
    }
    sleep(bell, 100);
  }
}

void domain::probe_single_copy() {
  const int wanted = base::env_tristate("RMPL_SINGLE_COPY");
  int mine = -1;
  if (wanted != 0) {
    const int peer = (rank_ + 1) % size_;
    std::uint64_t value = 0;
    const void* where =
        reinterpret_cast<const void*>(infos_[peer].probe_address.load(std::memory_order_relaxed));
    mine = read_from_process(pids_[peer], where, &value, sizeof(value));
    if (mine == 0 && value != (probe_magic ^ static_cast<std::uint64_t>(peer))) mine = EFAULT;
  }
  infos_[rank_].single_copy.store(mine == 0 ? 1 : 0, std::memory_order_release);
  startup_barrier();
  single_copy_error_ = mine;
  for (int r = 0; r < size_ && single_copy_error_ == 0; ++r) {
    if (infos_[r].single_copy.load(std::memory_order_acquire) != 1) single_copy_error_ = -2;
  }
  if (wanted == 1 && single_copy_error_ != 0) {
    base::fail(errc::system, "RMPL_SINGLE_COPY=1 but single copy is unavailable on rank {}: {}",
               rank_, single_copy_reason());
  }
}

std::string domain::single_copy_reason() const {
  return shm::single_copy_reason(single_copy_error_);
}

int domain::read_peer(int peer, const void* remote, void* local, std::size_t bytes) const noexcept {
  return read_from_process(pids_[peer], remote, local, bytes);
}

int domain::read_peer(int peer, iovec* local, std::size_t nlocal, iovec* remote,
                      std::size_t nremote) const noexcept {
  return read_from_process(pids_[peer], local, nlocal, remote, nremote);
}

int domain::write_peer(int peer, void* remote, const void* local,
                       std::size_t bytes) const noexcept {
  return write_to_process(pids_[peer], remote, local, bytes);
}

}  // namespace rmpl::fabric::shm
