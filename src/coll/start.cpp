// The collectives' entry points (collectives.hpp): argument checks, the choice of algorithm and
// the start of the operation. Every check names the collective, the rank, the communicator's size
// and the sizes that disagree.
#include <fmt/format.h>

#include <numeric>
#include <string>

#include "base/error.hpp"
#include "coll/algorithms.hpp"
#include "coll/collectives.hpp"
#include "coll/combine.hpp"
#include "coll/select.hpp"

namespace rmpl::coll {
namespace {

template <class... Args>
[[noreturn]] void reject(const target& t, collective c, errc code,
                         fmt::format_string<Args...> format, Args&&... args) {
  base::fail(code, "{} on rank {} (communicator of {}): {}",
             collective_names[static_cast<std::size_t>(c)], t.comm.rank, t.comm.size,
             fmt::format(format, std::forward<Args>(args)...));
}

void check_root(const target& t, collective c, int root) {
  if (root < 0 || root >= t.comm.size) {
    reject(t, c, errc::invalid_rank, "root {} is not a rank of the communicator", root);
  }
}

void check_reduction(const target& t, collective c, const_bytes in, const reduction& op) {
  if (op.element == 0) reject(t, c, errc::invalid_argument, "the operator's element size is 0");
  if (op.op == detail::builtin_op::none && !op.user) {
    reject(t, c, errc::invalid_argument, "no operator given");
  }
  if (op.op != detail::builtin_op::none) {
    // Checked here on every rank, not where operands meet: with a bad operator some ranks would
    // fail while the others waited for them.
    try {
      combine(op, nullptr, nullptr, 0);
    } catch (const error& e) {
      std::string_view why = e.what();
      if (why.starts_with("rmpl: ")) why.remove_prefix(6);
      reject(t, c, e.code(), "{}", why);
    }
  }
  if (in.size() % op.element != 0) {
    reject(t, c, errc::invalid_argument, "{} bytes are not a whole number of {}-byte elements",
           in.size(), op.element);
  }
}

void check_room(const target& t, collective c, std::size_t have, std::size_t need,
                const char* buffer) {
  if (have < need) {
    reject(t, c, errc::invalid_argument, "the {} holds {} bytes but {} are needed", buffer, have,
           need);
  }
}

/// Counts and displacements (bytes) of a v-collective, checked against the buffer they index.
layout checked_layout(const target& t, collective c, sizes counts, sizes displs,
                      std::size_t buffer_bytes, const char* buffer) {
  const auto n = static_cast<std::size_t>(t.comm.size);
  if (counts.size() != n) {
    reject(t, c, errc::invalid_argument, "{} counts given for a communicator of {}", counts.size(),
           n);
  }
  if (!displs.empty() && displs.size() != n) {
    reject(t, c, errc::invalid_argument, "{} displacements given for a communicator of {}",
           displs.size(), n);
  }
  layout l;
  l.counts.assign(counts.begin(), counts.end());
  l.displs.resize(n);
  std::size_t packed = 0;
  for (std::size_t r = 0; r < n; ++r) {
    l.displs[r] = displs.empty() ? packed : displs[r];
    packed += counts[r];
    if (l.displs[r] > buffer_bytes || counts[r] > buffer_bytes - l.displs[r]) {
      reject(t, c, errc::invalid_argument,
             "block {} ({} bytes at offset {}) lies outside the {} of {} bytes", r, counts[r],
             l.displs[r], buffer, buffer_bytes);
    }
  }
  return l;
}

/// Starts `algorithm` (named `name`) as collective `c` on the target.
template <class Start>
core::request* launch(const target& t, collective c, std::string_view name, std::size_t bytes,
                      Start&& start) {
  auto op = std::make_unique<operation>(
      t.engine, t.keep,
      operation::label{collective_names[static_cast<std::size_t>(c)], name, bytes, t.comm.size});
  exchange x(*op, t.engine, t.comm, t.comm.next_collective_tag());
  op->run(start(x));
  return t.engine.start_activity(std::move(op));
}

bool is_pow2(int n) {
  return (n & (n - 1)) == 0;
}

/// Whether a rooted collective of `bytes` goes through the shared areas when not forced. Measured
/// with bench/collectives (docs/benchmarks.md): with two ranks the areas win at every size up to
/// `two_rank_max` (even against a single copy: no system call, no page pinning); with more, short
/// messages are better sent down a binomial tree, which lets the root run ahead of the others by
/// any number of operations (the areas let it run two rounds ahead).
bool shared_suits(const target& t, std::size_t bytes, std::size_t two_rank_max) {
  if (t.comm.area < 0) return false;
  return t.comm.size <= 2 ? bytes <= two_rank_max : bytes >= (16u << 10);
}

/// The algorithm forced for `c`, with "shared" read as "auto" on a communicator without an area.
std::string_view chosen(const target& t, collective c) {
  const std::string_view name = forced(c);
  return name == "shared" && t.comm.area < 0 ? "auto" : name;
}

}  // namespace

core::request* start_barrier(const target& t) {
  constexpr auto c = collective::barrier;
  std::string_view name = chosen(t, c);
  if (name == "auto") name = t.comm.area >= 0 ? "shared" : "dissemination";
  if (name == "shared") return launch(t, c, name, 0, [&](exchange x) { return barrier_shared(x); });
  return launch(t, c, "dissemination", 0, [&](exchange x) { return barrier_dissemination(x); });
}

core::request* start_broadcast(const target& t, bytes data, int root) {
  constexpr auto c = collective::broadcast;
  check_root(t, c, root);
  std::string_view name = chosen(t, c);
  if (name == "auto") {
    name = shared_suits(t, data.size(), 4u << 20)           ? "shared"
           : t.comm.size <= 2 || data.size() < (256u << 10) ? "binomial"
                                                            : "scatter_allgather";
  }
  if (name == "shared") {
    return launch(t, c, name, data.size(),
                  [&](exchange x) { return broadcast_shared(x, data, root); });
  }
  if (name == "scatter_allgather") {
    return launch(t, c, name, data.size(),
                  [&](exchange x) { return broadcast_scatter_allgather(x, data, root); });
  }
  return launch(t, c, "binomial", data.size(),
                [&](exchange x) { return broadcast_binomial(x, data, root); });
}

core::request* start_reduce(const target& t, const_bytes in, bytes out, const reduction& op,
                            int root) {
  constexpr auto c = collective::reduce;
  check_root(t, c, root);
  check_reduction(t, c, in, op);
  if (t.comm.rank == root) check_room(t, c, out.size(), in.size(), "receive buffer");
  const std::size_t count = in.size() / op.element;
  // Binary swap serves any operator (it combines in rank order); it needs a block per new rank.
  const bool halving_fits = count >= static_cast<std::size_t>(floor_pow2(t.comm.size));
  std::string_view name = chosen(t, c);
  if (name == "auto") {
    name = shared_suits(t, in.size(), ~std::size_t{0}) ? "shared"
           : halving_fits && in.size() >= (64u << 10)  ? "rabenseifner"
                                                       : "binomial";
  }
  if (name == "shared") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return reduce_shared(x, in, out, op, root); });
  }
  if (name == "rabenseifner" && halving_fits) {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return reduce_rabenseifner(x, in, out, op, root); });
  }
  return launch(t, c, "binomial", in.size(),
                [&](exchange x) { return reduce_binomial(x, in, out, op, root); });
}

