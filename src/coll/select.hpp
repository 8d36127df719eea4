// Which algorithm runs a collective. Each collective has a default choice by message size and rank
// count ("auto"); RMPL_COLL_<NAME>=<algorithm> (e.g. RMPL_COLL_ALLREDUCE=ring) forces one for the
// whole job, and force_algorithm() does the same from inside a process (tests and benchmarks).
// An algorithm that cannot run a particular call (a non-commutative operator for a ring) falls
// back to one that can: every algorithm gives the same result.
#pragma once

#include <span>
#include <string_view>

namespace rmpl::coll {

/// The collectives, in the order of the names below.
enum class collective : unsigned char {
  barrier,
  broadcast,
  reduce,
  allreduce,
  scan,
  exscan,
  gather,
  gatherv,
  scatter,
  scatterv,
  allgather,
  allgatherv,
  alltoall,
  alltoallv,
  reduce_scatter,
  reduce_scatter_block,
  neighbor_exchange,
};
inline constexpr std::string_view collective_names[] = {"barrier",
                                                        "broadcast",
                                                        "reduce",
                                                        "allreduce",
                                                        "scan",
                                                        "exscan",
                                                        "gather",
                                                        "gatherv",
                                                        "scatter",
                                                        "scatterv",
                                                        "allgather",
                                                        "allgatherv",
                                                        "alltoall",
                                                        "alltoallv",
                                                        "reduce_scatter",
                                                        "reduce_scatter_block",
                                                        "neighbor_exchange"};

/// The algorithms a collective knows, "auto" first. Throws rmpl::error on an unknown collective.
std::span<const std::string_view> algorithms(std::string_view collective_name);
/// Forces `algorithm` for every later call of `collective_name` in this process ("auto" restores
/// the default). Throws rmpl::error naming the valid choices when either name is unknown.
void force_algorithm(std::string_view collective_name, std::string_view algorithm);

/// The algorithm forced for `c` by RMPL_COLL_<NAME> or force_algorithm(), or "auto".
std::string_view forced(collective c);
/// Whether forced(c) is not "auto" (an index compare: asked on every collective's start).
bool algorithm_forced(collective c);

/// Reads every RMPL_COLL_<NAME> now: throws errc::invalid_argument for a value that is no
/// algorithm of its collective (naming the variable, the value and the algorithms) or a variable
/// RMPL_COLL_* that names no collective (naming the variables there are).
void check_algorithm_variables();
/// Every variable of the collectives (RMPL_COLL_<NAME>, RMPL_CHECK_COLLECTIVES), read at start-up
/// (api::acquire: rmpl::session, MPI_Init, the C API's start), so that a bad one stops the start
/// with its name, value and the accepted values, rather than failing the first collective under
/// that collective's name, or never, in a program that runs none. Throws as the checks above.
void check_environment();

/// Whether the algorithm `name` is `literal`. Always inlined, so that the compare is a load or two
/// of a known length: string_view's operator== was called out of line in every collective's start
/// (about 90 instructions a call for the few names each start tries).
[[gnu::always_inline]] inline bool is(std::string_view name, std::string_view literal) noexcept {
  return name.size() == literal.size() &&
         __builtin_memcmp(name.data(), literal.data(), literal.size()) == 0;
}

}  // namespace rmpl::coll
