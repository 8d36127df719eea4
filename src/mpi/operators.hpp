// What the collectives need of operators (operators.cpp): the kernel's reduction for an MPI
// operator applied to a datatype.
#pragma once

#include <cstddef>

#include "mpi/handles.hpp"
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
/// (kernel.element bytes), so the packed pairs are widened before and narrowed after. The Fortran
/// pairs MPI_2REAL and MPI_2DOUBLE_PRECISION hold their index as a real of the value's type: it
/// is converted to the kernel's int and back (exact for the integral indices they carry).
struct reduction_plan {
  detail::reduction kernel;
  std::size_t packed_pair = 0;   ///< non-zero: widen / narrow pairs of this many packed bytes
  std::size_t value_size = 0;    ///< bytes of a pair's value (the index follows it when packed)
  std::size_t index_offset = 0;  ///< where a value_index holds the int
  std::size_t real_index = 0;    ///< non-zero: the packed index is a float (4) or double (8)
};
/// Also notes in `t`'s direct_ops a predefined operator that reduces `t`'s data as it lies.
reduction_plan plan_reduction(MPI_Op op, MPI_Datatype t);

/// The kernel's reduction of `o` on the live datatype `t` when the blocking collectives' fast path
/// may take it: `o` is a predefined operator that plan_reduction has found to reduce `t`'s data as
/// it lies (no pair widening, no layer-made function). False otherwise, `r` untouched: not an
/// operator, a user or one-sided one, not valid for `t`, or not planned on `t` yet; the general
/// path then plans it (noting it for the next call) or reports what is wrong.
inline bool direct_reduction(MPI_Op o, const rmpl_mpi_datatype& t, detail::reduction& r) noexcept {
  static_assert(static_cast<unsigned>(detail::builtin_op::maxloc) < 16, "direct_ops has 16 bits");
  // builtin_op::none (user and one-sided operators) is bit 0, never set.
  if (!fast_live_object(o, magic::op) ||
      (t.direct_ops >> static_cast<unsigned>(o->builtin) & 1U) == 0) {
    return false;
  }
  r.op = o->builtin;
  r.type = t.basic;
  r.element = static_cast<std::size_t>(t.basic_size);
  r.commutative = true;
  return true;
}

/// Packed pairs (value, int) -> value_index structs of `plan.kernel.element` bytes, and back.
void widen_pairs(const reduction_plan& plan, const std::byte* packed, std::size_t pairs,
                 std::byte* wide);
void narrow_pairs(const reduction_plan& plan, const std::byte* wide, std::size_t pairs,
                  std::byte* packed);

}  // namespace rmpl::mpi
