// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size (MPI-3.1 4.2.3) with the one
// data representation MPI defines, "external32" (13.5.2): every basic value big-endian, integers
// in two's complement and reals in IEEE 754, each predefined type with the standard's size, which
// is not always the native one (MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2,
// MPI_LONG_DOUBLE a 16-byte IEEE quad).
//
// A type is walked element by basic element, following its constructor's description
// (for_each_piece), since the flattened runs the layer sends say where data is, not of which type.
// A value the external size cannot hold (a long beyond 32 bits, a wchar_t beyond 16) fails with
// MPI_ERR_CONVERSION naming it, rather than being cut.
#include <bit>
#include <cfloat>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"

namespace rmpl::mpi {
namespace {

/// One basic value of a predefined type: at `offset` in the native element, `native` bytes there,
/// `external` bytes in external32.
struct component {
  enum kind : std::uint8_t { unsigned_integer, signed_integer, real, long_double };
  MPI_Aint offset;
  int native;
  int external;
  kind how;
};
using format = std::vector<component>;

/// The external32 format of each predefined type (none for MPI_LB / MPI_UB, which hold no data).
const std::unordered_map<const rmpl_mpi_datatype*, format>& formats() {
  static const auto table = [] {
    std::unordered_map<const rmpl_mpi_datatype*, format> f;
    auto scalar = [&](MPI_Datatype t, int external, component::kind how) {
      f[t] = {{0, static_cast<int>(t->size), external, how}};
    };
    using enum component::kind;
    for (MPI_Datatype t : {MPI_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_PACKED, MPI_C_BOOL,
                           MPI_CXX_BOOL, MPI_UINT8_T}) {
      scalar(t, 1, unsigned_integer);
    }
    scalar(MPI_SIGNED_CHAR, 1, signed_integer);
    scalar(MPI_INT8_T, 1, signed_integer);
    scalar(MPI_WCHAR, 2, unsigned_integer);  // a UTF-16 code unit
    for (MPI_Datatype t : {MPI_SHORT, MPI_INT16_T}) scalar(t, 2, signed_integer);
    for (MPI_Datatype t : {MPI_UNSIGNED_SHORT, MPI_UINT16_T}) scalar(t, 2, unsigned_integer);
    for (MPI_Datatype t : {MPI_INT, MPI_LONG, MPI_INT32_T}) scalar(t, 4, signed_integer);
    for (MPI_Datatype t : {MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UINT32_T}) {
      scalar(t, 4, unsigned_integer);
    }
    for (MPI_Datatype t : {MPI_LONG_LONG_INT, MPI_INT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT}) {
      scalar(t, 8, signed_integer);
    }
    for (MPI_Datatype t : {MPI_UNSIGNED_LONG_LONG, MPI_UINT64_T}) scalar(t, 8, unsigned_integer);
    scalar(MPI_FLOAT, 4, real);
    scalar(MPI_DOUBLE, 8, real);
    scalar(MPI_LONG_DOUBLE, 16, long_double);
    // Complex numbers: two reals; value-index pairs: the value, then the int.
    auto two = [&](MPI_Datatype t, component first, component second) { f[t] = {first, second}; };
    two(MPI_C_FLOAT_COMPLEX, {0, 4, 4, real}, {4, 4, 4, real});
    two(MPI_C_DOUBLE_COMPLEX, {0, 8, 8, real}, {8, 8, 8, real});
    const int ld = static_cast<int>(sizeof(long double));
    two(MPI_C_LONG_DOUBLE_COMPLEX, {0, ld, 16, long_double}, {ld, ld, 16, long_double});
    auto pair = [&](MPI_Datatype t, component value) {
      // The index is the last int of the pair's data (datatypes.cpp lays pairs out as C does).
      two(t, value, {t->true_extent - 4, 4, 4, signed_integer});
    };
    pair(MPI_FLOAT_INT, {0, 4, 4, real});
    pair(MPI_DOUBLE_INT, {0, 8, 8, real});
    pair(MPI_LONG_INT, {0, static_cast<int>(sizeof(long)), 4, signed_integer});
    pair(MPI_2INT, {0, 4, 4, signed_integer});
    pair(MPI_SHORT_INT, {0, 2, 2, signed_integer});
    pair(MPI_LONG_DOUBLE_INT, {0, ld, 16, long_double});
    f[MPI_LB] = {};
    f[MPI_UB] = {};
    return f;
  }();
  return table;
}

/// Where one element's basic values are (offset from the element) and their formats, in type-map
/// order, and the external size of the element.
struct layout {
  std::vector<std::pair<MPI_Aint, const format*>> values;
  MPI_Aint external = 0;
};

void walk(const rmpl_mpi_datatype& t, MPI_Aint base, layout& out) {
  if (t.combiner == MPI_COMBINER_NAMED) {
    const auto found = formats().find(&t);
    if (found == formats().end()) {
      fail(MPI_ERR_TYPE, "{} has no external32 representation", t.name);
    }
    if (found->second.empty()) return;
    out.values.emplace_back(base, &found->second);
    for (const component& c : found->second) out.external += c.external;
    return;
  }
  for_each_piece(t, [&](const piece& p) {
    for (MPI_Count k = 0; k < p.copies; ++k)
      walk(*p.type, base + p.displacement + k * p.type->extent, out);
  });
}

layout layout_of(const rmpl_mpi_datatype& t) {
  layout l;
  walk(t, 0, l);
  return l;
}

/// The data representation: "external32" is the only one (MPI_ERR_ARG for any other).
void external32(const char* datarep) {
  if (datarep == nullptr) fail(MPI_ERR_ARG, "datarep is a null pointer");
  if (std::string_view(datarep) != "external32") {
    fail(MPI_ERR_ARG, "data representation \"{}\" is not supported: only \"external32\" is",
         datarep);
  }
}

MPI_Aint external_bytes(const layout& l, MPI_Count count) {
  MPI_Aint bytes = 0;
  if (__builtin_mul_overflow(static_cast<MPI_Aint>(count), l.external, &bytes)) {
    fail(MPI_ERR_COUNT, "{} elements of {} external32 bytes overflow MPI_Aint", count, l.external);
  }
  return bytes;
}

/// Big-endian bytes of the low `n` bytes of `v`, and back.
void put_big_endian(std::uint64_t v, int n, std::byte* out) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) out[i] = static_cast<std::byte>(v & 0xff);
}
std::uint64_t get_big_endian(const std::byte* in, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | static_cast<std::uint64_t>(in[i]);
  return v;
}

