// The environment (MPI's chapter 8): MPI_Init and MPI_Finalize over the kernel shared with rmpl's
// C++ and C APIs, the predefined communicators, thread levels, timers, names and versions.
//
// Thread levels (core/threads.hpp, call.hpp): MPI_Init_thread provides what it is asked for, up
// to MPI_THREAD_MULTIPLE (one library lock, taken by every call); MPI_Init provides
// MPI_THREAD_SINGLE. Below MULTIPLE a call the level forbids (another thread than the main one
// under SINGLE or FUNNELED, two threads at once under SERIALIZED) is an error naming the call and
// the level. Any thread may call MPI_Query_thread, MPI_Is_thread_main, MPI_Initialized,
// MPI_Finalized, MPI_Get_version, MPI_Get_library_version, MPI_Error_class, MPI_Error_string,
// MPI_Wtime, MPI_Wtick and MPI_Grequest_complete.
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "api/runtime.hpp"
#include "core/context_pool.hpp"
#include "mpi/attributes.hpp"
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"
#include "mpi/environment.hpp"
#include "mpi/info.hpp"
#include "mpi/requests.hpp"

// What every translation unit that includes mpi.h refers to (mpi.h says why): defined here, by
// the library, and nowhere else. Its value is never read.
const char rmpl_mpi_h_needs_rmpl_libmpi = 0;

namespace {
rmpl_mpi_comm inactive_comm() {
  rmpl_mpi_comm c;
  c.tag = rmpl::mpi::magic::inactive;
  return c;
}
}  // namespace
// Inactive (magic::inactive) until MPI_Init and again after MPI_Finalize; constructed first, as
// the predefined datatypes are (datatypes.cpp).
__attribute__((init_priority(200))) struct rmpl_mpi_comm rmpl_mpi_comm_world = inactive_comm();
__attribute__((init_priority(200))) struct rmpl_mpi_comm rmpl_mpi_comm_self = inactive_comm();

