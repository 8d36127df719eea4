// Collective operations (MPI-3.1 chapter 5), blocking and nonblocking, over the kernel's byte-level
// collectives: the layer only turns typed buffers into byte ranges and back. A contiguous datatype
// goes straight through; any other is packed into a staging buffer before the operation and
// unpacked from it after (a nonblocking operation keeps its staging alive in its request and
// unpacks when it completes). A blocking collective is its nonblocking form followed by a wait.
//
// Fast path: MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Allgather and MPI_Alltoall on
// a live intracommunicator, with plain buffers (committed contiguous datatypes, MPI_IN_PLACE only
// where it means passing the receive buffer twice) and a predefined operator the kernel applies to
// the data as it lies, call the kernel's collective on the caller's buffers, run to its end on the
// caller's stack: no staging, no plan, no request, as the native API does. The test is a few
// compares of handle fields (fast_intra, plain_data, direct_reduction); anything else takes the
// general path below, out of line, which makes the checks in turn and reports the first that fails.
//
// MPI_IN_PLACE: the kernel's reductions accept the same range as input and output, and its gathers
// skip copying a rank's own block onto itself, so in place mostly means passing the receive buffer
// twice; where the kernel needs distinct ranges (reduce-scatter, all-to-all) the input is copied
// to a staging buffer first.
//
// On an intercommunicator (MPI-3.1 5.2.2) the same byte ranges go to intercomm.cpp's collectives
// instead (the `inter_` functions below): rooted ones take MPI_ROOT / MPI_PROC_NULL / a remote rank
// as root, buffers of blocks have one block per remote rank, MPI_IN_PLACE is refused, and Scan and
// Exscan are not defined there (MPI_ERR_COMM).
#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "coll/collectives.hpp"
#include "coll/combine.hpp"
#include "coll/select.hpp"
#include "mpi/call.hpp"
#include "mpi/communicators.hpp"
#include "mpi/datatypes.hpp"
#include "mpi/info.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/operators.hpp"
#include "mpi/requests.hpp"
#include "mpi/topology.hpp"

namespace rmpl::mpi {
namespace {

using detail::bytes_in;
using detail::bytes_out;

/// The communicator of a collective: every entry point checks it here.
const rmpl_mpi_comm& collective_comm(MPI_Comm c) {
  return comm(c);
}

/// The staging buffers of one collective and what must happen when it completes.
struct staging {
  std::vector<std::unique_ptr<std::byte[]>> buffers;
  std::vector<std::function<void()>> after;
  std::vector<std::unique_ptr<rmpl_mpi_datatype>> types;
  bool nonblocking = false;

  std::byte* make(std::size_t bytes) {
    buffers.push_back(std::make_unique_for_overwrite<std::byte[]>(bytes));
    return buffers.back().get();
  }
  /// A copy of `t`'s layout for unpacking when the operation completes: the program may free
  /// the type while a nonblocking collective still uses it (MPI allows that).
  const rmpl_mpi_datatype* keep(const rmpl_mpi_datatype& t) {
    if (t.predefined || !nonblocking) return &t;
    types.push_back(std::make_unique<rmpl_mpi_datatype>(t));
    return types.back().get();
  }
  void finish() {
    for (auto& step : after) step();
    after.clear();
  }
};
/// The staging of one collective call: on the caller's stack for a blocking call (no allocation;
/// most calls stage nothing), on the heap for a nonblocking one, whose MPI request keeps it.
class staging_handle {
 public:
  explicit staging_handle(const MPI_Request* request) {
    if (request != nullptr) {
      heap_ = std::make_shared<staging>();
      heap_->nonblocking = true;
    }
  }
  staging_handle(const staging_handle&) = delete;
  staging_handle& operator=(const staging_handle&) = delete;

  staging& operator*() noexcept { return heap_ ? *heap_ : local_; }
  staging* operator->() noexcept { return &**this; }
  /// The nonblocking form's staging, for its request.
  const std::shared_ptr<staging>& shared() const noexcept { return heap_; }

 private:
  staging local_;
  std::shared_ptr<staging> heap_;
};

/// How the kernel runs a collective: a blocking call (no request) runs it to its end, with no
/// kernel request; a nonblocking one starts it.
detail::run how(const MPI_Request* request) noexcept {
  return request == nullptr ? detail::run::to_end : detail::run::start;
}

/// Completes a started collective: waits and unpacks (blocking: `request` is null), or hands the
/// kernel request and the staging to a new MPI request.
void finish(MPI_Comm c, detail::request_id id, staging_handle& s, MPI_Request* request) {
  if (request == nullptr) {
    if (id != detail::null_request) detail::wait(id);  // null: the collective ran to its end
    s->finish();
    return;
  }
  *request = make_request(c, request_kind::collective, id,
                          [kept = s.shared()](MPI_Status&) { kept->finish(); });
}

// ---- argument checks ----

/// In the checked mode (RMPL_CHECK_COLLECTIVES=1) the kernel's collectives first agree on their
/// arguments, and a rank whose own arguments fail the kernel's checks still takes part, flagged,
/// so that every rank fails. The layer's own checks (types, counts, MPI_IN_PLACE) come before the
/// kernel is entered: a rank that failed one would leave without a word, and the others would be
/// checked against its next collective and hang. Made on a live intracommunicator before those
/// checks: if the call throws before a collective was started in the checked mode, this rank
/// joins the agreement as one that rejected its arguments (coll::join_rejected) as the error
/// leaves. Outside the checked mode it only compares a counter.
class joins_if_rejected {
 public:
  joins_if_rejected(const rmpl_mpi_comm& co, coll::collective c) noexcept
      : co_(co), c_(c), unwinding_(std::uncaught_exceptions()), starts_(coll::checked_starts()) {}
  joins_if_rejected(const joins_if_rejected&) = delete;
  joins_if_rejected& operator=(const joins_if_rejected&) = delete;
  ~joins_if_rejected() {
    if (std::uncaught_exceptions() > unwinding_ && coll::checked_starts() == starts_ &&
        coll::checking_collectives()) [[unlikely]] {
      join();
    }
  }

 private:
  [[gnu::cold]] void join() const noexcept {
    try {
      coll::join_rejected(coll::target{api::kernel(), co_.impl->kernel, nullptr, true}, c_,
                          errc::invalid_argument);
    } catch (...) {  // this rank's own error is the one being reported
    }
  }
  const rmpl_mpi_comm& co_;
  coll::collective c_;
  int unwinding_;
  std::uint64_t starts_;
};

/// An array argument of integers (a v-collective's counts or displacements) as the binding gave
/// it: ints in MPI_X, MPI_Count or MPI_Aint in MPI_X_c (call.hpp, large_count). Read as MPI_Count,
/// so that the collectives take either without a copy or a template of their own.
class int_array {
 public:
  int_array(std::nullptr_t) noexcept {}  // NOLINT: a missing array, as the program may pass
  int_array(const int* p) noexcept : narrow_(p) {}       // NOLINT: implicit, as a pointer
  int_array(const long* p) noexcept : wide_(p) {}        // NOLINT (MPI_Aint)
  int_array(const long long* p) noexcept : wider_(p) {}  // NOLINT (MPI_Count)
  bool operator==(std::nullptr_t) const noexcept {
    return narrow_ == nullptr && wide_ == nullptr && wider_ == nullptr;
  }
  MPI_Count operator[](std::size_t i) const noexcept {
    return narrow_ ? narrow_[i] : wide_ ? static_cast<MPI_Count>(wide_[i]) : wider_[i];
  }
  MPI_Count operator[](int i) const noexcept { return (*this)[static_cast<std::size_t>(i)]; }

