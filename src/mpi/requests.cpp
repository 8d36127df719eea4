// Requests (MPI-3.1 3.7-3.9): completion (Wait/Test and their any/all/some families), cancellation,
// freeing, and persistent requests. An MPI_Request wraps one kernel request; waiting on several is
// one kernel wait_until whose predicate looks at all of them, so any-source progress is the
// kernel's own.
//
// Generalized requests (MPI-3.1 12.2) have no kernel request: their completion is a flag that
// MPI_Grequest_complete sets (from any thread: an atomic, then a ring of this rank's doorbell, so a
// wait asleep on it looks again at once), and the program's callbacks run where the standard says:
// query_fn and then free_fn in the Wait/Test that completes the request, query_fn in
// MPI_Request_get_status, cancel_fn in MPI_Cancel, free_fn in MPI_Request_free or, when the request
// is freed before it completes, in MPI_Grequest_complete.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "api/runtime.hpp"
#include "mpi/call.hpp"
#include "mpi/environment.hpp"
#include "mpi/pool.hpp"
#include "mpi/requests.hpp"

namespace rmpl::mpi {
namespace {

/// The requests' pool: pool<> (pool.hpp) with a reset in place, not by assignment of a fresh
/// object (two std::function members make that cost more than the rest of an MPI_Isend), since a
/// request is made and recycled at every nonblocking operation. It grows by blocks of requests
/// (doubling up to max_block), so that a program posting many operations at once makes a heap
/// allocation per block, not per request; and the free list's room grows geometrically with them.
/// (Reserving the free list to its exact new size at every new request once made each post
/// allocate and free a block as large as all the requests so far: quadratic in the requests
/// outstanding, the time going to brk and page faults; tests/mpi/posting_allocations_test.)
class request_pool {
 public:
  request_pool() = default;
  request_pool(const request_pool&) = delete;
  request_pool& operator=(const request_pool&) = delete;
  ~request_pool() {
    for (auto [block, n] : blocks_) std::destroy_n(block, n);
  }

  rmpl_mpi_request* make() {
    if (free_.empty()) grow();
    rmpl_mpi_request* r = free_.back();
    free_.pop_back();
    r->tag = magic::request;  // a new block's requests and recycle()'s are fresh, marked dead
    return r;
  }
  /// Resets `r` (releasing what it holds), marks it dead and keeps it for reuse.
  void recycle(rmpl_mpi_request* r) noexcept {
    std::destroy_at(r);
    std::construct_at(r);
    r->tag = magic::dead;
    free_.push_back(r);  // cannot throw: grow() made room for every request
  }

 private:
  static constexpr std::size_t first_block = 16, max_block = 4096;

  void grow() {
    const std::size_t n = std::clamp(made_, first_block, max_block);
    // Room first, so that nothing is left to undo if it throws; the block is never returned
    // (arena memory, handles.hpp).
    if (blocks_.size() == blocks_.capacity()) blocks_.reserve(2 * blocks_.size() + 1);
    if (free_.capacity() < made_ + n) free_.reserve(std::max(made_ + n, 2 * free_.capacity()));
    auto* block = static_cast<rmpl_mpi_request*>(
        arena_allocate(n * sizeof(rmpl_mpi_request), alignof(rmpl_mpi_request)));
    std::uninitialized_value_construct_n(block, n);
    blocks_.push_back({block, n});
    made_ += n;
    // Handed out lowest address first.
    for (std::size_t i = n; i-- > 0;) {
      block[i].tag = magic::dead;
      free_.push_back(&block[i]);
    }
  }

