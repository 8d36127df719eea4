#include "job.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "affinity.hpp"
#include "fabric/shm/segment.hpp"
#include "link.hpp"
#include "output.hpp"
#include "runtime/local/liveness.hpp"
#include "runtime/local/segment.hpp"
#include "util.hpp"

namespace rmplrun {
namespace {

using clock = std::chrono::steady_clock;

constexpr auto grace = std::chrono::seconds(1);  // between the polite signal and SIGKILL
// After a rank fails, how long the others that joined rmpl have to notice (an error naming the
// failed rank, within their next wake-up) and end on their own, reporting it, before the job is
// ended for them. A finalized rank is waited for too: it may just have returned from a finalize
// that reported the death and be writing that report (killing it at once lost its output). Ranks
// that never joined cannot notice and are not waited for.
constexpr auto survivors_grace = std::chrono::seconds(2);
// How long output is still relayed after the last rank has been reaped and the group swept: only a
// process that left the job's group (setsid) can hold a pipe open that long.
constexpr auto drain_time = std::chrono::seconds(1);
constexpr int exit_timeout = 124;  // as timeout(1)

bool failed(int wait_status) {
  return !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0;
}

int exit_status_of(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

std::string describe(int rank, pid_t pid, int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    return fmt::format("rank {} (pid {}) was killed by signal {} ({})", rank, pid, sig,
                       ::strsignal(sig));
  }
  return fmt::format("rank {} (pid {}) exited with status {}", rank, pid, WEXITSTATUS(wait_status));
}

/// rmplrun's own process state that the job changes, for the ranks to get back before exec.
struct inherited {
  sigset_t mask{};
  struct sigaction sigpipe {};
  rlimit nofile{};
};

class job {
 public:
  job(const options& opt, const std::string& program, int segment_fd, int signal_fd,
      const inherited& inh);
  ~job();
  job(const job&) = delete;
  job& operator=(const job&) = delete;

  int run();

 private:
  void start_leader();
  /// In the leader, once rmplrun is gone: waits until no rank that joined rmpl still runs, or
  /// until `until`.
  void await_joined_ranks(clock::time_point until) const noexcept;
  void start_rank(int rank);
  [[noreturn]] void exec_rank(int rank, relayed_output::rank_pipes pipes);
  void read_signals();
  void reap();
  struct failure {
    std::string message;  // names the rank and how it ended
    int status;           // rmplrun's exit status
    int rank;             // the rank whose end is the cause, and its wait status
    int wait_status;
  };
  /// Whether `rank`'s end (reaped with `wait_status`) fails the job, and why; marks it dead in the
  /// segment if so, so that peers waiting for it report an error.
  std::optional<failure> failure_of(int rank, pid_t pid, int wait_status);
  /// Ends the job with `status`, after survivors_grace if some rank that joined is still running.
  void fail(int status);
  /// Some rank other than `rank`, not reaped yet, is marked dead in the segment: by the ranks'
  /// watch (runtime/local/liveness.hpp), since rmplrun marks only the ranks it has reaped.
  bool peer_marked_dead(int rank) const noexcept;
  /// Some rank joined the job (alive or finalized).
  bool anyone_joined() const noexcept;
  /// Some rank that joined rmpl (alive or finalized) is still running: it can notice a death, or
  /// is reporting one.
  bool anyone_joined_running() const noexcept;
  void on_signal(int sig);
  void begin_end(int sig, int status);
  void signal_all(int sig);
  void sweep();
  bool local(int rank) const noexcept { return rank >= first_ && rank < first_ + count_; }

  // ---- as the agent of a host in a job across hosts (opt.serve_host >= 0) ----
  /// Sends a frame to the rmplrun that started the job (our stdout); a failed write means it is
  /// gone, as when our stdin closes.
  void send(link::kind what, int a, int b, std::string_view payload = {});
  /// Every rank of this host reached the job barrier: sends their cards.
  void on_host_arrived();
  /// Reads frames from the starter (our stdin).
  void on_control();
  void on_starter_gone();
  /// Writes what it can of the input queued for rank 0, and says how much went.
  void feed_rank0();
  void close_rank0_input();

