// The compiled half of the C++ API (include/rmpl/rmpl.hpp): byte-level calls into the kernel.
#include <time.h>

#include <memory>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"
#include "coll/select.hpp"
#include "coll/stall.hpp"
#include "coll/task.hpp"
#include "core/threads.hpp"
#include "rmpl/rmpl.hpp"

namespace rmpl {
namespace api {
namespace {

/// The engine, if live. A process that exits while it is (exit() without finalize: a failed check,
/// a program's own error path) leaves it alone: destroying it would wait at finalize's job-wide
/// barrier for ranks that may never come, and hang the job instead of ending the rank. It stays
/// reachable from `abandoned`, so leak checkers do not report it (and change the exit status).
// Volatile: never read, so the compiler would otherwise drop the store, and LeakSanitizer then
// reported the engine of every rank that exits without finalizing (and changed its exit status).
core::engine* volatile abandoned = nullptr;
struct engine_holder {
  std::unique_ptr<core::engine> engine;
  ~engine_holder() {
    live_engine = nullptr;
    abandoned = engine.release();
  }
};
engine_holder holder;
std::unique_ptr<core::engine>& the_engine = holder.engine;
std::shared_ptr<detail::comm_impl> the_world;
int users = 0;
// Whether acquire_multiple set the thread level (the last release then clears it with the engine;
// a level MPI set is MPI_Finalize's to clear).
bool threads_started = false;

/// The live request `id` names, for `operation`. Ids carry the table entry's generation, so a
/// stale copy of a completed request's id (or a forged one) is reported, never followed.
core::request* request_of(core::engine& e, detail::request_id id, const char* operation) {
  core::request* r = e.lookup(id);
  if (r == nullptr) {
    base::fail(errc::request_invalid,
               "{} on rank {}: request {:#x} is not a live request (never started, already "
               "completed or freed)",
               operation, e.rank(), id);
  }
  return r;
}

}  // namespace

core::engine* live_engine = nullptr;

void not_initialized() {
  base::fail(errc::not_initialized,
             "rmpl is not initialized: create an rmpl::session (C: call rmpl_init) first");
}
void acquire() {
  if (users++ == 0) {
    try {
      the_engine = std::make_unique<core::engine>();
      live_engine = the_engine.get();
      the_engine->set_stall_hook(&coll::wait_stalled);
      core::communicator world;
      world.rank = the_engine->rank();
      world.size = the_engine->size();
      // Slot 0 is the world's, used only if the world is on one host (coll uses the node's areas
      // on node-local communicators only).
      std::vector<int> everyone(static_cast<std::size_t>(world.size));
      for (int r = 0; r < world.size; ++r) everyone[static_cast<std::size_t>(r)] = r;
      world.area = the_engine->all_on_my_host(everyone) ? 0 : -1;
      the_world = std::make_shared<detail::comm_impl>(std::move(world));
      detail::add_hierarchy(*the_world);  // only when the world spans hosts
      // The engine has read and checked its variables; those the collectives read lazily are
      // checked now too, so that a bad one stops the start rather than a later collective.
      coll::check_environment();
    } catch (...) {
      live_engine = nullptr;
      the_engine.reset();
      users = 0;
      throw;
    }
  }
}
void acquire_multiple() {
  acquire();
  if (!core::threads::active()) {
    core::threads::start(core::threads::level::multiple);
    threads_started = true;
  }
  // No spin of the blocking receive on one ring: under the lock it would keep the others out.
  if (core::threads::locking.load()) kernel().no_fast_spin();
}
void release() noexcept {
  if (users > 0 && --users == 0) {
    the_world.reset();
    live_engine = nullptr;
    the_engine.reset();
    if (threads_started) {
      core::threads::stop();
      threads_started = false;
    }
  }
}
void finalize_if_last() {
  if (users == 1 && the_engine) the_engine->finalize();
}
detail::comm_ptr world() {
  kernel();  // throws when not initialized
  return the_world;
}
bool initialized() noexcept {
  return the_engine != nullptr;
}
on_error world_error_policy() noexcept {
  return the_world ? the_world->policy : on_error::throw_error;
}

namespace {
[[noreturn]] void not_a_rank(const detail::comm_impl& c, int peer, std::string_view operation) {
  base::fail(errc::invalid_rank,
             "{} on rank {}: rank {}{} is not a rank of the communicator (size {})", operation,
             c.kernel.rank, peer, peer == any_source ? " (any_source)" : "", c.kernel.size);
}
}  // namespace

int world_dest(const detail::comm_impl& c, int dest, std::string_view operation) {
  // any_source is a receive's wildcard; a send names a real rank, so here it fails the range
  // check like any negative rank (one compare fewer than world_peer's, on the send path).
  const core::communicator& k = c.kernel;
  if (dest == proc_null) return dest;
  if (dest < 0 || dest >= k.size) not_a_rank(c, dest, operation);
  return k.to_world(dest);
}

int world_peer(const detail::comm_impl& c, int peer, std::string_view operation) {
  const core::communicator& k = c.kernel;
  if (peer == proc_null || peer == any_source) return peer;
  if (peer < 0 || peer >= k.size) not_a_rank(c, peer, operation);
  return k.to_world(peer);
}

}  // namespace api

namespace detail {

namespace {
/// A status from the kernel (job ranks) as seen on communicator `c`.
status local(const comm_impl& c, status s) {
  if (s.source >= 0) s.source = c.kernel.from_world(s.source);
  return s;
}
}  // namespace

// Each X_now is the call itself; X takes the library lock around it under MULTIPLE
// (api::locked).
static void send_now(const comm_impl& c, const void* data, std::size_t bytes, int dest, int tag,
                     send_mode mode) {
  api::kernel().send(c.kernel.context, data, bytes, api::world_dest(c, dest, "send"), tag, mode);
}
void send(const comm_impl& c, const void* data, std::size_t bytes, int dest, int tag,
          send_mode mode) {
  return api::locked<send_now>(c, data, bytes, dest, tag, mode);
}
static status recv_now(const comm_impl& c, void* data, std::size_t capacity, int source, int tag) {
  return local(c, api::kernel().recv(c.kernel.context, data, capacity,
                                     api::world_peer(c, source, "recv"), tag));
}
status recv(const comm_impl& c, void* data, std::size_t capacity, int source, int tag) {
  return api::locked<recv_now>(c, data, capacity, source, tag);
}
static request_id isend_now(const comm_impl& c, const void* data, std::size_t bytes, int dest,
                            int tag, send_mode mode) {
  return api::kernel()
      .start_send(c.kernel.context, data, bytes, api::world_dest(c, dest, "isend"), tag, mode)
      ->id();
}
request_id isend(const comm_impl& c, const void* data, std::size_t bytes, int dest, int tag,
                 send_mode mode) {
  return api::locked<isend_now>(c, data, bytes, dest, tag, mode);
}
static request_id irecv_now(const comm_impl& c, void* data, std::size_t capacity, int source,
                            int tag) {
  core::request* r = api::kernel().start_recv(c.kernel.context, data, capacity,
                                              api::world_peer(c, source, "irecv"), tag);
  r->source_ranks = c.kernel.local;
  return r->id();
}
request_id irecv(const comm_impl& c, void* data, std::size_t capacity, int source, int tag) {
  return api::locked<irecv_now>(c, data, capacity, source, tag);
}
static status sendrecv_now(const comm_impl& c, const void* sdata, std::size_t sbytes, int dest,
                           int stag, void* rdata, std::size_t capacity, int source, int rtag) {
  core::engine& e = api::kernel();
  const int wdest = api::world_dest(c, dest, "sendrecv");
  core::request* r =
      e.start_recv(c.kernel.context, rdata, capacity, api::world_peer(c, source, "sendrecv"), rtag);
  try {
    e.send(c.kernel.context, sdata, sbytes, wdest, stag, send_mode::standard);
  } catch (...) {
    e.cancel(r);
    if (r->done()) e.free_request(r);
    throw;
  }
  e.wait(r);
  return local(c, e.finish(r));
}
status sendrecv(const comm_impl& c, const void* sdata, std::size_t sbytes, int dest, int stag,
                void* rdata, std::size_t capacity, int source, int rtag) {
  return api::locked<sendrecv_now>(c, sdata, sbytes, dest, stag, rdata, capacity, source, rtag);
}
static status probe_now(const comm_impl& c, int source, int tag) {
  return local(c, api::kernel().probe(c.kernel.context, api::world_peer(c, source, "probe"), tag));
}
status probe(const comm_impl& c, int source, int tag) {
  return api::locked<probe_now>(c, source, tag);
}
static bool iprobe_now(const comm_impl& c, int source, int tag, status* out) {
  if (!api::kernel().iprobe(c.kernel.context, api::world_peer(c, source, "iprobe"), tag, out)) {
    return false;
  }
  *out = local(c, *out);
  return true;
}
bool iprobe(const comm_impl& c, int source, int tag, status* out) {
  return api::locked<iprobe_now>(c, source, tag, out);
}
static status wait_now(request_id& id) {
  core::engine& e = api::kernel();
  core::request* r = api::request_of(e, id, "wait");
  e.wait(r);
  id = null_request;
  return e.finish(r);
}
status wait(request_id& id) {
  return api::locked<wait_now>(id);
}
static bool test_now(request_id& id, status* out) {
  core::engine& e = api::kernel();
  core::request* r = api::request_of(e, id, "test");
  if (!e.test(r)) return false;
  id = null_request;
  *out = e.finish(r);
  return true;
}
bool test(request_id& id, status* out) {
  return api::locked<test_now>(id, out);
}
static bool done_now(request_id id) {
  if (id == null_request) return true;
  core::engine& e = api::kernel();
  return api::request_of(e, id, "done")->done();
}
bool done(request_id id) {
  return api::locked<done_now>(id);
}
static void cancel_now(request_id id) {
  core::engine& e = api::kernel();
  e.cancel(api::request_of(e, id, "cancel"));
}
void cancel(request_id id) {
  return api::locked<cancel_now>(id);
}
static void release_now(request_id& id) noexcept {
  core::engine& e = api::kernel();
  core::request* r = e.lookup(id);
  id = null_request;
  if (r == nullptr) return;
  if (!r->done()) {
    // After a rank died, this is how a wait that threw errc::dead_rank unwinds: the engine has
    // halted (it never touches a pending request's buffers again), so the request is left behind.
    if (e.halted()) return;
    base::fatal("rmpl: a request was destroyed while still pending (" + e.describe(*r) +
                "): wait for it, test it to completion or cancel it first");
  }
  e.free_request(r);
}
void release(request_id& id) noexcept {
  if (id == null_request || !api::initialized()) return;
  return api::locked<release_now>(id);
}
void empty_request(const char* operation) {
  base::fail(errc::request_invalid,
             "{} on rank {}: the request is empty (default-constructed, moved from, or already "
             "waited or tested to completion)",
             operation, world_rank());
}
void apply_error_policy(const comm_impl* c, const error& e) noexcept {
  const on_error policy = c != nullptr ? c->policy : api::world_error_policy();
  if (policy == on_error::abort) base::end_job(e, world_rank());
}
void set_error_policy(const comm_impl& c, on_error policy) {
  core::threads::guard locked;
  if (policy != on_error::throw_error && policy != on_error::abort) {
    base::fail(errc::invalid_argument, "set_error_policy on rank {}: {} is not an rmpl::on_error",
               c.kernel.rank, static_cast<int>(policy));
  }
  c.policy = policy;
}
on_error error_policy(const comm_impl& c) {
  core::threads::guard locked;
  return c.policy;
}
int world_rank() noexcept {
  return api::initialized() ? api::kernel().rank() : 0;
}
int world_size() noexcept {
  return api::initialized() ? api::kernel().size() : 1;
}

}  // namespace detail

// ---------------------------------------------------------------- wait families

void wait_all(std::span<request> requests) {
  // Each wait applies the world's error policy itself.
  std::exception_ptr first;
  for (request& r : requests) {
    if (!r.active()) continue;
    try {
      r.wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

std::optional<std::pair<std::size_t, status>> test_any(std::span<request> requests) {
  core::threads::guard locked;
  core::engine& e = api::kernel();
  e.progress();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].active()) continue;
    if (auto s = requests[i].test()) return std::pair{i, *s};
  }
  return std::nullopt;
}

std::pair<std::size_t, status> wait_any(std::span<request> requests) {
  core::threads::guard locked;
  bool any_active = false;
  for (request& r : requests) any_active |= r.active();
  if (!any_active) return {requests.size(), status{}};
  std::optional<std::pair<std::size_t, status>> done;
  api::kernel().wait_until([&] {
    if (!done) done = test_any(requests);
    return done.has_value();
  });
  return *done;
}

bool test_all(std::span<request> requests, std::vector<status>* statuses) {
  core::threads::guard locked;
  core::engine& e = api::kernel();
  e.progress();
  for (request& r : requests) {
    if (!r.done()) return false;
  }
  if (statuses) statuses->assign(requests.size(), status{});
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].active()) continue;
    auto s = requests[i].test();
    if (statuses && s) (*statuses)[i] = *s;
  }
  return true;
}