  std::vector<std::pair<rmpl_mpi_request*, std::size_t>> blocks_;  ///< in the arena
  std::vector<rmpl_mpi_request*> free_;
  std::size_t made_ = 0;  ///< requests in blocks_
};

request_pool& requests() {
  static request_pool p;
  return p;
}

/// Kernel requests whose MPI_Request was freed while they were pending (MPI_Request_free): they
/// complete on their own and are released by the next sweep.
std::vector<detail::request_id>& orphans() {
  static std::vector<detail::request_id> ids;
  return ids;
}

/// Generalized requests freed (MPI_Request_free) before they completed: kept, since the program
/// still completes them through its copy of the handle, until MPI_Grequest_complete has run their
/// free_fn.
std::vector<rmpl_mpi_request*>& freed_grequests() {
  static std::vector<rmpl_mpi_request*> rs;
  return rs;
}

void sweep_grequests() {
  std::erase_if(freed_grequests(), [](rmpl_mpi_request* r) {
    if (!(r->generalized->state.load(std::memory_order_acquire) & grequest::released)) {
      return false;
    }
    requests().recycle(r);
    return true;
  });
}

void sweep_orphans() {
  auto& ids = orphans();
  std::erase_if(ids, [](detail::request_id& id) {
    if (!detail::done(id)) return false;
    try {
      detail::wait(id);  // completed: frees it (a failure has nobody left to report to)
    } catch (const rmpl::error&) {
    }
    return true;
  });
}

/// The status MPI reports for a null or inactive request (MPI_ERROR left alone: call.hpp).
void empty_status(MPI_Status* out) noexcept {
  store_status(MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0}, out);
}

/// empty_status() for the entry of a multiple-completion call, which sets MPI_ERROR too: a null or
/// inactive request has not failed.
void empty_status_of_many(MPI_Status* out) noexcept {
  empty_status(out);
  if (out != MPI_STATUS_IGNORE) out->MPI_ERROR = MPI_SUCCESS;
}

/// A live request handle (null allowed when `null_ok`).
rmpl_mpi_request* live(MPI_Request r, const char* what = "request") {
  if (r == MPI_REQUEST_NULL) return nullptr;
  if (!owned(r)) {
    fail(MPI_ERR_REQUEST, "{} {} is no object of the library", what, static_cast<const void*>(r));
  }
  if (r->tag == magic::dead) fail(MPI_ERR_REQUEST, "the {} was already freed or completed", what);
  if (r->tag != magic::request) {
    fail(MPI_ERR_REQUEST, "{} is not a request", static_cast<const void*>(r));
  }
  return r;
}

/// Whether the operation of `r` has completed (inactive persistent requests count as complete).
/// `kernel`, if given, receives its kernel request (null when it has none).
bool complete(const rmpl_mpi_request& r, core::request** kernel = nullptr) {
  if (r.persistent && !r.active) return true;
  if (r.id == detail::null_request) {
    if (r.generalized) [[unlikely]] {
      return (r.generalized->state.load(std::memory_order_acquire) & grequest::completed) != 0;
    }
    return true;
  }
  if (core::request* k = api::kernel().lookup(r.id)) [[likely]] {
    if (kernel) *kernel = k;
    return k->done();
  }
  return detail::done(r.id);  // reports the stale id
}

/// The result of the completed kernel request `id` (`k`, when the caller has looked it up
/// already), which the kernel frees; `id` becomes null. What detail::wait() does, with one lookup.
rmpl::status finish(detail::request_id& id, core::request* k) {
  core::engine& e = api::kernel();
  if (k == nullptr) k = e.lookup(id);
  if (k == nullptr) [[unlikely]] {
    return detail::wait(id);  // reports the stale id
  }
  e.wait(k);  // complete: returns at once (once the control cells this rank owes are out)
  id = detail::null_request;
  return e.finish(k);
}

/// Throws the error code a generalized request's callback returned (MPI-3.1 12.2: it becomes the
/// result of the MPI call that invoked the callback).
void callback_result(int code, const char* callback) {
  if (code != MPI_SUCCESS) {
    throw error(code,
                fmt::format("the generalized request's {} returned error code {}", callback, code));
  }
}

/// The status of completed generalized request `r`, as its query_fn fills it (query_fn gets a
/// status to fill even when the program ignores it).
int query(const rmpl_mpi_request& r, MPI_Status& s) {
  s = MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  const grequest& g = *r.generalized;
  return g.query ? g.query(g.extra_state, &s) : MPI_SUCCESS;
}

/// take() for a completed generalized request: query_fn fills the status, then free_fn runs and
/// the request is freed. The first callback error is the result.
int take_generalized(MPI_Request* slot, MPI_Status* out, bool many) {
  rmpl_mpi_request& r = **slot;
  MPI_Status s{};
  int code = query(r, s);
  const grequest& g = *r.generalized;
  const int freed = g.free ? g.free(g.extra_state) : MPI_SUCCESS;
  const char* failed = code != MPI_SUCCESS ? "query_fn" : "free_fn";
  if (code == MPI_SUCCESS) code = freed;
  s.MPI_ERROR = code;
  if (many) {
    if (out != MPI_STATUS_IGNORE) *out = s;
  } else {
    store_status(s, out);
  }
  requests().recycle(&r);
  *slot = MPI_REQUEST_NULL;
  callback_result(code, failed);
  return MPI_SUCCESS;
}

/// Takes the result of completed request `*slot`: fills `out`, frees a non-persistent request (the
/// handle becomes MPI_REQUEST_NULL) or makes a persistent one inactive. Returns the error class of
/// the operation; with `many` (a multiple-completion call) the status's MPI_ERROR is set to it too,
/// else left alone (call.hpp). `k`: its kernel request, if the caller has looked it up.
int take(MPI_Request* slot, MPI_Status* out, core::request* k = nullptr, bool many = false) {
  rmpl_mpi_request& r = **slot;
  MPI_Status s = r.immediate;
  int code = MPI_SUCCESS;
  std::string message;
  if (r.persistent && !r.active) {
    if (many) {
      empty_status_of_many(out);
    } else {
      empty_status(out);
    }
    return MPI_SUCCESS;
  }
  if (r.generalized) [[unlikely]] {
    return take_generalized(slot, out, many);
  }
  if (r.id != detail::null_request) {
    try {
      const rmpl::status result = finish(r.id, k);
      to_mpi(result, &s);
      if (r.on_complete && !result.cancelled) r.on_complete(s);
    } catch (const rmpl::error& e) {
      r.id = detail::null_request;
      code = class_of(e.code());
      message = e.what();
    } catch (const error& e) {
      code = e.error_class();
      message = e.what();
    }
  }
  if (many) {
    s.MPI_ERROR = code;
    if (out != MPI_STATUS_IGNORE) *out = s;
  } else {
    store_status(s, out);
  }
  if (r.persistent) {
    r.active = false;
    r.on_complete = nullptr;
    r.staging.reset();
  } else {
    requests().recycle(&r);
    *slot = MPI_REQUEST_NULL;
  }
  if (code != MPI_SUCCESS) throw error(code, message);
  return code;
}

/// Waits until `ready()` holds, driving the kernel (which sleeps when nothing moves).
template <class Ready>
void wait_for(Ready&& ready) {
  api::kernel().wait_until(std::forward<Ready>(ready));
}

int active_count(int n, MPI_Request* rs) {
  int active = 0;
  for (int i = 0; i < n; ++i) {
    rmpl_mpi_request* r = live(rs[i]);
    if (r && !(r->persistent && !r->active)) ++active;
  }
  return active;
}

/// Completes every listed request that has completed, filling statuses[i] (unless ignored) and
/// indices; MPI_ERR_IN_STATUS when any failed (each status then holds its own class).
int take_completed(int n, MPI_Request* rs, MPI_Status* statuses, bool compact, int* outcount,
                   int* indices) {
  int taken = 0;
  bool failed = false;
  for (int i = 0; i < n; ++i) {
    rmpl_mpi_request* r = live(rs[i]);
    core::request* k = nullptr;
    if (!r || (r->persistent && !r->active) || !complete(*r, &k)) continue;
    MPI_Status* st =
        statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[compact ? taken : i];
    try {
      take(&rs[i], st, k, true);
    } catch (const error&) {
      failed = true;
    }
    if (indices) indices[taken] = i;
    ++taken;
  }
  if (outcount) *outcount = taken;
  if (failed) fail(MPI_ERR_IN_STATUS, "a completed request failed: see its status's MPI_ERROR");
  return taken;
}

void check_array(int n, const MPI_Request* rs) {
  count(n, "count of requests");
  if (n > 0 && rs == nullptr) fail(MPI_ERR_ARG, "the request array is null with a count of {}", n);
}

MPI_Comm comm_of(MPI_Request r) noexcept {
  return live_object(r, magic::request) ? r->comm : nullptr;
}
/// The communicator whose error handler reports a failure of a call on the request at `r`.
MPI_Comm comm_at(const MPI_Request* r) noexcept {
  return r ? comm_of(*r) : nullptr;
}
/// ... of a call on the `n` requests of `rs`: the first one's.
MPI_Comm first_comm(int n, const MPI_Request* rs) noexcept {
  return n > 0 && rs ? comm_of(rs[0]) : nullptr;
}

}  // namespace

