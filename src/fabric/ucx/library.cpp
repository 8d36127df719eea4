#include "fabric/ucx/library.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include <mutex>

#include "base/error.hpp"

namespace rmpl::fabric::ucx {

const library& library::get() {
  static library table;
  static std::once_flag once;
  std::call_once(once, [] {
  // libucp pulls in libuct, libucs and libucm itself, and loads its transport modules (tcp, cma,
  // ib ...) from its own directory. Kept for the life of the process: UCX installs memory hooks.
#if defined(__SANITIZE_THREAD__)
    // UCX's memory hooks (libucm) wrap madvise, which glibc calls as a thread exits, after
    // ThreadSanitizer has torn down the thread's state: the hook's lock then crashes in TSan's
    // interceptor. The TSan build goes without them (unless the environment says otherwise):
    // memory exposed for one-sided operations is then registered without UCX's registration
    // cache; they stay on in every other build (InfiniBand's registration cache relies on them).
    ::setenv("UCX_MEM_EVENTS", "no", 0);
#endif
    void* handle = ::dlopen("libucp.so.0", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      base::fail(errc::system,
                 "this job's ranks span hosts, which needs UCX (Debian's libucx0), but libucp.so.0 "
                 "cannot be loaded: {}",
                 why != nullptr ? why : "unknown error");
    }
#define RMPL_UCX_LOAD(name)                                                                 \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(handle, #name));              \
  if (table.name == nullptr) {                                                              \
    base::fail(errc::system, "libucp.so.0 has no {} (UCX 1.13 or newer is needed)", #name); \
  }
    RMPL_UCX_FUNCTIONS(RMPL_UCX_LOAD)
#undef RMPL_UCX_LOAD
  });
  if (table.ucp_get_version_string == nullptr) {
    base::fail(errc::system, "UCX could not be loaded (an earlier attempt failed)");
  }
  return table;
}

}  // namespace rmpl::fabric::ucx
