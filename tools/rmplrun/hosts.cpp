#include "hosts.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "link.hpp"
#include "runtime/local/liveness.hpp"
#include "util.hpp"

extern char** environ;

namespace rmplrun {
namespace {

using clock = std::chrono::steady_clock;

// After the hosts were told to end the job, how long their agents have to end their ranks and
// report before the launch agents themselves are ended (which closes the links: the agents then
// end their ranks at once).
constexpr auto agents_grace = std::chrono::seconds(10);
constexpr int exit_timeout = 124;  // as timeout(1)

/// One argument as the remote shell must see it (ssh joins its arguments into one command line).
std::string shell_quoted(std::string_view arg) {
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

bool this_host(const std::string& name) {
  if (name == "localhost" || name == "127.0.0.1") return true;
  char here[HOST_NAME_MAX + 1] = {};
  if (::gethostname(here, sizeof here - 1) != 0) return false;
  const std::string_view mine(here);
  // "node1" names this host whether it calls itself node1 or node1.cluster.example.
  return name == mine || (mine.starts_with(name) && mine[name.size()] == '.');
}

/// Ranks fill the hosts in order, each up to its slots; a host named twice counts once with the
/// slots of both. With `oversubscribe`, ranks beyond the slots are shared out among the hosts, the
/// first hosts taking one more when they do not divide evenly.
std::vector<host_slots> place(const std::vector<host_slots>& hosts, int nranks,
                              bool oversubscribe) {
  std::vector<host_slots> merged;
  for (const host_slots& h : hosts) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const host_slots& m) { return m.name == h.name; });
    if (it == merged.end())
      merged.push_back(h);
    else
      it->slots += h.slots;
  }
  long total = 0;
  for (const host_slots& h : merged) total += h.slots;
  std::vector<int> counts(merged.size(), 0);
  int left = nranks;
  for (std::size_t i = 0; i < merged.size(); ++i) {
    counts[i] = std::min(merged[i].slots, left);
    left -= counts[i];
  }
  if (left > 0 && !oversubscribe) {
    throw usage_error(
        fmt::format("-n {}: the hosts offer {} slots (give a host more with "
                    "host:slots, or a hostfile's slots=N, or --oversubscribe)",
                    nranks, total));
  }
  const int n = static_cast<int>(merged.size());
  for (int i = 0; i < n; ++i) counts[static_cast<std::size_t>(i)] += left / n + (i < left % n);
  std::vector<host_slots> placed;
  for (std::size_t i = 0; i < merged.size(); ++i) {
    if (counts[i] > 0) placed.push_back({merged[i].name, counts[i]});
  }
  return placed;
}

struct host_link {
  std::string name;
  int first = 0;  // its ranks: first .. first + count - 1
  int count = 0;
  pid_t pid = -1;        // the launch agent (or, for this host, the agent itself)
  int to = -1;           // its stdin
  int from = -1;         // its stdout
  std::string outgoing;  // frames not yet written to `to`
  link::reader incoming;
  bool arrived = false;  // at the current barrier
  std::string cards;     // ... with these cards
  bool done = false;     // it reported its ranks ended
  int status = 0;        // ... with this status
  bool reaped = false;
  std::string ranks() const {
    return count == 1 ? fmt::format("rank {}", first)
                      : fmt::format("ranks {}-{}", first, first + count - 1);
  }
};

class hosts_job {
 public:
  hosts_job(const options& opt, const std::string& program, int signal_fd, const sigset_t& mask)
      : opt_(opt), program_(program), signal_fd_(signal_fd), mask_(mask) {}
  int run();

 private:
  std::vector<std::string> agent_command(std::size_t h) const;
  void start(host_link& host, std::size_t index);
  void queue(host_link& host, link::kind what, int a, int b, std::string_view payload = {});
  void flush(host_link& host);
  void on_frames(host_link& host);
  void on_link_closed(host_link& host);
  void reap();
  void fail(int status);
  void end_all(int sig, int status);

  const options& opt_;
  const std::string& program_;
  const int signal_fd_;
  const sigset_t& mask_;
  std::vector<host_link> hosts_;
  std::string host_list_;
  bool failed_ = false;  // a rank or host failed: the job is ending with status_
  bool ending_ = false;  // the hosts were told to end
  bool killed_ = false;  // ... at once (SIGKILL)
  bool agents_killed_ = false;
  clock::time_point agents_until_{};
  std::optional<clock::time_point> deadline_;
  int status_ = 0;
  bool broken_out_[3] = {false, false, false};
  // This rmplrun's standard input, for rank 0 (as on one host, unless it is a terminal).
  bool forward_stdin_ = !::isatty(0);
  bool stdin_done_ = false;
  std::size_t input_in_flight_ = 0;  // sent to rank 0's host, not yet given to rank 0
  void forward_input();
};

