// The tool information interface (MPI-4.1 chapter 15, MPI_T_*): what rmpl lets a tool see.
//
// Control variables: rmpl's settings, the RMPL_* environment variables the engine reads at MPI_Init
// (and the ones the launcher decides through the shared segment), under their environment names.
// They are fixed for the life of the job (scope MPI_T_SCOPE_CONSTANT: a write is
// MPI_T_ERR_CVAR_SET_NEVER) and readable while MPI runs; before MPI_Init and after MPI_Finalize
// MPI_T_cvar_read says MPI_T_ERR_NOT_ACCESSIBLE.
//
// Performance variables: the levels and the count the engine keeps anyway (unexpected messages,
// buffered-send bytes, nonblocking collectives in flight, receives posted before their message
// came): read-only and continuous, so reading costs the engine nothing it does not already do.
// Sessions and handles are objects of this file, checked against the ones it made.
//
// No events, event sources or enumerations: their counts are 0 and any index is invalid.
//
// Every MPI_T function returns its code (MPI_T_ERR_*) and never calls an error handler; any
// thread may call them at any time (one lock, tool_call below), before MPI_Init and after
// MPI_Finalize, between MPI_T_init_thread and MPI_T_finalize.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "api/runtime.hpp"
#include "core/engine.hpp"
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"

struct rmpl_mpi_t_pvar_handle {
  int index;
};
struct rmpl_mpi_t_pvar_handle rmpl_mpi_t_pvar_all_handles {
  - 1
};

struct rmpl_mpi_t_cvar_handle {
  int index;
};

struct rmpl_mpi_t_pvar_session {
  std::vector<std::unique_ptr<rmpl_mpi_t_pvar_handle>> handles;
};