 private:
  const int* narrow_ = nullptr;
  const long* wide_ = nullptr;
  const long long* wider_ = nullptr;
};

void check_request(MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_REQUEST, "the address for the request is null");
}

void check_root(const rmpl_mpi_comm& c, int root) {
  if (root < 0 || root >= c.size()) {
    fail(MPI_ERR_ROOT, "root {} is not a rank of the communicator (size {})", root, c.size());
  }
}

/// A buffer that may not be MPI_IN_PLACE here.
void not_in_place(const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the {}", what);
}

/// A typed buffer argument: the datatype (committed), the count and the buffer.
const rmpl_mpi_datatype& typed(const void* buf, MPI_Count n, MPI_Datatype t, const char* what) {
  const rmpl_mpi_datatype& type = datatype(t);
  const std::string side = what;
  count(n, side.empty() ? "count" : (side + " count").c_str());
  buffer(buf, n, type, side.empty() ? "buffer" : (side + " buffer").c_str());
  return type;
}

/// A v-collective's counts and displacements for `n` ranks (or, with `owner` "neighbour", for the
/// neighbours of a topology: the word the error texts use for a block's index).
void check_counts(int_array counts, int_array displs, int n, const char* what,
                  const char* owner = "rank") {
  if (n > 0 && counts == nullptr) fail(MPI_ERR_ARG, "the {} counts array is null", what);
  if (n > 0 && displs == nullptr) fail(MPI_ERR_ARG, "the {} displacements array is null", what);
  for (int r = 0; r < n; ++r) {
    if (counts[r] < 0)
      fail(MPI_ERR_COUNT, "{} count {} (for {} {}) is negative", what, counts[r], owner, r);
  }
}

/// The sum of a reduce-scatter's `n` receive counts (each checked: not negative), the count of
/// its input vector.
MPI_Count counts_total(int_array counts, int n) {
  MPI_Count sum = 0;
  for (int r = 0; r < n; ++r) {
    if (counts[r] < 0) {
      fail(MPI_ERR_COUNT, "receive count {} (for rank {}) is negative", counts[r], r);
    }
    if (__builtin_add_overflow(sum, counts[r], &sum)) {
      fail(MPI_ERR_COUNT, "the receive counts add up to more than an MPI_Count holds");
    }
  }
  return sum;
}

/// The sent and received data of one rank's own block agree (MPI requires equal type
/// signatures; the sizes are what the layer can see).
void same_size(std::size_t sent, std::size_t received, const char* where) {
  if (sent == received) return;
  fail(sent > received ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
       "{} sends {} bytes but receives {}: the send and receive type signatures must match", where,
       sent, received);
}

// ---- typed buffers as byte ranges ----

/// The data of `count` elements of `t` at `buf`, for sending: in place when contiguous (unless
/// `copy`), else packed into a staging buffer.
bytes_in send_bytes(staging& s, const void* buf, MPI_Count count, const rmpl_mpi_datatype& t,
                    bool copy = false) {
  const std::size_t bytes = data_bytes(t, count);
  if (bytes == 0) return {};
  if (t.contiguous && !copy) return {static_cast<const std::byte*>(data_start(buf, t)), bytes};
  std::byte* staged = s.make(bytes);
  pack(buf, count, t, staged);
  return {staged, bytes};
}

/// Room for `count` elements of `t` at `buf`, for receiving: in place when contiguous, else a
/// staging buffer unpacked when the operation completes.
bytes_out recv_bytes(staging& s, void* buf, MPI_Count count, const rmpl_mpi_datatype& t) {
  const std::size_t bytes = data_bytes(t, count);
  if (bytes == 0) return {};
  if (t.contiguous) return {static_cast<std::byte*>(data_start(buf, t)), bytes};
  std::byte* staged = s.make(bytes);
  const rmpl_mpi_datatype* type = s.keep(t);
  s.after.push_back([=] { unpack(staged, bytes, buf, count, *type); });
  return {staged, bytes};
}

/// The blocks of a v-collective's buffer, as the kernel takes them: one byte range, and each rank's
/// block as a byte count and a displacement in it.
struct region {
  bytes_out data;
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;

  bytes_out block(int r) const {
    const auto i = static_cast<std::size_t>(r);
    return data.subspan(displs[i], counts[i]);
  }
};

enum class direction { send, receive };

/// Rank r's block: counts[r] elements of *types[r] at buf + displs[r] * (the type's extent, or
/// one byte with `byte_displs`). When every block is contiguous the region is the user's buffer
/// from the first block's first byte to the last one's end; else the blocks are packed into a
/// staging buffer: loaded now when sending (or, with `copy`, always), unpacked after the
/// operation when receiving. `load_own` >= 0 loads that rank's block of a receive region now too
/// (MPI_IN_PLACE: the rank's own contribution already sits in the receive buffer). `owner` names
/// a block's index in error texts ("rank", or "neighbour" for a topology's neighbours).
region blocks_of(staging& s, const void* buf, const std::vector<MPI_Count>& counts,
                 const std::vector<MPI_Aint>& displs,
                 const std::vector<const rmpl_mpi_datatype*>& types, bool byte_displs, direction d,
                 bool copy = false, int load_own = -1, const char* owner = "rank") {
  const std::size_t n = counts.size();
  region out;
  out.counts.resize(n);
  out.displs.assign(n, 0);
  std::vector<std::byte*> starts(n);  // each element block's start (not its data's)
  bool direct = !copy;
  for (std::size_t r = 0; r < n; ++r) {
    const rmpl_mpi_datatype& t = *types[r];
    out.counts[r] = data_bytes(t, counts[r]);
    if (out.counts[r] == 0) continue;
    const MPI_Aint unit = byte_displs ? 1 : t.extent;
    MPI_Aint offset = 0;
    if (__builtin_mul_overflow(displs[r], unit, &offset)) {
      fail(MPI_ERR_ARG, "displacement {} for {} {} overflows", displs[r], owner, r);
    }
    if (buf == nullptr && offset == 0 && t.contiguous && t.true_lb == 0) {
      fail(MPI_ERR_BUFFER, "the buffer is null with a count of {} for {} {}", counts[r], owner, r);
    }
    starts[r] = const_cast<std::byte*>(static_cast<const std::byte*>(buf)) + offset;
    if (!t.contiguous) direct = false;
  }
  if (direct) {
    std::byte* lo = nullptr;
    std::byte* hi = nullptr;
    for (std::size_t r = 0; r < n; ++r) {
      if (out.counts[r] == 0) continue;
      std::byte* first = starts[r] + types[r]->true_lb;
      if (lo == nullptr || first < lo) lo = first;
      if (hi == nullptr || first + out.counts[r] > hi) hi = first + out.counts[r];
    }
    if (lo == nullptr) return out;  // no data at all
    out.data = {lo, static_cast<std::size_t>(hi - lo)};
    for (std::size_t r = 0; r < n; ++r) {
      if (out.counts[r] != 0) {
        out.displs[r] = static_cast<std::size_t>(starts[r] + types[r]->true_lb - lo);
      }
    }
    return out;
  }
  std::size_t total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    out.displs[r] = total;
    total += out.counts[r];
  }
  if (total == 0) return out;
  std::byte* staged = s.make(total);
  out.data = {staged, total};
  for (std::size_t r = 0; r < n; ++r) {
    if (out.counts[r] == 0) continue;
    if (d == direction::send || static_cast<int>(r) == load_own) {
      pack(starts[r], counts[r], *types[r], staged + out.displs[r]);
    }
  }
  if (d == direction::receive) {
    std::vector<const rmpl_mpi_datatype*> kept(n);
    for (std::size_t r = 0; r < n; ++r) kept[r] = out.counts[r] ? s.keep(*types[r]) : nullptr;
    s.after.push_back([=, region_counts = out.counts, region_displs = out.displs] {
      for (std::size_t r = 0; r < n; ++r) {
        if (region_counts[r] == 0) continue;
        unpack(staged + region_displs[r], region_counts[r], starts[r], counts[r], *kept[r]);
      }
    });
  }
  return out;
}

/// The region of `n` blocks of `count` elements of `t`, one after another (gather, scatter,
/// allgather, alltoall): the same layout the kernel's non-v forms expect.
region uniform_blocks(staging& s, const void* buf, MPI_Count count, const rmpl_mpi_datatype& t,
                      int n, direction d, bool copy = false, int load_own = -1) {
  std::vector<MPI_Count> counts(static_cast<std::size_t>(n), count);
  std::vector<MPI_Aint> displs(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (__builtin_mul_overflow(static_cast<MPI_Aint>(r), count,
                               &displs[static_cast<std::size_t>(r)])) {
      fail(MPI_ERR_COUNT, "the block of rank {} ({} elements a rank) is beyond any address", r,
           count);
    }
  }
  std::vector<const rmpl_mpi_datatype*> types(static_cast<std::size_t>(n), &t);
  return blocks_of(s, buf, counts, displs, types, false, d, copy, load_own);
}

/// A v-form's blocks with one datatype and displacements in its extent.
region varying_blocks(staging& s, const void* buf, int_array counts, int_array displs,
                      const rmpl_mpi_datatype& t, int n, direction d, bool copy = false,
                      int load_own = -1) {
  std::vector<MPI_Count> c(static_cast<std::size_t>(n));
  std::vector<MPI_Aint> dis(static_cast<std::size_t>(n));
  for (std::size_t r = 0; r < c.size(); ++r) {
    c[r] = counts[r];
    dis[r] = static_cast<MPI_Aint>(displs[r]);
  }
  std::vector<const rmpl_mpi_datatype*> types(static_cast<std::size_t>(n), &t);
  return blocks_of(s, buf, c, dis, types, false, d, copy, load_own);
}

/// An intercommunicator collective's `n` blocks (one per remote rank), checked: the v-form's
/// (counts and displacements in `type`'s extent; staged when `stage_varying`) or `count` elements
/// of `type` each.
region inter_blocks(staging& s, bool varying, const void* buf, MPI_Count count, int_array counts,
                    int_array displs, MPI_Datatype type, int n, direction d,
                    bool stage_varying = false) {
  const char* what = d == direction::send ? "send" : "receive";
  if (!varying) return uniform_blocks(s, buf, count, typed(buf, count, type, what), n, d);
  check_counts(counts, displs, n, what);
  return varying_blocks(s, buf, counts, displs, datatype(type), n, d, stage_varying);
}

