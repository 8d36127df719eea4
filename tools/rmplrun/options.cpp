#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace rmplrun {
namespace {

int parse_nranks(std::string_view option, std::string_view text) {
  long long n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc::result_out_of_range && !text.empty() && text[0] != '-')
    n = max_ranks + 1LL;
  else if (ec != std::errc{} || end != text.data() + text.size()) {
    throw usage_error(
        fmt::format("{} '{}': the number of ranks must be a whole number", option, text));
  }
  if (n < 1) throw usage_error(fmt::format("{} {}: a job needs at least 1 rank", option, text));
  if (n > max_ranks) {
    throw usage_error(fmt::format("{} {}: a job has at most {} ranks", option, text, max_ranks));
  }
  return static_cast<int>(n);
}

// A number of seconds, as typed after `what` (--timeout, or MPIEXEC_TIMEOUT=): positive, finite,
// nothing before or after it.
double parse_timeout(std::string_view what, std::string_view text) {
  std::string copy(text);
  char* end = nullptr;
  double s = std::strtod(copy.c_str(), &end);
  // An upper bound keeps the deadline arithmetic far from overflow (1e9 s is 31 years). strtod
  // skips leading blanks: refused too, so that what is accepted is exactly a number.
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy[0])) || *end != '\0' ||
      !std::isfinite(s) || s <= 0 || s > 1e9) {
    throw usage_error(fmt::format("{} '{}': expected a positive number of seconds{}", what, text,
                                  what == "--timeout" ? "" : " (0 or empty: no limit)"));
  }
  return s;
}

int parse_slots(std::string_view where, std::string_view text) {
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || n < 1 || n > max_ranks) {
    throw usage_error(
        fmt::format("{}: '{}' is not a number of slots from 1 to {}", where, text, max_ranks));
  }
  return n;
}

}  // namespace

std::vector<host_slots> parse_host_list(std::string_view option, std::string_view text) {
  std::vector<host_slots> hosts;
  while (true) {
    const std::size_t comma = std::min(text.find(','), text.size());
    const std::string_view item = text.substr(0, comma);
    const std::size_t colon = item.rfind(':');
    host_slots h{std::string(item.substr(0, colon)), 1};
    if (colon != std::string_view::npos)
      h.slots = parse_slots(fmt::format("{} '{}'", option, item), item.substr(colon + 1));
    if (h.name.empty())
      throw usage_error(fmt::format("{} '{}': a host name is empty", option, text));
    hosts.push_back(std::move(h));
    if (comma == text.size()) break;
    text.remove_prefix(comma + 1);
  }
  return hosts;
}

std::string format_host_list(std::span<const host_slots> hosts) {
  std::string text;
  for (const host_slots& h : hosts) {
    text += fmt::format("{}{}:{}", text.empty() ? "" : ",", h.name, h.slots);
  }
  return text;
}

std::vector<host_slots> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("--hostfile '{}': cannot read it", path));
  std::vector<host_slots> hosts;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string name;
    if (!(words >> name)) continue;
    const std::string where = fmt::format("--hostfile {}, line {}", path, number);
    host_slots h{name, 1};
    if (auto colon = name.rfind(':'); colon != std::string::npos) {
      h.name = name.substr(0, colon);
      h.slots = parse_slots(where, std::string_view(name).substr(colon + 1));
    }
    for (std::string word; words >> word;) {
      if (word.starts_with("slots="))
        h.slots = parse_slots(where, std::string_view(word).substr(6));
    }
    if (h.name.empty()) throw usage_error(fmt::format("{}: the host name is empty", where));
    hosts.push_back(std::move(h));
  }
  if (hosts.empty()) throw usage_error(fmt::format("--hostfile '{}' names no host", path));
  return hosts;
}

