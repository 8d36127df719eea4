#include "options.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
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

}  // namespace

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
    } else if ((name == "--oversubscribe" || name == "-oversubscribe" ||
                name == "--allow-run-as-root") &&
               !attached) {
      // Open MPI's: rmplrun always lets a job have more ranks than CPUs (it then binds none) and
      // runs as root too, so scripts written for Open MPI's mpirun need not change.
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
  if (opt.nranks == 0) throw usage_error("missing -n N (the number of ranks)");
  if (opt.command.empty()) throw usage_error("missing the program to run");
  return opt;
}

std::string usage_text() {
  return fmt::format(
      R"(Usage: rmplrun -n N [options] program [args...]

Starts N ranks of program on this host, each with RMPL_RANK (0..N-1), RMPL_SIZE (N),
RMPL_SHM_FD, RMPL_LAUNCHER=rmplrun and RMPL_LAUNCHER_PID in its environment. When a rank
fails (non-zero exit or killed by a signal) the others are ended and rmplrun exits with that
rank's status (128+signal for a signal). SIGINT, SIGTERM and SIGHUP are forwarded to the ranks.

Options:
  -n N, -np N         number of ranks (1 to {})
  --timeout SECONDS   end the job after SECONDS; rmplrun then exits with status 124
                      (default: MPIEXEC_TIMEOUT's value, if set and not 0)
  --tag-output        prefix each line the ranks print with "[rank] "
  --bind core|none    bind rank i to the i-th allowed CPU when there are enough CPUs
                      (default: core)
  --bind-to core|none the same (Open MPI's spelling; MPICH's -bind-to too)
  -x VAR[=value]      export VAR (with value, or rmplrun's own value) to the ranks
  -genv VAR value     export VAR with value to the ranks (MPICH's spelling; -env too)
  --oversubscribe     accepted for Open MPI's scripts: a job may always have more ranks than
                      CPUs (its ranks are then not bound)
  --allow-run-as-root accepted for Open MPI's scripts: rmplrun runs as root too
  -h, --help          print this help
  -V, --version       print the version
  --                  end of options: the next argument is the program

rmplrun is also installed as mpirun and mpiexec.
Everything from the program on is passed to the program as is. Rank 0 reads rmplrun's standard
input unless it is a terminal; the other ranks read /dev/null.
)",
      max_ranks);
}

}  // namespace rmplrun