  const options& opt_;
  const bool agent_ = opt_.serve_host >= 0;
  int first_ = 0;  // this host's ranks: first_ .. first_ + count_ - 1 (all of them on one host)
  int count_ = 0;
  std::string host_list_;  // RMPL_HOSTS: every host with the ranks it runs
  int agent_fd_ = -1;      // the eventfd the last rank of this host to reach a barrier writes
  link::reader control_;
  bool control_open_ = false;
  // Rank 0's standard input, when the launcher forwards its own (--forward-stdin).
  int rank0_in_[2] = {-1, -1};  // the pipe: rank 0 reads [0], this agent writes [1]
  std::string input_;           // received, not yet written
  bool input_ended_ = false;    // the launcher's input is at its end
  const std::string& program_;
  const int segment_fd_;
  const int signal_fd_;
  const inherited& inherited_;
  rmpl::runtime::local::job_view view_;  // the ranks' states in the segment
  const pid_t parent_ = ::getpid();
  std::vector<char*> argv_;
  std::vector<int> cpus_;  // cpus_[rank], or empty: no binding
  int devnull_ = -1;
  bool stdin_to_rank0_ = false;
  std::unique_ptr<relayed_output> output_;  // with --tag-output, and as an agent

  // The job's processes are one process group, so that a signal reaches whatever the ranks started
  // too. Its leader is a stand-in process of ours rather than a rank: it lives until the very end,
  // so the group's id stays reserved (never reused) for as long as rmplrun signals it.
  pid_t leader_ = -1;
  bool leader_reaped_ = false;
  std::vector<pid_t> pids_;  // by rank; 0 once reaped
  std::unordered_map<pid_t, int> ranks_by_pid_;
  int alive_ = 0;  // ranks not yet reaped

