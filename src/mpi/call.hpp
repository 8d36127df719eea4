// What every MPI function of the layer is made of. src/mpi/bindings/functions.spec declares it;
// its file (src/mpi/<file>.cpp) implements it as rmpl::mpi::impl::X, which returns MPI_SUCCESS or
// throws; the generated tail of that file (bindings/generate.py) defines
//
//   extern "C" int PMPI_Send(...) {
//     return rmpl::mpi::call(comm, "MPI_Send", [&] { return rmpl::mpi::impl::Send(...); });
//   }
//
// and MPI_Send as its weak alias (the profiling interface: a tool's own MPI_Send replaces it and
// reaches the library through PMPI_Send).
//
// call() turns a failure (rmpl::error from the kernel, mpi::error from the layer's own checks)
// into an MPI error class, keeps its text for MPI_Error_string, and hands it to the error handler
// of the communicator involved (MPI_COMM_WORLD's when none is): MPI_ERRORS_ARE_FATAL prints the
// text and ends the job, MPI_ERRORS_RETURN returns the class, a user handler is called first.
//
// The checks (comm(), datatype(), count(), ...) validate a handle or argument and return the object
// it names, or throw an mpi::error naming the function, the argument and its value.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/threads.hpp"
#include "mpi/handles.hpp"
#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// A failure found by the layer itself: an MPI error class and the text that explains it.
class error : public std::runtime_error {
 public:
  error(int error_class, const std::string& message)
      : std::runtime_error(message), error_class_(error_class) {}
  int error_class() const noexcept { return error_class_; }

 private:
  int error_class_;
};

template <class... Args>
[[noreturn]] void fail(int error_class, fmt::format_string<Args...> format, Args&&... args) {
  throw error(error_class, fmt::format(format, std::forward<Args>(args)...));
}

/// The MPI error class of a kernel error code.
int class_of(errc code) noexcept;

/// The largest error code in use (MPI_LASTUSEDCODE): grows with MPI_Add_error_class / _code.
int last_used_code() noexcept;

/// Reports a failure of `function` on `comm` (may be null or invalid: MPI_COMM_WORLD's handler
/// then) through its error handler; returns the error class unless the handler ends the job.
int raise(MPI_Comm comm, const char* function, int error_class, const std::string& message);

/// Reports the exception being handled (called only from a catch block) as a failure of `function`
/// on `comm`: an mpi::error with its class, an rmpl::error with its code's class, bad_alloc as
/// MPI_ERR_NO_MEM, anything else as MPI_ERR_INTERN. Out of line and cold, so that a function's
/// success path holds nothing of it but a landing pad.
[[gnu::cold]] int raise_current(MPI_Comm comm, const char* function) noexcept;

/// raise() and raise_current() for a session's functions: through `session`'s handler, or
/// `given` when it is not a live session (MPI_Session_init's argument), else
/// MPI_ERRORS_ARE_FATAL.
int raise_session(MPI_Session session, MPI_Errhandler given, const char* function, int error_class,
                  const std::string& message);
[[gnu::cold]] int raise_current_session(MPI_Session session, MPI_Errhandler given,
                                        const char* function) noexcept;

/// Runs `body` as MPI function `function` of a session (MPI_Session_*), its failures reported
/// through the session's error handler (`given` for MPI_Session_init, which has none yet). Any
/// thread: MPI_Session_init may come before a thread level is set.
template <class Body>
int session_call(MPI_Session session, MPI_Errhandler given, const char* function,
                 Body&& body) noexcept {
  core::threads::guard locked;
  try {
    return body();
  } catch (...) {
    return raise_current_session(session, given, function);
  }
}
template <class Body>
int session_call(MPI_Session session, const char* function, Body&& body) noexcept {
  return session_call(session, nullptr, function, std::forward<Body>(body));
}

