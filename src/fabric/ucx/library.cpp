#include "fabric/ucx/library.hpp"

#include <dlfcn.h>

#include <mutex>

#include "base/error.hpp"

namespace rmpl::fabric::ucx {

const library& library::get() {
  static library table;
  static std::once_flag once;
  std::call_once(once, [] {
    // libucp pulls in libuct, libucs and libucm itself, and loads its transport modules (tcp, cma,
    // ib ...) from its own directory. Kept for the life of the process: UCX installs memory hooks.
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