namespace rmpl::mpi {
namespace {

/// A variable's value: one unsigned long long (every variable here), or nothing while MPI does
/// not run.
using reader = bool (*)(unsigned long long& value);

/// The running engine, or null.
core::engine* running() {
  return api::initialized() ? &api::kernel() : nullptr;
}

template <auto member>
bool tuned(unsigned long long& value) {
  core::engine* e = running();
  if (e == nullptr) return false;
  value = static_cast<unsigned long long>(e->tune().*member);
  return true;
}

/// A performance variable: what engine member function `level` says while MPI runs.
template <auto level>
bool engine_reads(unsigned long long& value) {
  core::engine* e = running();
  if (e == nullptr) return false;
  value = static_cast<unsigned long long>((e->*level)());
  return true;
}

struct variable {
  const char* name;
  const char* description;
  int verbosity;
  reader read;
};

// clang-format off
const variable control_variables[] = {
  {"RMPL_EAGER_MAX", "Largest message sent eagerly, in bytes: larger ones go by rendezvous "
   "(single copy when the kernel allows it).", MPI_T_VERBOSITY_TUNER_BASIC,
   tuned<&core::tuning::eager_max>},
  {"RMPL_INLINE_MAX", "Largest message written inline into a ring cell, in bytes.",
   MPI_T_VERBOSITY_TUNER_DETAIL, tuned<&core::tuning::inline_max>},
  {"RMPL_UNEXPECTED_MAX", "Unexpected messages a rank copies out of its rings before leaving "
   "the rest there.", MPI_T_VERBOSITY_TUNER_DETAIL, tuned<&core::tuning::max_unexpected>},
  {"RMPL_SPIN", "Empty polls before a waiting rank sleeps.", MPI_T_VERBOSITY_TUNER_BASIC,
   tuned<&core::tuning::spin_polls>},
  {"RMPL_YIELD", "1 when a waiting rank gives its core away between empty polls.",
   MPI_T_VERBOSITY_TUNER_BASIC, tuned<&core::tuning::yield_when_idle>},
  {"RMPL_ASSIST_MIN", "Smallest rendezvous that both sides copy, in bytes.",
   MPI_T_VERBOSITY_TUNER_DETAIL, tuned<&core::tuning::assist_min>},
  {"RMPL_ASSIST_CHUNK", "The part of an assisted rendezvous either side claims at a time, in "
   "bytes.", MPI_T_VERBOSITY_TUNER_DETAIL, tuned<&core::tuning::assist_chunk>},
  {"RMPL_SEGMENT_MIN", "Shortest average segment of a non-contiguous rendezvous moved without "
   "packing, in bytes.", MPI_T_VERBOSITY_TUNER_DETAIL,
   [](unsigned long long& value) {
     if (running() == nullptr) return false;
     value = segment_min();
     return true;
   }},
  {"RMPL_SINGLE_COPY", "1 when rendezvous messages move in one copy between the processes "
   "(process_vm_readv), 0 when they go through bounce buffers.", MPI_T_VERBOSITY_USER_BASIC,
   [](unsigned long long& value) {
     core::engine* e = running();
     if (e == nullptr) return false;
     value = e->single_copy() ? 1 : 0;
     return true;
   }},
};

const variable performance_variables[] = {
  {"rmpl_unexpected_messages", "Messages taken out of the rings that wait for their receive "
   "(a level).", MPI_T_VERBOSITY_USER_BASIC, engine_reads<&core::engine::unexpected_messages>},
  {"rmpl_buffered_bytes", "Bytes of buffered sends not delivered yet (a level).",
   MPI_T_VERBOSITY_USER_BASIC, engine_reads<&core::engine::buffered_bytes>},
  {"rmpl_collectives_in_flight", "Nonblocking collectives started and not finished (a level).",
   MPI_T_VERBOSITY_USER_BASIC, engine_reads<&core::engine::collectives_in_flight>},
  {"rmpl_receives_posted", "Receives started before their message had arrived, since MPI_Init "
   "(a counter).", MPI_T_VERBOSITY_USER_BASIC, engine_reads<&core::engine::receives_posted>},
};
// clang-format on
/// Each performance variable's class, in the order above.
const int performance_classes[] = {MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_LEVEL,
                                   MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_COUNTER};
static_assert(std::size(performance_classes) == std::size(performance_variables));

constexpr int n_controls = static_cast<int>(std::size(control_variables));
constexpr int n_performance = static_cast<int>(std::size(performance_variables));

struct category {
  const char* name;
  const char* description;
  bool controls;  ///< holds every control variable (else every performance variable)
};
const category categories[] = {
    {"rmpl_settings", "rmpl's settings: the RMPL_* environment variables read at MPI_Init.", true},
    {"rmpl_progress", "rmpl's queues and counters.", false},
};
constexpr int n_categories = static_cast<int>(std::size(categories));

/// MPI_T_init_thread calls not yet matched by MPI_T_finalize.
int initialized = 0;
std::mutex& lock() {
  static std::mutex m;
  return m;
}
std::vector<std::unique_ptr<rmpl_mpi_t_cvar_handle>>& cvar_handles() {
  static std::vector<std::unique_ptr<rmpl_mpi_t_cvar_handle>> v;
  return v;
}
std::vector<std::unique_ptr<rmpl_mpi_t_pvar_session>>& sessions() {
  static std::vector<std::unique_ptr<rmpl_mpi_t_pvar_session>> v;
  return v;
}

/// Runs an MPI_T function: under the tool lock, after the check that the interface is
/// initialized (unless `any_time`: MPI_T_init_thread); a failure's class is its return code.
template <class Body>
int tool_call(bool any_time, Body&& body) noexcept {
  try {
    std::lock_guard<std::mutex> hold(lock());
    if (!any_time && initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
    return body();
  } catch (const error& e) {
    return e.error_class();
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

/// Copies `text` into a name or description argument as MPI_T does (MPI-4.1 15.3.3): with a
/// null buffer or a length of 0 only the length it needs (with the null) comes back; otherwise
/// at most *length - 1 characters and a null, and *length the characters written plus one.
void copy_string(const char* text, char* out, int* length) {
  if (length == nullptr) return;
  const int needed = static_cast<int>(std::strlen(text)) + 1;
  if (out == nullptr || *length == 0) {
    *length = needed;
    return;
  }
  const int written = std::min(needed, *length);
  std::memcpy(out, text, static_cast<std::size_t>(written - 1));
  out[written - 1] = '\0';
  *length = written;
}

void check_index(int index, int count) {
  if (index < 0 || index >= count) fail(MPI_T_ERR_INVALID_INDEX, "invalid index {}", index);
}

template <class T>
void set(T* out, T value) {
  if (out != nullptr) *out = value;
}

/// The index of the variable named `name` among `table`, or MPI_T_ERR_INVALID_NAME.
template <std::size_t n>
int index_of(const variable (&table)[n], const char* name) {
  if (name == nullptr) fail(MPI_T_ERR_INVALID_NAME, "the name is null");
  for (std::size_t i = 0; i < n; ++i) {
    if (std::string_view(table[i].name) == name) return static_cast<int>(i);
  }
  fail(MPI_T_ERR_INVALID_NAME, "no variable is named {}", name);
}

/// Writes a variable's value to a tool's buffer (an unsigned long long), or
/// MPI_T_ERR_NOT_ACCESSIBLE.
void read_into(const variable& v, void* buf) {
  if (buf == nullptr) fail(MPI_T_ERR_INVALID, "the buffer is null");
  unsigned long long value = 0;
  if (!v.read(value)) fail(MPI_T_ERR_NOT_ACCESSIBLE, "{} is read while MPI runs", v.name);
  std::memcpy(buf, &value, sizeof value);
}

rmpl_mpi_t_cvar_handle& live_cvar(MPI_T_cvar_handle h) {
  for (const auto& mine : cvar_handles()) {
    if (mine.get() == h) return *h;
  }
  fail(MPI_T_ERR_INVALID_HANDLE, "not a control variable handle");
}

rmpl_mpi_t_pvar_session& live_session(MPI_T_pvar_session s) {
  for (const auto& mine : sessions()) {
    if (mine.get() == s) return *s;
  }
  fail(MPI_T_ERR_INVALID_SESSION, "not a performance variable session");
}

/// A handle that `session` allocated.
rmpl_mpi_t_pvar_handle& live_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle h) {
  rmpl_mpi_t_pvar_session& s = live_session(session);
  for (const auto& mine : s.handles) {
    if (mine.get() == h) return *h;
  }
  fail(MPI_T_ERR_INVALID_HANDLE, "not a handle of this session");
}

/// A category's variables' indices into `indices` (at most `len`).
void category_members(int cat_index, int len, int indices[], bool controls) {
  check_index(cat_index, n_categories);
  if (len < 0) fail(MPI_T_ERR_INVALID, "len {} is negative", len);
  if (len > 0 && indices == nullptr) fail(MPI_T_ERR_INVALID, "indices is null");
  const int members =
      categories[cat_index].controls == controls ? (controls ? n_controls : n_performance) : 0;
  for (int i = 0; i < std::min(len, members); ++i) indices[i] = i;
}

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

// ---------------------------------------------------------------- setup

int T_init_thread(int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    fail(MPI_T_ERR_INVALID, "required thread level {} is not one of MPI's", required);
  }
  // Any level: every MPI_T function takes the tool lock.
  set(provided, required);
  ++initialized;
  return MPI_SUCCESS;
}

int T_finalize() {
  if (--initialized == 0) {
    cvar_handles().clear();
    sessions().clear();
  }
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- control variables

int T_cvar_get_num(int* num_cvar) {
  set(num_cvar, n_controls);
  return MPI_SUCCESS;
}

int T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                    int* bind, int* scope) {
  check_index(cvar_index, n_controls);
  const variable& v = control_variables[cvar_index];
  copy_string(v.name, name, name_len);
  set(verbosity, v.verbosity);
  set(datatype, MPI_UNSIGNED_LONG_LONG);
  set(enumtype, MPI_T_ENUM_NULL);
  copy_string(v.description, desc, desc_len);
  set(bind, static_cast<int>(MPI_T_BIND_NO_OBJECT));
  set(scope, static_cast<int>(MPI_T_SCOPE_CONSTANT));
  return MPI_SUCCESS;
}

int T_cvar_get_index(const char* name, int* cvar_index) {
  set(cvar_index, index_of(control_variables, name));
  return MPI_SUCCESS;
}

int T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  (void)obj_handle;  // bound to no object
  check_index(cvar_index, n_controls);
  if (handle == nullptr) fail(MPI_T_ERR_INVALID, "handle is null");
  cvar_handles().push_back(std::make_unique<rmpl_mpi_t_cvar_handle>(cvar_index));
  *handle = cvar_handles().back().get();
  set(count, 1);
  return MPI_SUCCESS;
}

int T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  if (handle == nullptr) fail(MPI_T_ERR_INVALID, "handle is null");
  live_cvar(*handle);
  std::erase_if(cvar_handles(), [&](const auto& mine) { return mine.get() == *handle; });
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  read_into(control_variables[live_cvar(handle).index], buf);
  return MPI_SUCCESS;
}

int T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  (void)buf;
  fail(MPI_T_ERR_CVAR_SET_NEVER, "{} is fixed for the job (MPI_T_SCOPE_CONSTANT)",
       control_variables[live_cvar(handle).index].name);
}