// ---- reduction operands ----

/// Bytes of `count` elements of `t` in the form the kernel reduces.
std::size_t kernel_bytes(const reduction_plan& p, const rmpl_mpi_datatype& t, MPI_Count count) {
  const std::size_t bytes = data_bytes(t, count);
  return p.packed_pair ? bytes / p.packed_pair * p.kernel.element : bytes;
}

/// The packed data of `count` elements of `t` converted to the kernel's elements, into `to`.
void load_operand(const reduction_plan& p, const void* buf, MPI_Count count,
                  const rmpl_mpi_datatype& t, std::byte* to) {
  const std::size_t bytes = data_bytes(t, count);
  if (!p.packed_pair) {
    pack(buf, count, t, to);
    return;
  }
  std::vector<std::byte> packed(bytes);
  pack(buf, count, t, packed.data());
  widen_pairs(p, packed.data(), bytes / p.packed_pair, to);
}

/// A reduction's input: `count` elements of `t` at `buf` in kernel form (the buffer itself when
/// that is the same thing and `copy` is not asked for).
bytes_in reduce_input(staging& s, const reduction_plan& p, const void* buf, MPI_Count count,
                      const rmpl_mpi_datatype& t, bool copy = false) {
  const std::size_t bytes = kernel_bytes(p, t, count);
  if (bytes == 0) return {};
  if (!p.packed_pair && t.contiguous && !copy) {
    return {static_cast<const std::byte*>(data_start(buf, t)), bytes};
  }
  std::byte* staged = s.make(bytes);
  load_operand(p, buf, count, t, staged);
  return {staged, bytes};
}

/// A reduction's result: room for `count` elements of `t` at `buf` in kernel form, written back
/// when the operation completes; with `load`, holding the buffer's data as input too (in place).
bytes_out reduce_output(staging& s, const reduction_plan& p, void* buf, MPI_Count count,
                        const rmpl_mpi_datatype& t, bool load) {
  const std::size_t bytes = kernel_bytes(p, t, count);
  if (bytes == 0) return {};
  if (!p.packed_pair && t.contiguous) return {static_cast<std::byte*>(data_start(buf, t)), bytes};
  std::byte* staged = s.make(bytes);
  if (load) load_operand(p, buf, count, t, staged);
  const rmpl_mpi_datatype* type = s.keep(t);
  s.after.push_back([=] {
    if (!p.packed_pair) {
      unpack(staged, bytes, buf, count, *type);
      return;
    }
    const std::size_t pairs = bytes / p.kernel.element;
    std::vector<std::byte> packed(pairs * p.packed_pair);
    narrow_pairs(p, staged, pairs, packed.data());
    unpack(packed.data(), packed.size(), buf, count, *type);
  });
  return {staged, bytes};
}

/// The checks every reduction shares; returns the plan.
reduction_plan reduction_args(const void* sendbuf, const void* recvbuf, MPI_Count n,
                              MPI_Datatype type, MPI_Op o) {
  const rmpl_mpi_datatype& t = datatype(type);
  count(n, "count");
  if (sendbuf != MPI_IN_PLACE) buffer(sendbuf, n, t, "send buffer");
  (void)recvbuf;
  return plan_reduction(o, type);
}

// ---- on intercommunicators: the byte ranges for intercomm.cpp ----

/// A rooted collective's root on an intercommunicator: MPI_ROOT, MPI_PROC_NULL or a remote rank.
void check_inter_root(const rmpl_mpi_comm& c, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL) return;
  if (root < 0 || root >= c.size()) {
    fail(MPI_ERR_ROOT,
         "root {} is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote group (size {})",
         root, c.size());
  }
}

/// MPI_IN_PLACE has no meaning on an intercommunicator (MPI-3.1 5.2.2).
void not_in_place_inter(const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE) {
    fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the {} on an intercommunicator", what);
  }
}

/// The size of an intercommunicator's local group (its size() is the remote group's).
int local_size(const rmpl_mpi_comm& c) {
  return c.local_group->kernel.size;
}

void inter_bcast(const rmpl_mpi_comm& co, MPI_Comm c, void* buf, MPI_Count n, MPI_Datatype type,
                 int root, MPI_Request* request) {
  check_inter_root(co, root);
  staging_handle s(request);
  bytes_out data;
  if (root == MPI_ROOT) {
    const rmpl_mpi_datatype& t = typed(buf, n, type, "");
    const bytes_in sent = send_bytes(*s, buf, n, t);
    data = {const_cast<std::byte*>(sent.data()), sent.size()};
  } else if (root != MPI_PROC_NULL) {
    data = recv_bytes(*s, buf, n, typed(buf, n, type, ""));
  }
  finish(c, inter::ibroadcast(co, data, root), s, request);
}

void inter_reduce(const rmpl_mpi_comm& co, MPI_Comm c, const void* sendbuf, void* recvbuf,
                  MPI_Count n, MPI_Datatype type, MPI_Op o, int root, MPI_Request* request) {
  check_inter_root(co, root);
  staging_handle s(request);
  bytes_in in;
  bytes_out out;
  reduction_plan p;
  if (root == MPI_ROOT) {
    not_in_place_inter(recvbuf, "receive buffer");
    p = reduction_args(MPI_IN_PLACE, recvbuf, n, type, o);  // the root sends nothing
    buffer(recvbuf, n, *type, "receive buffer");
    out = reduce_output(*s, p, recvbuf, n, *type, false);
  } else if (root != MPI_PROC_NULL) {
    not_in_place_inter(sendbuf, "send buffer");
    p = reduction_args(sendbuf, recvbuf, n, type, o);
    in = reduce_input(*s, p, sendbuf, n, *type);
  }
  finish(c, inter::ireduce(co, in, out, p.kernel, root), s, request);
}

void inter_allreduce(const rmpl_mpi_comm& co, MPI_Comm c, const void* sendbuf, void* recvbuf,
                     MPI_Count n, MPI_Datatype type, MPI_Op o, MPI_Request* request) {
  not_in_place_inter(sendbuf, "send buffer");
  not_in_place_inter(recvbuf, "receive buffer");
  reduction_plan p = reduction_args(sendbuf, recvbuf, n, type, o);
  buffer(recvbuf, n, *type, "receive buffer");
  staging_handle s(request);
  bytes_in in = reduce_input(*s, p, sendbuf, n, *type);
  bytes_out out = reduce_output(*s, p, recvbuf, n, *type, false);
  finish(c, inter::iallreduce(co, in, out, p.kernel), s, request);
}

/// Reduce-scatter (recvcounts of the local group's ranks, `block` >= 0 for the block form): the
/// remote group's vectors reduced, scattered over this group.
void inter_reduce_scatter(const rmpl_mpi_comm& co, MPI_Comm c, const void* sendbuf, void* recvbuf,
                          int_array recvcounts, MPI_Count block, MPI_Datatype type, MPI_Op o,
                          MPI_Request* request) {
  not_in_place_inter(sendbuf, "send buffer");
  not_in_place_inter(recvbuf, "receive buffer");
  const rmpl_mpi_datatype& t = datatype(type);
  const int size = local_size(co);
  std::vector<MPI_Count> shares(static_cast<std::size_t>(size), block);
  if (block < 0) {
    if (recvcounts == nullptr) fail(MPI_ERR_ARG, "the receive counts array is null");
    for (std::size_t r = 0; r < shares.size(); ++r) shares[r] = recvcounts[r];
  } else {
    count(block, "receive count");
  }
  const MPI_Count total = counts_total(shares.data(), size);
  reduction_plan p = reduction_args(sendbuf, recvbuf, total, type, o);
  const MPI_Count mine = shares[static_cast<std::size_t>(co.rank())];
  buffer(recvbuf, mine, t, "receive buffer");
  std::vector<std::size_t> bytes(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    bytes[static_cast<std::size_t>(r)] = kernel_bytes(p, t, shares[static_cast<std::size_t>(r)]);
  }
  staging_handle s(request);
  bytes_in in = reduce_input(*s, p, sendbuf, total, t);
  bytes_out out = reduce_output(*s, p, recvbuf, mine, t, false);
  finish(c, inter::ireduce_scatter(co, in, out, bytes, p.kernel), s, request);
}