options parse_options(std::span<char* const> args) {
  options opt;
  std::size_t i = 0;
  // The value of an option: "--name=value" or the next argument.
  auto value = [&](std::string_view name, std::optional<std::string_view> attached) -> std::string {
    if (attached) return std::string(*attached);
    if (i + 1 >= args.size()) throw usage_error(fmt::format("option {} needs a value", name));
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program: it and everything after are its own
    std::string_view name = arg;
    std::optional<std::string_view> attached;
    if (arg.starts_with("--")) {
      if (auto eq = arg.find('='); eq != arg.npos) {
        name = arg.substr(0, eq);
        attached = arg.substr(eq + 1);
      }
    }
    if (name == "-n" || name == "-np" || name == "--np") {
      opt.nranks = parse_nranks(name, value(name, attached));
    } else if (name == "-x") {
      std::string v = value(name, attached);
      auto eq = v.find('=');
      std::string var = v.substr(0, eq);
      if (var.empty()) throw usage_error(fmt::format("-x '{}': the variable name is empty", v));
      if (eq == std::string::npos)
        opt.exports.emplace_back(var, std::nullopt);
      else
        opt.exports.emplace_back(var, v.substr(eq + 1));
    } else if (name == "-H" || name == "--host" || name == "-host" || name == "--hosts" ||
               name == "-hosts") {
      for (host_slots& h : parse_host_list(name, value(name, attached)))
        opt.hosts.push_back(std::move(h));
    } else if (name == "--hostfile" || name == "-hostfile" || name == "--machinefile" ||
               name == "-machinefile" || name == "-f") {
      for (host_slots& h : read_hostfile(value(name, attached))) opt.hosts.push_back(std::move(h));
    } else if (name == "--launch-agent" || name == "-launcher-exec") {
      opt.launch_agent = value(name, attached);
      if (opt.launch_agent.find_first_not_of(' ') == std::string::npos)
        throw usage_error(fmt::format("{}: the command is empty", name));
    } else if (name == "--wdir" || name == "-wdir") {
      opt.wdir = value(name, attached);
    } else if (name == "--serve-host") {
      opt.serve_host = parse_nranks(name, value(name, attached)) - 1;
    } else if (name == "--forward-stdin" && !attached) {
      opt.forward_stdin = true;
    } else if (name == "--timeout") {
      opt.timeout_text = value(name, attached);
      opt.timeout = parse_timeout("--timeout", opt.timeout_text);
    } else if (name == "--tag-output" && !attached) {
      opt.tag_output = true;
    } else if (name == "-genv" || name == "-env") {
      // MPICH's: -genv VAR value (two arguments; -env is per executable there, and a job here has
      // one executable).
      std::string var = value(name, attached);
      if (var.empty()) throw usage_error(fmt::format("{}: the variable name is empty", name));
      if (var.find('=') != std::string::npos) {
        throw usage_error(fmt::format("{} '{}': expected {} VAR value", name, var, name));
      }
      opt.exports.emplace_back(var, value(name, std::nullopt));
    } else if (name == "--bind" || name == "--bind-to" || name == "-bind-to") {
      // --bind-to is Open MPI's spelling, -bind-to MPICH's; both mean the same here.
      std::string v = value(name, attached);
      if (v == "core")
        opt.bind = true;
      else if (v == "none")
        opt.bind = false;
      else
        throw usage_error(fmt::format("{} '{}': expected core or none", name, v));
    } else if ((name == "--oversubscribe" || name == "-oversubscribe") && !attached) {
      // Open MPI's: on one host rmplrun always lets a job have more ranks than CPUs (it then
      // binds none); with -H it lets a job have more ranks than the hosts' slots.
      opt.oversubscribe = true;
    } else if (name == "--allow-run-as-root" && !attached) {
      // Open MPI's: rmplrun runs as root too, so scripts written for Open MPI's mpirun need not
      // change.
    } else if ((name == "-h" || name == "--help") && !attached) {
      opt.help = true;
    } else if ((name == "-V" || name == "--version") && !attached) {
      opt.version = true;
    } else {
      throw usage_error(fmt::format("unknown option '{}'", arg));
    }
  }
  opt.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (opt.help || opt.version) return opt;
  // MPIEXEC_TIMEOUT, the peers' variable (mpiexec users and test harnesses set it), when --timeout
  // is not given: the option wins. As with Open MPI's mpiexec, 0 means no limit; so does an empty
  // value, as if it were unset.
  if (!opt.timeout) {
    if (const char* env = std::getenv("MPIEXEC_TIMEOUT");
        env && *env && std::string_view(env) != "0") {
      opt.timeout = parse_timeout("MPIEXEC_TIMEOUT", env);
      opt.timeout_text = env;
      opt.timeout_origin = fmt::format(" (MPIEXEC_TIMEOUT={})", env);
    }
  }
  if (opt.nranks == 0 && !opt.hosts.empty()) {
    long total = 0;
    for (const host_slots& h : opt.hosts) total += h.slots;
    opt.nranks = static_cast<int>(std::min<long>(total, max_ranks));
  }
  if (opt.nranks == 0) throw usage_error("missing -n N (the number of ranks)");
  if (opt.serve_host >= static_cast<int>(opt.hosts.size()))
    throw usage_error("--serve-host: no such host in -H");
  if (opt.command.empty()) throw usage_error("missing the program to run");
  return opt;
}

