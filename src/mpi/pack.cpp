// Moving the data of typed buffers (datatypes.hpp) and MPI_Pack / MPI_Unpack / MPI_Pack_size
// (MPI-3.1 4.2). The packed form of `count` elements is just their data bytes in type-map order,
// the same bytes the layer sends, so a buffer packed here may be sent as MPI_PACKED and received
// with the type itself, and the other way round.
#include <algorithm>
#include <cstring>
#include <limits>

#include "base/config.hpp"
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"

namespace rmpl::mpi {

std::size_t data_bytes(const rmpl_mpi_datatype& t, MPI_Count count) {
  if (count < 0) fail(MPI_ERR_COUNT, "count {} is negative", count);
  MPI_Count bytes = 0;
  if (__builtin_mul_overflow(count, t.size, &bytes) ||
      static_cast<unsigned long long>(bytes) > std::numeric_limits<std::size_t>::max() / 2) {
    fail(MPI_ERR_COUNT, "{} elements of {} bytes do not fit in memory", count, t.size);
  }
  return static_cast<std::size_t>(bytes);
}

void pack(const void* buf, MPI_Count count, const rmpl_mpi_datatype& t, std::byte* out) {
  if (count <= 0 || t.size == 0) return;
  if (t.contiguous) {
    std::memcpy(out, data_start(buf, t), static_cast<std::size_t>(count) * t.size);
    return;
  }
  const auto* element = static_cast<const std::byte*>(buf);
  for (MPI_Count i = 0; i < count; ++i, element += t.extent) {
    const std::byte* at = element;
    for (MPI_Count r = 0; r < t.repeats; ++r, at += t.repeat_stride) {
      for (const block& b : t.blocks) {
        std::memcpy(out, at + b.offset, static_cast<std::size_t>(b.length));
        out += b.length;
      }
    }
  }
}

std::uint64_t segment_min() {
  static const std::uint64_t bytes = base::env_size("RMPL_SEGMENT_MIN", 4096, 1, 1u << 30);
  return bytes;
}

core::segment_list segments_of(const void* buf, MPI_Count count, const rmpl_mpi_datatype& t,
                               std::size_t eager_max) {
  // process_vm_readv pins the pages of each remote segment separately, so a rendezvous pays per
  // segment: measured (bench/mpi/noncontig.c, 16 MiB vectors between 2 ranks, loaded machine),
  // 1 KiB blocks took 1.4x the time of packing them, 4 KiB blocks 0.8x, 16 KiB 0.55x, 64 KiB 0.5x.
  // Up to the eager limit the segments are gathered and scattered with memcpy: always worth it.
  const std::uint64_t min_average = segment_min();
  core::segment_list out;
  if (count <= 0 || t.size == 0 || t.blocks.empty()) return out;
  // (data_bytes() has checked count * t.size; the number of segments can still overflow.)
  std::size_t most = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(count), t.blocks.size(), &most) ||
      __builtin_mul_overflow(most, static_cast<std::size_t>(t.repeats), &most) ||
      most > std::numeric_limits<std::size_t>::max() / sizeof(iovec)) {
    return out;
  }
  const auto bytes = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(t.size);
  if (bytes > eager_max && bytes / most < min_average) return out;
  out.entries = std::make_unique<iovec[]>(most);
  iovec* last = nullptr;
  const auto* element = static_cast<const std::byte*>(buf);
  for (MPI_Count i = 0; i < count; ++i, element += t.extent) {
    const std::byte* repeat = element;
    for (MPI_Count r = 0; r < t.repeats; ++r, repeat += t.repeat_stride) {
      for (const block& b : t.blocks) {
        if (b.length == 0) continue;
        auto* at = const_cast<std::byte*>(repeat + b.offset);
        if (last != nullptr && static_cast<std::byte*>(last->iov_base) + last->iov_len == at) {
          last->iov_len += static_cast<std::size_t>(b.length);
        } else {
          last = &out.entries[out.count++];
          *last = iovec{at, static_cast<std::size_t>(b.length)};
        }
      }
    }
  }
  return out;
}