std::vector<std::string> hosts_job::agent_command(std::size_t h) const {
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string exe = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "rmplrun";
  std::string wdir = opt_.wdir;
  if (wdir.empty()) {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd)) wdir = cwd;
  }
  std::vector<std::string> args = {exe,
                                   "--serve-host",
                                   std::to_string(h + 1),
                                   "-H",
                                   host_list_,
                                   "-n",
                                   std::to_string(opt_.nranks),
                                   "--bind",
                                   opt_.bind ? "core" : "none"};
  if (!wdir.empty()) args.insert(args.end(), {"--wdir", wdir});
  if (opt_.tag_output) args.push_back("--tag-output");
  if (forward_stdin_ && h == 0) args.push_back("--forward-stdin");  // rank 0 is the first host's
  // The ranks' environment on other hosts is what the launch agent gives there, plus: every
  // variable of -x, and rmpl's and UCX's own settings (RMPL_*, UCX_*), so that what tunes a
  // one-host job tunes the whole job; the launcher's own variables are set by each host's agent.
  std::vector<std::string> exported;
  for (char** e = environ; *e; ++e) {
    const std::string_view var(*e);
    const std::string_view name = var.substr(0, var.find('='));
    if ((name.starts_with("RMPL_") || name.starts_with("UCX_")) && name != "RMPL_SHM_FD" &&
        name != "RMPL_RANK" && name != "RMPL_SIZE" && name != "RMPL_HOSTS" && name != "RMPL_HOST" &&
        name != "RMPL_AGENT_FD" && !name.starts_with("RMPL_LAUNCHER")) {
      exported.emplace_back(var);
    }
  }
  for (const auto& [name, value] : opt_.exports) {
    if (value) {
      exported.push_back(name + "=" + *value);
    } else if (const char* v = std::getenv(name.c_str())) {
      exported.push_back(name + "=" + v);
    }
  }
  for (const std::string& e : exported) args.insert(args.end(), {"-x", e});
  args.push_back("--");
  args.push_back(program_);
  args.insert(args.end(), opt_.command.begin() + 1, opt_.command.end());
  return args;
}

void hosts_job::start(host_link& host, std::size_t index) {
  std::vector<std::string> argv = agent_command(index);
  if (!this_host(host.name)) {
    // CMD HOST COMMAND, as launchers call ssh: the command one line, for the remote shell.
    std::string line = "exec";
    for (const std::string& a : argv) {
      line += ' ';
      line += shell_quoted(a);
    }
    std::vector<std::string> agent;
    std::istringstream words(opt_.launch_agent);
    for (std::string w; words >> w;) agent.push_back(w);
    agent.push_back(host.name);
    agent.push_back(line);
    argv = std::move(agent);
  }
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    // Its own process group: Ctrl-C reaches this rmplrun only, which tells every host in turn
    // (an ssh killed by the terminal's SIGINT would lose the link before the ranks were ended).
    ::setpgid(0, 0);
    // If this rmplrun dies, even by SIGKILL, the launch agent ends and the link closes: the host's
    // agent then ends its ranks.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::signal(SIGPIPE, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &mask_, nullptr);
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    say("cannot start the launch agent '{}' for host {}: {}", argv[0], host.name,
        std::strerror(errno));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  host.pid = pid;
  host.to = in[1];
  host.from = out[0];
  ::fcntl(host.to, F_SETFL, O_NONBLOCK);
  ::fcntl(host.from, F_SETFL, O_NONBLOCK);
}

void hosts_job::queue(host_link& host, link::kind what, int a, int b, std::string_view payload) {
  if (host.to < 0) return;
  host.outgoing += link::encode(what, a, b, payload);
  flush(host);
}

void hosts_job::flush(host_link& host) {
  while (host.to >= 0 && !host.outgoing.empty()) {
    const ssize_t n = ::write(host.to, host.outgoing.data(), host.outgoing.size());
    if (n > 0) {
      host.outgoing.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      return;  // the rest when poll() says it can take more
    } else {   // the link is gone: what it reports (or not) comes from its other end
      ::close(host.to);
      host.to = -1;
      host.outgoing.clear();
    }
  }
}