/// Gather (`varying` false: `rcount` each) and gatherv (`rcounts`, `displs`) to a root of the
/// other group. `varying` says which, since the counts are significant at the root only.
void inter_gather(const rmpl_mpi_comm& co, MPI_Comm c, bool varying, const void* sendbuf,
                  MPI_Count scount, MPI_Datatype stype, void* recvbuf, MPI_Count rcount,
                  int_array rcounts, int_array displs, MPI_Datatype rtype, int root,
                  MPI_Request* request) {
  check_inter_root(co, root);
  staging_handle s(request);
  bytes_in in;
  region out;
  if (root == MPI_ROOT) {
    not_in_place_inter(recvbuf, "receive buffer");
    out = inter_blocks(*s, varying, recvbuf, rcount, rcounts, displs, rtype, co.size(),
                       direction::receive);
  } else if (root != MPI_PROC_NULL) {
    not_in_place_inter(sendbuf, "send buffer");
    in = send_bytes(*s, sendbuf, scount, typed(sendbuf, scount, stype, "send"));
  }
  finish(c,
         varying ? inter::igatherv(co, in, out.data, out.counts, out.displs, root)
                 : inter::igather(co, in, out.data, root),
         s, request);
}

/// Scatter and scatterv from a root of the other group, as inter_gather.
void inter_scatter(const rmpl_mpi_comm& co, MPI_Comm c, bool varying, const void* sendbuf,
                   MPI_Count scount, int_array scounts, int_array displs, MPI_Datatype stype,
                   void* recvbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                   MPI_Request* request) {
  check_inter_root(co, root);
  staging_handle s(request);
  region in;
  bytes_out out;
  if (root == MPI_ROOT) {
    not_in_place_inter(sendbuf, "send buffer");
    in = inter_blocks(*s, varying, sendbuf, scount, scounts, displs, stype, co.size(),
                      direction::send);
  } else if (root != MPI_PROC_NULL) {
    not_in_place_inter(recvbuf, "receive buffer");
    out = recv_bytes(*s, recvbuf, rcount, typed(recvbuf, rcount, rtype, "receive"));
  }
  finish(c,
         varying ? inter::iscatterv(co, in.data, in.counts, in.displs, out, root)
                 : inter::iscatter(co, in.data, out, root),
         s, request);
}

/// Allgather and allgatherv: every block comes from the remote group.
void inter_allgather(const rmpl_mpi_comm& co, MPI_Comm c, bool varying, const void* sendbuf,
                     MPI_Count scount, MPI_Datatype stype, void* recvbuf, MPI_Count rcount,
                     int_array rcounts, int_array displs, MPI_Datatype rtype,
                     MPI_Request* request) {
  not_in_place_inter(sendbuf, "send buffer");
  not_in_place_inter(recvbuf, "receive buffer");
  const rmpl_mpi_datatype& st = typed(sendbuf, scount, stype, "send");
  staging_handle s(request);
  // A v-form's blocks are staged, so that they lie packed: the whole range is broadcast within the
  // group, which must not write between the program's blocks.
  const region out = inter_blocks(*s, varying, recvbuf, rcount, rcounts, displs, rtype, co.size(),
                                  direction::receive, /*stage_varying=*/true);
  bytes_in in = send_bytes(*s, sendbuf, scount, st);
  finish(c,
         varying ? inter::iallgatherv(co, in, out.data, out.counts)
                 : inter::iallgather(co, in, out.data),
         s, request);
}

/// The all-to-alls, once their blocks are regions: block r goes to and comes from remote rank r.
void inter_alltoall(MPI_Comm c, const rmpl_mpi_comm& co, const region& in, const region& out,
                    staging_handle& s, MPI_Request* request) {
  finish(c, inter::ialltoallv(co, in.data, in.counts, in.displs, out.data, out.counts, out.displs),
         s, request);
}

// ---- the collectives, each for its blocking (request null) and nonblocking form ----
// (For the blocking calls of the fast path, these are the general path: out of line, so that the
// fast path's frame holds nothing of them.)

[[gnu::noinline]] void barrier(MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  staging_handle s(request);
  finish(c, co.inter ? inter::ibarrier(co) : detail::ibarrier(*co.impl, how(request)), s, request);
}

[[gnu::noinline]] void bcast(void* buf, MPI_Count n, MPI_Datatype type, int root, MPI_Comm c,
                             MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    not_in_place(buf, "buffer");
    return inter_bcast(co, c, buf, n, type, root, request);
  }
  const joins_if_rejected joined(co, coll::collective::broadcast);
  not_in_place(buf, "buffer");
  const rmpl_mpi_datatype& t = typed(buf, n, type, "");
  check_root(co, root);
  staging_handle s(request);
  bytes_out data;
  if (co.rank() == root) {
    // The root's data is sent, never written: a staged copy needs no unpacking.
    const bytes_in sent = send_bytes(*s, buf, n, t);
    data = {const_cast<std::byte*>(sent.data()), sent.size()};
  } else {
    data = recv_bytes(*s, buf, n, t);
  }
  finish(c, detail::ibroadcast(*co.impl, data, root, how(request)), s, request);
}

[[gnu::noinline]] void reduce(const void* sendbuf, void* recvbuf, MPI_Count n, MPI_Datatype type,
                              MPI_Op o, int root, MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) return inter_reduce(co, c, sendbuf, recvbuf, n, type, o, root, request);
  const joins_if_rejected joined(co, coll::collective::reduce);
  reduction_plan p = reduction_args(sendbuf, recvbuf, n, type, o);
  const rmpl_mpi_datatype& t = *type;
  check_root(co, root);
  const bool at_root = co.rank() == root;
  if (!at_root && sendbuf == MPI_IN_PLACE) {
    fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is the send buffer on rank {}, which is not the root {}",
         co.rank(), root);
  }
  if (at_root) {
    not_in_place(recvbuf, "receive buffer");
    buffer(recvbuf, n, t, "receive buffer");
  }
  staging_handle s(request);
  bytes_in in;
  bytes_out out;
  if (at_root && sendbuf == MPI_IN_PLACE) {
    out = reduce_output(*s, p, recvbuf, n, t, true);
    in = out;
  } else {
    in = reduce_input(*s, p, sendbuf, n, t);
    if (at_root) out = reduce_output(*s, p, recvbuf, n, t, false);
  }
  finish(c, detail::ireduce(*co.impl, in, out, p.kernel, root, how(request)), s, request);
}

enum class all_kind { allreduce, scan, exscan };

[[gnu::noinline]] void all_reduction(all_kind kind, const void* sendbuf, void* recvbuf, MPI_Count n,
                                     MPI_Datatype type, MPI_Op o, MPI_Comm c,
                                     MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    if (kind != all_kind::allreduce) {
      fail(MPI_ERR_COMM, "{} is not defined on intercommunicators (MPI-3.1 5.11)",
           kind == all_kind::scan ? "MPI_Scan" : "MPI_Exscan");
    }
    return inter_allreduce(co, c, sendbuf, recvbuf, n, type, o, request);
  }
  const joins_if_rejected joined(co, kind == all_kind::allreduce ? coll::collective::allreduce
                                     : kind == all_kind::scan    ? coll::collective::scan
                                                                 : coll::collective::exscan);
  reduction_plan p = reduction_args(sendbuf, recvbuf, n, type, o);
  const rmpl_mpi_datatype& t = *type;
  not_in_place(recvbuf, "receive buffer");
  // Exscan leaves rank 0's receive buffer alone (MPI leaves it undefined).
  const bool writes = !(kind == all_kind::exscan && co.rank() == 0);
  if (writes) buffer(recvbuf, n, t, "receive buffer");
  staging_handle s(request);
  bytes_in in;
  bytes_out out;
  if (sendbuf == MPI_IN_PLACE) {
    if (writes) {
      out = reduce_output(*s, p, recvbuf, n, t, true);
      in = out;
    } else {
      in = reduce_input(*s, p, recvbuf, n, t);
    }
  } else {
    in = reduce_input(*s, p, sendbuf, n, t);
    if (writes) out = reduce_output(*s, p, recvbuf, n, t, false);
  }
  detail::request_id id = detail::null_request;
  switch (kind) {
    case all_kind::allreduce:
      id = detail::iallreduce(*co.impl, in, out, p.kernel, how(request));
      break;
    case all_kind::scan:
      id = detail::iscan(*co.impl, in, out, p.kernel, how(request));
      break;
    case all_kind::exscan:
      id = detail::iexscan(*co.impl, in, out, p.kernel, how(request));
      break;
  }
  finish(c, id, s, request);
}

void reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count n, MPI_Datatype type,
                          MPI_Op o, MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_reduce_scatter(co, c, sendbuf, recvbuf, nullptr, n, type, o, request);
  }
  const joins_if_rejected joined(co, coll::collective::reduce_scatter_block);
  const rmpl_mpi_datatype& t = datatype(type);
  count(n, "receive count");
  MPI_Count total = 0;
  if (__builtin_mul_overflow(n, static_cast<MPI_Count>(co.size()), &total)) {
    fail(MPI_ERR_COUNT, "receive count {} times {} ranks overflows an MPI_Count", n, co.size());
  }
  reduction_plan p = reduction_args(sendbuf, recvbuf, total, type, o);
  not_in_place(recvbuf, "receive buffer");
  buffer(recvbuf, sendbuf == MPI_IN_PLACE ? total : n, t, "receive buffer");
  staging_handle s(request);
  // The kernel writes each rank's block while it still reads the others: an in-place input is
  // copied first.
  bytes_in in = sendbuf == MPI_IN_PLACE ? reduce_input(*s, p, recvbuf, total, t, true)
                                        : reduce_input(*s, p, sendbuf, total, t);
  bytes_out out = reduce_output(*s, p, recvbuf, n, t, false);
  finish(c, detail::ireduce_scatter_block(*co.impl, in, out, p.kernel, how(request)), s, request);
}