void unpack(const std::byte* in, std::size_t bytes, void* buf, MPI_Count count,
            const rmpl_mpi_datatype& t) {
  if (count <= 0 || t.size == 0 || bytes == 0) return;
  const std::size_t whole = static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size);
  if (bytes > whole) bytes = whole;
  if (t.contiguous) {
    std::memcpy(data_start(buf, t), in, bytes);
    return;
  }
  auto* element = static_cast<std::byte*>(buf);
  for (MPI_Count i = 0; i < count && bytes > 0; ++i, element += t.extent) {
    std::byte* at = element;
    for (MPI_Count r = 0; r < t.repeats; ++r, at += t.repeat_stride) {
      for (const block& b : t.blocks) {
        const std::size_t n = std::min(bytes, static_cast<std::size_t>(b.length));
        std::memcpy(at + b.offset, in, n);
        in += n;
        bytes -= n;
        if (bytes == 0) return;
      }
    }
  }
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

// The positions and sizes are ints in MPI_X, MPI_Count in MPI_X_c (as the counts).

template <class Count>
int Pack(const void* inbuf, Count incount, MPI_Datatype datatype, void* outbuf, Count outsize,
         Count* position, MPI_Comm comm) {
  rmpl::mpi::comm(comm);
  rmpl::mpi::count(incount, "incount");
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype);
  buffer(inbuf, incount, t, "inbuf");
  position_in(position, outsize, "outsize");
  const std::size_t bytes = data_bytes(t, incount);
  const std::size_t left = static_cast<std::size_t>(outsize - *position);
  if (bytes > left) {
    fail(MPI_ERR_TRUNCATE,
         "{} elements of {} bytes of data ({} bytes) do not fit in the {} bytes left of outbuf "
         "(outsize {}, position {})",
         incount, t.size, bytes, left, outsize, *position);
  }
  if (bytes > 0 && outbuf == nullptr) fail(MPI_ERR_BUFFER, "outbuf is null");
  pack(inbuf, incount, t, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<Count>(bytes);  // at most outsize - *position
  return MPI_SUCCESS;
}

template <class Count>
int Unpack(const void* inbuf, Count insize, Count* position, void* outbuf, Count outcount,
           MPI_Datatype datatype, MPI_Comm comm) {
  rmpl::mpi::comm(comm);
  rmpl::mpi::count(outcount, "outcount");
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype);
  buffer(outbuf, outcount, t, "outbuf");
  position_in(position, insize, "insize");
  const std::size_t bytes = data_bytes(t, outcount);
  const std::size_t left = static_cast<std::size_t>(insize - *position);
  if (bytes > left) {
    fail(MPI_ERR_TRUNCATE,
         "{} elements of {} bytes of data ({} bytes) are more than the {} bytes left in inbuf "
         "(insize {}, position {})",
         outcount, t.size, bytes, left, insize, *position);
  }
  if (bytes > 0 && inbuf == nullptr) fail(MPI_ERR_BUFFER, "inbuf is null");
  unpack(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf, outcount, t);
  *position += static_cast<Count>(bytes);  // at most insize - *position
  return MPI_SUCCESS;
}

template <class Count>
int Pack_size(Count incount, MPI_Datatype datatype, MPI_Comm comm, Count* size) {
  rmpl::mpi::comm(comm);
  rmpl::mpi::count(incount, "incount");
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype);
  if (size == nullptr) fail(MPI_ERR_ARG, "size is a null pointer");
  const std::size_t bytes = data_bytes(t, incount);
  if (bytes > static_cast<std::size_t>(std::numeric_limits<Count>::max())) {
    fail(MPI_ERR_COUNT,
         "{} elements of {} bytes of data ({} bytes) do not fit in an int: MPI_Pack_size_c "
         "gives it",
         incount, t.size, bytes);
  }
  *size = static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/pack.inc"  // the MPI_ and PMPI_ functions (generated)
