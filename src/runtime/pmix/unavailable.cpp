// runtime::pmix where rmpl was built without PMIx's headers (Debian's libpmix-dev): a process a
// PMIx server started is told so, rather than run as a job of one.
#include <cstdlib>

#include "base/error.hpp"
#include "runtime/pmix/job.hpp"

namespace rmpl::runtime::pmix {

bool started_by_server() noexcept {
  const char* ns = std::getenv("PMIX_NAMESPACE");
  return ns != nullptr && *ns != '\0';
}

job::job() {
  base::fail(errc::system,
             "a PMIx server started this process (PMIX_NAMESPACE is set), but rmpl was built "
             "without PMIx (install libpmix-dev, scripts/install-deps, and rebuild)");
}
job::~job() = default;
void job::put(std::string_view, std::span<const std::byte>) {}
void job::fence() {}
std::vector<std::byte> job::get(int, std::string_view) const {
  return {};
}
void job::barrier() {}
void job::start_barrier(std::atomic<bool>&, void (*)(void*), void*) {}

}  // namespace rmpl::runtime::pmix