MPI_Request make_request(MPI_Comm c, request_kind kind, detail::request_id id) {
  if (!orphans().empty()) sweep_orphans();
  rmpl_mpi_request* r = requests().make();
  r->kind = kind;
  r->id = id;
  r->comm = c;
  return r;
}

MPI_Request make_request(MPI_Comm c, request_kind kind, detail::request_id id,
                         std::function<void(MPI_Status&)> on_complete) {
  MPI_Request r = make_request(c, kind, id);
  r->on_complete = std::move(on_complete);
  return r;
}

MPI_Request completed_request(MPI_Comm c, request_kind kind, const MPI_Status& s) {
  rmpl_mpi_request* r = requests().make();
  r->kind = kind;
  r->comm = c;
  r->immediate = s;
  return r;
}

/// A derived datatype's own copy for a persistent request (null for a predefined one): the
/// program may free the type while the request lives (MPI-3.1 4.1.9), and every MPI_Start must
/// still find it. The copy is self-contained (a type's layout never refers to another type) and
/// has no attributes, whose callbacks belong to the program's handle. It lives in the arena
/// (handles.hpp), as every object the layer passes as a handle does: MPI_Start hands it to the
/// checks of a send or receive. The pool is never destroyed: a request still alive at exit
/// releases its copy when the requests' pool goes, whenever that is.
std::shared_ptr<rmpl_mpi_datatype> keep_type(const rmpl_mpi_datatype& t) {
  if (t.predefined) return nullptr;
  static pool<rmpl_mpi_datatype>& copies = *new pool<rmpl_mpi_datatype>;
  rmpl_mpi_datatype* copy = copies.make();
  std::shared_ptr<rmpl_mpi_datatype> kept(copy, [](rmpl_mpi_datatype* d) { copies.recycle(d); });
  *copy = t;
  copy->attributes.clear();
  return kept;
}