void hosts_job::on_frames(host_link& host) {
  const link::reader::state st = host.incoming.read_from(host.from);
  while (auto f = host.incoming.next()) {
    switch (f->head.what) {
      case link::kind::arrive: {
        host.arrived = true;
        host.cards = std::move(f->payload);
        const bool all =
            std::all_of(hosts_.begin(), hosts_.end(), [](const host_link& h) { return h.arrived; });
        if (!all) break;
        std::string cards;
        for (host_link& h : hosts_) {
          cards += h.cards;
          h.cards.clear();
          h.arrived = false;
        }
        for (host_link& h : hosts_) queue(h, link::kind::release, 0, 0, cards);
        break;
      }
      case link::kind::output: {
        const int target = f->head.b == 2 ? 2 : 1;
        if (!broken_out_[target] && !write_all(target, f->payload)) broken_out_[target] = true;
        break;
      }
      case link::kind::dead: {
        // The host's agent said which rank and how; the first failure is the job's.
        if (failed_ || ending_) break;
        fail(WIFEXITED(f->head.b) && WEXITSTATUS(f->head.b) != 0 ? WEXITSTATUS(f->head.b)
             : WIFSIGNALED(f->head.b)                            ? 128 + WTERMSIG(f->head.b)
                                                                 : 1);
        for (host_link& h : hosts_) {
          if (&h != &host) queue(h, link::kind::dead, f->head.a, f->head.b);
        }
        break;
      }
      case link::kind::input_taken:
        input_in_flight_ -= std::min<std::size_t>(input_in_flight_,
                                                  static_cast<std::size_t>(std::max(f->head.a, 0)));
        break;
      case link::kind::done:
        host.done = true;
        host.status = f->head.a;
        break;
      default:
        break;
    }
  }
  if (st != link::reader::state::open) on_link_closed(host);
}

void hosts_job::on_link_closed(host_link& host) {
  ::close(host.from);
  host.from = -1;
  if (host.done) return;
  // Its agent, its launch agent or the host itself is gone: its ranks with it, as far as the job
  // can tell. The other hosts' ranks report them dead; the job ends.
  if (!failed_ && !ending_) {
    say("lost host {} ({}): its link closed before its ranks ended (the host, its rmplrun or "
        "the launch agent '{}' failed)",
        host.name, host.ranks(), opt_.launch_agent);
    fail(1);
    for (host_link& h : hosts_) {
      if (&h != &host)
        queue(h, link::kind::dead, host.first, rmpl::runtime::local::wait_status_host_lost);
    }
  }
}

void hosts_job::forward_input() {
  char buf[65536];
  const ssize_t n = ::read(0, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  host_link& first = hosts_.front();  // rank 0's host
  if (n <= 0) {                       // its end (or an error, which ends it just the same)
    stdin_done_ = true;
    queue(first, link::kind::input, 0, 0);
    return;
  }
  input_in_flight_ += static_cast<std::size_t>(n);
  queue(first, link::kind::input, 0, 0, std::string_view(buf, static_cast<std::size_t>(n)));
}

void hosts_job::fail(int status) {
  failed_ = true;
  status_ = status;
  // Each host ends its own ranks after giving them time to report the death; this rmplrun ends
  // the launch agents only if they take too long.
  agents_until_ = clock::now() + agents_grace;
}

void hosts_job::end_all(int sig, int status) {
  if (!ending_) {
    ending_ = true;
    if (!failed_) status_ = status;
    agents_until_ = clock::now() + agents_grace;
  }
  killed_ = killed_ || sig == SIGKILL;
  for (host_link& h : hosts_) queue(h, link::kind::end, sig, 0);
}

void hosts_job::reap() {
  int wait_status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0) {
    for (host_link& h : hosts_) {
      if (h.pid != pid) continue;
      h.reaped = true;
      if (!h.done && !failed_ && !ending_ &&
          (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status))) {
        // Ended without a word on its link: say how, before the link's end says the rest.
        say("the launch agent for host {} ({}) {}", h.name, h.ranks(),
            WIFSIGNALED(wait_status)
                ? fmt::format("was killed by signal {}", WTERMSIG(wait_status))
                : fmt::format("exited with status {}", WEXITSTATUS(wait_status)));
      }
    }
  }
}