/// What a checked call (any call but the main thread's under SINGLE/FUNNELED) did on its way in,
/// for its way out: whether it took the library lock (MULTIPLE) or marked itself inside
/// (SERIALIZED), or was refused (`refused` is then the error class to return).
/// No default member initializers: call() leaves it untouched on the fast path, and
/// enter_checked() sets every field.
struct checked_entry {
  int refused;
  bool locked;
  bool marked;
  const void* before;  ///< SERIALIZED: the mark found on the way in
};
/// The way in and out of a checked call (errors.cpp): the level decides. Out of line: only
/// programs that use threads, or MPI before MPI_Init, come here.
[[gnu::cold]] checked_entry enter_checked(MPI_Comm comm, const char* function) noexcept;
[[gnu::cold]] int leave_checked(const checked_entry& e, MPI_Comm comm, const char* function,
                                int result) noexcept;

/// Reports `function` called from a thread the level does not allow (SINGLE, FUNNELED: not the
/// main thread), or while another thread was inside the library (SERIALIZED), as MPI_ERR_OTHER.
[[gnu::cold]] int thread_misuse(MPI_Comm comm, const char* function, bool concurrent) noexcept;

/// Runs `body` (which returns MPI_SUCCESS or an error class) as MPI function `function` on `comm`,
/// its failures reported. The main thread under SINGLE or FUNNELED pays one test of a thread-local
/// flag; everything else enters and leaves through the out-of-line checks above.
///
/// The body is inlined once, between the two tests, and never passed to another function: a
/// closure that captures the arguments by reference and escapes to an out-of-line path forces
/// them onto the stack on the fast path too. That cost MPI_Allreduce's fast path 65 instructions
/// under callgrind (81 -> 146 per call, issue 22).
template <class Body>
[[gnu::always_inline]] inline int call(MPI_Comm comm, const char* function, Body&& body) noexcept {
  const bool checked = !core::threads::fast;
  checked_entry entry;
  if (checked) [[unlikely]] {
    entry = enter_checked(comm, function);
    if (entry.refused >= 0) return entry.refused;
  }
  int result;
  // Nothing here on the success path but the body: the handler costs nothing until a throw.
  try {
    result = body();
  } catch (...) {
    result = raise_current(comm, function);
  }
  if (checked) [[unlikely]]
    return leave_checked(entry, comm, function, result);
  return result;
}

/// call() for the functions any thread may call at any level (MPI_Query_thread,
/// MPI_Is_thread_main, MPI_Error_string, MPI_Grequest_complete...): under MULTIPLE they take the
/// lock like every call, otherwise they run unchecked.
template <class Body>
int call_any_thread(MPI_Comm comm, const char* function, Body&& body) noexcept {
  core::threads::guard locked;
  try {
    return body();
  } catch (...) {
    return raise_current(comm, function);
  }
}

// ---- the two bindings of a function with counts (bindings/functions.spec: "int|MPI_Count") ----

/// Whether `Count`, a binding's count type, is the large-count one (MPI_X_c: MPI_Count) rather
/// than int (MPI_X).
template <class Count>
inline constexpr bool large_count = sizeof(Count) > sizeof(int);
/// The displacement type that goes with `Count`: int in MPI_X, MPI_Aint in MPI_X_c.
template <class Count>
using displacement_of = std::conditional_t<large_count<Count>, MPI_Aint, int>;
/// The type of an extent, a lower bound or a byte size that goes with `Count`: MPI_Aint in
/// MPI_X, MPI_Count in MPI_X_c.
template <class Count>
using extent_of = std::conditional_t<large_count<Count>, MPI_Count, MPI_Aint>;
/// The name of the binding of `Count`: `plain` or `large` ("MPI_Send" or "MPI_Send_c").
template <class Count>
constexpr const char* binding_name(const char* plain, const char* large) noexcept {
  return large_count<Count> ? large : plain;
}

/// Throws MPI_ERR_OTHER unless MPI_Init has run and MPI_Finalize has not.
void require_initialized();

// ---- checks: the object a handle names, or an mpi::error that names the handle and function ----