detail::request_id take_over(rmpl_mpi_request& self, MPI_Request started) {
  const detail::request_id id = started->id;
  self.on_complete = std::move(started->on_complete);
  self.staging = std::move(started->staging);
  self.immediate = started->immediate;
  started->id = detail::null_request;  // now `self`'s
  PMPI_Request_free(&started);
  return id;
}

rmpl_mpi_request* live_request(MPI_Request r) {
  return live(r);
}
MPI_Comm request_comm(MPI_Request r) noexcept {
  return comm_of(r);
}

MPI_Request persistent_request(MPI_Comm c, request_kind kind,
                               std::function<detail::request_id(rmpl_mpi_request&)> start) {
  rmpl_mpi_request* r = requests().make();
  r->kind = kind;
  r->comm = c;
  r->persistent = true;
  r->active = false;
  r->start = std::move(start);
  return r;
}

void finalize_requests() {
  sweep_grequests();
  for (detail::request_id& id : orphans()) {
    try {
      detail::wait(id);
    } catch (const rmpl::error&) {
    }
  }
  orphans().clear();
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;
namespace api = rmpl::api;
namespace core = rmpl::core;
namespace detail = rmpl::detail;

namespace rmpl::mpi::impl {
namespace {

int Wait(MPI_Request* request, MPI_Status* status) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  rmpl_mpi_request* r = live(*request);
  if (r == nullptr) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (r->id != detail::null_request) {
    // Active: wait on its kernel request (looked up once).
    core::engine& e = api::kernel();
    if (core::request* k = e.lookup(r->id)) [[likely]] {
      e.wait(k);
      return take(request, status, k);
    }
  }
  if (!complete(*r)) wait_for([&] { return complete(*r); });
  return take(request, status);
}

int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  rmpl_mpi_request* r = live(*request);
  if (r == nullptr) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!complete(*r)) api::kernel().progress();
  *flag = complete(*r);
  if (!*flag) {
    api::kernel().throw_if_halted();
    return MPI_SUCCESS;
  }
  return take(request, status);
}