  std::optional<clock::time_point> deadline_;  // --timeout
  // The first rank that exited 0 before joining the job: a failure once any rank has joined (it
  // waits for that rank at start-up), nothing if none ever does (a program that does not use rmpl).
  std::optional<std::pair<int, pid_t>> unjoined_;
  bool failed_ = false;  // a rank failed: reported, marked dead, the others given survivors_grace
  clock::time_point survivors_until_{};
  bool ending_ = false;  // the ranks have been told to stop
  bool killed_ = false;  // ... and sent SIGKILL
  clock::time_point kill_at_{};
  bool swept_ = false;  // every rank reaped and the group killed: only output may remain
  clock::time_point drain_until_{};
  int status_ = 0;
};

job::job(const options& opt, const std::string& program, int segment_fd, int signal_fd,
         const inherited& inh)
    : opt_(opt),
      program_(program),
      segment_fd_(segment_fd),
      signal_fd_(signal_fd),
      inherited_(inh),
      view_(segment_fd, opt.nranks) {
  for (const std::string& arg : opt_.command) argv_.push_back(const_cast<char*>(arg.c_str()));
  argv_.push_back(nullptr);
  count_ = opt_.nranks;
  if (agent_) {
    host_list_ = format_host_list(opt_.hosts);
    first_ = 0;
    for (int h = 0; h < opt_.serve_host; ++h)
      first_ += opt_.hosts[static_cast<std::size_t>(h)].slots;
    count_ = opt_.hosts[static_cast<std::size_t>(opt_.serve_host)].slots;
    agent_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (agent_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    control_open_ = true;
    ::fcntl(0, F_SETFL, ::fcntl(0, F_GETFL) | O_NONBLOCK);
  }
  if (agent_ && opt_.forward_stdin && local(0)) {
    if (::pipe2(rank0_in_, O_CLOEXEC) != 0)
      throw std::system_error(errno, std::generic_category(), "pipe2");
    ::fcntl(rank0_in_[1], F_SETFL, O_NONBLOCK);
  }
  if (opt_.bind) {
    cpus_ = allowed_cpus();
    if (cpus_.size() < static_cast<std::size_t>(count_)) cpus_.clear();  // oversubscribed
  }
  // Ranks never read a terminal: they are not in its foreground process group, so a read would stop
  // them (SIGTTIN) and hang the job. Rank 0 gets a file or pipe given as standard input (not on the
  // hosts of a job across hosts, where standard input is the agent's link).
  devnull_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  stdin_to_rank0_ = !agent_ && !::isatty(0);
  if (agent_) {
    output_ = std::make_unique<relayed_output>(
        opt_.tag_output, [this](int rank, int target, std::string_view lines) {
          send(link::kind::output, rank, target, lines);
          return control_open_;
        });
  } else if (opt_.tag_output) {
    output_ = std::make_unique<relayed_output>(true);
  }
  pids_.assign(static_cast<std::size_t>(opt_.nranks), 0);
  if (opt_.timeout) {
    deadline_ = clock::now() + std::chrono::duration_cast<clock::duration>(
                                   std::chrono::duration<double>(*opt_.timeout));
  }
}

job::~job() {
  if (devnull_ >= 0) ::close(devnull_);
  if (agent_fd_ >= 0) ::close(agent_fd_);
  for (int fd : rank0_in_) {
    if (fd >= 0) ::close(fd);
  }
}

void job::feed_rank0() {
  std::size_t given = 0;
  while (rank0_in_[1] >= 0 && !input_.empty()) {
    const ssize_t n = ::write(rank0_in_[1], input_.data(), input_.size());
    if (n > 0) {
      input_.erase(0, static_cast<std::size_t>(n));
      given += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      break;  // the rest once rank 0 has read
    } else {  // rank 0 closed its input or ended: the rest is dropped
      given += input_.size();
      input_.clear();
      close_rank0_input();
    }
  }
  if (rank0_in_[1] < 0 && !input_.empty()) {  // nobody to give it to: taken all the same
    given += input_.size();
    input_.clear();
  }
  if (given != 0) send(link::kind::input_taken, static_cast<int>(given), 0);
  if (input_ended_ && input_.empty()) close_rank0_input();
}

void job::close_rank0_input() {
  if (rank0_in_[1] >= 0) ::close(rank0_in_[1]);
  rank0_in_[1] = -1;
}

void job::send(link::kind what, int a, int b, std::string_view payload) {
  if (!control_open_) return;
  if (!write_all(1, link::encode(what, a, b, payload))) on_starter_gone();
}

void job::on_host_arrived() {
  std::uint64_t count = 0;
  if (::read(agent_fd_, &count, sizeof count) != static_cast<ssize_t>(sizeof count)) return;
  std::string cards;
  for (int r = first_; r < first_ + count_; ++r) link::append_card(cards, r, view_.card_of(r));
  send(link::kind::arrive, 0, 0, cards);
}

void job::on_control() {
  const link::reader::state st = control_.read_from(0);
  while (auto f = control_.next()) {
    switch (f->head.what) {
      case link::kind::release: {
        // The other hosts' cards first, then the barrier: a rank that leaves it reads them.
        link::for_each_card(f->payload, [&](int r, std::span<const std::byte> card) {
          if (r >= 0 && r < opt_.nranks && !local(r)) view_.set_card(r, card);
        });
        view_.release_barrier(first_, count_);
        break;
      }
      case link::kind::dead: {
        // A rank of another host failed (its host reported it): the ranks here report it, named,
        // as if it were their neighbour; the job then ends as after a death here.
        const int r = f->head.a;
        if (r < 0 || r >= opt_.nranks || local(r)) break;
        view_.mark_dead(r, f->head.b);
        if (!failed_ && !ending_ && !swept_) fail(1);
        break;
      }
      case link::kind::input:
        if (f->payload.empty())
          input_ended_ = true;
        else
          input_ += f->payload;
        feed_rank0();
        break;
      case link::kind::end: {
        const int sig = f->head.a;
        if (swept_) break;
        if (!ending_) {
          begin_end(sig, failed_ ? status_ : 128 + sig);
        } else if (!killed_) {
          signal_all(SIGKILL);
          killed_ = true;
        }
        break;
      }
      default:
        break;
    }
  }
  if (st != link::reader::state::open) on_starter_gone();
}

void job::on_starter_gone() {
  if (!control_open_) return;
  control_open_ = false;
  if (!swept_ && !ending_) {
    say("the rmplrun that started the job is gone (its link to this host closed); ending the "
        "ranks here");
    begin_end(SIGTERM, 1);
  }
}

int job::run() {
  // What every rank shares goes into our own environment, which they inherit; RMPL_RANK is set in
  // each child. -x comes first so that it cannot override the launcher's variables.
  for (const auto& [name, value] : opt_.exports) {
    if (value) ::setenv(name.c_str(), value->c_str(), 1);  // -x VAR alone: inherited anyway
  }
  ::setenv("RMPL_SIZE", std::to_string(opt_.nranks).c_str(), 1);
  if (agent_) {  // runtime/local/job.hpp: join_hosts()
    ::setenv("RMPL_HOSTS", host_list_.c_str(), 1);
    ::setenv("RMPL_HOST", std::to_string(opt_.serve_host).c_str(), 1);
    ::setenv("RMPL_AGENT_FD", std::to_string(agent_fd_).c_str(), 1);
  }
  ::setenv("RMPL_SHM_FD", std::to_string(segment_fd_).c_str(), 1);
  ::setenv("RMPL_LAUNCHER", "rmplrun", 1);
  // The ranks watch this process (runtime/local/liveness.hpp): if it dies, those waiting inside
  // rmpl report the job's end instead of waiting for a launcher that will never answer.
  ::setenv("RMPL_LAUNCHER_PID", std::to_string(parent_).c_str(), 1);

  try {
    start_leader();
  } catch (const std::system_error& e) {
    say("cannot start the job: {}", e.what());
    return 1;
  }
  for (int rank = first_; rank < first_ + count_; ++rank) {
    try {
      start_rank(rank);
    } catch (const std::system_error& e) {
      say("cannot start rank {}: {}", rank, e.what());
      begin_end(SIGKILL, 1);
      break;
    }
  }

  std::vector<pollfd> fds;
  for (;;) {
    if (alive_ == 0 && !swept_) sweep();
    if (swept_ && (!output_ || output_->done())) break;
    const auto now = clock::now();
    if (swept_ && now >= drain_until_) {
      output_->close_all();
      break;
    }
    if (!ending_ && !failed_ && !swept_ && deadline_ && now >= *deadline_) {
      say("timeout after {} s{}; ending the job", opt_.timeout_text, opt_.timeout_origin);
      begin_end(SIGTERM, exit_timeout);
    }
    if (failed_ && !ending_ && !swept_ && now >= survivors_until_) begin_end(SIGTERM, status_);
    if (ending_ && !killed_ && now >= kill_at_) {
      signal_all(SIGKILL);
      killed_ = true;
    }

    std::optional<clock::time_point> wake;
    auto wake_by = [&](clock::time_point t) { wake = wake ? std::min(*wake, t) : t; };
    if (!ending_ && !failed_ && !swept_ && deadline_) wake_by(*deadline_);
    if (failed_ && !ending_ && !swept_) wake_by(survivors_until_);
    if (ending_ && !killed_) wake_by(kill_at_);
    if (swept_) wake_by(drain_until_);
    int timeout_ms = -1;
    if (wake) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wake - now).count();
      timeout_ms = static_cast<int>(std::clamp<decltype(ms)>(ms, 0, 60'000));
    }

    fds.clear();
    fds.push_back({signal_fd_, POLLIN, 0});
    // As an agent: our link (stdin) and the barrier's eventfd; -1 is skipped by poll().
    fds.push_back({agent_ && control_open_ ? 0 : -1, POLLIN, 0});
    fds.push_back({agent_fd_, POLLIN, 0});
    fds.push_back({!input_.empty() ? rank0_in_[1] : -1, POLLOUT, 0});
    constexpr std::size_t ours = 4;
    if (output_) output_->add_to_poll(fds);
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      say("poll failed: {}", std::strerror(errno));
      if (!ending_) begin_end(SIGKILL, 1);
      ::usleep(10'000);  // and carry on reaping: rmplrun never leaves before its ranks
      fds.resize(ours);
      fds[0].revents = POLLIN;
      fds[1].revents = fds[2].revents = fds[3].revents = 0;
    }
    if (fds[0].revents != 0) read_signals();
    if (fds[1].revents != 0) on_control();
    if (fds[2].revents != 0) on_host_arrived();
    if (fds[3].revents != 0) feed_rank0();
    if (output_) output_->service(std::span(fds).subspan(ours));
  }
  // Reaped last: until now the zombie leader has kept the group's id from being reused.
  if (!leader_reaped_) ::waitpid(leader_, nullptr, 0);
  send(link::kind::done, status_, 0);
  return status_;
}

void job::start_leader() {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    ::setpgid(0, 0);
    // It must hold no descriptor: no pipe of --tag-output, not even rmplrun's stdout (whoever reads
    // that waits for every writer to close it).
    ::close_range(0, ~0U, 0);
    // Every signal blocked: a forwarded SIGTERM or SIGINT does not end it, only SIGKILL does.
    sigset_t all;
    ::sigfillset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    // If rmplrun dies, even by SIGKILL, the leader ends the whole group. Ranks that never joined
    // rmpl die of their own PDEATHSIG at once; ranks that joined cleared it (their watcher notices
    // the launcher's death and reports it), so they get the survivors' grace to report and end
    // first, as after a rank's death.
    ::prctl(PR_SET_PDEATHSIG, SIGUSR1);
    sigset_t usr1;
    ::sigemptyset(&usr1);
    ::sigaddset(&usr1, SIGUSR1);
    for (;;) {
      if (::getppid() != parent_) {
        await_joined_ranks(clock::now() + survivors_grace);
        ::kill(0, SIGKILL);
      }
      ::sigwaitinfo(&usr1, nullptr);
    }
  }
  ::setpgid(pid, pid);  // in both processes, so the group exists whichever runs first
  leader_ = pid;
}

void job::await_joined_ranks(clock::time_point until) const noexcept {
  // The segment's rank states and pids are still mapped here (view_, inherited at the fork). A pid
  // is only looked at, never signalled: the group's SIGKILL ends the job. As for survivors_grace,
  // a finalized rank is waited for too: it may be printing the error its finalize reported.
  using rmpl::runtime::local::rank_state;
  while (clock::now() < until) {
    bool waiting = false;
    for (int r = first_; r < first_ + count_ && !waiting; ++r) {
      const rank_state state = view_.state(r);
      if (state != rank_state::alive && state != rank_state::finalized) continue;
      const pid_t pid = view_.pid(r);
      if (pid <= 0) continue;
      const rmpl::runtime::local::process_info p = rmpl::runtime::local::read_process(pid);
      waiting = p.exists && !p.zombie;
    }
    if (!waiting) return;
    ::usleep(10'000);
  }
}

void job::start_rank(int rank) {
  relayed_output::rank_pipes pipes;
  if (output_) pipes = output_->open(rank);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    relayed_output::close_write_ends(pipes);
    throw std::system_error(err, std::generic_category(), "fork");
  }
  if (pid == 0) exec_rank(rank, pipes);
  view_.launched(rank,
                 pid);  // its peers watch it by this until it joins (runtime/local/liveness.cpp)
  // Joined here too, so that the rank is in the group before rmplrun signals it. It fails
  // harmlessly (EACCES) if the child has already exec'd, which it does only after joining itself.
  ::setpgid(pid, leader_);
  relayed_output::close_write_ends(pipes);
  if (rank == 0 && rank0_in_[0] >= 0) {  // rank 0 has its end of the input pipe now
    ::close(rank0_in_[0]);
    rank0_in_[0] = -1;
  }
  pids_[static_cast<std::size_t>(rank)] = pid;
  ranks_by_pid_[pid] = rank;
  ++alive_;
}

void job::exec_rank(int rank, relayed_output::rank_pipes pipes) {
  // In the child: a copy of single-threaded rmplrun, so ordinary library calls are safe here.
  ::setpgid(0, leader_);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent_) ::_exit(127);  // rmplrun died before PDEATHSIG was armed
  if (rank == 0 && rank0_in_[0] >= 0)
    ::dup2(rank0_in_[0], 0);  // the launcher's input, forwarded over the link
  else if (rank != 0 || !stdin_to_rank0_)
    ::dup2(devnull_, 0);
  if (pipes.out >= 0) {
    ::dup2(pipes.out, 1);
    ::dup2(pipes.err, 2);
  }
  if (!cpus_.empty()) {
    const int cpu = cpus_[static_cast<std::size_t>(rank - first_)];
    if (int err = bind_to_cpu(cpu); err != 0) {
      say("rank {}: cannot bind to CPU {}: {}", rank, cpu, std::strerror(err));
    }
  }
  ::setenv("RMPL_RANK", std::to_string(rank).c_str(), 1);
  ::sigaction(SIGPIPE, &inherited_.sigpipe, nullptr);
  ::setrlimit(RLIMIT_NOFILE, &inherited_.nofile);
  ::sigprocmask(SIG_SETMASK, &inherited_.mask, nullptr);
  // The segment is close-on-exec everywhere else (create_job_segment); the rank alone inherits it,
  // and sets the flag again once it has mapped it (runtime/local/job.cpp).
  if (::fcntl(segment_fd_, F_SETFD, 0) != 0) {
    say("rank {}: cannot hand down the job segment (descriptor {}): {}", rank, segment_fd_,
        std::strerror(errno));
    ::_exit(127);
  }
  if (agent_fd_ >= 0 && ::fcntl(agent_fd_, F_SETFD, 0) != 0) {
    say("rank {}: cannot hand down the host agent's descriptor {}: {}", rank, agent_fd_,
        std::strerror(errno));
    ::_exit(127);
  }
  ::execv(program_.c_str(), argv_.data());
  say("rank {}: cannot execute '{}': {}", rank, program_, std::strerror(errno));
  ::_exit(127);
}

void job::read_signals() {
  signalfd_siginfo info;
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo != SIGCHLD) on_signal(static_cast<int>(info.ssi_signo));
  }
  reap();  // SIGCHLDs merge: whatever woke us, collect every child that is done
}

