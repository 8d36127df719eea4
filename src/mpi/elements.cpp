// MPI_Get_elements' count: basic elements in a received byte count. A type made of one basic type
// divides; a mixed one counts its whole elements from its constructor's description (the
// envelope and contents MPI_Type_get_contents reports) and walks the last, partial one.
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"

namespace rmpl::mpi {
namespace {

/// Basic elements in one element of `t`.
MPI_Count per_element(const rmpl_mpi_datatype& t) {
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
      return MPI_Count{n.at(0)} * n.at(1) * old(0);
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
      for (int i = 0; i < n.at(0); ++i) sum += n.at(1 + static_cast<std::size_t>(i));
      return sum * old(0);
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      return MPI_Count{n.at(0)} * n.at(1) * old(0);
    case MPI_COMBINER_STRUCT:
      for (int i = 0; i < n.at(0); ++i) {
        sum += MPI_Count{n.at(1 + static_cast<std::size_t>(i))} * old(static_cast<std::size_t>(i));
      }
      return sum;
    case MPI_COMBINER_DARRAY:  // this process's part of the array: whole elements of the old type
      return t.types.at(0)->size > 0 ? t.size / t.types.at(0)->size * old(0) : 0;
    case MPI_COMBINER_SUBARRAY: {
      MPI_Count product = 1;
      const int dims = n.at(0);
      for (int i = 0; i < dims; ++i) product *= n.at(1 + static_cast<std::size_t>(dims + i));
      return product * old(0);
    }
    default:
      break;
  }
  fail(MPI_ERR_TYPE, "cannot count the basic elements of a datatype of combiner {}", t.combiner);
}

}  // namespace

MPI_Count basic_elements(const rmpl_mpi_datatype& t, MPI_Count bytes) {
  if (bytes == 0) return 0;
  if (t.basic != detail::scalar::none && t.basic_size > 0) {
    return bytes % t.basic_size == 0 ? bytes / t.basic_size : MPI_UNDEFINED;
  }
  if (t.size == 0) return MPI_UNDEFINED;
  // Whole elements only: a partial element of a mixed type would need its type map walked basic
  // element by basic element.
  return bytes % t.size == 0 ? bytes / t.size * per_element(t) : MPI_UNDEFINED;
}

}  // namespace rmpl::mpi