void reduce_scatter(const void* sendbuf, void* recvbuf, int_array recvcounts, MPI_Datatype type,
                    MPI_Op o, MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_reduce_scatter(co, c, sendbuf, recvbuf, recvcounts, -1, type, o, request);
  }
  const joins_if_rejected joined(co, coll::collective::reduce_scatter);
  const rmpl_mpi_datatype& t = datatype(type);
  const int size = co.size();
  if (recvcounts == nullptr) fail(MPI_ERR_ARG, "the receive counts array is null");
  const MPI_Count total = counts_total(recvcounts, size);
  reduction_plan p = reduction_args(sendbuf, recvbuf, total, type, o);
  not_in_place(recvbuf, "receive buffer");
  const MPI_Count mine = recvcounts[co.rank()];
  buffer(recvbuf, sendbuf == MPI_IN_PLACE ? total : mine, t, "receive buffer");
  std::vector<std::size_t> bytes(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    bytes[static_cast<std::size_t>(r)] = kernel_bytes(p, t, recvcounts[r]);
  }
  staging_handle s(request);
  bytes_in in = sendbuf == MPI_IN_PLACE ? reduce_input(*s, p, recvbuf, total, t, true)
                                        : reduce_input(*s, p, sendbuf, total, t);
  bytes_out out = reduce_output(*s, p, recvbuf, mine, t, false);
  finish(c, detail::ireduce_scatter(*co.impl, in, out, bytes, p.kernel, how(request)), s, request);
}

void gather(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
            MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_gather(co, c, false, sendbuf, scount, stype, recvbuf, rcount, nullptr, nullptr,
                        rtype, root, request);
  }
  const joins_if_rejected joined(co, coll::collective::gather);
  check_root(co, root);
  const bool at_root = co.rank() == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !at_root) {
    fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is the send buffer on rank {}, which is not the root {}",
         co.rank(), root);
  }
  const rmpl_mpi_datatype* st = in_place ? nullptr : &typed(sendbuf, scount, stype, "send");
  staging_handle s(request);
  region out;
  if (at_root) {
    not_in_place(recvbuf, "receive buffer");
    const rmpl_mpi_datatype& rt = typed(recvbuf, rcount, rtype, "receive");
    if (!in_place) same_size(data_bytes(*st, scount), data_bytes(rt, rcount), "the root");
    out = uniform_blocks(*s, recvbuf, rcount, rt, co.size(), direction::receive, false,
                         in_place ? root : -1);
  }
  bytes_in in = in_place ? bytes_in(out.block(root)) : send_bytes(*s, sendbuf, scount, *st);
  finish(c, detail::igather(*co.impl, in, out.data, root, how(request)), s, request);
}

void gatherv(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
             int_array rcounts, int_array displs, MPI_Datatype rtype, int root, MPI_Comm c,
             MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_gather(co, c, true, sendbuf, scount, stype, recvbuf, 0, rcounts, displs, rtype,
                        root, request);
  }
  const joins_if_rejected joined(co, coll::collective::gatherv);
  check_root(co, root);
  const bool at_root = co.rank() == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !at_root) {
    fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is the send buffer on rank {}, which is not the root {}",
         co.rank(), root);
  }
  const rmpl_mpi_datatype* st = in_place ? nullptr : &typed(sendbuf, scount, stype, "send");
  staging_handle s(request);
  region out;
  if (at_root) {
    not_in_place(recvbuf, "receive buffer");
    const rmpl_mpi_datatype& rt = datatype(rtype);
    check_counts(rcounts, displs, co.size(), "receive");
    if (!in_place) same_size(data_bytes(*st, scount), data_bytes(rt, rcounts[root]), "the root");
    out = varying_blocks(*s, recvbuf, rcounts, displs, rt, co.size(), direction::receive, false,
                         in_place ? root : -1);
  }
  bytes_in in = in_place ? bytes_in(out.block(root)) : send_bytes(*s, sendbuf, scount, *st);
  finish(c, detail::igatherv(*co.impl, in, out.data, out.counts, out.displs, root, how(request)), s,
         request);
}

void scatter(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
             MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_scatter(co, c, false, sendbuf, scount, nullptr, nullptr, stype, recvbuf, rcount,
                         rtype, root, request);
  }
  const joins_if_rejected joined(co, coll::collective::scatter);
  check_root(co, root);
  const bool at_root = co.rank() == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !at_root) {
    fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is the receive buffer on rank {}, which is not the root {}",
         co.rank(), root);
  }
  const rmpl_mpi_datatype* rt = in_place ? nullptr : &typed(recvbuf, rcount, rtype, "receive");
  staging_handle s(request);
  region in;
  bytes_out out;
  if (at_root) {
    not_in_place(sendbuf, "send buffer");
    const rmpl_mpi_datatype& st = typed(sendbuf, scount, stype, "send");
    if (!in_place) same_size(data_bytes(st, scount), data_bytes(*rt, rcount), "the root");
    in = uniform_blocks(*s, sendbuf, scount, st, co.size(), direction::send);
    // In place, the root's own block stays where it is: the kernel writes it to a scratch copy.
    if (in_place) out = {s->make(in.counts[0]), in.counts[0]};
  }
  if (!in_place) out = recv_bytes(*s, recvbuf, rcount, *rt);
  finish(c, detail::iscatter(*co.impl, in.data, out, root, how(request)), s, request);
}

void scatterv(const void* sendbuf, int_array scounts, int_array displs, MPI_Datatype stype,
              void* recvbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm c,
              MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_scatter(co, c, true, sendbuf, 0, scounts, displs, stype, recvbuf, rcount, rtype,
                         root, request);
  }
  const joins_if_rejected joined(co, coll::collective::scatterv);
  check_root(co, root);
  const bool at_root = co.rank() == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !at_root) {
    fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is the receive buffer on rank {}, which is not the root {}",
         co.rank(), root);
  }
  const rmpl_mpi_datatype* rt = in_place ? nullptr : &typed(recvbuf, rcount, rtype, "receive");
  staging_handle s(request);
  region in;
  bytes_out out;
  if (at_root) {
    not_in_place(sendbuf, "send buffer");
    const rmpl_mpi_datatype& st = datatype(stype);
    check_counts(scounts, displs, co.size(), "send");
    if (!in_place) same_size(data_bytes(st, scounts[root]), data_bytes(*rt, rcount), "the root");
    in = varying_blocks(*s, sendbuf, scounts, displs, st, co.size(), direction::send);
    if (in_place) {
      const std::size_t own = in.counts[static_cast<std::size_t>(root)];
      out = {s->make(own), own};
    }
  }
  if (!in_place) out = recv_bytes(*s, recvbuf, rcount, *rt);
  finish(c, detail::iscatterv(*co.impl, in.data, in.counts, in.displs, out, root, how(request)), s,
         request);
}

[[gnu::noinline]] void allgather(const void* sendbuf, MPI_Count scount, MPI_Datatype stype,
                                 void* recvbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm c,
                                 MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_allgather(co, c, false, sendbuf, scount, stype, recvbuf, rcount, nullptr, nullptr,
                           rtype, request);
  }
  const joins_if_rejected joined(co, coll::collective::allgather);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  not_in_place(recvbuf, "receive buffer");
  const rmpl_mpi_datatype* st = in_place ? nullptr : &typed(sendbuf, scount, stype, "send");
  const rmpl_mpi_datatype& rt = typed(recvbuf, rcount, rtype, "receive");
  if (!in_place) same_size(data_bytes(*st, scount), data_bytes(rt, rcount), "this rank");
  staging_handle s(request);
  region out = uniform_blocks(*s, recvbuf, rcount, rt, co.size(), direction::receive, false,
                              in_place ? co.rank() : -1);
  bytes_in in = in_place ? bytes_in(out.block(co.rank())) : send_bytes(*s, sendbuf, scount, *st);
  finish(c, detail::iallgather(*co.impl, in, out.data, how(request)), s, request);
}