std::vector<std::pair<std::size_t, status>> wait_some(std::span<request> requests) {
  core::threads::guard locked;
  std::vector<std::pair<std::size_t, status>> indices;
  bool any_active = false;
  for (request& r : requests) any_active |= r.active();
  if (!any_active) return indices;
  api::kernel().wait_until([&] {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (!requests[i].active()) continue;
      if (auto s = requests[i].test()) indices.emplace_back(i, *s);
    }
    return !indices.empty();
  });
  return indices;
}

// ---------------------------------------------------------------- session

session::session() {
  core::threads::guard locked;
  api::acquire();
}
session::session(threads level) {
  core::threads::guard locked;
  if (level != threads::serialized && level != threads::multiple) {
    base::fail(errc::invalid_argument, "rmpl::session: {} is not an rmpl::threads",
               static_cast<int>(level));
  }
  if (level == threads::multiple) {
    api::acquire_multiple();
  } else {
    api::acquire();
  }
}
threads session::thread_level() noexcept {
  return core::threads::locking.load(std::memory_order_relaxed) ? threads::multiple
                                                                : threads::serialized;
}
session::~session() {
  core::threads::guard locked;
  api::release();
}

double session::wtime() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void session::attach_buffer(std::size_t bytes) {
  core::threads::guard locked;
  api::kernel().attach_buffer(bytes);
}

}  // namespace rmpl
