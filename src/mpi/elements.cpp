// MPI_Get_elements' count: basic elements in a received byte count. A type made of one basic type
// divides; a mixed one (and a value-index pair, whose value and int are two basic elements)
// counts its whole elements from its constructor's description (the envelope and contents
// MPI_Type_get_contents reports) and walks the last, partial one piece by piece, descending only
// into the one piece the data ends in.
#include <algorithm>

#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"

namespace rmpl::mpi {
namespace {

/// A value-index pair of MINLOC / MAXLOC: two basic elements, the value then an int.
bool is_pair(detail::scalar s) noexcept {
  using enum detail::scalar;
  return s == vi_i16 || s == vi_i32 || s == vi_i64 || s == vi_f32 || s == vi_f64 || s == vi_f80;
}

/// Basic elements in one element of `t`.
MPI_Count per_element(const rmpl_mpi_datatype& t) {
  if (is_pair(t.basic)) {
    return t.combiner == MPI_COMBINER_NAMED ? 2 : 2 * t.basic_count;
  }
  if (t.basic != detail::scalar::none || t.combiner == MPI_COMBINER_NAMED) {
    return t.combiner == MPI_COMBINER_NAMED ? (t.size > 0 ? 1 : 0) : t.basic_count;
  }
  const auto& n = t.integers;
  auto old = [&](std::size_t i) { return per_element(*t.types.at(i)); };
  MPI_Count sum = 0;
  switch (t.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      return old(0);
    case MPI_COMBINER_CONTIGUOUS:
      return n.at(0) * old(0);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
      return n.at(0) * n.at(1) * old(0);
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
      for (MPI_Count i = 0; i < n.at(0); ++i) sum += n.at(static_cast<std::size_t>(1 + i));
      return sum * old(0);
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      return n.at(0) * n.at(1) * old(0);
    case MPI_COMBINER_STRUCT:
      for (MPI_Count i = 0; i < n.at(0); ++i) {
        sum += n.at(static_cast<std::size_t>(1 + i)) * old(static_cast<std::size_t>(i));
      }
      return sum;
    case MPI_COMBINER_DARRAY:  // this process's part of the array: whole elements of the old type
      return t.types.at(0)->size > 0 ? t.size / t.types.at(0)->size * old(0) : 0;
    case MPI_COMBINER_SUBARRAY: {
      MPI_Count product = 1;
      const MPI_Count dims = n.at(0);
      for (MPI_Count i = 0; i < dims; ++i) product *= n.at(static_cast<std::size_t>(1 + dims + i));
      return product * old(0);
    }
    default:
      break;
  }
  fail(MPI_ERR_TYPE, "cannot count the basic elements of a datatype of combiner {}", t.combiner);
}

/// Basic elements in the first `bytes` bytes of data of one element of `t` (0 < bytes < t.size),
/// or MPI_UNDEFINED when they end inside a basic element.
MPI_Count partial(const rmpl_mpi_datatype& t, MPI_Count bytes) {
  if (t.combiner == MPI_COMBINER_NAMED) {
    // A pair's value alone is one basic element; any other part of a predefined type is none.
    return is_pair(t.basic) && bytes == t.size - static_cast<MPI_Count>(sizeof(int))
               ? 1
               : MPI_UNDEFINED;
  }
  if (t.basic != detail::scalar::none && !is_pair(t.basic) && t.basic_size > 0) {
    return bytes % t.basic_size == 0 ? bytes / t.basic_size : MPI_UNDEFINED;
  }
  MPI_Count sum = 0, left = bytes;
  for_each_piece(t, [&](const piece& p) {
    if (left <= 0 || sum == MPI_UNDEFINED || p.copies == 0 || p.type->size == 0) return;
    const rmpl_mpi_datatype& o = *p.type;
    const MPI_Count whole = std::min<MPI_Count>(p.copies, left / o.size);
    sum += whole * per_element(o);
    left -= whole * o.size;
    if (whole < p.copies && left > 0) {
      const MPI_Count rest = partial(o, left);
      sum = rest == MPI_UNDEFINED ? MPI_UNDEFINED : sum + rest;
      left = 0;
    }
  });
  return sum;
}

}  // namespace

bool value_index_pairs(const rmpl_mpi_datatype& t) noexcept {
  return is_pair(t.basic);
}

MPI_Count basic_elements(const rmpl_mpi_datatype& t, MPI_Count bytes) {
  if (bytes == 0) return 0;
  if (t.basic != detail::scalar::none && !is_pair(t.basic) && t.basic_size > 0) {
    return bytes % t.basic_size == 0 ? bytes / t.basic_size : MPI_UNDEFINED;
  }
  if (t.size == 0) return MPI_UNDEFINED;
  const MPI_Count whole = bytes / t.size * per_element(t);
  if (bytes % t.size == 0) return whole;
  const MPI_Count rest = partial(t, bytes % t.size);
  return rest == MPI_UNDEFINED ? MPI_UNDEFINED : whole + rest;
}

}  // namespace rmpl::mpi