void allgatherv(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
                int_array rcounts, int_array displs, MPI_Datatype rtype, MPI_Comm c,
                MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) {
    return inter_allgather(co, c, true, sendbuf, scount, stype, recvbuf, 0, rcounts, displs, rtype,
                           request);
  }
  const joins_if_rejected joined(co, coll::collective::allgatherv);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  not_in_place(recvbuf, "receive buffer");
  const rmpl_mpi_datatype* st = in_place ? nullptr : &typed(sendbuf, scount, stype, "send");
  const rmpl_mpi_datatype& rt = datatype(rtype);
  check_counts(rcounts, displs, co.size(), "receive");
  if (!in_place) {
    same_size(data_bytes(*st, scount), data_bytes(rt, rcounts[co.rank()]), "this rank");
  }
  staging_handle s(request);
  region out = varying_blocks(*s, recvbuf, rcounts, displs, rt, co.size(), direction::receive,
                              false, in_place ? co.rank() : -1);
  bytes_in in = in_place ? bytes_in(out.block(co.rank())) : send_bytes(*s, sendbuf, scount, *st);
  finish(c, detail::iallgatherv(*co.impl, in, out.data, out.counts, out.displs, how(request)), s,
         request);
}

[[gnu::noinline]] void alltoall(const void* sendbuf, MPI_Count scount, MPI_Datatype stype,
                                void* recvbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm c,
                                MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) not_in_place_inter(sendbuf, "send buffer");
  std::optional<joins_if_rejected> joined;
  if (!co.inter) joined.emplace(co, coll::collective::alltoall);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  not_in_place(recvbuf, "receive buffer");
  const rmpl_mpi_datatype* st = in_place ? nullptr : &typed(sendbuf, scount, stype, "send");
  const rmpl_mpi_datatype& rt = typed(recvbuf, rcount, rtype, "receive");
  if (!in_place && !co.inter) {
    same_size(data_bytes(*st, scount), data_bytes(rt, rcount), "this rank");
  }
  staging_handle s(request);
  // In place, the input is copied out first: the kernel receives into blocks it still sends.
  region in = in_place ? uniform_blocks(*s, recvbuf, rcount, rt, co.size(), direction::send, true)
                       : uniform_blocks(*s, sendbuf, scount, *st, co.size(), direction::send);
  region out = uniform_blocks(*s, recvbuf, rcount, rt, co.size(), direction::receive);
  if (co.inter) return inter_alltoall(c, co, in, out, s, request);
  finish(c, detail::ialltoall(*co.impl, in.data, out.data, how(request)), s, request);
}

void alltoallv(const void* sendbuf, int_array scounts, int_array sdispls, MPI_Datatype stype,
               void* recvbuf, int_array rcounts, int_array rdispls, MPI_Datatype rtype, MPI_Comm c,
               MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) not_in_place_inter(sendbuf, "send buffer");
  // (alltoallw runs the kernel's alltoallv)
  std::optional<joins_if_rejected> joined;
  if (!co.inter) joined.emplace(co, coll::collective::alltoallv);
  const int size = co.size(), me = co.rank();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  not_in_place(recvbuf, "receive buffer");
  const rmpl_mpi_datatype& rt = datatype(rtype);
  check_counts(rcounts, rdispls, size, "receive");
  const rmpl_mpi_datatype* st = nullptr;
  if (!in_place) {
    st = &datatype(stype);
    check_counts(scounts, sdispls, size, "send");
    if (!co.inter) {
      same_size(data_bytes(*st, scounts[me]), data_bytes(rt, rcounts[me]), "this rank");
    }
  }
  staging_handle s(request);
  region in = in_place
                  ? varying_blocks(*s, recvbuf, rcounts, rdispls, rt, size, direction::send, true)
                  : varying_blocks(*s, sendbuf, scounts, sdispls, *st, size, direction::send);
  region out = varying_blocks(*s, recvbuf, rcounts, rdispls, rt, size, direction::receive);
  if (co.inter) return inter_alltoall(c, co, in, out, s, request);
  finish(c,
         detail::ialltoallv(*co.impl, in.data, in.counts, in.displs, out.data, out.counts,
                            out.displs, how(request)),
         s, request);
}

void alltoallw(const void* sendbuf, int_array scounts, int_array sdispls,
               const MPI_Datatype* stypes, void* recvbuf, int_array rcounts, int_array rdispls,
               const MPI_Datatype* rtypes, MPI_Comm c, MPI_Request* request) {
  const rmpl_mpi_comm& co = collective_comm(c);
  if (co.inter) not_in_place_inter(sendbuf, "send buffer");
  // (alltoallw runs the kernel's alltoallv)
  std::optional<joins_if_rejected> joined;
  if (!co.inter) joined.emplace(co, coll::collective::alltoallv);
  const int size = co.size(), me = co.rank();
  const auto n = static_cast<std::size_t>(size);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  not_in_place(recvbuf, "receive buffer");
  check_counts(rcounts, rdispls, size, "receive");
  if (size > 0 && rtypes == nullptr) fail(MPI_ERR_ARG, "the receive datatypes array is null");
  std::vector<const rmpl_mpi_datatype*> rt(n), st(n);
  for (std::size_t r = 0; r < n; ++r) rt[r] = &datatype(rtypes[r]);
  if (!in_place) {
    check_counts(scounts, sdispls, size, "send");
    if (size > 0 && stypes == nullptr) fail(MPI_ERR_ARG, "the send datatypes array is null");
    for (std::size_t r = 0; r < n; ++r) st[r] = &datatype(stypes[r]);
    const auto i = static_cast<std::size_t>(me);
    if (!co.inter) {
      same_size(data_bytes(*st[i], scounts[me]), data_bytes(*rt[i], rcounts[me]), "this rank");
    }
  }
  staging_handle s(request);
  std::vector<MPI_Count> rc(n);
  std::vector<MPI_Aint> rd(n);
  for (std::size_t r = 0; r < n; ++r) {
    rc[r] = rcounts[r];
    rd[r] = static_cast<MPI_Aint>(rdispls[r]);
  }
  region in;
  if (in_place) {
    in = blocks_of(*s, recvbuf, rc, rd, rt, true, direction::send, true);
  } else {
    std::vector<MPI_Count> sc(n);
    std::vector<MPI_Aint> sd(n);
    for (std::size_t r = 0; r < n; ++r) {
      sc[r] = scounts[r];
      sd[r] = static_cast<MPI_Aint>(sdispls[r]);
    }
    in = blocks_of(*s, sendbuf, sc, sd, st, true, direction::send);
  }
  region out = blocks_of(*s, recvbuf, rc, rd, rt, true, direction::receive);
  if (co.inter) return inter_alltoall(c, co, in, out, s, request);
  finish(c,
         detail::ialltoallv(*co.impl, in.data, in.counts, in.displs, out.data, out.counts,
                            out.displs, how(request)),
         s, request);
}

// ---- neighbourhood collectives (MPI-3.1 7.6) ----
//
// The topology gives the lists of sources and destinations (topology.hpp); the typed buffers
// become one byte block per neighbour, as the v-collectives' do (blocks_of), and the kernel's
// neighbour exchange moves them. A missing neighbour (MPI_PROC_NULL, past the edge of a
// non-periodic grid) gets a block of no bytes: its part of the receive buffer stays untouched,
// even when the type is staged.

static_assert(MPI_PROC_NULL == rmpl::proc_null, "the kernel skips MPI_PROC_NULL neighbours");

/// What a neighbourhood collective's buffers are, once turned into per-neighbour counts,
/// displacements and types; `byte_displs` as for blocks_of.
struct neighbor_side {
  std::vector<MPI_Count> counts;
  std::vector<MPI_Aint> displs;
  std::vector<const rmpl_mpi_datatype*> types;
  bool byte_displs = false;
};

/// The communicator of a neighbourhood collective and its neighbours (MPI_ERR_TOPOLOGY without).
const rmpl_mpi_comm& neighbor_comm(MPI_Comm c, neighborhood& n) {
  const rmpl_mpi_comm& co = collective_comm(c);
  n = neighborhood_of(co);
  return co;
}

/// `count` elements of `t` for each of `n` neighbours, one block after another.
neighbor_side uniform_side(MPI_Count count, const rmpl_mpi_datatype& t, std::size_t n) {
  neighbor_side side{std::vector<MPI_Count>(n, count), std::vector<MPI_Aint>(n),
                     std::vector<const rmpl_mpi_datatype*>(n, &t), false};
  for (std::size_t i = 0; i < n; ++i) {
    if (__builtin_mul_overflow(static_cast<MPI_Aint>(i), count, &side.displs[i])) {
      fail(MPI_ERR_COUNT, "the block of neighbour {} ({} elements each) is beyond any address", i,
           count);
    }
  }
  return side;
}

/// The v-form's counts and displacements (in `t`'s extent) for `n` neighbours, checked.
neighbor_side varying_side(int_array counts, int_array displs, const rmpl_mpi_datatype& t,
                           std::size_t n, const char* what) {
  check_counts(counts, displs, static_cast<int>(n), what, "neighbour");
  neighbor_side side{std::vector<MPI_Count>(n), std::vector<MPI_Aint>(n),
                     std::vector<const rmpl_mpi_datatype*>(n, &t), false};
  for (std::size_t i = 0; i < n; ++i) {
    side.counts[i] = counts[i];
    side.displs[i] = static_cast<MPI_Aint>(displs[i]);
  }
  return side;
}