core::request* start_allreduce(const target& t, const_bytes in, bytes out, const reduction& op) {
  constexpr auto c = collective::allreduce;
  check_reduction(t, c, in, op);
  check_room(t, c, out.size(), in.size(), "receive buffer");
  std::string_view name = chosen(t, c);
  if (name == "auto") {
    name = t.comm.area >= 0           ? "shared"
           : in.size() >= (16u << 10) ? "rabenseifner"
                                      : "recursive_doubling";
  }
  if (name == "shared") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return allreduce_shared(x, in, out, op); });
  }
  // The ring reorders operands: non-commutative operators take the halving (binary swap), which
  // keeps rank order.
  if (name == "ring" && !op.commutative) name = "rabenseifner";
  if (name == "rabenseifner") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return allreduce_rabenseifner(x, in, out, op); });
  }
  if (name == "ring") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return allreduce_ring(x, in, out, op); });
  }
  if (name == "reduce_broadcast") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return allreduce_reduce_broadcast(x, in, out, op); });
  }
  return launch(t, c, "recursive_doubling", in.size(),
                [&](exchange x) { return allreduce_recursive_doubling(x, in, out, op); });
}

core::request* start_scan(const target& t, const_bytes in, bytes out, const reduction& op,
                          bool exclusive) {
  const auto c = exclusive ? collective::exscan : collective::scan;
  check_reduction(t, c, in, op);
  if (!exclusive || t.comm.rank > 0) check_room(t, c, out.size(), in.size(), "receive buffer");
  if (forced(c) == "linear") {
    return launch(t, c, "linear", in.size(),
                  [&](exchange x) { return scan_linear(x, in, out, op, exclusive); });
  }
  return launch(t, c, "recursive_doubling", in.size(),
                [&](exchange x) { return scan_recursive_doubling(x, in, out, op, exclusive); });
}

