// The combine step of every reduction: inout[i] = in[i] op inout[i]. Built-in operators run typed
// loops the compiler vectorises; user operators call the user's function.
#pragma once

#include <cstddef>

#include "rmpl/operators.hpp"

namespace rmpl::coll {

/// inout[i] = in[i] op inout[i] for i < count (`in` holds the lower ranks' operand). `in` and
/// `inout` must not overlap.
void combine(const detail::reduction& op, const void* in, void* inout, std::size_t count);

/// Throws the error combine() would throw for `op` (a built-in operator not defined on its
/// element type, an element size not the type's, a user operator without a function), without
/// combining anything: a table lookup, for the checks every reduction makes on every rank.
void check_combinable(const detail::reduction& op);

/// "sum", "bit_xor", "user operator": the operator's name, for error messages.
const char* name_of(detail::builtin_op op) noexcept;

}  // namespace rmpl::coll