// ---------------------------------------------------------------- performance variables

int T_pvar_get_num(int* num_pvar) {
  set(num_pvar, n_performance);
  return MPI_SUCCESS;
}

int T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                    int* bind, int* readonly, int* continuous, int* atomic) {
  check_index(pvar_index, n_performance);
  const variable& v = performance_variables[pvar_index];
  copy_string(v.name, name, name_len);
  set(verbosity, v.verbosity);
  set(var_class, performance_classes[pvar_index]);
  set(datatype, MPI_UNSIGNED_LONG_LONG);
  set(enumtype, MPI_T_ENUM_NULL);
  copy_string(v.description, desc, desc_len);
  set(bind, static_cast<int>(MPI_T_BIND_NO_OBJECT));
  set(readonly, 1);
  set(continuous, 1);
  set(atomic, 0);
  return MPI_SUCCESS;
}

int T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  const int i = index_of(performance_variables, name);
  if (performance_classes[i] != var_class) {
    fail(MPI_T_ERR_INVALID_NAME, "{} is not of class {}", name, var_class);
  }
  set(pvar_index, i);
  return MPI_SUCCESS;
}

int T_pvar_session_create(MPI_T_pvar_session* session) {
  if (session == nullptr) fail(MPI_T_ERR_INVALID, "session is null");
  sessions().push_back(std::make_unique<rmpl_mpi_t_pvar_session>());
  *session = sessions().back().get();
  return MPI_SUCCESS;
}

