#include "runtime/local/job.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "base/error.hpp"

namespace rmpl::runtime::local {
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

/// RMPL_PRETEND_HOSTS: host numbers (0 to 4095) separated by commas.
std::vector<int> pretend_hosts() {
  const char* text = std::getenv("RMPL_PRETEND_HOSTS");
  std::vector<int> hosts;
  if (text == nullptr || *text == '\0') return hosts;
  for (const char* at = text;;) {
    char* end = nullptr;
    const long h = std::strtol(at, &end, 10);
    if (end == at || h < 0 || h > 4095 || (*end != ',' && *end != '\0')) {
      base::fail(errc::invalid_argument,
                 "RMPL_PRETEND_HOSTS={} is not a list of host numbers (0 to 4095) separated by "
                 "commas, one per rank",
                 text);
    }
    hosts.push_back(static_cast<int>(h));
    if (*end == '\0') break;
    at = end + 1;
  }
  return hosts;
}

}  // namespace

job::job(int (*create)(int nranks)) {
  const char* fd_text = std::getenv("RMPL_SHM_FD");
  int fd = -1;
  bool own_segment = false;
  if ((!fd_text || !*fd_text) && pmix::started_by_server()) {
    fd = join_pmix(create);
    own_segment = true;
  } else if (fd_text && *fd_text) {
    fd = env_int("RMPL_SHM_FD", -1, 0, INT_MAX);
    size_ = env_int("RMPL_SIZE", 1, 1, 4096);
    rank_ = env_int("RMPL_RANK", 0, 0, 4095);
    if (rank_ >= size_) {
      base::fail(errc::invalid_argument, "RMPL_RANK={} is not below RMPL_SIZE={}", rank_, size_);
    }
    // The launcher, watched like a peer (runtime/local/liveness.hpp): rmplrun names itself.
    launcher_pid_ = env_int("RMPL_LAUNCHER_PID", 0, 0, INT_MAX);
    const char* name = std::getenv("RMPL_LAUNCHER");
    launcher_name_ = name && *name ? name : "launcher";
    if (const char* hosts = std::getenv("RMPL_HOSTS"); hosts && *hosts) join_hosts(hosts);
  } else {
    fd = create(1);  // a job of one: started without rmplrun
    own_segment = true;
  }
  map_ = std::make_unique<mapping>(fd);
  if (pmix_) pmix_->barrier();  // every rank of the host has mapped it: the creator may close it
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
  records_ = map_->records();
  if (static_cast<int>(head_->nranks) != size_) {
    base::fail(errc::invalid_argument, "the job segment is for {} ranks but RMPL_SIZE={}",
               head_->nranks, size_);
  }
  pretend_hosts_ = pretend_hosts();
  if (segment_ranks_.empty()) {
    for (int r = 0; r < size_; ++r) segment_ranks_.push_back(r);
  }
  cores_ = static_cast<int>(std::thread::hardware_concurrency());
  if (cores_ < 1) cores_ = 1;
  rank_record& me = records_[rank_];
  me.pid.store(static_cast<std::int32_t>(::getpid()), std::memory_order_relaxed);
  me.state.store(rank_state::alive, std::memory_order_release);
  if (size_ > 1 || launcher_pid_ != 0) {
    watcher_ = std::make_unique<watcher>(*head_, records_, size_, rank_, launcher_pid_);
    // Only this host's processes can be watched; the others' deaths come from the providers.
    std::vector<bool> here(static_cast<std::size_t>(size_), false);
    for (int r : segment_ranks_) here[static_cast<std::size_t>(r)] = true;
    for (int r = 0; r < size_; ++r) {
      if (!here[static_cast<std::size_t>(r)]) watcher_->ignore(r);
    }
  }
}

