// What the other chapters need of datatypes (datatypes.cpp builds them, pack.cpp moves their data).
#pragma once

#include <cstddef>
#include <functional>

#include "core/segments.hpp"
#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// `copies` consecutive elements of `type` (extent apart), the first at `displacement`: what a
/// constructor's type map is made of.
struct piece {
  MPI_Aint displacement;
  MPI_Count copies;
  const rmpl_mpi_datatype* type;
};

/// The pieces of derived type `t` (not a predefined one), in type-map order, as its constructor
/// laid them out from its contents (MPI_Type_get_contents): what walks a type element by basic
/// element (external32.cpp) follows.
void for_each_piece(const rmpl_mpi_datatype& t, const std::function<void(const piece&)>& visit);

/// Bytes of data in `count` elements of `t` (count * t.size); MPI_ERR_COUNT if that overflows.
std::size_t data_bytes(const rmpl_mpi_datatype& t, MPI_Count count);

/// Where `count` elements of a contiguous type at `buf` begin (buf + t.true_lb).
inline const void* data_start(const void* buf, const rmpl_mpi_datatype& t) noexcept {
  return static_cast<const std::byte*>(buf) + t.true_lb;
}
inline void* data_start(void* buf, const rmpl_mpi_datatype& t) noexcept {
  return static_cast<std::byte*>(buf) + t.true_lb;
}

/// Copies the data of `count` elements at `buf` to `out` (data_bytes(t, count) bytes), packed.
void pack(const void* buf, MPI_Count count, const rmpl_mpi_datatype& t, std::byte* out);
/// Copies `bytes` packed bytes (at most data_bytes(t, count)) from `in` into the elements at `buf`:
/// whole elements, then the part of the next one that `bytes` covers.
void unpack(const std::byte* in, std::size_t bytes, void* buf, MPI_Count count,
            const rmpl_mpi_datatype& t);

/// The data of `count` elements of `t` at `buf` as (address, length) segments in type-map order,
/// adjacent ones merged, for the kernel to move without packing (core/segments.hpp). Empty when
/// there is no data, or when more than `eager_max` bytes (a rendezvous) would come in segments too
/// short on average (under RMPL_SEGMENT_MIN bytes, 4096 by default): then packing costs less than
/// process_vm_readv's work per segment.
core::segment_list segments_of(const void* buf, MPI_Count count, const rmpl_mpi_datatype& t,
                               std::size_t eager_max);
/// RMPL_SEGMENT_MIN, read once (MPI_Init reads it, so that a bad value stops the start).
std::uint64_t segment_min();

/// Whether `t` is made of value-index pairs (MPI_DOUBLE_INT...) only: each two basic elements.
bool value_index_pairs(const rmpl_mpi_datatype& t) noexcept;

/// MPI_Get_elements: the basic elements (ints, doubles...) that `bytes` of data of `t` hold, or
/// MPI_UNDEFINED when `bytes` ends inside one (elements.cpp).
MPI_Count basic_elements(const rmpl_mpi_datatype& t, MPI_Count bytes);

}  // namespace rmpl::mpi