namespace {

core::request* start_reduce_scatter_layout(const target& t, collective c, const_bytes in, bytes out,
                                           layout recv, const reduction& op) {
  const std::size_t mine = recv.count(t.comm.rank);
  check_room(t, c, out.size(), mine, "receive buffer");
  for (int r = 0; r < t.comm.size; ++r) {
    if (recv.count(r) % op.element != 0) {
      reject(t, c, errc::invalid_argument,
             "rank {}'s share of {} bytes is not a whole number "
             "of {}-byte elements",
             r, recv.count(r), op.element);
    }
  }
  std::string_view name = forced(c);
  if (name == "auto") {
    name = !op.commutative            ? "reduce_scatterv"
           : in.size() < (512u << 10) ? "recursive_halving"
                                      : "pairwise";
  }
  if (!op.commutative) name = "reduce_scatterv";
  const std::size_t total = in.size();
  if (name == "recursive_halving") {
    return launch(t, c, name, total, [&](exchange x) {
      return reduce_scatter_recursive_halving(x, in, out, std::move(recv), op);
    });
  }
  if (name == "pairwise") {
    return launch(t, c, name, total, [&](exchange x) {
      return reduce_scatter_pairwise(x, in, out, std::move(recv), op);
    });
  }
  return launch(t, c, "reduce_scatterv", total, [&](exchange x) {
    return reduce_scatter_reduce_scatterv(x, in, out, std::move(recv), op);
  });
}

}  // namespace

core::request* start_reduce_scatter_block(const target& t, const_bytes in, bytes out,
                                          const reduction& op) {
  constexpr auto c = collective::reduce_scatter_block;
  check_reduction(t, c, in, op);
  const std::size_t block = out.size();
  check_room(t, c, in.size(), block * static_cast<std::size_t>(t.comm.size), "send buffer");
  return start_reduce_scatter_layout(t, c, in.first(block * static_cast<std::size_t>(t.comm.size)),
                                     out, layout::uniform(t.comm.size, block), op);
}

core::request* start_reduce_scatter(const target& t, const_bytes in, bytes out, sizes counts,
                                    const reduction& op) {
  constexpr auto c = collective::reduce_scatter;
  check_reduction(t, c, in, op);
  layout recv = checked_layout(t, c, counts, {}, in.size(), "send buffer");
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  return start_reduce_scatter_layout(t, c, in.first(total), out, std::move(recv), op);
}

core::request* start_gather(const target& t, const_bytes in, bytes out, int root) {
  constexpr auto c = collective::gather;
  check_root(t, c, root);
  const std::size_t n = static_cast<std::size_t>(t.comm.size);
  if (t.comm.rank == root) check_room(t, c, out.size(), n * in.size(), "receive buffer");
  std::string_view name = forced(c);
  if (name == "auto") name = in.size() < 2048 ? "binomial" : "linear";
  if (name == "binomial") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return gather_binomial(x, in, out, root); });
  }
  layout blocks = t.comm.rank == root ? layout::uniform(t.comm.size, in.size()) : layout{};
  return launch(t, c, "linear", in.size(),
                [&](exchange x) { return gatherv_linear(x, in, out, std::move(blocks), root); });
}

core::request* start_gatherv(const target& t, const_bytes in, bytes out, sizes counts, sizes displs,
                             int root) {
  constexpr auto c = collective::gatherv;
  check_root(t, c, root);
  layout blocks;
  if (t.comm.rank == root) {
    blocks = checked_layout(t, c, counts, displs, out.size(), "receive buffer");
    if (in.size() != blocks.count(root)) {
      reject(t, c, errc::invalid_argument, "the root sends {} bytes but its count says {}",
             in.size(), blocks.count(root));
    }
  }
  return launch(t, c, "linear", in.size(),
                [&](exchange x) { return gatherv_linear(x, in, out, std::move(blocks), root); });
}

core::request* start_scatter(const target& t, const_bytes in, bytes out, int root) {
  constexpr auto c = collective::scatter;
  check_root(t, c, root);
  const std::size_t n = static_cast<std::size_t>(t.comm.size);
  if (t.comm.rank == root) check_room(t, c, in.size(), n * out.size(), "send buffer");
  std::string_view name = forced(c);
  if (name == "auto") name = out.size() < 2048 ? "binomial" : "linear";
  if (name == "binomial") {
    return launch(t, c, name, out.size(),
                  [&](exchange x) { return scatter_binomial(x, in, out, root); });
  }
  layout blocks = t.comm.rank == root ? layout::uniform(t.comm.size, out.size()) : layout{};
  return launch(t, c, "linear", out.size(),
                [&](exchange x) { return scatterv_linear(x, in, std::move(blocks), out, root); });
}

