// Loads libpmix.so.2 (runtime/pmix/library.hpp), with PMIx's own names: the header's redirects are
// off here.
#define RMPL_PMIX_LOADING
#include "runtime/pmix/library.hpp"

#include <dlfcn.h>

#include <mutex>

#include "base/error.hpp"

namespace rmpl::runtime::pmix {

const library& library::get() {
  static library table;
  static std::once_flag once;
  static bool loaded = false;
  std::call_once(once, [] {
    // Debian keeps libpmix in its own directory (/usr/lib/<arch>/pmix2/lib), outside the loader's
    // default path; the loader's path is tried first (a PMIx installed elsewhere and named by
    // LD_LIBRARY_PATH wins).
    void* handle = ::dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    if (handle == nullptr) {
      handle = ::dlopen(RMPL_PMIX_LIBDIR "/libpmix.so.2", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    }
    if (handle == nullptr) return;
#define RMPL_PMIX_LOAD(name)                                                   \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(handle, #name)); \
  if (table.name == nullptr) return;
    RMPL_PMIX_FUNCTIONS(RMPL_PMIX_LOAD)
#undef RMPL_PMIX_LOAD
    loaded = true;
  });
  if (!loaded) {
    const char* why = ::dlerror();
    base::fail(errc::system,
               "a PMIx server started this process (PMIX_NAMESPACE is set), but its client library "
               "libpmix.so.2 (Debian's libpmix2) cannot be loaded: {}",
               why != nullptr ? why : "a function is missing");
  }
  return table;
}

}  // namespace rmpl::runtime::pmix