void job::reap() {
  int wait_status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0) {
    if (pid == leader_) {
      leader_reaped_ = true;  // from now on the group's id could be reused: no more signals to it
      continue;
    }
    auto it = ranks_by_pid_.find(pid);
    if (it == ranks_by_pid_.end()) continue;
    const int rank = it->second;
    ranks_by_pid_.erase(it);
    pids_[static_cast<std::size_t>(rank)] = 0;
    --alive_;
    // Once the job is ending, deaths are the ones rmplrun caused, and once a rank has failed, the
    // others' are its consequences (they report it themselves): neither is a failure to report.
    if (ending_ || failed_) continue;
    // Likewise when the ranks' own watch saw a death first (rmplrun was stopped meanwhile): the
    // survivors may have ended, with errors of their own, before rmplrun reaps the dead rank,
    // which is reported when its turn comes.
    if (peer_marked_dead(rank)) continue;
    if (auto f = failure_of(rank, pid, wait_status)) {
      say("{}", f->message);
      send(link::kind::dead, f->rank, f->wait_status);  // as an agent: for the other hosts' ranks
      fail(f->status);
    }
  }
}

std::optional<job::failure> job::failure_of(int rank, pid_t pid, int wait_status) {
  using rmpl::runtime::local::rank_state;
  const rank_state state = view_.state(rank);
  if (state == rank_state::absent && !failed(wait_status) && !unjoined_) {
    // Marked dead whatever happens next: a rank that joins later then fails at start-up, naming
    // this one, rather than waiting for it forever.
    view_.mark_dead(rank, wait_status);
    unjoined_ = {rank, pid};
  }
  if (unjoined_ && (state != rank_state::absent || anyone_joined())) {
    // The cause, even when this rank failed too: it was waiting for the one that never came.
    if (failed(wait_status)) view_.mark_dead(rank, wait_status);
    return failure{fmt::format("{} before every rank joined the job",
                               describe(unjoined_->first, unjoined_->second, 0)),
                   1, unjoined_->first, 0};
  }
  if (failed(wait_status)) {
    // Marked dead before anything else, so that peers blocked on this rank report an error
    // instead of hanging until they are killed; not once it has finalized: nobody waits for it
    // then, and the others may still be finishing their own finalize.
    if (state != rank_state::finalized) view_.mark_dead(rank, wait_status);
    return failure{describe(rank, pid, wait_status), exit_status_of(wait_status), rank,
                   wait_status};
  }
  // exit(0) inside rmpl: its peers would wait for it forever. Dead: a peer's watcher saw it go
  // first (this launcher was stopped) and marked it; only this launcher marks a rank it has reaped,
  // and it has not marked this one yet.
  if (state == rank_state::alive || state == rank_state::dead) {
    view_.mark_dead(rank, wait_status);
    return failure{fmt::format("{} without finalizing rmpl", describe(rank, pid, wait_status)), 1,
                   rank, wait_status};
  }
  return std::nullopt;
}