core::request* start_scatterv(const target& t, const_bytes in, sizes counts, sizes displs,
                              bytes out, int root) {
  constexpr auto c = collective::scatterv;
  check_root(t, c, root);
  layout blocks;
  if (t.comm.rank == root) {
    blocks = checked_layout(t, c, counts, displs, in.size(), "send buffer");
    check_room(t, c, out.size(), blocks.count(root), "receive buffer");
  }
  return launch(t, c, "linear", out.size(),
                [&](exchange x) { return scatterv_linear(x, in, std::move(blocks), out, root); });
}

core::request* start_allgather(const target& t, const_bytes in, bytes out) {
  constexpr auto c = collective::allgather;
  const int n = t.comm.size;
  check_room(t, c, out.size(), static_cast<std::size_t>(n) * in.size(), "receive buffer");
  std::string_view name = forced(c);
  if (name == "auto") {
    name = static_cast<std::size_t>(n) * in.size() >= (64u << 10) ? "ring"
           : is_pow2(n)                                           ? "recursive_doubling"
                                                                  : "bruck";
  }
  if (name == "recursive_doubling" && !is_pow2(n)) name = "bruck";
  if (name == "recursive_doubling") {
    return launch(t, c, name, in.size(),
                  [&](exchange x) { return allgather_recursive_doubling(x, in, out); });
  }
  if (name == "bruck") {
    return launch(t, c, name, in.size(), [&](exchange x) { return allgather_bruck(x, in, out); });
  }
  return launch(t, c, "ring", in.size(), [&](exchange x) {
    return allgather_ring(x, in, out, layout::uniform(n, in.size()));
  });
}

core::request* start_allgatherv(const target& t, const_bytes in, bytes out, sizes counts,
                                sizes displs) {
  constexpr auto c = collective::allgatherv;
  layout blocks = checked_layout(t, c, counts, displs, out.size(), "receive buffer");
  if (in.size() != blocks.count(t.comm.rank)) {
    reject(t, c, errc::invalid_argument, "this rank sends {} bytes but its count says {}",
           in.size(), blocks.count(t.comm.rank));
  }
  return launch(t, c, "ring", in.size(),
                [&](exchange x) { return allgather_ring(x, in, out, std::move(blocks)); });
}

core::request* start_alltoall(const target& t, const_bytes in, bytes out) {
  constexpr auto c = collective::alltoall;
  const int n = t.comm.size;
  if (in.size() % static_cast<std::size_t>(n) != 0) {
    reject(t, c, errc::invalid_argument, "{} bytes do not split into {} equal blocks", in.size(),
           n);
  }
  check_room(t, c, out.size(), in.size(), "receive buffer");
  const std::size_t block = in.size() / static_cast<std::size_t>(n);
  std::string_view name = forced(c);
  if (name == "auto") {
    name = block <= 128 && n > 2 ? "bruck" : block <= (64u << 10) ? "linear" : "pairwise";
  }
  if (name == "bruck") {
    return launch(t, c, name, block, [&](exchange x) { return alltoall_bruck(x, in, out); });
  }
  layout blocks = layout::uniform(n, block);
  if (name == "pairwise") {
    return launch(t, c, name, block,
                  [&](exchange x) { return alltoall_pairwise(x, in, blocks, out, blocks); });
  }
  return launch(t, c, "linear", block,
                [&](exchange x) { return alltoall_linear(x, in, blocks, out, blocks); });
}

core::request* start_alltoallv(const target& t, const_bytes in, sizes send_counts,
                               sizes send_displs, bytes out, sizes recv_counts, sizes recv_displs) {
  constexpr auto c = collective::alltoallv;
  layout send = checked_layout(t, c, send_counts, send_displs, in.size(), "send buffer");
  layout recv = checked_layout(t, c, recv_counts, recv_displs, out.size(), "receive buffer");
  const std::size_t total = std::accumulate(send_counts.begin(), send_counts.end(), std::size_t{0});
  if (forced(c) == "pairwise") {
    return launch(t, c, "pairwise", total, [&](exchange x) {
      return alltoall_pairwise(x, in, std::move(send), out, std::move(recv));
    });
  }
  return launch(t, c, "linear", total, [&](exchange x) {
    return alltoall_linear(x, in, std::move(send), out, std::move(recv));
  });
}

}  // namespace rmpl::coll