int T_pvar_session_free(MPI_T_pvar_session* session) {
  if (session == nullptr) fail(MPI_T_ERR_INVALID, "session is null");
  live_session(*session);
  std::erase_if(sessions(), [&](const auto& mine) { return mine.get() == *session; });
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle,
                        MPI_T_pvar_handle* handle, int* count) {
  (void)obj_handle;  // bound to no object
  rmpl_mpi_t_pvar_session& s = live_session(session);
  check_index(pvar_index, n_performance);
  if (handle == nullptr) fail(MPI_T_ERR_INVALID, "handle is null");
  s.handles.push_back(std::make_unique<rmpl_mpi_t_pvar_handle>(pvar_index));
  *handle = s.handles.back().get();
  set(count, 1);
  return MPI_SUCCESS;
}

int T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  if (handle == nullptr) fail(MPI_T_ERR_INVALID, "handle is null");
  live_pvar(session, *handle);
  std::erase_if(session->handles, [&](const auto& mine) { return mine.get() == *handle; });
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

/// MPI_T_pvar_start and _stop: every variable here is continuous, so none can be started or
/// stopped; with MPI_T_PVAR_ALL_HANDLES, that is all of them and nothing is to do.
int start_or_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    live_session(session);
    return MPI_SUCCESS;
  }
  live_pvar(session, handle);
  fail(MPI_T_ERR_PVAR_NO_STARTSTOP, "the variable is continuous: it cannot be started or stopped");
}
int T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_or_stop(session, handle);
}
int T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_or_stop(session, handle);
}

int T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  read_into(performance_variables[live_pvar(session, handle).index], buf);
  return MPI_SUCCESS;
}

/// MPI_T_pvar_write, _reset, _readreset: every variable here is read-only (with
/// MPI_T_PVAR_ALL_HANDLES, a reset has no variable to act on).
int refuse_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_allowed) {
  if (all_allowed && handle == MPI_T_PVAR_ALL_HANDLES) {
    live_session(session);
    return MPI_SUCCESS;
  }
  live_pvar(session, handle);
  fail(MPI_T_ERR_PVAR_NO_WRITE, "the variable is read-only");
}
int T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  (void)buf;
  return refuse_write(session, handle, false);
}
int T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return refuse_write(session, handle, true);
}
int T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  (void)buf;
  return refuse_write(session, handle, false);
}

// ---------------------------------------------------------------- categories

int T_category_get_num(int* num_cat) {
  set(num_cat, n_categories);
  return MPI_SUCCESS;
}

int T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len,
                        int* num_cvars, int* num_pvars, int* num_categories) {
  check_index(cat_index, n_categories);
  const category& c = categories[cat_index];
  copy_string(c.name, name, name_len);
  copy_string(c.description, desc, desc_len);
  set(num_cvars, c.controls ? n_controls : 0);
  set(num_pvars, c.controls ? 0 : n_performance);
  set(num_categories, 0);
  return MPI_SUCCESS;
}