int job::join_pmix(int (*create)(int nranks)) {
  pmix_ = std::make_unique<pmix::job>();
  rank_ = pmix_->rank();
  size_ = pmix_->size();
  segment_ranks_ = pmix_->local_ranks();
  host_names_ = pmix_->hosts();
  hosts_.resize(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) hosts_[static_cast<std::size_t>(r)] = pmix_->host_of(r);
  if (segment_ranks_.empty() ||
      !std::binary_search(segment_ranks_.begin(), segment_ranks_.end(), rank_)) {
    base::fail(errc::system, "PMIx: rank {} is not among its host's ranks", rank_);
  }
  // The host's segment: made by its lowest rank for the whole job (offsets by job rank; pages of
  // other hosts' ranks are never touched, so they take no memory), and opened by the others
  // through the creator's descriptor in /proc: no name in /dev/shm to leave behind.
  const int creator = segment_ranks_.front();
  struct where {
    std::int32_t pid;
    std::int32_t fd;
  } at{};
  int fd = -1;
  if (rank_ == creator) {
    fd = create(size_);
    at = where{static_cast<std::int32_t>(::getpid()), fd};
    pmix_->put("rmpl.segment", {reinterpret_cast<const std::byte*>(&at), sizeof at});
  }
  pmix_->fence();
  if (rank_ != creator) {
    const std::vector<std::byte> bytes = pmix_->get(creator, "rmpl.segment");
    if (bytes.size() != sizeof at) {
      base::fail(errc::system, "PMIx: rank {}'s segment record has {} bytes, not {}", creator,
                 bytes.size(), sizeof at);
    }
    std::memcpy(&at, bytes.data(), sizeof at);
    const std::string path = fmt::format("/proc/{}/fd/{}", at.pid, at.fd);
    fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      base::fail(errc::system,
                 "rank {} cannot open its host's job segment, {} (made by rank {}): {}", rank_,
                 path, creator, std::strerror(err));
    }
  }
  return fd;
}

void job::join_hosts(const char* text) {
  // rmplrun writes it; checked all the same, as everything read from the environment.
  std::string_view rest(text);
  int next = 0;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    const std::string_view item = rest.substr(0, comma);
    rest.remove_prefix(std::min(comma + 1, rest.size()));
    const std::size_t colon = item.rfind(':');
    int count = 0;
    if (colon == std::string_view::npos || colon == 0 ||
        std::from_chars(item.data() + colon + 1, item.data() + item.size(), count).ptr !=
            item.data() + item.size() ||
        count < 1 || count > size_ - next) {
      base::fail(errc::invalid_argument,
                 "RMPL_HOSTS={}: '{}' is not HOST:RANKS with RANKS from 1 to the {} left of "
                 "RMPL_SIZE={}",
                 text, item, size_ - next, size_);
    }
    host_names_.emplace_back(item.substr(0, colon));
    hosts_.insert(hosts_.end(), static_cast<std::size_t>(count),
                  static_cast<int>(host_names_.size()) - 1);
    next += count;
  }
  if (next != size_) {
    base::fail(errc::invalid_argument, "RMPL_HOSTS={} places {} ranks, but RMPL_SIZE={}", text,
               next, size_);
  }
  const int host = env_int("RMPL_HOST", -1, 0, static_cast<int>(host_names_.size()) - 1);
  for (int r = 0; r < size_; ++r) {
    if (hosts_[static_cast<std::size_t>(r)] == host) segment_ranks_.push_back(r);
  }
  if (hosts_[static_cast<std::size_t>(rank_)] != host) {
    base::fail(errc::invalid_argument, "RMPL_RANK={} is not among the ranks of RMPL_HOST={} ({})",
               rank_, host, host_names_[static_cast<std::size_t>(host)]);
  }
  agent_fd_ = env_int("RMPL_AGENT_FD", -1, 0, INT_MAX);
  const int flags = ::fcntl(agent_fd_, F_GETFD);
  if (flags < 0 || ::fcntl(agent_fd_, F_SETFD, flags | FD_CLOEXEC) != 0)
    base::fail_errno("setting close-on-exec on the host agent's descriptor (RMPL_AGENT_FD)", errno);
}

int job::host_count() const noexcept {
  if (pretend_hosts_.empty()) return std::max<int>(1, static_cast<int>(host_names_.size()));
  int hosts = 0;
  for (int r = 0; r < size_; ++r) hosts = std::max(hosts, host_of(r) + 1);
  return hosts;
}

std::string job::host_name(int h) const {
  if (pretend_hosts_.empty() && h >= 0 && static_cast<std::size_t>(h) < host_names_.size())
    return host_names_[static_cast<std::size_t>(h)];
  return fmt::format("{}", h);
}

