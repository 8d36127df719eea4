#include "coll/select.hpp"

#include <unistd.h>  // environ

#include <array>
#include <cctype>
#include <cstdlib>
#include <string>

#include "base/error.hpp"

namespace rmpl::coll {
namespace {

constexpr std::size_t collective_count = std::size(collective_names);

// The algorithms of each collective, "auto" first, in the order of collective_names.
// "shared" (the shared-memory path) needs a communicator holding a collective area; on one without,
// the automatic choice among the others is made instead.
// "hierarchical" (hierarchical.cpp) serves blocking calls on a communicator that spans hosts with
// several members on some host (commutative operators only); elsewhere the automatic choice runs.
// "short" (shared_short.hpp) serves blocking calls of at most short_max bytes (allgather: per
// block; alltoall: blocks that fit whole in short_lines_max lines) on a communicator with an area;
// other calls forced to it run "shared" instead (or the automatic choice without an area).
constexpr std::string_view barrier_algorithms[] = {"auto", "dissemination", "shared", "short",
                                                   "hierarchical"};
constexpr std::string_view broadcast_algorithms[] = {"auto",   "binomial", "scatter_allgather",
                                                     "shared", "short",    "hierarchical"};
constexpr std::string_view reduce_algorithms[] = {"auto",   "binomial", "rabenseifner",
                                                  "shared", "short",    "hierarchical"};
constexpr std::string_view allreduce_algorithms[] = {"auto",  "recursive_doubling", "rabenseifner",
                                                     "ring",  "reduce_broadcast",   "shared",
                                                     "short", "hierarchical"};
constexpr std::string_view scan_algorithms[] = {"auto", "recursive_doubling", "linear"};
constexpr std::string_view gather_algorithms[] = {"auto", "binomial", "linear"};
constexpr std::string_view gatherv_algorithms[] = {"auto", "linear"};
constexpr std::string_view scatter_algorithms[] = {"auto", "binomial", "linear"};
constexpr std::string_view scatterv_algorithms[] = {"auto", "linear"};
constexpr std::string_view allgather_algorithms[] = {"auto",  "ring",   "recursive_doubling",
                                                     "bruck", "shared", "short"};
constexpr std::string_view allgatherv_algorithms[] = {"auto", "ring"};
constexpr std::string_view alltoall_algorithms[] = {"auto",  "linear", "pairwise",
                                                    "bruck", "shared", "short"};
constexpr std::string_view alltoallv_algorithms[] = {"auto", "linear", "pairwise"};
constexpr std::string_view reduce_scatter_algorithms[] = {"auto", "recursive_halving", "pairwise",
                                                          "reduce_scatterv"};

constexpr std::string_view neighbor_exchange_algorithms[] = {"auto", "linear"};

constexpr std::array<std::span<const std::string_view>, collective_count> table = {
    barrier_algorithms,
    broadcast_algorithms,
    reduce_algorithms,
    allreduce_algorithms,
    scan_algorithms,
    scan_algorithms,
    gather_algorithms,
    gatherv_algorithms,
    scatter_algorithms,
    scatterv_algorithms,
    allgather_algorithms,
    allgatherv_algorithms,
    alltoall_algorithms,
    alltoallv_algorithms,
    reduce_scatter_algorithms,
    reduce_scatter_algorithms,
    neighbor_exchange_algorithms,
};

std::size_t collective_index(std::string_view name) {
  for (std::size_t i = 0; i < collective_count; ++i) {
    if (collective_names[i] == name) return i;
  }
  std::string known;
  for (std::string_view n : collective_names) known += std::string(known.empty() ? "" : ", ") += n;
  base::fail(errc::invalid_argument, "unknown collective '{}' (the collectives: {})", name, known);
}

int algorithm_index(std::size_t c, std::string_view algorithm, std::string_view where) {
  const auto names = table[c];
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == algorithm) return static_cast<int>(i);
  }
  std::string known;
  for (std::string_view n : names) {
    if (!known.empty()) known += ", ";
    known += n;
  }
  base::fail(errc::invalid_argument, "{}: '{}' is not an algorithm of {} (choose one of: {})",
             where, algorithm, collective_names[c], known);
}

/// RMPL_COLL_<NAME> of collective `c`.
std::string variable_of(std::size_t c) {
  std::string variable = "RMPL_COLL_";
  for (char ch : collective_names[c]) {
    variable += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  return variable;
}

/// The forced algorithm of each collective (0: auto), read from RMPL_COLL_<NAME> on first use
/// (check_environment() makes that use the start of the job).
struct choices {
  std::array<int, collective_count> forced{};
  choices() {
    for (std::size_t c = 0; c < collective_count; ++c) {
      const std::string variable = variable_of(c);
      const char* value = std::getenv(variable.c_str());
      if (value != nullptr && *value != '\0') {
        forced[c] = algorithm_index(c, value, variable);
      }
    }
  }
};

choices& current() {
  static choices the_choices;
  return the_choices;
}

}  // namespace

std::span<const std::string_view> algorithms(std::string_view collective_name) {
  return table[collective_index(collective_name)];
}

void force_algorithm(std::string_view collective_name, std::string_view algorithm) {
  const std::size_t c = collective_index(collective_name);
  current().forced[c] =
      algorithm_index(c, algorithm.empty() ? "auto" : algorithm, "force_algorithm");
}

void check_algorithm_variables() {
  (void)current();  // reads each RMPL_COLL_<NAME>, and throws for a value that is no algorithm
  // A variable of the family that names no collective (RMPL_COLL_ALLREDUC=ring) would otherwise
  // be ignored without a word. RMPL_COLL_SLOTS and RMPL_COLL_AREA size the collective areas
  // (fabric/shm/segment.cpp checks their values).
  constexpr std::string_view prefix = "RMPL_COLL_";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!text.starts_with(prefix)) continue;
    const std::string_view name = text.substr(0, text.find('='));
    if (name == "RMPL_COLL_SLOTS" || name == "RMPL_COLL_AREA") continue;
    bool known = false;
    std::string variables;
    for (std::size_t c = 0; c < collective_count; ++c) {
      const std::string v = variable_of(c);
      known = known || v == name;
      variables += v + ", ";
    }
    if (!known) {
      base::fail(errc::invalid_argument,
                 "{} names no collective (the variables: {}and RMPL_COLL_SLOTS and "
                 "RMPL_COLL_AREA, which size the collective areas)",
                 text, variables);
    }
  }
}

bool algorithm_forced(collective c) {
  return current().forced[static_cast<std::size_t>(c)] != 0;
}

std::string_view forced(collective c) {
  return table[static_cast<std::size_t>(c)]
              [static_cast<std::size_t>(current().forced[static_cast<std::size_t>(c)])];
}

}  // namespace rmpl::coll