int T_category_get_index(const char* name, int* cat_index) {
  if (name == nullptr) fail(MPI_T_ERR_INVALID_NAME, "the name is null");
  for (int i = 0; i < n_categories; ++i) {
    if (std::string_view(categories[i].name) == name) {
      set(cat_index, i);
      return MPI_SUCCESS;
    }
  }
  fail(MPI_T_ERR_INVALID_NAME, "no category is named {}", name);
}

int T_category_get_cvars(int cat_index, int len, int indices[]) {
  category_members(cat_index, len, indices, true);
  return MPI_SUCCESS;
}
int T_category_get_pvars(int cat_index, int len, int indices[]) {
  category_members(cat_index, len, indices, false);
  return MPI_SUCCESS;
}
int T_category_get_categories(int cat_index, int len, int indices[]) {
  (void)indices;  // no category holds another
  check_index(cat_index, n_categories);
  if (len < 0) fail(MPI_T_ERR_INVALID, "len {} is negative", len);
  return MPI_SUCCESS;
}
int T_category_get_num_events(int cat_index, int* num_events) {
  check_index(cat_index, n_categories);
  set(num_events, 0);
  return MPI_SUCCESS;
}
int T_category_get_events(int cat_index, int len, int indices[]) {
  (void)indices;
  check_index(cat_index, n_categories);
  if (len < 0) fail(MPI_T_ERR_INVALID, "len {} is negative", len);
  return MPI_SUCCESS;
}
int T_category_changed(int* update_number) {
  set(update_number, 0);  // the categories never change
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- enumerations (none)

int T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  (void)enumtype, (void)num, (void)name, (void)name_len;
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl's variables have no enumerations");
}
int T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name, int* name_len) {
  (void)enumtype, (void)indx, (void)value, (void)name, (void)name_len;
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl's variables have no enumerations");
}

// ---------------------------------------------------------------- events and sources (none)

[[noreturn]] void no_event() {
  fail(MPI_T_ERR_INVALID_INDEX, "rmpl has no event types");
}
[[noreturn]] void no_registration() {
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl has no event types: no registration is valid");
}

int T_event_get_num(int* num_events) {
  set(num_events, 0);
  return MPI_SUCCESS;
}
int T_event_get_info(int, char*, int*, int*, MPI_Datatype[], MPI_Aint[], int*, MPI_T_enum*,
                     MPI_Info*, char*, int*, int*) {
  no_event();
}
int T_event_get_index(const char* name, int*) {
  fail(MPI_T_ERR_INVALID_NAME, "no event type is named {}", name ? name : "(null)");
}
int T_event_handle_alloc(int, void*, MPI_Info, MPI_T_event_registration*) {
  no_event();
}
int T_event_handle_set_info(MPI_T_event_registration, MPI_Info) {
  no_registration();
}
int T_event_handle_get_info(MPI_T_event_registration, MPI_Info*) {
  no_registration();
}
int T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                              MPI_T_event_cb_function*) {
  no_registration();
}
int T_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  no_registration();
}
int T_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*) {
  no_registration();
}
int T_event_handle_free(MPI_T_event_registration, void*, MPI_T_event_free_cb_function*) {
  no_registration();
}
int T_event_set_dropped_handler(MPI_T_event_registration, MPI_T_event_dropped_cb_function*) {
  no_registration();
}
// An event instance exists only inside an event callback, which never runs here.
int T_event_read(MPI_T_event_instance, int, void*) {
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl has no event types: no event instance is valid");
}
int T_event_copy(MPI_T_event_instance, void*) {
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl has no event types: no event instance is valid");
}
int T_event_get_timestamp(MPI_T_event_instance, MPI_Count*) {
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl has no event types: no event instance is valid");
}
int T_event_get_source(MPI_T_event_instance, int*) {
  fail(MPI_T_ERR_INVALID_HANDLE, "rmpl has no event types: no event instance is valid");
}

int T_source_get_num(int* num_sources) {
  set(num_sources, 0);
  return MPI_SUCCESS;
}
int T_source_get_info(int, char*, int*, char*, int*, MPI_T_source_order*, MPI_Count*, MPI_Count*,
                      MPI_Info*) {
  fail(MPI_T_ERR_INVALID_INDEX, "rmpl has no event sources");
}
int T_source_get_timestamp(int, MPI_Count*) {
  fail(MPI_T_ERR_INVALID_INDEX, "rmpl has no event sources");
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/tool.inc"  // the MPI_ and PMPI_ functions (generated)