/// The native bytes of an n-byte integer or real as the unsigned number they spell.
std::uint64_t load(const std::byte* p, int n) {
  std::uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, static_cast<std::size_t>(n));
  } else {
    std::memcpy(reinterpret_cast<std::byte*>(&v) + (8 - n), p, static_cast<std::size_t>(n));
  }
  return v;
}
void store(std::uint64_t v, std::byte* p, int n) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, static_cast<std::size_t>(n));
  } else {
    std::memcpy(p, reinterpret_cast<const std::byte*>(&v) + (8 - n), static_cast<std::size_t>(n));
  }
}

/// A long double as the 16 bytes of the IEEE quad of the same value (big-endian), and back.
void quad_out(const std::byte* in, std::byte* out) {
  long double v;
  std::memcpy(&v, in, sizeof v);
#if LDBL_MANT_DIG == 113
  const long double q = v;
#else
  const __float128 q = static_cast<__float128>(v);
#endif
  unsigned char bytes[16];
  std::memcpy(bytes, &q, 16);
  for (int i = 0; i < 16; ++i) {
    out[i] = static_cast<std::byte>(bytes[std::endian::native == std::endian::little ? 15 - i : i]);
  }
}
void quad_in(const std::byte* in, std::byte* out) {
  unsigned char bytes[16];
  for (int i = 0; i < 16; ++i) {
    bytes[std::endian::native == std::endian::little ? 15 - i : i] =
        static_cast<unsigned char>(in[i]);
  }
#if LDBL_MANT_DIG == 113
  long double v;
  std::memcpy(&v, bytes, 16);
#else
  __float128 q;
  std::memcpy(&q, bytes, 16);
  const long double v = static_cast<long double>(q);
#endif
  std::memcpy(out, &v, sizeof v);
}