/// comm() and datatype() for a handle outside the inline ranges (handles.hpp): the exact test,
/// then the object, or an error that says why it is none (not initialised, MPI_COMM_NULL, no
/// object of the library, freed, another kind of handle, not committed).
[[gnu::cold]] rmpl_mpi_comm& checked_comm(MPI_Comm c);
[[gnu::cold]] rmpl_mpi_datatype& checked_datatype(MPI_Datatype t, bool committed);

/// A live communicator (not MPI_COMM_NULL, not freed, not another kind of handle, not an address
/// outside the layer's objects: handles.hpp). Inline: every call checks its handles, and the
/// check must cost a few instructions, not a call.
inline rmpl_mpi_comm& comm(MPI_Comm c) {
  if (fast_live_object(c, magic::comm)) [[likely]] {  // live: it has its kernel communicator
    return *c;
  }
  return checked_comm(c);
}
/// A live datatype; with `committed`, one that may be used for communication.
inline rmpl_mpi_datatype& datatype(MPI_Datatype t, bool committed = true) {
  if (fast_live_object(t, magic::datatype) && (t->committed || !committed)) [[likely]] {
    return *t;
  }
  return checked_datatype(t, committed);
}
rmpl_mpi_group& group(MPI_Group g);
rmpl_mpi_op& op(MPI_Op o);
rmpl_mpi_info& info(MPI_Info i);
rmpl_mpi_errhandler& errhandler(MPI_Errhandler e);
/// A live session (sessions.cpp).
rmpl_mpi_session& session(MPI_Session s);
/// A count: non-negative.
void count(MPI_Count n, const char* what = "count");
/// A buffer that must not be null when count > 0 and the type has data.
void buffer(const void* buf, MPI_Count n, const rmpl_mpi_datatype& t, const char* what = "buffer");
/// A position in a packed buffer of `size` bytes (named `size_name`): not null, in [0, size]. For
/// MPI_Pack's int positions and MPI_Pack_external's MPI_Aint ones.
template <class Int>
void position_in(const Int* position, Int size, const char* size_name) {
  if (position == nullptr) fail(MPI_ERR_ARG, "position is a null pointer");
  if (size < 0) fail(MPI_ERR_ARG, "{} {} is negative", size_name, size);
  if (*position < 0 || *position > size) {
    fail(MPI_ERR_ARG, "position {} is outside the {} bytes of the packed buffer ({} {})", *position,
         size, size_name, size);
  }
}

// A status's MPI_ERROR is written only by the calls that return several statuses (Waitall,
// Testall, Waitsome, Testsome: MPI-3.1 3.2.5 and 3.7.5), where it tells which request failed. A
// call that returns one status returns its error as the call's result and leaves the field as the
// program left it, as Open MPI and MPICH do; programs that keep their own value there rely on it.
// So the helpers below fill every field but MPI_ERROR.

/// Fills an MPI_Status from a kernel status (ignores a null `out`), all but MPI_ERROR.
inline void to_mpi(const rmpl::status& s, MPI_Status* out) noexcept {
  if (out == MPI_STATUS_IGNORE) return;
  out->MPI_SOURCE = s.source;
  out->MPI_TAG = s.tag;
  out->rmpl_cancelled = s.cancelled ? 1 : 0;
  out->rmpl_bytes = static_cast<MPI_Count>(s.bytes);
}
/// Copies status `s` into `*out` (unless ignored), all but MPI_ERROR.
inline void store_status(const MPI_Status& s, MPI_Status* out) noexcept {
  if (out == MPI_STATUS_IGNORE) return;
  const int kept = out->MPI_ERROR;
  *out = s;
  out->MPI_ERROR = kept;
}
/// The status of an operation with MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0
/// (MPI_ERROR left alone).
inline void proc_null_status(MPI_Status* out) noexcept {
  store_status(MPI_Status{MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0}, out);
}

}  // namespace rmpl::mpi
