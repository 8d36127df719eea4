// make_provider where rmpl was built without UCX's headers (Debian's libucx-dev).
#include "base/error.hpp"
#include "fabric/ucx/make.hpp"

namespace rmpl::fabric::ucx {

std::unique_ptr<fabric::provider> make_provider(int rank, int, events&,
                                                std::function<std::span<const std::byte>(int)>,
                                                std::function<void()>,
                                                std::function<std::string(int)>) {
  base::fail(errc::system,
             "rank {}: this job's ranks span hosts, but rmpl was built without UCX (install "
             "libucx-dev, scripts/install-deps, and rebuild)",
             rank);
}

}  // namespace rmpl::fabric::ucx