void job::fail(int status) {
  failed_ = true;
  status_ = status;
  if (anyone_joined_running()) {
    survivors_until_ = clock::now() + survivors_grace;
  } else {
    begin_end(SIGTERM, status);
  }
}

bool job::peer_marked_dead(int rank) const noexcept {
  for (int r = first_; r < first_ + count_; ++r) {
    if (r != rank && pids_[static_cast<std::size_t>(r)] != 0 &&
        view_.state(r) == rmpl::runtime::local::rank_state::dead) {
      return true;
    }
  }
  return false;
}

bool job::anyone_joined() const noexcept {
  for (int r = first_; r < first_ + count_; ++r) {
    if (view_.state(r) != rmpl::runtime::local::rank_state::absent &&
        view_.state(r) != rmpl::runtime::local::rank_state::dead) {
      return true;
    }
  }
  return false;
}

bool job::anyone_joined_running() const noexcept {
  using rmpl::runtime::local::rank_state;
  for (int r = first_; r < first_ + count_; ++r) {
    const rank_state state = view_.state(r);
    if (pids_[static_cast<std::size_t>(r)] != 0 &&
        (state == rank_state::alive || state == rank_state::finalized)) {
      return true;
    }
  }
  return false;
}

void job::on_signal(int sig) {
  if (swept_) {  // the ranks are all gone: stop waiting for stray output
    drain_until_ = clock::now();
  } else if (!ending_) {
    say("got signal {} ({}); ending the job", sig, ::strsignal(sig));
    // Forwarded as is: the ranks may treat SIGINT and SIGTERM apart. A rank's failure, if one came
    // first, stays the job's status.
    begin_end(sig, failed_ ? status_ : 128 + sig);
  } else if (!killed_) {  // asked again while ending: no more grace
    signal_all(SIGKILL);
    killed_ = true;
  }
}

