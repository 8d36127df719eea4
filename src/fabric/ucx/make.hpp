// The ucx provider's one entry point for the kernel (which sees no UCX header): made when a job
// spans hosts. Built without UCX's headers (libucx-dev), it throws, saying so.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "fabric/provider.hpp"

namespace rmpl::fabric::ucx {

/// The worker of `rank` in a job of `size`: see fabric/ucx/provider.hpp. Throws rmpl::error.
std::unique_ptr<fabric::provider> make_provider(
    int rank, int size, events& ev, std::function<std::span<const std::byte>(int)> address_of,
    std::function<void()> wake, std::function<std::string(int)> where);

}  // namespace rmpl::fabric::ucx