/// The w-form's counts, byte displacements and types for `n` neighbours, checked.
neighbor_side typed_side(int_array counts, const MPI_Aint* displs, const MPI_Datatype* types,
                         std::size_t n, const char* what) {
  if (n > 0 && counts == nullptr) fail(MPI_ERR_ARG, "the {} counts array is null", what);
  if (n > 0 && displs == nullptr) fail(MPI_ERR_ARG, "the {} displacements array is null", what);
  if (n > 0 && types == nullptr) fail(MPI_ERR_ARG, "the {} datatypes array is null", what);
  neighbor_side side{std::vector<MPI_Count>(n), std::vector<MPI_Aint>(displs, displs + n),
                     std::vector<const rmpl_mpi_datatype*>(n), true};
  for (std::size_t i = 0; i < n; ++i) {
    side.counts[i] = counts[i];
    if (counts[i] < 0) {
      fail(MPI_ERR_COUNT, "{} count {} (for neighbour {}) is negative", what, counts[i], i);
    }
    side.types[i] = &datatype(types[i]);
  }
  return side;
}

/// Starts (or runs) a neighbourhood collective: send block i of `send` goes where the
/// neighbourhood's sends say (with `one_block`, the single block 0 goes to every destination:
/// allgather), receive block i comes from sources[i].
void neighbor_exchange(MPI_Comm c, const rmpl_mpi_comm& co, const neighborhood& n,
                       const void* sendbuf, neighbor_side send, void* recvbuf, neighbor_side recv,
                       bool one_block, MPI_Request* request) {
  not_in_place(sendbuf, "send buffer");
  not_in_place(recvbuf, "receive buffer");
  const std::size_t in_degree = n.sources.size(), out_degree = n.destinations.size();
  if (recv.counts.size() != in_degree || (!one_block && send.counts.size() != out_degree)) {
    fail(MPI_ERR_INTERN, "the neighbour blocks do not match the topology's degrees");
  }
  // Blocks of missing neighbours carry nothing (and are neither packed nor unpacked).
  for (std::size_t i = 0; i < in_degree; ++i) {
    if (n.sources[i] == MPI_PROC_NULL) recv.counts[i] = 0;
  }
  if (!one_block) {
    for (std::size_t i = 0; i < out_degree; ++i) {
      if (n.destinations[i] == MPI_PROC_NULL) {
        send.counts[static_cast<std::size_t>(n.send_blocks[i])] = 0;
      }
    }
  }
  staging_handle s(request);
  const region in = blocks_of(*s, sendbuf, send.counts, send.displs, send.types, send.byte_displs,
                              direction::send, false, -1, "neighbour");
  const region out = blocks_of(*s, recvbuf, recv.counts, recv.displs, recv.types, recv.byte_displs,
                               direction::receive, false, -1, "neighbour");
  // The sends in the order the topology posts them.
  std::vector<std::size_t> counts(out_degree), displs(out_degree);
  for (std::size_t i = 0; i < out_degree; ++i) {
    const auto b = one_block ? 0 : static_cast<std::size_t>(n.send_blocks[i]);
    if (b < in.counts.size()) {
      counts[i] = in.counts[b];
      displs[i] = in.displs[b];
    }
  }
  finish(c,
         detail::ineighbor_exchange(*co.impl, in.data, n.destinations, counts, displs, out.data,
                                    n.sources, out.counts, out.displs, how(request)),
         s, request);
}

void neighbor_allgather(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
                        MPI_Count rcount, MPI_Datatype rtype, MPI_Comm c, MPI_Request* request) {
  neighborhood n;
  const rmpl_mpi_comm& co = neighbor_comm(c, n);
  const rmpl_mpi_datatype& st = typed(sendbuf, scount, stype, "send");
  const rmpl_mpi_datatype& rt = typed(recvbuf, rcount, rtype, "receive");
  neighbor_exchange(c, co, n, sendbuf, uniform_side(scount, st, 1), recvbuf,
                    uniform_side(rcount, rt, n.sources.size()), true, request);
}

void neighbor_allgatherv(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
                         int_array rcounts, int_array displs, MPI_Datatype rtype, MPI_Comm c,
                         MPI_Request* request) {
  neighborhood n;
  const rmpl_mpi_comm& co = neighbor_comm(c, n);
  const rmpl_mpi_datatype& st = typed(sendbuf, scount, stype, "send");
  const rmpl_mpi_datatype& rt = datatype(rtype);
  neighbor_exchange(c, co, n, sendbuf, uniform_side(scount, st, 1), recvbuf,
                    varying_side(rcounts, displs, rt, n.sources.size(), "receive"), true, request);
}

void neighbor_alltoall(const void* sendbuf, MPI_Count scount, MPI_Datatype stype, void* recvbuf,
                       MPI_Count rcount, MPI_Datatype rtype, MPI_Comm c, MPI_Request* request) {
  neighborhood n;
  const rmpl_mpi_comm& co = neighbor_comm(c, n);
  const rmpl_mpi_datatype& st = typed(sendbuf, scount, stype, "send");
  const rmpl_mpi_datatype& rt = typed(recvbuf, rcount, rtype, "receive");
  neighbor_exchange(c, co, n, sendbuf, uniform_side(scount, st, n.destinations.size()), recvbuf,
                    uniform_side(rcount, rt, n.sources.size()), false, request);
}

void neighbor_alltoallv(const void* sendbuf, int_array scounts, int_array sdispls,
                        MPI_Datatype stype, void* recvbuf, int_array rcounts, int_array rdispls,
                        MPI_Datatype rtype, MPI_Comm c, MPI_Request* request) {
  neighborhood n;
  const rmpl_mpi_comm& co = neighbor_comm(c, n);
  const rmpl_mpi_datatype& st = datatype(stype);
  const rmpl_mpi_datatype& rt = datatype(rtype);
  neighbor_exchange(
      c, co, n, sendbuf, varying_side(scounts, sdispls, st, n.destinations.size(), "send"), recvbuf,
      varying_side(rcounts, rdispls, rt, n.sources.size(), "receive"), false, request);
}

void neighbor_alltoallw(const void* sendbuf, int_array scounts, const MPI_Aint* sdispls,
                        const MPI_Datatype* stypes, void* recvbuf, int_array rcounts,
                        const MPI_Aint* rdispls, const MPI_Datatype* rtypes, MPI_Comm c,
                        MPI_Request* request) {
  neighborhood n;
  const rmpl_mpi_comm& co = neighbor_comm(c, n);
  neighbor_exchange(
      c, co, n, sendbuf, typed_side(scounts, sdispls, stypes, n.destinations.size(), "send"),
      recvbuf, typed_side(rcounts, rdispls, rtypes, n.sources.size(), "receive"), false, request);
}

// ---- the blocking collectives' fast path (see the top of the file) ----

/// The kernel's view of `c` when `c` is a live intracommunicator; null otherwise.
inline const detail::comm_impl* fast_intra(MPI_Comm c) noexcept {
  if (fast_live_object(c, magic::comm) && !c->inter) [[likely]] {
    return c->impl.get();
  }
  return nullptr;
}

/// Whether `root` is a rank of `k`.
inline bool rank_of(const detail::comm_impl& k, int root) noexcept {
  return static_cast<unsigned>(root) < static_cast<unsigned>(k.kernel.size);
}

/// Whether `type` is a live plain datatype: its elements are the kernel's bytes as they lie.
inline bool plain_type(MPI_Datatype type) noexcept {
  return fast_live_object(type, magic::datatype) && type->plain;
}

/// The test of "plain enough" each fast path makes of a buffer of a plain type: `n` elements at
/// `buf` (not MPI_IN_PLACE, and null only with no elements). Then `data` is set to those bytes.
/// A larger count than an int's (MPI_X_c) takes the general path, whose data_bytes() checks the
/// product.
template <class Count>
inline bool plain_bytes(const void* buf, Count n, const rmpl_mpi_datatype& type,
                        bytes_out& data) noexcept {
  if constexpr (large_count<Count>) {
    if (n > INT32_MAX) return false;
  }
  if (buf == MPI_IN_PLACE || n < 0 || (buf == nullptr && n != 0)) return false;
  // `plain` bounds the size: with n < 2^31 the product cannot overflow.
  data = {static_cast<std::byte*>(const_cast<void*>(data_start(buf, type))),
          static_cast<std::size_t>(n) * static_cast<std::size_t>(type.size)};
  return true;
}

/// plain_bytes() of a buffer whose type is yet to be tested.
template <class Count>
inline bool plain_data(const void* buf, Count n, MPI_Datatype type, bytes_out& data) noexcept {
  return plain_type(type) && plain_bytes(buf, n, *type, data);
}