int hosts_job::run() {
  const std::vector<host_slots> placed = place(opt_.hosts, opt_.nranks, opt_.oversubscribe);
  host_list_ = format_host_list(placed);
  int first = 0;
  for (const host_slots& h : placed) {
    host_link& link = hosts_.emplace_back();
    link.name = h.name;
    link.first = first;
    link.count = h.slots;
    first += h.slots;
  }
  if (opt_.timeout) {
    deadline_ = clock::now() + std::chrono::duration_cast<clock::duration>(
                                   std::chrono::duration<double>(*opt_.timeout));
  }
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    try {
      start(hosts_[i], i);
    } catch (const std::system_error& e) {
      say("cannot start host {}: {}", hosts_[i].name, e.what());
      fail(1);
      end_all(SIGKILL, 1);
      break;
    }
  }
  std::vector<pollfd> fds;
  std::vector<host_link*> polled;
  for (;;) {
    const bool over = std::all_of(hosts_.begin(), hosts_.end(), [](const host_link& h) {
      return (h.pid < 0 || h.reaped) && h.from < 0;
    });
    if (over) break;
    const auto now = clock::now();
    if (!ending_ && !failed_ && deadline_ && now >= *deadline_) {
      say("timeout after {} s{}; ending the job", opt_.timeout_text, opt_.timeout_origin);
      end_all(SIGTERM, exit_timeout);
    }
    if ((ending_ || failed_) && !agents_killed_ && now >= agents_until_) {
      // The hosts did not end in time: end their launch agents; each agent, its link closed,
      // ends its ranks.
      for (host_link& h : hosts_) {
        if (h.pid > 0 && !h.reaped) ::kill(-h.pid, SIGKILL);
      }
      agents_killed_ = true;
    }
    std::optional<clock::time_point> wake;
    if (!ending_ && !failed_ && deadline_) wake = *deadline_;
    if ((ending_ || failed_) && !agents_killed_)
      wake = wake ? std::min(*wake, agents_until_) : agents_until_;
    int timeout_ms = -1;
    if (wake) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wake - now).count();
      timeout_ms = static_cast<int>(std::clamp<decltype(ms)>(ms, 0, 60'000));
    }
    fds.clear();
    polled.clear();
    fds.push_back({signal_fd_, POLLIN, 0});
    // Standard input while rank 0's host takes it, a window at a time.
    const bool reading = forward_stdin_ && !stdin_done_ && hosts_.front().to >= 0 &&
                         input_in_flight_ < link::input_window;
    fds.push_back({reading ? 0 : -1, POLLIN, 0});
    for (host_link& h : hosts_) {
      if (h.from >= 0) {
        fds.push_back({h.from, POLLIN, 0});
        polled.push_back(&h);
      }
      if (h.to >= 0 && !h.outgoing.empty()) {
        fds.push_back({h.to, POLLOUT, 0});
        polled.push_back(&h);
      }
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      say("poll failed: {}", std::strerror(errno));
      return 1;
    }
    if (fds[0].revents != 0) {
      signalfd_siginfo info;
      while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        const int sig = static_cast<int>(info.ssi_signo);
        if (sig == SIGCHLD) continue;
        if (!ending_) {
          say("got signal {} ({}); ending the job", sig, ::strsignal(sig));
          end_all(sig, 128 + sig);
        } else if (!killed_) {  // asked again while ending: no more grace
          end_all(SIGKILL, 128 + sig);
        }
      }
      reap();
    }
    if (fds[1].revents != 0) forward_input();
    for (std::size_t k = 2; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      host_link& h = *polled[k - 2];
      if (fds[k].fd == h.from)
        on_frames(h);
      else if (fds[k].fd == h.to)
        flush(h);
    }
  }
  for (host_link& h : hosts_) {
    if (h.to >= 0) ::close(h.to);
  }
  if (failed_ || ending_) return status_;
  for (const host_link& h : hosts_) {
    if (!h.done) return 1;
    if (h.status != 0) return h.status;
  }
  return 0;
}

}  // namespace

int run_hosts_job(const options& opt, const std::string& program) {
  sigset_t mask;
  const int signal_fd = take_signals(&mask);
  if (signal_fd < 0) {
    say("signalfd failed: {}", std::strerror(errno));
    return 1;
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, nullptr);  // a closed link or stdout: EPIPE, not death
  hosts_job job(opt, program, signal_fd, mask);
  return job.run();
}

}  // namespace rmplrun
