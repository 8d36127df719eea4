// Error classes, their texts, and error handlers (MPI's chapter 8.3-8.5). A returned error code is
// its class; MPI_Error_string gives the class's name followed by the text of the last failure of
// that class on this thread, which names the function, the ranks, tags, counts or handle at fault.
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "api/runtime.hpp"
#include "mpi/call.hpp"
#include "mpi/environment.hpp"
#include "mpi/pool.hpp"

struct rmpl_mpi_errhandler rmpl_mpi_errors_are_fatal {
  rmpl::mpi::magic::errhandler, nullptr, true
};
struct rmpl_mpi_errhandler rmpl_mpi_errors_return {
  rmpl::mpi::magic::errhandler, nullptr, true
};
struct rmpl_mpi_errhandler rmpl_mpi_errors_abort {
  rmpl::mpi::magic::errhandler, nullptr, true
};

namespace rmpl::mpi {
namespace {

constexpr const char* class_names[] = {
    "MPI_SUCCESS: no error",
    "MPI_ERR_BUFFER: invalid buffer pointer",
    "MPI_ERR_COUNT: invalid count argument",
    "MPI_ERR_TYPE: invalid datatype",
    "MPI_ERR_TAG: invalid tag",
    "MPI_ERR_COMM: invalid communicator",
    "MPI_ERR_RANK: invalid rank",
    "MPI_ERR_REQUEST: invalid request",
    "MPI_ERR_ROOT: invalid root",
    "MPI_ERR_GROUP: invalid group",
    "MPI_ERR_OP: invalid reduction operation",
    "MPI_ERR_TOPOLOGY: invalid topology",
    "MPI_ERR_DIMS: invalid dimension argument",
    "MPI_ERR_ARG: invalid argument",
    "MPI_ERR_UNKNOWN: unknown error",
    "MPI_ERR_TRUNCATE: message truncated",
    "MPI_ERR_OTHER: other error",
    "MPI_ERR_INTERN: internal error",
    "MPI_ERR_IN_STATUS: error code is in status",
    "MPI_ERR_PENDING: pending request",
    "MPI_ERR_KEYVAL: invalid keyval",
    "MPI_ERR_NO_MEM: out of memory",
    "MPI_ERR_INFO: invalid info object",
    "MPI_ERR_INFO_KEY: invalid info key",
    "MPI_ERR_INFO_VALUE: invalid info value",
    "MPI_ERR_INFO_NOKEY: no such info key",
    "MPI_ERR_PROC_FAILED: a process of the job died",
    "MPI_ERR_CONVERSION: value not representable in the data representation",
    "MPI_ERR_ACCESS: permission denied",
    "MPI_ERR_AMODE: invalid file access mode",
    "MPI_ERR_ASSERT: invalid assertion",
    "MPI_ERR_BAD_FILE: invalid file name",
    "MPI_ERR_BASE: invalid base address",
    "MPI_ERR_DISP: invalid displacement",
    "MPI_ERR_DUP_DATAREP: data representation already registered",
    "MPI_ERR_FILE_EXISTS: file exists",
    "MPI_ERR_FILE_IN_USE: file in use by another process",
    "MPI_ERR_FILE: invalid file handle",
    "MPI_ERR_IO: input/output error",
    "MPI_ERR_LOCKTYPE: invalid lock type",
    "MPI_ERR_NAME: service name not published",
    "MPI_ERR_NOT_SAME: collective arguments not the same on every process",
    "MPI_ERR_NO_SPACE: no space left",
    "MPI_ERR_NO_SUCH_FILE: no such file",
    "MPI_ERR_PORT: invalid port name",
    "MPI_ERR_PROC_ABORTED: a process of the connected job aborted",
    "MPI_ERR_QUOTA: quota exceeded",
    "MPI_ERR_READ_ONLY: read-only file or file system",
    "MPI_ERR_RMA_ATTACH: memory cannot be attached to the window",
    "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    "MPI_ERR_RMA_RANGE: target memory outside the window",
    "MPI_ERR_RMA_SHARED: memory cannot be shared",
    "MPI_ERR_RMA_SYNC: wrong synchronization of one-sided calls",
    "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    "MPI_ERR_SERVICE: invalid service name",
    "MPI_ERR_SESSION: invalid session",
    "MPI_ERR_SIZE: invalid size",
    "MPI_ERR_SPAWN: processes could not be spawned",
    "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    "MPI_ERR_VALUE_TOO_LARGE: value too large",
    "MPI_ERR_WIN: invalid window",
    "MPI_ERR_ERRHANDLER: invalid error handler",
    "MPI_T_ERR_MEMORY: out of memory (tool interface)",
    "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialized",
    "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialized",
    "MPI_T_ERR_INVALID_INDEX: invalid index",
    "MPI_T_ERR_INVALID_ITEM: invalid item index",
    "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    "MPI_T_ERR_OUT_OF_HANDLES: no more handles",
    "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions",
    "MPI_T_ERR_INVALID_SESSION: invalid performance variable session",
    "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now",
    "MPI_T_ERR_CVAR_SET_NEVER: the control variable can never be set",
    "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped",
    "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset",
    "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and reset atomically",
    "MPI_T_ERR_INVALID_NAME: no variable, category or event has this name",
    "MPI_T_ERR_INVALID: invalid use of the tool interface",
    "MPI_T_ERR_NOT_ACCESSIBLE: the variable is not accessible now",
    "MPI_T_ERR_NOT_SUPPORTED: not supported",
    // MPI-3.1 8.4 lists MPI_ERR_LASTCODE among the classes (0 < every class <= MPI_ERR_LASTCODE).
    "MPI_ERR_LASTCODE: last error code",
};
static_assert(std::size(class_names) == MPI_ERR_LASTCODE + 1);

/// Whether `code` is one of the predefined classes (MPI_SUCCESS to MPI_ERR_LASTCODE).
bool predefined(int code) noexcept {
  return code >= 0 && code <= MPI_ERR_LASTCODE;
}

/// Classes and codes added by MPI_Add_error_class / _code: code -> (class, text).
struct added_code {
  int error_class;
  std::string text;
};
std::map<int, added_code>& added() {
  static std::map<int, added_code> codes;
  return codes;
}
/// The largest code in use (MPI_LASTUSEDCODE): MPI_ERR_LASTCODE itself until a program adds one
/// (MPI-3.1 8.5: added codes and classes lie above it, and the attribute never falls below it).
int last_code = MPI_ERR_LASTCODE;

std::map<int, std::string>& last_messages() {
  thread_local std::map<int, std::string> messages;
  return messages;
}

pool<rmpl_mpi_errhandler>& handlers() {
  static pool<rmpl_mpi_errhandler> p;
  return p;
}

/// The rank of this process, for an error's text. While no engine runs (inside MPI_Init before it
/// has one, after MPI_Finalize) it is the rank the launcher gave the process in RMPL_RANK (0 for a
/// process started alone), so that each rank names itself rather than all of them "rank 0".
std::string rank_text() {
  if (api::initialized()) return std::to_string(api::kernel().rank());
  const char* given = std::getenv("RMPL_RANK");
  if (given == nullptr || *given == '\0') return "0";
  char* end = nullptr;
  const long rank = std::strtol(given, &end, 10);
  if (*end != '\0' || rank < 0 || rank > 1 << 20) {
    return fmt::format("? (RMPL_RANK={} is no rank)", given);
  }
  return std::to_string(rank);
}

std::string without_prefix(const std::string& message) {
  return message.rfind("rmpl: ", 0) == 0 ? message.substr(6) : message;
}

}  // namespace

int class_of(errc code) noexcept {
  switch (code) {
    case errc::success:
      return MPI_SUCCESS;
    case errc::invalid_argument:
      return MPI_ERR_ARG;
    case errc::invalid_rank:
      return MPI_ERR_RANK;
    case errc::invalid_tag:
      return MPI_ERR_TAG;
    case errc::truncated:
      return MPI_ERR_TRUNCATE;
    case errc::request_invalid:
      return MPI_ERR_REQUEST;
    case errc::request_pending:
      return MPI_ERR_PENDING;
    case errc::no_message:
      return MPI_ERR_OTHER;
    case errc::buffer_exhausted:
      return MPI_ERR_BUFFER;
    case errc::dead_rank:
      return MPI_ERR_PROC_FAILED;
    case errc::not_initialized:
      return MPI_ERR_OTHER;
    case errc::system:
      return MPI_ERR_OTHER;
    case errc::internal:
      return MPI_ERR_INTERN;
    case errc::exhausted:
      return MPI_ERR_NO_MEM;
  }
  return MPI_ERR_UNKNOWN;
}

int last_used_code() noexcept {
  return last_code;
}

namespace {

/// Keeps a failure's text for MPI_Error_string (its class's latest) and returns it.
std::string remember(const char* function, int error_class, const std::string& message) {
  std::string text =
      fmt::format("{} on rank {}: {}", function, rank_text(), without_prefix(message));
  last_messages()[error_class] = text;
  return text;
}

/// What handler `h` does with a failure of class `error_class` described by `text`: returns the
/// class (MPI_ERRORS_RETURN; a program's handler, which `invoke(h, code)` calls first), or ends
/// the job (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, and a handler that is no more).
template <class Invoke>
int handle(MPI_Errhandler h, int error_class, const std::string& text, Invoke&& invoke) {
  if (h == MPI_ERRORS_RETURN) return error_class;
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_ABORT && live_object(h, magic::errhandler)) {
    int code = error_class;
    if (invoke(*h, code)) return error_class;
  }
  std::fprintf(stderr, "rmpl: %s (%s; the job is ended: %s)\n", text.c_str(),
               class_names[predefined(error_class) ? error_class : MPI_ERR_UNKNOWN],
               h == MPI_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
  abort_job(error_class == 0 ? 1 : error_class);
}

/// The class and text of the exception being handled, given to `report`.
template <class Report>
int report_current(Report&& report) noexcept {
  try {
    throw;
  } catch (const error& e) {
    return report(e.error_class(), e.what());
  } catch (const rmpl::error& e) {
    return report(class_of(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return report(MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception& e) {
    return report(MPI_ERR_INTERN, e.what());
  } catch (...) {
    return report(MPI_ERR_INTERN, "an unknown exception");
  }
}

}  // namespace

int raise(MPI_Comm c, const char* function, int error_class, const std::string& message) {
  const std::string text = remember(function, error_class, message);
  // The handler of `c` if it is a live communicator, else MPI_COMM_WORLD's.
  MPI_Comm target = c;
  if (!live_object(target, magic::comm)) target = MPI_COMM_WORLD;
  MPI_Errhandler h = target->errhandler ? target->errhandler : MPI_ERRORS_ARE_FATAL;
  return handle(h, error_class, text, [&](const rmpl_mpi_errhandler& e, int& code) {
    if (e.function == nullptr) return false;
    e.function(&target, &code);
    return true;
  });
}

int raise_session(MPI_Session s, MPI_Errhandler given, const char* function, int error_class,
                  const std::string& message) {
  const std::string text = remember(function, error_class, message);
  // The handler of `s` if it is a live session, else the one given, else MPI_ERRORS_ARE_FATAL
  // (no session is there to say otherwise, MPI-4.1 9.3).
  MPI_Session target = live_object(s, magic::session) ? s : MPI_SESSION_NULL;
  MPI_Errhandler h = target ? target->errhandler : given;
  if (h == nullptr) h = MPI_ERRORS_ARE_FATAL;
  return handle(h, error_class, text, [&](const rmpl_mpi_errhandler& e, int& code) {
    if (e.session_function == nullptr) return false;
    e.session_function(&target, &code);
    return true;
  });
}

int raise_current(MPI_Comm comm, const char* function) noexcept {
  return report_current([&](int error_class, const std::string& message) {
    return raise(comm, function, error_class, message);
  });
}

int raise_current_session(MPI_Session session, MPI_Errhandler given,
                          const char* function) noexcept {
  return report_current([&](int error_class, const std::string& message) {
    return raise_session(session, given, function, error_class, message);
  });
}

int thread_misuse(MPI_Comm comm, const char* function, bool concurrent) noexcept {
  const char* level = core::threads::name(core::threads::current());
  try {
    return raise(comm, function, MPI_ERR_OTHER,
                 concurrent
                     ? fmt::format("{} called while another thread was inside MPI, but MPI was "
                                   "initialized with {} (calls must not overlap: ask "
                                   "MPI_Init_thread for MPI_THREAD_MULTIPLE)",
                                   function, level)
                     : fmt::format("{} called from a thread other than the main thread, but MPI "
                                   "was initialized with {} (ask MPI_Init_thread for "
                                   "MPI_THREAD_MULTIPLE to call MPI from any thread)",
                                   function, level));
  } catch (...) {  // no memory for the text
    return MPI_ERR_OTHER;
  }
}

rmpl_mpi_errhandler& errhandler(MPI_Errhandler e) {
  if (e == nullptr) fail(MPI_ERR_ARG, "the error handler is MPI_ERRHANDLER_NULL");
  if (!owned(e)) {
    fail(MPI_ERR_ARG, "error handler {} is no object of the library", static_cast<const void*>(e));
  }
  if (e->tag != magic::errhandler) {
    fail(MPI_ERR_ARG, "{} is not an error handler (freed, or another kind of handle)",
         static_cast<const void*>(e));
  }
  return *e;
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Error_class(int errorcode, int* errorclass) {
  if (predefined(errorcode)) {
    *errorclass = errorcode;
  } else if (auto it = added().find(errorcode); it != added().end()) {
    *errorclass = it->second.error_class;
  } else {
    fail(MPI_ERR_ARG, "{} is not an error code", errorcode);
  }
  return MPI_SUCCESS;
}

int Error_string(int errorcode, char* string, int* resultlen) {
  std::string text;
  if (predefined(errorcode)) {
    text = class_names[errorcode];
    if (auto it = last_messages().find(errorcode); it != last_messages().end()) {
      text += " (" + it->second + ")";
    }
  } else if (auto it = added().find(errorcode); it != added().end()) {
    text = it->second.text;
  } else {
    fail(MPI_ERR_ARG, "{} is not an error code", errorcode);
  }
  if (text.size() > MPI_MAX_ERROR_STRING - 1) text.resize(MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text.c_str(), text.size() + 1);
  *resultlen = static_cast<int>(text.size());
  return MPI_SUCCESS;
}

int Add_error_class(int* errorclass) {
  *errorclass = ++last_code;
  added()[last_code] = {last_code, ""};
  return MPI_SUCCESS;
}
int Add_error_code(int errorclass, int* errorcode) {
  if (!predefined(errorclass) && !added().contains(errorclass)) {
    fail(MPI_ERR_ARG, "{} is not an error class", errorclass);
  }
  *errorcode = ++last_code;
  added()[last_code] = {errorclass, ""};
  return MPI_SUCCESS;
}
int Add_error_string(int errorcode, const char* string) {
  auto it = added().find(errorcode);
  if (it == added().end()) {
    fail(MPI_ERR_ARG, "{} is not an error code added with MPI_Add_error_code/class", errorcode);
  }
  it->second.text = string ? string : "";
  return MPI_SUCCESS;
}

// MPI-4.1's removals: a class goes only once no added code is in it; MPI_LASTUSEDCODE then
// falls back to the largest code still in use.
namespace {
void lower_last_code() {
  last_code =
      added().empty() ? MPI_ERR_LASTCODE : std::max<int>(MPI_ERR_LASTCODE, added().rbegin()->first);
}
std::map<int, added_code>::iterator added_entry(int code, bool want_class) {
  auto it = added().find(code);
  if (it == added().end() || (it->second.error_class == code) != want_class) {
    fail(MPI_ERR_ARG, "{} is not an error {} added with MPI_Add_error_{}", code,
         want_class ? "class" : "code", want_class ? "class" : "code");
  }
  return it;
}
}  // namespace

int Remove_error_class(int errorclass) {
  auto it = added_entry(errorclass, true);
  for (const auto& [code, entry] : added()) {
    if (code != errorclass && entry.error_class == errorclass) {
      fail(MPI_ERR_ERRHANDLER, "error class {} still has code {} (remove the codes first)",
           errorclass, code);
    }
  }
  added().erase(it);
  lower_last_code();
  return MPI_SUCCESS;
}
int Remove_error_code(int errorcode) {
  added().erase(added_entry(errorcode, false));
  lower_last_code();
  return MPI_SUCCESS;
}
int Remove_error_string(int errorcode) {
  auto it = added().find(errorcode);
  if (it == added().end()) {
    fail(MPI_ERR_ARG, "{} is not an error code or class added with MPI_Add_error_code/class",
         errorcode);
  }
  it->second.text.clear();
  return MPI_SUCCESS;
}

int Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  if (function == nullptr) fail(MPI_ERR_ARG, "the handler function is null");
  rmpl_mpi_errhandler* h = handlers().make();
  h->function = function;
  *errhandler = h;
  return MPI_SUCCESS;
}
int Comm_set_errhandler(MPI_Comm c, MPI_Errhandler e) {
  rmpl_mpi_comm& target = comm(c);
  errhandler(e);
  target.errhandler = e;
  return MPI_SUCCESS;
}
int Comm_get_errhandler(MPI_Comm c, MPI_Errhandler* e) {
  rmpl_mpi_comm& target = comm(c);
  *e = target.errhandler ? target.errhandler : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}
int Comm_call_errhandler(MPI_Comm c, int errorcode) {
  comm(c);
  raise(c, "MPI_Comm_call_errhandler", errorcode,
        fmt::format("raised by the program with code {}", errorcode));
  return MPI_SUCCESS;
}
int Session_create_errhandler(MPI_Session_errhandler_function* function,
                              MPI_Errhandler* errhandler) {
  if (function == nullptr) fail(MPI_ERR_ARG, "the handler function is null");
  if (errhandler == nullptr) fail(MPI_ERR_ARG, "the error handler's address is null");
  rmpl_mpi_errhandler* h = handlers().make();
  h->session_function = function;
  *errhandler = h;
  return MPI_SUCCESS;
}
int Session_set_errhandler(MPI_Session s, MPI_Errhandler e) {
  rmpl_mpi_session& target = session(s);
  errhandler(e);
  target.errhandler = e;
  return MPI_SUCCESS;
}
int Session_get_errhandler(MPI_Session s, MPI_Errhandler* e) {
  rmpl_mpi_session& target = session(s);
  if (e == nullptr) fail(MPI_ERR_ARG, "the error handler's address is null");
  *e = target.errhandler ? target.errhandler : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}
int Session_call_errhandler(MPI_Session s, int errorcode) {
  session(s);
  raise_session(s, nullptr, "MPI_Session_call_errhandler", errorcode,
                fmt::format("raised by the program with code {}", errorcode));
  return MPI_SUCCESS;
}
int Errhandler_free(MPI_Errhandler* e) {
  rmpl_mpi_errhandler& h = errhandler(*e);
  if (!h.predefined) handlers().recycle(&h);
  *e = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
int Errhandler_set(MPI_Comm c, MPI_Errhandler e) {
  return PMPI_Comm_set_errhandler(c, e);
}
int Errhandler_get(MPI_Comm c, MPI_Errhandler* e) {
  return PMPI_Comm_get_errhandler(c, e);
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/errors.inc"  // the MPI_ and PMPI_ functions (generated)
