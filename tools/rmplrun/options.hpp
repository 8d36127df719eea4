// rmplrun's command line. Parsed by hand rather than with CLI11 because everything from the program
// name on belongs to the program, untouched, even when it looks like one of our options.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rmplrun {

inline constexpr int max_ranks = 4096;

/// Bad usage: reported as "rmplrun: <what()>" with exit status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A host of -H or --hostfile and the ranks it takes at most.
struct host_slots {
  std::string name;
  int slots = 1;
};

struct options {
  int nranks = 0;                 ///< 0 until -n is given (or the hosts' slots, with -H)
  bool tag_output = false;        ///< relay the ranks' output through pipes, "[rank] " before lines
  bool bind = true;               ///< --bind core (default) or --bind none
  bool oversubscribe = false;     ///< --oversubscribe: with -H, more ranks than the hosts' slots
  std::optional<double> timeout;  ///< seconds
  std::string timeout_text;       ///< as typed, for the timeout message
  std::string timeout_origin;     ///< "" for --timeout, " (MPIEXEC_TIMEOUT=...)" for the variable
  std::vector<std::pair<std::string, std::optional<std::string>>> exports;  ///< -x VAR[=value]
  std::vector<std::string> command;  ///< the program and its arguments
  std::vector<host_slots> hosts;     ///< -H, --hostfile: run on these hosts (empty: this one)
  std::string launch_agent = "ssh";  ///< --launch-agent: how to start rmplrun on a host
  std::string wdir;                  ///< --wdir: the ranks' working directory
  /// --serve-host I (internal, I from 1): this rmplrun is the agent of host I of -H (kept here from
  /// 0), which lists every host
  /// with the exact number of ranks it runs; its standard input and output are its link to the
  /// rmplrun that started it (tools/rmplrun/hosts.hpp).
  int serve_host = -1;
  /// --forward-stdin (internal): as the agent of rank 0's host, give rank 0 the input that comes
  /// over the link.
  bool forward_stdin = false;
  bool help = false;
  bool version = false;
};

/// Parses the arguments after argv[0]. Throws usage_error. With --help or --version nothing else is
/// required.
options parse_options(std::span<char* const> args);

/// Reads a hostfile: one host per line, "name", "name:slots" or "name slots=N" (Open MPI's form;
/// its other keys are ignored), '#' to the end of a line a comment. Throws usage_error.
std::vector<host_slots> read_hostfile(const std::string& path);

/// Parses -H's value: "name[:slots],..." (a host without slots takes 1 rank). Throws usage_error.
std::vector<host_slots> parse_host_list(std::string_view option, std::string_view text);

/// The inverse of parse_host_list: "name:slots,..." (the agents' -H and the ranks' RMPL_HOSTS,
/// which runtime::local::job reads).
std::string format_host_list(std::span<const host_slots> hosts);

/// The text printed by --help.
std::string usage_text();

}  // namespace rmplrun