namespace {
/// Whether the operation of `request` has completed, without consuming it (a null or inactive
/// request counts as complete); `active` (if given) says whether it was neither.
bool completed(MPI_Request request, bool* active = nullptr) {
  const rmpl_mpi_request* r = live(request);
  const bool is_active = r != nullptr && !(r->persistent && !r->active);
  if (active) *active = is_active;
  return !is_active || complete(*r);
}

/// The status of completed request `request` (into `status` unless ignored), without consuming
/// it: what MPI_Request_get_status and its MPI-4.1 array forms report. A generalized request's
/// query_fn runs even for an ignored status (MPI-3.1 12.2).
void peek(MPI_Request request, MPI_Status* status) {
  rmpl_mpi_request* r = live(request);
  if (r == nullptr || (r->persistent && !r->active)) {
    empty_status(status);
    return;
  }
  if (r->generalized) {
    MPI_Status s{};
    const int code = query(*r, s);
    store_status(s, status);
    callback_result(code, "query_fn");
    return;
  }
  if (status == MPI_STATUS_IGNORE) return;
  store_status(r->immediate, status);
  if (r->id != detail::null_request) {
    const rmpl::core::request* k = api::kernel().lookup(r->id);
    if (k) {
      rmpl::status result = k->result;
      if (k->source_ranks && result.source >= 0) {
        result.source = (*k->source_ranks)[static_cast<std::size_t>(result.source)];
      }
      to_mpi(result, status);
    }
  }
}

/// One progress pass unless every request of `rs` has completed.
void progress_for(int n, const MPI_Request rs[]) {
  for (int i = 0; i < n; ++i) {
    if (!completed(rs[i])) {
      api::kernel().progress();
      return;
    }
  }
}
}  // namespace

int Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  live(request);
  if (flag == nullptr) fail(MPI_ERR_ARG, "the flag pointer is null");
  progress_for(1, &request);
  *flag = completed(request);
  if (*flag) {
    peek(request, status);
  } else {
    api::kernel().throw_if_halted();
  }
  return MPI_SUCCESS;
}

