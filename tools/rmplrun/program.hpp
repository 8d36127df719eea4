// Finding the program before any rank starts, so that a typo is one clear error rather than N
// failed ranks.
#pragma once

#include <string>

namespace rmplrun {

/// The path to execute for `name`: `name` itself when it contains a slash, otherwise the first
/// executable regular file called `name` in PATH (searched as execvp does). Throws usage_error
/// naming the problem when there is none.
std::string find_program(const std::string& name);

}  // namespace rmplrun