/// `block`'s bytes for each of the `k.kernel.size` ranks, one block after another from where
/// `block` begins (a plain buffer's blocks), when their total is a size the layer allows.
inline bool all_blocks(const detail::comm_impl& k, bytes_out block, bytes_out& data) noexcept {
  std::size_t total = 0;
  if (__builtin_mul_overflow(block.size(), static_cast<std::size_t>(k.kernel.size), &total) ||
      total > std::numeric_limits<std::size_t>::max() / 2) {
    return false;
  }
  data = {block.data(), total};
  return true;
}

bool barrier_fast(MPI_Comm c) {
  const detail::comm_impl* k = fast_intra(c);
  if (k == nullptr) return false;
  detail::ibarrier(*k, detail::run::to_end);
  return true;
}

template <class Count>
bool bcast_fast(void* buf, Count n, MPI_Datatype type, int root, MPI_Comm c) {
  const detail::comm_impl* k = fast_intra(c);
  bytes_out data;
  if (k == nullptr || !rank_of(*k, root) || !plain_data(buf, n, type, data)) return false;
  detail::ibroadcast(*k, data, root, detail::run::to_end);
  return true;
}

template <class Count>
bool reduce_fast(const void* sendbuf, void* recvbuf, Count n, MPI_Datatype type, MPI_Op o, int root,
                 MPI_Comm c) {
  const detail::comm_impl* k = fast_intra(c);
  if (k == nullptr || !rank_of(*k, root) || !plain_type(type)) return false;
  bytes_out in;
  bytes_out out;  // the root's only
  if (k->kernel.rank == root) {
    if (!plain_bytes(recvbuf, n, *type, out)) return false;
    if (sendbuf == MPI_IN_PLACE) {
      in = out;
    } else if (!plain_bytes(sendbuf, n, *type, in)) {
      return false;
    }
  } else if (!plain_bytes(sendbuf, n, *type, in)) {
    return false;
  }
  detail::reduction r;
  if (!direct_reduction(o, *type, r)) return false;
  detail::ireduce(*k, in, out, r, root, detail::run::to_end);
  return true;
}

template <class Count>
bool allreduce_fast(const void* sendbuf, void* recvbuf, Count n, MPI_Datatype type, MPI_Op o,
                    MPI_Comm c) {
  const detail::comm_impl* k = fast_intra(c);
  bytes_out in;
  bytes_out out;
  if (k == nullptr || !plain_type(type) || !plain_bytes(recvbuf, n, *type, out)) return false;
  if (sendbuf == MPI_IN_PLACE) {
    in = out;
  } else if (!plain_bytes(sendbuf, n, *type, in)) {
    return false;
  }
  detail::reduction r;
  if (!direct_reduction(o, *type, r)) return false;
  detail::iallreduce(*k, in, out, r, detail::run::to_end);
  return true;
}

/// MPI_Allgather (`all_to_all` false) and MPI_Alltoall (true), not in place: both buffers plain,
/// and one rank's blocks the same size (the general path reports a mismatch).
template <class Count>
bool exchange_fast(bool all_to_all, const void* sendbuf, Count scount, MPI_Datatype stype,
                   void* recvbuf, Count rcount, MPI_Datatype rtype, MPI_Comm c) {
  const detail::comm_impl* k = fast_intra(c);
  bytes_out sent;
  bytes_out block;
  bytes_out out;
  if (k == nullptr || !plain_data(sendbuf, scount, stype, sent) ||
      !plain_data(recvbuf, rcount, rtype, block) || sent.size() != block.size() ||
      !all_blocks(*k, block, out)) {
    return false;
  }
  if (all_to_all) {
    bytes_out in;
    if (!all_blocks(*k, sent, in)) return false;
    detail::ialltoall(*k, in, out, detail::run::to_end);
  } else {
    detail::iallgather(*k, sent, out, detail::run::to_end);
  }
  return true;
}

/// The general path of a blocking collective whose fast path declined: `general(args...)`, out of
/// line and on the binding's own arguments. Widening an int count to MPI_Count inside the fast
/// path's frame cost MPI_Reduce, MPI_Allgather and MPI_Alltoall 5 to 7 instructions a call
/// (callgrind, bench/mpi/coll_calls.c), though the fast path never makes the call.
template <auto general, class... Args>
[[gnu::noinline]] void in_full(Args... args) {
  general(args...);
}
/// The request argument of a blocking call of the general path.
constexpr MPI_Request* no_request = nullptr;

// ---------------------------------------------------------------- persistent collectives

/// A datatype argument of a persistent collective: a live derived type is replaced by the
/// request's own copy (keep_type), which the program may free meanwhile; any other handle is
/// passed on as it is (MPI_Start's checks see it then, as the nonblocking call's would).
class kept_type {
 public:
  explicit kept_type(MPI_Datatype t)
      : copy_(live_object(t, magic::datatype) ? keep_type(*t) : nullptr),
        handle_(copy_ ? copy_.get() : t) {}
  MPI_Datatype get() const noexcept { return handle_; }

 private:
  std::shared_ptr<rmpl_mpi_datatype> copy_;
  MPI_Datatype handle_;
};

/// A persistent collective (MPI_Bcast_init...): every MPI_Start runs `start(&started)`, the
/// nonblocking form with the arguments given here, and the persistent request takes over what it
/// made (kernel request, staging, completion). Collectives start in the order of the MPI_Start
/// calls, which every rank must make in the same order, as it would call the nonblocking form.
template <class Start>
MPI_Request collective_init(MPI_Comm c, MPI_Info info, Start start) {
  comm(c);
  optional_info(info);
  return persistent_request(c, request_kind::collective, [start](rmpl_mpi_request& self) {
    MPI_Request started = MPI_REQUEST_NULL;
    start(&started);
    return take_over(self, started);
  });
}

/// An argument of a persistent collective as MPI_Start passes it on: a datatype kept (kept_type),
/// anything else as it was given (buffers and arrays must stay: MPI-4.1 6.13).
template <class T>
T keep(T value) {
  return value;
}
inline kept_type keep(MPI_Datatype t) {
  return kept_type(t);
}
template <class T>
T given(T value) {
  return value;
}
inline MPI_Datatype given(const kept_type& t) {
  return t.get();
}

/// MPI_X_init: a persistent request whose every MPI_Start runs `start(args..., &started)`, the
/// general path of MPI_IX, on the arguments given here (their datatypes kept).
template <auto start, class... Args>
int start_later(MPI_Comm c, MPI_Info info, MPI_Request* request, Args... args) {
  std::tuple kept{keep(args)...};
  check_request(request);
  *request = collective_init(c, info, [kept](MPI_Request* started) {
    std::apply([started](const auto&... k) { start(given(k)..., started); }, kept);
  });
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Barrier(MPI_Comm comm) {
  if (!barrier_fast(comm)) barrier(comm, nullptr);
  return MPI_SUCCESS;
}
template <class Count>
int Bcast(void* buffer, Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (!bcast_fast(buffer, count, datatype, root, comm)) {
    in_full<bcast>(buffer, count, datatype, root, comm, no_request);
  }
  return MPI_SUCCESS;
}
template <class Count>
int Reduce(const void* sendbuf, void* recvbuf, Count count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm) {
  if (!reduce_fast(sendbuf, recvbuf, count, datatype, op, root, comm)) {
    in_full<reduce>(sendbuf, recvbuf, count, datatype, op, root, comm, no_request);
  }
  return MPI_SUCCESS;
}
template <class Count>
int Allreduce(const void* sendbuf, void* recvbuf, Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
  if (!allreduce_fast(sendbuf, recvbuf, count, datatype, op, comm)) {
    in_full<all_reduction>(all_kind::allreduce, sendbuf, recvbuf, count, datatype, op, comm,
                           no_request);
  }
  return MPI_SUCCESS;
}
template <class Count>
int Reduce_local(const void* inbuf, void* inoutbuf, Count count, MPI_Datatype datatype, MPI_Op op) {
  not_in_place(inbuf, "input buffer");
  not_in_place(inoutbuf, "input/output buffer");
  reduction_plan p = reduction_args(inbuf, inoutbuf, count, datatype, op);
  const rmpl_mpi_datatype& t = *datatype;
  buffer(inoutbuf, count, t, "input/output buffer");
  staging s;
  bytes_in in = reduce_input(s, p, inbuf, count, t);
  bytes_out inout = reduce_output(s, p, inoutbuf, count, t, true);
  if (!in.empty())
    rmpl::coll::combine(p.kernel, in.data(), inout.data(), in.size() / p.kernel.element);
  s.finish();
  return MPI_SUCCESS;
}

template <class Count>
int Allgather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!exchange_fast(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)) {
    in_full<allgather>(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       no_request);
  }
  return MPI_SUCCESS;
}
template <class Count>
int Alltoall(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!exchange_fast(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)) {
    in_full<alltoall>(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, no_request);
  }
  return MPI_SUCCESS;
}
// The other collectives, their nonblocking and persistent forms are the spec's
// (bindings/functions.spec, "collective(helper)"): each binding calls its general path above with
// no request, the caller's, or MPI_Start's (start_later).

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/collectives.inc"  // the MPI_ and PMPI_ functions (generated)