int Request_get_status_all(int n, const MPI_Request rs[], int* flag, MPI_Status statuses[]) {
  check_array(n, rs);
  if (flag == nullptr) fail(MPI_ERR_ARG, "the flag pointer is null");
  for (int i = 0; i < n; ++i) live(rs[i]);
  progress_for(n, rs);
  bool all = true;
  for (int i = 0; i < n && all; ++i) all = completed(rs[i]);
  *flag = all;
  if (!all) {
    api::kernel().throw_if_halted();
    return MPI_SUCCESS;
  }
  for (int i = 0; i < n; ++i) {
    peek(rs[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
  }
  return MPI_SUCCESS;
}

int Request_get_status_any(int n, const MPI_Request rs[], int* index, int* flag,
                           MPI_Status* status) {
  check_array(n, rs);
  if (index == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "the index or flag pointer is null");
  for (int i = 0; i < n; ++i) live(rs[i]);
  progress_for(n, rs);
  bool any_active = false;
  for (int i = 0; i < n; ++i) {
    bool active = false;
    if (completed(rs[i], &active) && active) {
      peek(rs[i], status);
      *index = i;
      *flag = 1;
      return MPI_SUCCESS;
    }
    any_active = any_active || active;
  }
  // No active request: flag set, index MPI_UNDEFINED, an empty status (as MPI_Testany).
  *flag = !any_active;
  *index = MPI_UNDEFINED;
  if (!any_active) {
    empty_status(status);
  } else {
    api::kernel().throw_if_halted();
  }
  return MPI_SUCCESS;
}

int Request_get_status_some(int n, const MPI_Request rs[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  check_array(n, rs);
  if (outcount == nullptr) fail(MPI_ERR_ARG, "the outcount pointer is null");
  for (int i = 0; i < n; ++i) live(rs[i]);
  progress_for(n, rs);
  int done = 0;
  bool any_active = false;
  for (int i = 0; i < n; ++i) {
    bool active = false;
    const bool complete_now = completed(rs[i], &active);
    any_active = any_active || active;
    if (!active || !complete_now) continue;
    if (indices == nullptr) fail(MPI_ERR_ARG, "the indices array is null");
    peek(rs[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[done]);
    indices[done++] = i;
  }
  *outcount = any_active ? done : MPI_UNDEFINED;
  if (any_active && done == 0) api::kernel().throw_if_halted();
  return MPI_SUCCESS;
}

int Waitall(int n, MPI_Request rs[], MPI_Status statuses[]) {
  check_array(n, rs);
  for (int i = 0; i < n; ++i) live(rs[i]);
  // A request stays complete until take_completed() below, so each look resumes at the first
  // one not yet seen complete: looking again from the start made waiting for n receives that
  // complete in order cost O(n) per progress pass, O(n^2) in all (100,000 receives filled by
  // another rank's sends: seconds; bench/mpi/post_irecv.c, end "match").
  int first = 0;
  wait_for([&] {
    for (; first < n; ++first) {
      if (rs[first] != MPI_REQUEST_NULL && !complete(*rs[first])) return false;
    }
    return true;
  });
  if (statuses != MPI_STATUSES_IGNORE) {
    for (int i = 0; i < n; ++i) {
      if (rs[i] == MPI_REQUEST_NULL || (rs[i]->persistent && !rs[i]->active)) {
        empty_status_of_many(&statuses[i]);
      }
    }
  }
  take_completed(n, rs, statuses, false, nullptr, nullptr);
  return MPI_SUCCESS;
}

int Testall(int n, MPI_Request rs[], int* flag, MPI_Status statuses[]) {
  check_array(n, rs);
  bool all = true;
  for (int pass = 0; pass < 2; ++pass) {
    all = true;
    for (int i = 0; i < n; ++i) {
      rmpl_mpi_request* r = live(rs[i]);
      if (r && !complete(*r)) all = false;
    }
    if (all || pass == 1) break;
    api::kernel().progress();
  }
  *flag = all;
  if (!all) {
    api::kernel().throw_if_halted();
    return MPI_SUCCESS;
  }
  if (statuses != MPI_STATUSES_IGNORE) {
    for (int i = 0; i < n; ++i) {
      if (rs[i] == MPI_REQUEST_NULL || (rs[i]->persistent && !rs[i]->active)) {
        empty_status_of_many(&statuses[i]);
      }
    }
  }
  take_completed(n, rs, statuses, false, nullptr, nullptr);
  return MPI_SUCCESS;
}

int Waitany(int n, MPI_Request rs[], int* index, MPI_Status* status) {
  check_array(n, rs);
  if (active_count(n, rs) == 0) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int found = -1;
  auto scan = [&] {
    for (int i = 0; i < n; ++i) {
      rmpl_mpi_request* r = rs[i];
      if (r && !(r->persistent && !r->active) && complete(*r)) {
        found = i;
        return true;
      }
    }
    return false;
  };
  if (!scan()) wait_for(scan);
  *index = found;
  return take(&rs[found], status);
}

int Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* status) {
  check_array(n, rs);
  if (active_count(n, rs) == 0) {
    *flag = 1;
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < n; ++i) {
      rmpl_mpi_request* r = rs[i];
      if (r && !(r->persistent && !r->active) && complete(*r)) {
        *flag = 1;
        *index = i;
        return take(&rs[i], status);
      }
    }
    if (pass == 0) api::kernel().progress();
  }
  api::kernel().throw_if_halted();
  *flag = 0;
  *index = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int Waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status statuses[]) {
  check_array(n, rs);
  if (active_count(n, rs) == 0) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  // Waitsome reports every request that can complete now, as Open MPI and MPICH do and
  // programs expect (MPI-3.1 allows fewer). The wait ends as soon as one request is complete,
  // often with others whose messages are already in this rank's rings but not yet drained (a
  // synchronous send that met a posted receive's notice completes when published, before the
  // receiver has read it): so unless the scan that ended the wait found every active request
  // complete, one progress pass runs before they are collected. (Testsome makes its pass anyway.)
  bool all = true;
  auto any = [&] {
    bool found = false;
    all = true;
    for (int i = 0; i < n; ++i) {
      rmpl_mpi_request* r = rs[i];
      if (!r || (r->persistent && !r->active)) continue;
      if (complete(*r)) {
        found = true;
      } else {
        all = false;
      }
    }
    return found;
  };
  if (!any()) wait_for(any);
  if (!all) api::kernel().progress();
  take_completed(n, rs, statuses, true, outcount, indices);
  return MPI_SUCCESS;
}

int Testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status statuses[]) {
  check_array(n, rs);
  if (active_count(n, rs) == 0) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  api::kernel().progress();
  take_completed(n, rs, statuses, true, outcount, indices);
  if (*outcount == 0) api::kernel().throw_if_halted();
  return MPI_SUCCESS;
}

int Cancel(MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  rmpl_mpi_request* r = live(*request);
  if (r == nullptr) fail(MPI_ERR_REQUEST, "MPI_REQUEST_NULL cannot be cancelled");
  if (r->generalized) {
    const grequest& g = *r->generalized;
    const bool done = g.state.load(std::memory_order_acquire) & grequest::completed;
    if (g.cancel) callback_result(g.cancel(g.extra_state, done ? 1 : 0), "cancel_fn");
    return MPI_SUCCESS;
  }
  // Receives not yet matched are withdrawn; a send, once started, is delivered (MPI allows a
  // cancel to fail; MPI_Test_cancelled then says false).
  if (r->id != detail::null_request) detail::cancel(r->id);
  return MPI_SUCCESS;
}

int Request_free(MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  rmpl_mpi_request* r = live(*request);
  if (r == nullptr) fail(MPI_ERR_REQUEST, "MPI_REQUEST_NULL cannot be freed");
  if (r->generalized) {
    grequest& g = *r->generalized;
    *request = MPI_REQUEST_NULL;
    if (g.state.fetch_or(grequest::freed, std::memory_order_acq_rel) & grequest::completed) {
      const int code = g.free ? g.free(g.extra_state) : MPI_SUCCESS;
      requests().recycle(r);
      callback_result(code, "free_fn");
    } else {
      freed_grequests().push_back(r);  // MPI_Grequest_complete runs free_fn
    }
    return MPI_SUCCESS;
  }
  if (r->id != detail::null_request) {
    if (detail::done(r->id)) {
      try {
        detail::wait(r->id);
      } catch (const rmpl::error&) {
      }
    } else {
      // Completes in the background. Its staging copy (a packed send) must outlive it.
      if (r->staging || r->on_complete) {
        wait_for([&] { return detail::done(r->id); });
        try {
          detail::wait(r->id);
        } catch (const rmpl::error&) {
        }
      } else {
        orphans().push_back(r->id);
      }
    }
    r->id = detail::null_request;
  }
  requests().recycle(r);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                   MPI_Request* request) {
  require_initialized();
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  if (!freed_grequests().empty()) sweep_grequests();
  auto g = std::make_unique<grequest>();
  g->query = query_fn;
  g->free = free_fn;
  g->cancel = cancel_fn;
  g->extra_state = extra_state;
  g->kernel = &api::kernel();
  rmpl_mpi_request* r = requests().make();
  r->kind = request_kind::generalized;
  r->generalized = std::move(g);
  *request = r;
  return MPI_SUCCESS;
}

int Grequest_complete(MPI_Request request) {
  // Any thread may call this while the program's thread waits on the request: nothing here may
  // touch the request after publishing its completion, since that thread may then free it.
  return call_any_thread(comm_of(request), "MPI_Grequest_complete", [&] {
    rmpl_mpi_request* r = live(request);
    if (r == nullptr) fail(MPI_ERR_REQUEST, "MPI_REQUEST_NULL is not a generalized request");
    if (!r->generalized) {
      fail(MPI_ERR_REQUEST,
           "the request is not a generalized request (those come from MPI_Grequest_start)");
    }
    grequest& g = *r->generalized;
    const rmpl::core::engine* kernel = g.kernel;
    const unsigned before = g.state.fetch_or(grequest::completed, std::memory_order_acq_rel);
    if (before & grequest::completed) {
      fail(MPI_ERR_REQUEST, "the generalized request was completed already");
    }
    if (before & grequest::freed) {
      // Freed first: the request is released here (MPI-3.1 12.2), the sweep then reuses it.
      const int code = g.free ? g.free(g.extra_state) : MPI_SUCCESS;
      g.state.fetch_or(grequest::released, std::memory_order_release);
      callback_result(code, "free_fn");
      return MPI_SUCCESS;
    }
    kernel->wake();
    return MPI_SUCCESS;
  });
}

int Start(MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  rmpl_mpi_request* r = live(*request);
  if (r == nullptr || !r->persistent) {
    fail(MPI_ERR_REQUEST, "MPI_Start needs a persistent request (from MPI_Send_init, ...)");
  }
  if (r->active) fail(MPI_ERR_REQUEST, "the persistent request is active already");
  r->immediate = MPI_Status{};
  r->id = r->start(*r);
  r->active = true;
  return MPI_SUCCESS;
}

int Startall(int n, MPI_Request rs[]) {
  check_array(n, rs);
  for (int i = 0; i < n; ++i) {
    const int code = PMPI_Start(&rs[i]);
    if (code != MPI_SUCCESS) return code;
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/requests.inc"  // the MPI_ and PMPI_ functions (generated)