std::string usage_text() {
  return fmt::format(
      R"(Usage: rmplrun -n N [options] program [args...]
       rmplrun -H host1:4,host2:4 [options] program [args...]

Starts N ranks of program on this host (or on the hosts of -H or --hostfile), each with RMPL_RANK (0..N-1), RMPL_SIZE (N),
RMPL_SHM_FD, RMPL_LAUNCHER=rmplrun and RMPL_LAUNCHER_PID in its environment. When a rank
fails (non-zero exit or killed by a signal) the others are ended and rmplrun exits with that
rank's status (128+signal for a signal). SIGINT, SIGTERM and SIGHUP are forwarded to the ranks.

Options:
  -n N, -np N         number of ranks (1 to {})
  -H, --host LIST     run on these hosts: host[:slots],... (a host without slots takes
                      1 rank); ranks fill the hosts in order, N defaults to all the slots
  --hostfile FILE     the same from a file: a host per line, "host", "host:slots" or
                      "host slots=N"; '#' starts a comment (--machinefile, -f too)
  --launch-agent CMD  how to start rmplrun on another host: CMD HOST COMMAND (default:
                      ssh); rmplrun and the program must be at the same paths there.
                      This host, by its name or as localhost, needs no agent
  --wdir DIR          the ranks' working directory (default: rmplrun's, on every host)
  --timeout SECONDS   end the job after SECONDS; rmplrun then exits with status 124
                      (default: MPIEXEC_TIMEOUT's value, if set and not 0)
  --tag-output        prefix each line the ranks print with "[rank] "
  --bind core|none    bind rank i to the i-th allowed CPU when there are enough CPUs
                      (default: core)
  --bind-to core|none the same (Open MPI's spelling; MPICH's -bind-to too)
  -x VAR[=value]      export VAR (with value, or rmplrun's own value) to the ranks
  -genv VAR value     export VAR with value to the ranks (MPICH's spelling; -env too)
  --oversubscribe     a job on this host may always have more ranks than CPUs (its ranks are
                      then not bound); with -H, more ranks than the hosts' slots (the ranks
                      beyond them shared out among the hosts in turn)
  --allow-run-as-root accepted for Open MPI's scripts: rmplrun runs as root too
  -h, --help          print this help
  -V, --version       print the version
  --                  end of options: the next argument is the program

rmplrun is also installed as mpirun and mpiexec.
Everything from the program on is passed to the program as is. Rank 0 reads rmplrun's standard
input unless it is a terminal (with -H, wherever rank 0 runs); the other ranks read /dev/null.
)",
      max_ranks);
}

}  // namespace rmplrun
