// What the collectives need of operators (operators.cpp): the kernel's reduction for an MPI
// operator applied to a datatype.
#pragma once

#include <cstddef>

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// The reduction of `op` over elements of `t`: a built-in operator on the basic type `t` is made
/// of (MPI_ERR_OP naming both when the operator does not apply to it), or the user function
/// called with `t`.
detail::reduction reduction_of(MPI_Op op, MPI_Datatype t);

/// How the operands of a reduction travel through the kernel. The collectives hand the kernel
/// `t`'s data packed (pack() for a non-contiguous `t`); that packed form is what `kernel` reduces,
/// except for the MINLOC/MAXLOC pair types whose C struct has padding (MPI_DOUBLE_INT, ...): MPI
/// packs a pair as value then int (`packed_pair` bytes), the kernel reduces value_index structs
/// (kernel.element bytes), so the packed pairs are widened before and narrowed after.
struct reduction_plan {
  detail::reduction kernel;
  std::size_t packed_pair = 0;   ///< non-zero: widen / narrow pairs of this many packed bytes
  std::size_t value_size = 0;    ///< bytes of a pair's value (the int follows it when packed)
  std::size_t index_offset = 0;  ///< where a value_index holds the int
};
reduction_plan plan_reduction(MPI_Op op, MPI_Datatype t);

/// Packed pairs (value, int) -> value_index structs of `plan.kernel.element` bytes, and back.
void widen_pairs(const reduction_plan& plan, const std::byte* packed, std::size_t pairs,
                 std::byte* wide);
void narrow_pairs(const reduction_plan& plan, const std::byte* wide, std::size_t pairs,
                  std::byte* packed);

}  // namespace rmpl::mpi