/// Packs one basic value; `element` names it in a conversion error.
void pack_value(const component& c, const std::byte* in, std::byte* out, MPI_Count element) {
  if (c.how == component::long_double) {
    quad_out(in, out);
    return;
  }
  const std::uint64_t v = load(in, c.native);
  if (c.external < c.native) {
    // Narrowing (long, wchar_t): the value must survive the round trip.
    const int drop = 64 - 8 * c.external;
    const int native_bits = 8 * c.native;
    bool fits;
    long long shown;
    if (c.how == component::signed_integer) {
      const auto s = static_cast<long long>(v << (64 - native_bits)) >> (64 - native_bits);
      fits = (static_cast<long long>(static_cast<std::uint64_t>(s) << drop) >> drop) == s;
      shown = s;
    } else {
      fits = (v >> (8 * c.external)) == 0;
      shown = static_cast<long long>(v);
    }
    if (!fits) {
      fail(MPI_ERR_CONVERSION,
           "basic element {} ({}) does not fit the {} bytes external32 gives its type (native {})",
           element, shown, c.external, c.native);
    }
  }
  put_big_endian(v, c.external, out);
}

void unpack_value(const component& c, const std::byte* in, std::byte* out) {
  if (c.how == component::long_double) {
    quad_in(in, out);
    return;
  }
  std::uint64_t v = get_big_endian(in, c.external);
  if (c.how == component::signed_integer && c.external < 8) {
    const int drop = 64 - 8 * c.external;
    v = static_cast<std::uint64_t>(static_cast<long long>(v << drop) >> drop);  // sign-extend
  }
  store(v, out, c.native);
}

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

template <class Count>
int Pack_external(const char datarep[], const void* inbuf, Count incount, MPI_Datatype datatype,
                  void* outbuf, extent_of<Count> outsize, extent_of<Count>* position) {
  external32(datarep);
  rmpl::mpi::count(incount, "incount");
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype);
  buffer(inbuf, incount, t, "inbuf");
  position_in(position, outsize, "outsize");
  const layout l = layout_of(t);
  const MPI_Aint bytes = external_bytes(l, incount);
  if (bytes > outsize - *position) {
    fail(MPI_ERR_TRUNCATE,
         "{} elements of {} external32 bytes ({} bytes) do not fit in the {} bytes left of "
         "outbuf (outsize {}, position {})",
         incount, l.external, bytes, outsize - *position, outsize, *position);
  }
  if (bytes > 0 && outbuf == nullptr) fail(MPI_ERR_BUFFER, "outbuf is null");
  auto* out = static_cast<std::byte*>(outbuf) + *position;
  const auto* element = static_cast<const std::byte*>(inbuf);
  MPI_Count value = 0;
  for (Count i = 0; i < incount; ++i, element += t.extent) {
    for (const auto& [offset, f] : l.values) {
      for (const component& c : *f) {
        pack_value(c, element + offset + c.offset, out, value++);
        out += c.external;
      }
    }
  }
  *position += bytes;
  return MPI_SUCCESS;
}

template <class Count>
int Unpack_external(const char datarep[], const void* inbuf, extent_of<Count> insize,
                    extent_of<Count>* position, void* outbuf, Count outcount,
                    MPI_Datatype datatype) {
  external32(datarep);
  rmpl::mpi::count(outcount, "outcount");
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype);
  buffer(outbuf, outcount, t, "outbuf");
  position_in(position, insize, "insize");
  const layout l = layout_of(t);
  const MPI_Aint bytes = external_bytes(l, outcount);
  if (bytes > insize - *position) {
    fail(MPI_ERR_TRUNCATE,
         "{} elements of {} external32 bytes ({} bytes) are more than the {} bytes left in "
         "inbuf (insize {}, position {})",
         outcount, l.external, bytes, insize - *position, insize, *position);
  }
  if (bytes > 0 && inbuf == nullptr) fail(MPI_ERR_BUFFER, "inbuf is null");
  const auto* in = static_cast<const std::byte*>(inbuf) + *position;
  auto* element = static_cast<std::byte*>(outbuf);
  for (Count i = 0; i < outcount; ++i, element += t.extent) {
    for (const auto& [offset, f] : l.values) {
      for (const component& c : *f) {
        unpack_value(c, in, element + offset + c.offset);
        in += c.external;
      }
    }
  }
  *position += bytes;
  return MPI_SUCCESS;
}

template <class Count>
int Pack_external_size(const char datarep[], Count incount, MPI_Datatype datatype,
                       extent_of<Count>* size) {
  external32(datarep);
  rmpl::mpi::count(incount, "incount");
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype);
  if (size == nullptr) fail(MPI_ERR_ARG, "size is a null pointer");
  *size = external_bytes(layout_of(t), incount);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/external32.inc"  // the MPI_ and PMPI_ functions (generated)
