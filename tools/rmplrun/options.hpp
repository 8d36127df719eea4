// rmplrun's command line. Parsed by hand rather than with CLI11 because everything from the program
// name on belongs to the program, untouched, even when it looks like one of our options.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rmplrun {

inline constexpr int max_ranks = 4096;

/// Bad usage: reported as "rmplrun: <what()>" with exit status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct options {
  int nranks = 0;                 ///< 0 until -n is given
  bool tag_output = false;        ///< relay the ranks' output through pipes, "[rank] " before lines
  bool bind = true;               ///< --bind core (default) or --bind none
  std::optional<double> timeout;  ///< seconds
  std::string timeout_text;       ///< as typed, for the timeout message
  std::string timeout_origin;     ///< "" for --timeout, " (MPIEXEC_TIMEOUT=...)" for the variable
  std::vector<std::pair<std::string, std::optional<std::string>>> exports;  ///< -x VAR[=value]
  std::vector<std::string> command;  ///< the program and its arguments
  bool help = false;
  bool version = false;
};

/// Parses the arguments after argv[0]. Throws usage_error. With --help or --version nothing else is
/// required.
options parse_options(std::span<char* const> args);

/// The text printed by --help.
std::string usage_text();

}  // namespace rmplrun