namespace rmpl::mpi {
namespace {

// Two ways into MPI (MPI-4.1 11.2, 11.3): the world model (MPI_Init .. MPI_Finalize, `now`) and
// sessions (MPI_Session_init .. MPI_Session_finalize, `sessions_open`). The library (the kernel,
// the predefined communicators) starts with the first of them and stops when neither is left.
// It starts once per process: the kernel's job is the launcher's, so after it stopped neither way
// may start it again (MPI-4.1 lets sessions start it anew; rmpl refuses with MPI_ERR_SESSION).
enum class phase { before, running, after };
phase now = phase::before;
int sessions_open = 0;
enum class library { down, up, stopped };
library state = library::down;
core::threads::level level_now = core::threads::level::single;

void start_library(core::threads::level level) {
  // The layer's own variable, read now so that a bad value fails the start (api::acquire checks
  // the kernel's and the collectives' ones).
  (void)segment_min();
  api::acquire();
  core::engine& e = api::kernel();
  rmpl_mpi_comm_world.impl = api::world();
  rmpl_mpi_comm_world.name = "MPI_COMM_WORLD";
  rmpl_mpi_comm_world.predefined = true;
  // MPI_COMM_SELF: this process alone, on the pair every process reserves for it.
  core::communicator self =
      core::communicator::of(core::context_pool::self_context, {e.rank()}, e.rank(), e.size());
  rmpl_mpi_comm_self.impl = std::make_shared<detail::comm_impl>(std::move(self));
  rmpl_mpi_comm_self.name = "MPI_COMM_SELF";
  rmpl_mpi_comm_self.predefined = true;
  rmpl_mpi_comm_world.tag = magic::comm;
  rmpl_mpi_comm_self.tag = magic::comm;
  // MPI_Bsend needs a buffer attached with MPI_Buffer_attach (the C++ API's default of 16 MiB
  // would hide a program's missing attach until it runs elsewhere).
  e.attach_buffer(0);
  level_now = level;
  if (level == core::threads::level::multiple) e.no_fast_spin();
  core::threads::start(level);
  state = library::up;
}

/// Stops the library: waits for every rank (a rank that died first is this call's failure,
/// reported as `function`'s through MPI_COMM_WORLD's handler while the kernel still knows this
/// rank); stopped either way.
int stop_library(const char* function) {
  finalize_requests();
  rmpl_mpi_comm_world.tag = magic::inactive;
  rmpl_mpi_comm_self.tag = magic::inactive;
  rmpl_mpi_comm_world.impl.reset();
  rmpl_mpi_comm_self.impl.reset();
  state = library::stopped;
  core::threads::stop();
  int result = MPI_SUCCESS;
  try {
    rmpl::api::finalize_if_last();
  } catch (...) {
    result = raise_current(nullptr, function);
  }
  rmpl::api::release();
  return result;
}

void start_mpi(core::threads::level level) {
  if (now == phase::running) fail(MPI_ERR_OTHER, "MPI is already initialized");
  if (now == phase::after || state == library::stopped) {
    fail(MPI_ERR_OTHER, "MPI cannot be initialized again after MPI_Finalize");
  }
  if (state == library::down) start_library(level);
  now = phase::running;
}

}  // namespace

bool running() noexcept {
  return state == library::up;
}

void require_initialized() {
  if (state == library::down) {
    fail(MPI_ERR_OTHER, "MPI is not initialized: call MPI_Init or MPI_Session_init first");
  }
  if (state == library::stopped) fail(MPI_ERR_OTHER, "MPI has been finalized");
}

int open_session(int required) {
  if (state == library::stopped) {
    fail(MPI_ERR_SESSION,
         "MPI has been finalized in this process and cannot start again (rmpl starts once per "
         "process)");
  }
  if (state == library::down) start_library(static_cast<core::threads::level>(required));
  ++sessions_open;
  return static_cast<int>(level_now);
}

int close_session() {
  --sessions_open;
  if (sessions_open > 0 || now == phase::running) return MPI_SUCCESS;
  return stop_library("MPI_Session_finalize");
}

void abort_job(int code) noexcept {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code == 0 ? 1 : code & 0xff ? code & 0xff : 1);
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;
namespace core = rmpl::core;

namespace rmpl::mpi::impl {
namespace {

int Init(int*, char***) {
  start_mpi(core::threads::level::single);
  return MPI_SUCCESS;
}
int Init_thread(int*, char***, int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    fail(MPI_ERR_ARG,
         "required thread level {} is not one of MPI_THREAD_SINGLE (0) to "
         "MPI_THREAD_MULTIPLE (3)",
         required);
  }
  start_mpi(static_cast<core::threads::level>(required));
  // A session may have started the library at another level: that one stays.
  *provided = static_cast<int>(level_now);
  return MPI_SUCCESS;
}
int Query_thread(int* provided) {
  require_initialized();
  *provided = static_cast<int>(level_now);
  return MPI_SUCCESS;
}
int Is_thread_main(int* flag) {
  require_initialized();
  *flag = core::threads::is_main ? 1 : 0;
  return MPI_SUCCESS;
}
int Finalize(void) {
  if (now == phase::before) fail(MPI_ERR_OTHER, "MPI is not initialized: call MPI_Init first");
  if (now == phase::after) fail(MPI_ERR_OTHER, "MPI has been finalized");
  // MPI_COMM_SELF's attributes are deleted first, most recently set first, before anything else
  // of the library goes (MPI-3.1 8.7.1): their delete callbacks may still call any MPI function
  // (MPI_Finalized still says false). Then MPI_COMM_WORLD's, as if it were freed, so that their
  // callbacks too run while MPI works. A failing callback fails MPI_Finalize, which the program
  // may call again.
  delete_attributes(MPI_COMM_SELF);
  delete_attributes(MPI_COMM_WORLD);
  now = phase::after;
  // The library stays while sessions are open (the last MPI_Session_finalize stops it).
  if (sessions_open > 0) return MPI_SUCCESS;
  return stop_library("MPI_Finalize");
}
int Initialized(int* flag) {
  *flag = now != phase::before;
  return MPI_SUCCESS;
}
int Finalized(int* flag) {
  *flag = now == phase::after;
  return MPI_SUCCESS;
}
int Abort(MPI_Comm, int errorcode) {
  const int rank = rmpl::api::initialized() ? rmpl::api::kernel().rank() : 0;
  std::fprintf(stderr, "rmpl: MPI_Abort called on rank %d with error code %d: ending the job\n",
               rank, errorcode);
  abort_job(errorcode);
}
int Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  std::strcpy(name, host);
  *resultlen = static_cast<int>(std::strlen(host));
  return MPI_SUCCESS;
}
/// MPI-4.1 leaves the keys to the implementation: the CPUs this process may run on
/// ("rmpl_cpus", as ranges: "0-3,8"; "rmpl_cpu_count"), from its affinity mask at the moment.
int Get_hw_resource_info(MPI_Info* hw_info) {
  if (hw_info == nullptr) fail(MPI_ERR_ARG, "hw_info is null");
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string cpus;
  int count = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &set)) continue;
      int last = cpu;
      while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
      if (!cpus.empty()) cpus += ',';
      cpus += std::to_string(cpu);
      if (last > cpu) {
        cpus += '-';
        cpus += std::to_string(last);
      }
      count += last - cpu + 1;
      cpu = last;
    }
  }
  MPI_Info made = make_info();
  if (count > 0) {
    made->entries.emplace_back("rmpl_cpus", cpus);
    made->entries.emplace_back("rmpl_cpu_count", std::to_string(count));
  }
  *hw_info = made;
  return MPI_SUCCESS;
}
int Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
int Get_library_version(char* version, int* resultlen) {
  const int n = std::snprintf(
      version, MPI_MAX_LIBRARY_VERSION_STRING,
      "rmpl %s (MPI %d.%d and most of 4.1, without one-sided communication, MPI-IO and dynamic "
      "processes; up to MPI_THREAD_MULTIPLE)",
      RMPL_VERSION, MPI_VERSION, MPI_SUBVERSION);
  *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
  return MPI_SUCCESS;
}
int Pcontrol(const int, ...) {
  return MPI_SUCCESS;  // no profiling levels of its own; tools intercept MPI_Pcontrol
}
double Wtime(void) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double Wtick(void) {
  timespec ts{};
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/environment.inc"  // the MPI_ and PMPI_ functions (generated)