void job::begin_end(int sig, int status) {
  ending_ = true;
  status_ = status;
  signal_all(sig);
  killed_ = sig == SIGKILL;
  kill_at_ = clock::now() + grace;
}

void job::signal_all(int sig) {
  if (!leader_reaped_) ::kill(-leader_, sig);
  // A rank that left the group (setsid, setpgid) is signalled by pid, which is its own until
  // reaped.
  for (pid_t pid : pids_) {
    if (pid != 0 && (leader_reaped_ || ::getpgid(pid) != leader_)) ::kill(pid, sig);
  }
}

void job::sweep() {
  // Whatever the ranks started and left behind in the group goes with them (the leader too).
  if (!leader_reaped_) ::kill(-leader_, SIGKILL);
  swept_ = true;
  drain_until_ = clock::now() + drain_time;
}

}  // namespace

int run_job(const options& opt, const std::string& program) {
  inherited inh;
  const int signal_fd = take_signals(&inh.mask);
  if (signal_fd < 0) {
    say("signalfd failed: {}", std::strerror(errno));
    return 1;
  }
  // A closed stdout must not kill rmplrun (leaving the job unreported): writes fail with EPIPE.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &inh.sigpipe);
  ::getrlimit(RLIMIT_NOFILE, &inh.nofile);
  if (opt.tag_output) {
    // Two pipes per rank: up to 8192 descriptors. The ranks get the original limit back.
    rlimit raised = inh.nofile;
    raised.rlim_cur = raised.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &raised);
  }

  int segment_fd = -1;
  try {
    segment_fd = rmpl::fabric::shm::create_job_segment(opt.nranks);
  } catch (const std::exception& e) {
    say("{}", e.what());
    return 1;
  }
  job j(opt, program, segment_fd, signal_fd, inh);
  return j.run();
}

}  // namespace rmplrun