job::~job() {
  if (agent_fd_ >= 0) ::close(agent_fd_);
  if (records_) records_[rank_].state.store(rank_state::finalized, std::memory_order_release);
}

void job::publish_card(std::span<const std::byte> bytes) {
  if (pmix_) {
    pmix_->put("rmpl.card", bytes);
    return;
  }
  card& c = map_->cards()[rank_];
  if (bytes.size() > sizeof c.data) {
    base::fail(errc::internal, "rank {}: an address of {} bytes does not fit in a card of {}",
               rank_, bytes.size(), sizeof c.data);
  }
  std::memcpy(c.data, bytes.data(), bytes.size());
  c.length = static_cast<std::uint32_t>(bytes.size());
}

void job::exchange_cards(const char* what) {
  if (pmix_) {
    pmix_->fence();
    return;
  }
  barrier(what);
}

std::span<const std::byte> job::card_of(int r) const {
  if (pmix_) {
    if (cards_.empty()) cards_.resize(static_cast<std::size_t>(size_));
    std::vector<std::byte>& c = cards_[static_cast<std::size_t>(r)];
    if (c.empty()) c = pmix_->get(r, "rmpl.card");
    return c;
  }
  const card& c = map_->cards()[r];
  const std::uint32_t n = c.length;
  return {c.data, n <= sizeof c.data ? n : 0};
}

void job::learn_pids() {
  pids_.resize(size_);
  for (int r = 0; r < size_; ++r) pids_[r] = records_[r].pid.load(std::memory_order_acquire);
}

void job::sleep(std::uint32_t value, int timeout_ms) const noexcept {
  // Only here, on the way to sleep: never on the fast path. Every wait of the library sleeps
  // through this function with a bounded timeout, so a waiting rank checks at least that often.
  check_liveness();
  doorbell& b = records_[rank_].bell;
  sleep_on(b, value, timeout_ms);
  b.sleeping.store(0, std::memory_order_relaxed);
}

void job::sleep_leaving_flag(std::uint32_t value, int timeout_ms) const noexcept {
  sleep_on(records_[rank_].bell, value, timeout_ms);
}

std::string job::describe_death(int r) const {
  if (r == size_) {
    return fmt::format(
        "the job's launcher ({}, pid {}) is gone: killed or ended before its ranks; the job is "
        "over",
        launcher_name_, launcher_pid_);
  }
  if (r < 0 || r >= size_) return "an unknown rank died";
  if (host_names_.size() > 1) {  // the job spans hosts: say which
    return fmt::format("{} (on host {})", describe_death_here(r), host_name(host_of(r)));
  }
  return describe_death_here(r);
}

std::string job::describe_death_here(int r) const {
  const int st = records_[r].exit_status.load(std::memory_order_relaxed);
  if (st == wait_status_host_lost) {
    return fmt::format(
        "rank {} was lost with its host (the host's link to the job's launcher "
        "closed before its ranks ended)",
        r);
  }
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

std::uint32_t job::barrier_arrive() {
  if (pmix_) {
    pmix_->start_barrier(
        fence_done_,
        [](void* self) {
          static_cast<const job*>(self)->notify(static_cast<const job*>(self)->rank_);
        },
        this);
    return 0;
  }
  const std::uint32_t generation = head_->barrier_generation.load(std::memory_order_acquire);
  if (head_->barrier_arrived.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      static_cast<std::uint32_t>(segment_ranks_.size())) {
    head_->barrier_arrived.store(0, std::memory_order_relaxed);
    if (agent_fd_ >= 0) {
      // The host is done: its agent finishes the barrier across hosts and bumps the generation.
      // A write that fails means the agent is gone, which the watcher reports.
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(agent_fd_, &one, sizeof one);
    } else {
      head_->barrier_generation.fetch_add(1, std::memory_order_release);
      for (int r : segment_ranks_) {
        if (r != rank_) notify(r);
      }
    }
  }
  return generation;
}

void job::barrier(const char* what) {
  if (pmix_) {
    pmix_->barrier();
    return;
  }
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
      base::fail(errc::dead_rank, "rank {} cannot {}: {} before every rank joined", rank_, what,
                 describe_death(dead));
    }
    sleep(bell, 100);
  }
}

}  // namespace rmpl::runtime::local
