// Derived datatypes (MPI-3.1 chapter 4.1): the predefined types and the type constructors.
//
// A datatype is kept in the form the rest of the layer moves data with: the size, bounds and true
// bounds of one element, and its data flattened into (offset, length) runs in type-map order
// (`blocks`; a vector of very many blocks keeps one block's runs and repeats them, `repeats`). A
// constructor computes all of it from the types it is built from, so a derived type never refers
// to another after its construction (freeing a type never breaks one built from it).
#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>

#include "mpi/attributes.hpp"
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"
#include "mpi/pool.hpp"

namespace {

using rmpl::detail::scalar;
using rmpl::detail::scalar_of;

/// Marks `t` committed (ready for communication) and sets what follows from that.
void commit(rmpl_mpi_datatype& t) {
  t.committed = true;
  // An int count is below 2^31, so count * size stays below 2^63 (what data_bytes allows).
  t.plain = t.contiguous && t.size <= (MPI_Count{1} << 32);
}

/// A predefined type whose element is the C type T: one run of sizeof(T) bytes.
template <class T>
rmpl_mpi_datatype named(const char* name, scalar basic = scalar_of<T>()) {
  rmpl_mpi_datatype t;
  t.predefined = true;
  t.size = sizeof(T);
  t.extent = sizeof(T);
  t.true_extent = sizeof(T);
  t.contiguous = true;
  commit(t);
  t.blocks = {{0, static_cast<MPI_Aint>(sizeof(T))}};
  t.basic = basic;
  t.basic_count = 1;
  t.basic_size = sizeof(T);
  t.alignment = alignof(T);
  t.combiner = MPI_COMBINER_NAMED;
  t.name = name;
  return t;
}

/// The value-index pairs of MPI_MINLOC / MPI_MAXLOC: laid out as struct {T value; int index;},
/// whose data is the value and the index, not the padding between or after them.
template <class T>
rmpl_mpi_datatype pair(const char* name, scalar basic) {
  struct layout {
    T value;
    int index;
  };
  rmpl_mpi_datatype t = named<layout>(name, basic);
  constexpr auto index_at = static_cast<MPI_Aint>(offsetof(layout, index));
  t.size = sizeof(T) + sizeof(int);
  t.true_extent = index_at + static_cast<MPI_Aint>(sizeof(int));
  if (index_at == sizeof(T)) {
    t.blocks = {{0, static_cast<MPI_Aint>(t.size)}};
  } else {
    t.blocks = {{0, sizeof(T)}, {index_at, sizeof(int)}};
  }
  t.contiguous = t.blocks.size() == 1 && t.size == t.extent;
  // named() committed the struct as contiguous; only the pairs without padding (MPI_2INT,
  // MPI_FLOAT_INT) are, and `plain` sends the fast paths count * size bytes from buf, which for
  // the others would miss every element's data after the first.
  commit(t);
  t.basic_size = t.size;
  return t;
}

/// The Fortran pairs of MPI_MINLOC / MPI_MAXLOC whose index is a real (MPI_2REAL,
/// MPI_2DOUBLE_PRECISION): two T, contiguous. The reductions convert the index (operators.cpp).
template <class T>
rmpl_mpi_datatype real_pair(const char* name, scalar basic) {
  struct layout {
    T value;
    T index;
  };
  rmpl_mpi_datatype t = named<layout>(name, basic);
  t.basic_size = t.size;
  return t;
}

/// MPI_LB and MPI_UB: no data, only a position that becomes the lower / upper bound of the type
/// built from it (MPI-1 MPI_Type_struct); the composition rules treat them as explicit bounds.
rmpl_mpi_datatype marker(const char* name, bool lower) {
  rmpl_mpi_datatype t = named<char>(name, scalar::none);
  t.size = t.extent = t.true_extent = 0;
  t.blocks.clear();
  t.basic_count = t.basic_size = 0;
  t.alignment = 1;
  (lower ? t.explicit_lb : t.explicit_ub) = true;
  return t;
}

}  // namespace

// The predefined types are constructed before any other static object of the library or of a
// program (init_priority), so a static initialiser elsewhere may already use them.
#define RMPL_PREDEFINED_TYPE(object, ...) \
  __attribute__((init_priority(200))) struct rmpl_mpi_datatype object = __VA_ARGS__;

RMPL_PREDEFINED_TYPE(rmpl_mpi_char, named<char>("MPI_CHAR", scalar::i8))
RMPL_PREDEFINED_TYPE(rmpl_mpi_signed_char, named<signed char>("MPI_SIGNED_CHAR"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_unsigned_char, named<unsigned char>("MPI_UNSIGNED_CHAR"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_byte, named<unsigned char>("MPI_BYTE"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_wchar, named<wchar_t>("MPI_WCHAR"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_short, named<short>("MPI_SHORT"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_unsigned_short, named<unsigned short>("MPI_UNSIGNED_SHORT"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_int, named<int>("MPI_INT"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_unsigned, named<unsigned>("MPI_UNSIGNED"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_long, named<long>("MPI_LONG"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_unsigned_long, named<unsigned long>("MPI_UNSIGNED_LONG"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_long_long, named<long long>("MPI_LONG_LONG_INT"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_unsigned_long_long,
                     named<unsigned long long>("MPI_UNSIGNED_LONG_LONG"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_float, named<float>("MPI_FLOAT"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_double, named<double>("MPI_DOUBLE"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_long_double, named<long double>("MPI_LONG_DOUBLE"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_int8_t, named<std::int8_t>("MPI_INT8_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_int16_t, named<std::int16_t>("MPI_INT16_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_int32_t, named<std::int32_t>("MPI_INT32_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_int64_t, named<std::int64_t>("MPI_INT64_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_uint8_t, named<std::uint8_t>("MPI_UINT8_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_uint16_t, named<std::uint16_t>("MPI_UINT16_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_uint32_t, named<std::uint32_t>("MPI_UINT32_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_uint64_t, named<std::uint64_t>("MPI_UINT64_T"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_c_bool, named<bool>("MPI_C_BOOL"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_aint, named<MPI_Aint>("MPI_AINT", scalar::i64))
RMPL_PREDEFINED_TYPE(rmpl_mpi_offset, named<MPI_Offset>("MPI_OFFSET", scalar::i64))
RMPL_PREDEFINED_TYPE(rmpl_mpi_count, named<MPI_Count>("MPI_COUNT", scalar::i64))
RMPL_PREDEFINED_TYPE(rmpl_mpi_packed, named<unsigned char>("MPI_PACKED", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_float_int, pair<float>("MPI_FLOAT_INT", scalar::vi_f32))
RMPL_PREDEFINED_TYPE(rmpl_mpi_double_int, pair<double>("MPI_DOUBLE_INT", scalar::vi_f64))
RMPL_PREDEFINED_TYPE(rmpl_mpi_long_int, pair<long>("MPI_LONG_INT", scalar::vi_i64))
RMPL_PREDEFINED_TYPE(rmpl_mpi_2int, pair<int>("MPI_2INT", scalar::vi_i32))
RMPL_PREDEFINED_TYPE(rmpl_mpi_short_int, pair<short>("MPI_SHORT_INT", scalar::vi_i16))
RMPL_PREDEFINED_TYPE(rmpl_mpi_long_double_int,
                     pair<long double>("MPI_LONG_DOUBLE_INT", scalar::vi_f80))
RMPL_PREDEFINED_TYPE(rmpl_mpi_c_float_complex,
                     named<std::complex<float>>("MPI_C_FLOAT_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_c_double_complex,
                     named<std::complex<double>>("MPI_C_DOUBLE_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_c_long_double_complex,
                     named<std::complex<long double>>("MPI_C_LONG_DOUBLE_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_cxx_bool, named<bool>("MPI_CXX_BOOL"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_integer, named<int>("MPI_INTEGER"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_real, named<float>("MPI_REAL"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_double_precision, named<double>("MPI_DOUBLE_PRECISION"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_complex, named<std::complex<float>>("MPI_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_double_complex,
                     named<std::complex<double>>("MPI_DOUBLE_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_logical, named<int>("MPI_LOGICAL"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_character, named<char>("MPI_CHARACTER", scalar::i8))
RMPL_PREDEFINED_TYPE(rmpl_mpi_integer1, named<std::int8_t>("MPI_INTEGER1"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_integer2, named<std::int16_t>("MPI_INTEGER2"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_integer4, named<std::int32_t>("MPI_INTEGER4"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_integer8, named<std::int64_t>("MPI_INTEGER8"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_real4, named<float>("MPI_REAL4"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_real8, named<double>("MPI_REAL8"))
RMPL_PREDEFINED_TYPE(rmpl_mpi_complex8, named<std::complex<float>>("MPI_COMPLEX8", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_complex16, named<std::complex<double>>("MPI_COMPLEX16", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_cxx_float_complex,
                     named<std::complex<float>>("MPI_CXX_FLOAT_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_cxx_double_complex,
                     named<std::complex<double>>("MPI_CXX_DOUBLE_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_cxx_long_double_complex,
                     named<std::complex<long double>>("MPI_CXX_LONG_DOUBLE_COMPLEX", scalar::none))
RMPL_PREDEFINED_TYPE(rmpl_mpi_2integer, pair<int>("MPI_2INTEGER", scalar::vi_i32))
RMPL_PREDEFINED_TYPE(rmpl_mpi_2real, real_pair<float>("MPI_2REAL", scalar::vi_f32))
RMPL_PREDEFINED_TYPE(rmpl_mpi_2double_precision,
                     real_pair<double>("MPI_2DOUBLE_PRECISION", scalar::vi_f64))
RMPL_PREDEFINED_TYPE(rmpl_mpi_lb, marker("MPI_LB", true))
RMPL_PREDEFINED_TYPE(rmpl_mpi_ub, marker("MPI_UB", false))

#undef RMPL_PREDEFINED_TYPE

using namespace rmpl::mpi;

namespace {

pool<rmpl_mpi_datatype>& derived_types() {
  static pool<rmpl_mpi_datatype> p;
  return p;
}

/// Beyond this many runs of data per element a type is refused (MPI_ERR_NO_MEM) rather than
/// flattened: 64 Mi runs are 1 GiB of description. (A vector of more keeps one block's runs and
/// repeats them: lay_out_repeated.)
constexpr MPI_Count max_runs = MPI_Count{1} << 26;

MPI_Aint add(MPI_Aint a, MPI_Aint b) {
  MPI_Aint sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    fail(MPI_ERR_ARG, "displacement {} + {} overflows MPI_Aint", a, b);
  }
  return sum;
}

MPI_Aint multiply(MPI_Aint a, MPI_Aint b) {
  MPI_Aint product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    fail(MPI_ERR_ARG, "displacement {} * {} overflows MPI_Aint", a, b);
  }
  return product;
}

MPI_Count count_product(MPI_Count a, MPI_Count b, const char* what) {
  MPI_Count product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    fail(MPI_ERR_COUNT, "{} {} * {} overflows", what, a, b);
  return product;
}

MPI_Count count_sum(MPI_Count a, MPI_Count b, const char* what) {
  MPI_Count sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) fail(MPI_ERR_COUNT, "{} {} + {} overflows", what, a, b);
  return sum;
}

std::string describe(const rmpl_mpi_datatype& t) {
  return t.name.empty() ? fmt::format("{}", static_cast<const void*>(&t)) : t.name;
}

/// The lowest / highest of the values offered to it, if any were.
struct lowest {
  bool set = false;
  MPI_Aint value = 0;
  void offer(MPI_Aint v) {
    if (!set || v < value) value = v;
    set = true;
  }
};
struct highest {
  bool set = false;
  MPI_Aint value = 0;
  void offer(MPI_Aint v) {
    if (!set || v > value) value = v;
    set = true;
  }
};

/// Appends a run of data, merged with the previous one when it continues it.
void append_run(std::vector<block>& blocks, MPI_Aint offset, MPI_Aint length) {
  if (length == 0) return;
  if (!blocks.empty() && blocks.back().offset + blocks.back().length == offset) {
    blocks.back().length += length;
  } else {
    blocks.push_back({offset, length});
  }
}

void set_contiguous(rmpl_mpi_datatype& t) {
  t.contiguous =
      t.size == 0 || (t.repeats == 1 && t.blocks.size() == 1 && t.blocks[0].offset == t.true_lb &&
                      t.blocks[0].length == t.size && t.size == t.extent);
}

/// Computes the layout of `t` (size, bounds, true bounds, runs, basic type, alignment) from the
/// pieces `for_each_piece(visit)` visits in type-map order. The bounds follow MPI-3.1 4.1.6/4.1.7:
/// explicit bounds (MPI_LB / MPI_UB markers, resized types) among the pieces win over the bounds
/// of the data; with none, `pad_like_c_struct` rounds the extent up to the alignment of the
/// most-aligned member (as MPICH does for MPI_Type_create_struct), so that the type describing a
/// C struct has the struct's size as its extent and `count` of it describe an array of them.
template <class ForEachPiece>
void lay_out(rmpl_mpi_datatype& t, ForEachPiece&& for_each_piece, bool pad_like_c_struct) {
  lowest explicit_lb, implicit_lb, data_lb;
  highest explicit_ub, implicit_ub, data_ub;
  MPI_Count size = 0, runs = 0, basic_count = 0;
  MPI_Aint alignment = 1;
  bool any_data = false, mixed = false, one_type_throughout = true;
  scalar basic = scalar::none;
  MPI_Count basic_size = 0;
  const rmpl_mpi_datatype* first_type = nullptr;

  for_each_piece([&](const piece& p) {
    const rmpl_mpi_datatype& o = *p.type;
    if (first_type == nullptr) first_type = &o;
    if (o.basic != first_type->basic || o.basic_size != first_type->basic_size) {
      one_type_throughout = false;
    }
    if (p.copies == 0) return;
    const MPI_Aint last = add(p.displacement, multiply(p.copies - 1, o.extent));
    const MPI_Aint first_copy = std::min(p.displacement, last);
    const MPI_Aint last_copy = std::max(p.displacement, last);
    const MPI_Aint ub = add(o.lb, o.extent);
    if (o.explicit_lb)
      explicit_lb.offer(add(first_copy, o.lb));
    else if (o.size > 0)
      implicit_lb.offer(add(first_copy, o.lb));
    if (o.explicit_ub)
      explicit_ub.offer(add(last_copy, ub));
    else if (o.size > 0)
      implicit_ub.offer(add(last_copy, ub));
    if (o.size == 0) return;
    data_lb.offer(add(first_copy, o.true_lb));
    data_ub.offer(add(add(last_copy, o.true_lb), o.true_extent));
    size = count_sum(size, count_product(p.copies, o.size, "datatype size"), "datatype size");
    runs += o.contiguous ? 1
                         : count_product(p.copies,
                                         count_product(static_cast<MPI_Count>(o.blocks.size()),
                                                       o.repeats, "runs of data"),
                                         "runs of data");
    if (runs > max_runs) {
      fail(MPI_ERR_NO_MEM, "the datatype would be made of more than {} separate runs of data",
           max_runs);
    }
    alignment = std::max(alignment, o.alignment);
    if (o.basic == scalar::none) {
      mixed = true;
    } else if (!any_data) {
      basic = o.basic;
      basic_size = o.basic_size;
    } else if (o.basic != basic || o.basic_size != basic_size) {
      mixed = true;
    }
    any_data = true;
    basic_count += p.copies * o.basic_count;  // at most `size`, which did not overflow
  });

  t.size = size;
  t.lb = explicit_lb.set ? explicit_lb.value : implicit_lb.value;
  MPI_Aint ub = explicit_ub.set ? explicit_ub.value : implicit_ub.value;
  t.explicit_lb = explicit_lb.set;
  t.explicit_ub = explicit_ub.set;
  if (pad_like_c_struct && !t.explicit_lb && !t.explicit_ub && ub > t.lb) {
    const MPI_Aint excess = (ub - t.lb) % alignment;
    if (excess != 0) ub = add(ub, alignment - excess);
  }
  t.extent = ub - t.lb;
  t.true_lb = data_lb.value;
  t.true_extent = data_ub.value - data_lb.value;
  t.alignment = alignment;
  if (any_data) {
    t.basic = mixed ? scalar::none : basic;
    t.basic_count = mixed ? 0 : basic_count;
    t.basic_size = mixed ? 0 : basic_size;
  } else if (first_type != nullptr && one_type_throughout) {
    // No data, but of one type (contiguous(0, MPI_DOUBLE)): still reducible, zero elements.
    t.basic = first_type->basic;
    t.basic_count = 0;
    t.basic_size = first_type->basic_size;
  }

  t.blocks.clear();
  t.repeats = 1;
  t.repeat_stride = 0;
  t.blocks.reserve(static_cast<std::size_t>(runs));
  for_each_piece([&](const piece& p) {
    const rmpl_mpi_datatype& o = *p.type;
    if (p.copies == 0 || o.size == 0) return;
    if (o.contiguous) {
      append_run(t.blocks, p.displacement + o.true_lb, p.copies * o.size);
      return;
    }
    for (MPI_Count k = 0; k < p.copies; ++k) {
      const MPI_Aint element = p.displacement + k * o.extent;
      for (MPI_Count r = 0; r < o.repeats; ++r) {
        const MPI_Aint at = element + r * o.repeat_stride;
        for (const block& b : o.blocks) append_run(t.blocks, at + b.offset, b.length);
      }
    }
  });
  set_contiguous(t);
}

/// Hands `t` to the program as a new handle in *newtype; the derived types its contents name are
/// kept until it goes.
void publish(rmpl_mpi_datatype&& t, MPI_Datatype* newtype) {
  for (MPI_Datatype component : t.types) {
    if (!component->predefined) ++component->references;
  }
  rmpl_mpi_datatype* made = derived_types().make();
  *made = std::move(t);
  made->tag = magic::datatype;
  made->predefined = false;
  *newtype = made;
}

/// Returns a type the program freed (and that no other names any longer) to the pool, and with it
/// every type its contents named that goes with it.
void release(rmpl_mpi_datatype* t) {
  std::vector<rmpl_mpi_datatype*> going{t};
  while (!going.empty()) {
    rmpl_mpi_datatype* d = going.back();
    going.pop_back();
    for (MPI_Datatype component : d->types) {
      if (!component->predefined && --component->references == 0 && component->tag == magic::dead) {
        going.push_back(component);
      }
    }
    derived_types().recycle(d);
  }
}

/// Copies what describes the data of `from` (everything but the constructor's description, the
/// name and attributes) into `to`.
void copy_layout(const rmpl_mpi_datatype& from, rmpl_mpi_datatype& to) {
  to.size = from.size;
  to.lb = from.lb;
  to.extent = from.extent;
  to.true_lb = from.true_lb;
  to.true_extent = from.true_extent;
  to.contiguous = from.contiguous;
  to.blocks = from.blocks;
  to.repeats = from.repeats;
  to.repeat_stride = from.repeat_stride;
  to.basic = from.basic;
  to.basic_count = from.basic_count;
  to.basic_size = from.basic_size;
  to.alignment = from.alignment;
  to.explicit_lb = from.explicit_lb;
  to.explicit_ub = from.explicit_ub;
}

/// A new type equal to `t` with its own handle (what MPI_Type_get_contents returns for a derived
/// type): same layout, contents, name and committed state, no attributes.
MPI_Datatype clone(const rmpl_mpi_datatype& t) {
  rmpl_mpi_datatype copy;
  copy_layout(t, copy);
  if (t.committed) commit(copy);
  copy.combiner = t.combiner;
  copy.integers = t.integers;
  copy.addresses = t.addresses;
  copy.large = t.large;
  copy.types = t.types;
  copy.name = t.name;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  publish(std::move(copy), &handle);
  return handle;
}

void output(const void* p, const char* what) {
  if (p == nullptr) fail(MPI_ERR_ARG, "{} is a null pointer", what);
}

template <class T>
void array(const T* a, MPI_Count n, const char* what) {
  if (a == nullptr && n > 0) fail(MPI_ERR_ARG, "{} is null with a count of {}", what, n);
}

void blocklength(MPI_Count n, MPI_Count index) {
  if (n < 0) {
    if (index < 0) fail(MPI_ERR_ARG, "blocklength {} is negative", n);
    fail(MPI_ERR_ARG, "array_of_blocklengths[{}] = {} is negative", index, n);
  }
}

void finish_construction(rmpl_mpi_datatype&& t, MPI_Datatype oldtype, MPI_Datatype* newtype,
                         int combiner, std::vector<MPI_Count> integers,
                         std::vector<MPI_Aint> addresses);

/// The shared part of the constructors with one old type: `for_each_piece` lays it out.
template <class ForEachPiece>
void construct(MPI_Datatype oldtype, MPI_Datatype* newtype, int combiner,
               std::vector<MPI_Count> integers, std::vector<MPI_Aint> addresses,
               ForEachPiece&& for_each_piece) {
  rmpl_mpi_datatype t;
  lay_out(t, for_each_piece, false);
  finish_construction(std::move(t), oldtype, newtype, combiner, std::move(integers),
                      std::move(addresses));
}

/// The shared end of the constructors with one old type: `t` laid out, its description added.
void finish_construction(rmpl_mpi_datatype&& t, MPI_Datatype oldtype, MPI_Datatype* newtype,
                         int combiner, std::vector<MPI_Count> integers,
                         std::vector<MPI_Aint> addresses) {
  t.combiner = combiner;
  t.integers = std::move(integers);
  t.addresses = std::move(addresses);
  t.types = {oldtype};
  publish(std::move(t), newtype);
}

/// Visits the pieces of a vector: `count` blocks of `blocklen` elements of `old`, `step` bytes
/// apart. Blocks that abut (`step` is `blocklen` extents) are one piece, so such a vector stays one
/// run however large its count.
template <class Visit>
void strided(Visit&& visit, MPI_Count count, MPI_Count blocklen, MPI_Aint step,
             const rmpl_mpi_datatype& old) {
  MPI_Aint block_extent = 0;
  if (count > 0 && blocklen > 0 && !__builtin_mul_overflow(blocklen, old.extent, &block_extent) &&
      step == block_extent) {
    visit(piece{0, count_product(count, blocklen, "elements"), &old});
    return;
  }
  if (count > max_runs && blocklen > 0 && old.size > 0) {
    fail(MPI_ERR_NO_MEM, "the vector would be made of {} separate runs of data, more than {}",
         count, max_runs);
  }
  for (MPI_Count i = 0; i < count; ++i) visit(piece{multiply(i, step), blocklen, &old});
}

/// A vector whose runs would number more than this keeps one block's runs and repeats them.
constexpr MPI_Count repeat_min = 1024;

/// Lays out a vector of `count` blocks of `blocklen` elements of `old`, `step` bytes apart, as one
/// block's runs repeated `count` times (`repeats`), when enumerating them would give more than
/// repeat_min runs: the description then costs what one block's does, however large the count.
/// Its bounds are those of its first and last blocks (the extremes of copies of one type). False
/// (nothing done) for a vector that strided() lays out as well.
bool lay_out_repeated(rmpl_mpi_datatype& t, MPI_Count count, MPI_Count blocklen, MPI_Aint step,
                      const rmpl_mpi_datatype& old) {
  if (count < 2 || blocklen <= 0 || old.size == 0) return false;
  MPI_Aint block_extent = 0;
  if (!__builtin_mul_overflow(blocklen, old.extent, &block_extent) && step == block_extent) {
    return false;  // abutting blocks: one run (strided)
  }
  const MPI_Count block_runs =
      old.contiguous ? 1
                     : count_product(blocklen,
                                     count_product(static_cast<MPI_Count>(old.blocks.size()),
                                                   old.repeats, "runs of data"),
                                     "runs of data");
  if (count_product(count, block_runs, "runs of data") <= repeat_min) return false;
  rmpl_mpi_datatype one;
  lay_out(
      one,
      [&](auto&& visit) {
        visit(piece{0, blocklen, &old});
      },
      false);
  const MPI_Aint last = multiply(count - 1, step);
  lay_out(
      t,
      [&](auto&& visit) {
        visit(piece{0, blocklen, &old});
        visit(piece{last, blocklen, &old});
      },
      false);
  t.size = count_product(count, one.size, "datatype size");
  t.blocks = std::move(one.blocks);
  t.repeats = count;
  t.repeat_stride = step;
  t.basic = one.basic;
  t.basic_count = count * one.basic_count;  // at most `size`, which did not overflow
  t.basic_size = one.basic_size;
  set_contiguous(t);
  return true;
}

/// MPI_Type_vector and MPI_Type_(create_)hvector: `count` blocks `step` bytes apart.
void vector(MPI_Datatype oldtype, MPI_Datatype* newtype, int combiner,
            std::vector<MPI_Count> integers, std::vector<MPI_Aint> addresses, MPI_Count count,
            MPI_Count blocklen, MPI_Aint step, const rmpl_mpi_datatype& old) {
  rmpl_mpi_datatype t;
  if (lay_out_repeated(t, count, blocklen, step, old)) {
    finish_construction(std::move(t), oldtype, newtype, combiner, std::move(integers),
                        std::move(addresses));
    return;
  }
  construct(oldtype, newtype, combiner, std::move(integers), std::move(addresses),
            [&](auto&& visit) { strided(visit, count, blocklen, step, old); });
}

/// Marks a type made by a constructor of binding `Count` (MPI_Type_get_envelope refuses the
/// large-count constructors' types, whose arguments an int may not hold).
template <class Count>
void made_by(MPI_Datatype t) {
  t->large = large_count<Count>;
}

template <class Count>
int hvector(const char* function, Count count, Count blocklen, extent_of<Count> stride,
            MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return call(nullptr, function, [&] {
    rmpl::mpi::count(count);
    blocklength(blocklen, -1);
    const rmpl_mpi_datatype& old = datatype(oldtype, false);
    output(newtype, "newtype");
    vector(oldtype, newtype, MPI_COMBINER_HVECTOR, {count, blocklen},
           {static_cast<MPI_Aint>(stride)}, count, blocklen, static_cast<MPI_Aint>(stride), old);
    made_by<Count>(*newtype);
    return MPI_SUCCESS;
  });
}

template <class Count>
int hindexed(const char* function, Count count, const Count blocklengths[],
             const extent_of<Count> displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return call(nullptr, function, [&] {
    rmpl::mpi::count(count);
    array(blocklengths, count, "array_of_blocklengths");
    array(displacements, count, "array_of_displacements");
    for (Count i = 0; i < count; ++i) blocklength(blocklengths[i], i);
    const rmpl_mpi_datatype& old = datatype(oldtype, false);
    output(newtype, "newtype");
    std::vector<MPI_Count> integers{count};
    integers.insert(integers.end(), blocklengths, blocklengths + count);
    construct(oldtype, newtype, MPI_COMBINER_HINDEXED, std::move(integers),
              std::vector<MPI_Aint>(displacements, displacements + count), [&](auto&& visit) {
                for (Count i = 0; i < count; ++i) {
                  visit(piece{static_cast<MPI_Aint>(displacements[i]), blocklengths[i], &old});
                }
              });
    made_by<Count>(*newtype);
    return MPI_SUCCESS;
  });
}

template <class Count>
int structure(const char* function, Count count, const Count blocklengths[],
              const extent_of<Count> displacements[], const MPI_Datatype types[],
              MPI_Datatype* newtype) {
  return call(nullptr, function, [&] {
    rmpl::mpi::count(count);
    array(blocklengths, count, "array_of_blocklengths");
    array(displacements, count, "array_of_displacements");
    array(types, count, "array_of_types");
    for (Count i = 0; i < count; ++i) {
      blocklength(blocklengths[i], i);
      try {
        datatype(types[i], false);
      } catch (const error& e) {
        fail(MPI_ERR_TYPE, "array_of_types[{}]: {}", i, e.what());
      }
    }
    output(newtype, "newtype");
    rmpl_mpi_datatype t;
    lay_out(
        t,
        [&](auto&& visit) {
          for (Count i = 0; i < count; ++i) {
            visit(piece{static_cast<MPI_Aint>(displacements[i]), blocklengths[i], types[i]});
          }
        },
        true);
    t.combiner = MPI_COMBINER_STRUCT;
    t.integers = {count};
    t.integers.insert(t.integers.end(), blocklengths, blocklengths + count);
    t.addresses.assign(displacements, displacements + count);
    t.types.assign(types, types + count);
    t.large = large_count<Count>;
    publish(std::move(t), newtype);
    return MPI_SUCCESS;
  });
}

/// Increasing, separate ranges of indices along one dimension: (first index, how many).
using ranges = std::vector<std::pair<MPI_Count, MPI_Count>>;

/// Appends `count` indices from `first` to `r`, merged with the last range when they continue it.
void add_range(ranges& r, MPI_Count first, MPI_Count count) {
  if (count <= 0) return;
  if (!r.empty() && r.back().first + r.back().second == first) {
    r.back().second += count;
  } else {
    r.emplace_back(first, count);
  }
}

/// The elements of an array of `ndims` dimensions of `sizes[d]` elements of `old`, stored in
/// `order`, whose index along dimension d is in `indices[d]`: the type map of a subarray (one
/// range per dimension) and of a distributed array (the ranges a process holds). Visited row by
/// row in the array's memory order, each range along the fastest dimension one piece.
struct grid {
  int ndims;
  const MPI_Count* sizes;
  int order;
  std::vector<ranges> indices;
  const rmpl_mpi_datatype& old;

  /// The whole array's extent: the type's extent (MPI-3.1 4.1.3, 4.1.4).
  MPI_Aint extent() const {
    MPI_Aint elements = 1;
    for (int d = 0; d < ndims; ++d) elements = multiply(elements, sizes[d]);
    return multiply(elements, old.extent);
  }

  template <class Visit>
  void for_each_piece(Visit&& visit) const {
    // The dimensions from the slowest-varying to the fastest in memory and the stride of each
    // (in elements).
    std::vector<int> slowest_first(static_cast<std::size_t>(ndims));
    for (int d = 0; d < ndims; ++d) slowest_first[d] = order == MPI_ORDER_C ? d : ndims - 1 - d;
    const int fastest = slowest_first.back();
    std::vector<MPI_Aint> stride(static_cast<std::size_t>(ndims));
    MPI_Aint elements = 1;
    MPI_Count rows = 1;
    for (int k = ndims - 1; k >= 0; --k) {
      const int d = slowest_first[k];
      stride[d] = elements;
      elements = multiply(elements, sizes[d]);
      if (d == fastest) continue;
      MPI_Count held = 0;
      for (const auto& range : indices[d]) held += range.second;
      rows = count_product(rows, held, "number of rows");
    }
    const ranges& runs = indices[fastest];
    if (rows == 0 || runs.empty()) return;
    if (count_product(rows, static_cast<MPI_Count>(runs.size()), "number of runs") > max_runs) {
      fail(MPI_ERR_NO_MEM,
           "the array's part has {} rows of {} runs, more than the {} runs of data a datatype "
           "may have",
           rows, runs.size(), max_runs);
    }
    // Where each dimension is: which of its ranges, and how far into it.
    std::vector<std::pair<std::size_t, MPI_Count>> at(static_cast<std::size_t>(ndims), {0, 0});
    for (MPI_Count row = 0; row < rows; ++row) {
      MPI_Aint element = 0;
      for (int d = 0; d < ndims; ++d) {
        if (d != fastest) element += (indices[d][at[d].first].first + at[d].second) * stride[d];
      }
      for (const auto& [first, length] : runs) {
        visit(piece{(element + first) * old.extent, length, &old});
      }
      for (int k = ndims - 2; k >= 0; --k) {
        const int d = slowest_first[k];
        if (++at[d].second < indices[d][at[d].first].second) break;
        at[d].second = 0;
        if (++at[d].first < indices[d].size()) break;
        at[d].first = 0;
      }
    }
  }
};

/// The indices that the process at coordinate `coord` holds of a dimension of `gsize` elements
/// distributed over `psize` processes as `distrib` with argument `darg` (MPI-3.1 4.1.4; the
/// arguments are checked already).
ranges distributed_indices(MPI_Count gsize, int distrib, int darg, int psize, int coord) {
  ranges held;
  if (distrib == MPI_DISTRIBUTE_NONE) {
    add_range(held, 0, gsize);
  } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
    // The default block: the elements shared as evenly as blocks allow, the last process short.
    const MPI_Count block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    const MPI_Count first = coord * block;
    if (first < gsize) add_range(held, first, std::min<MPI_Count>(block, gsize - first));
  } else {  // cyclic: blocks of darg (default 1) dealt round-robin
    const MPI_Count block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    for (MPI_Count first = coord * block; first < gsize; first += block * psize) {
      add_range(held, first, std::min<MPI_Count>(block, gsize - first));
    }
  }
  return held;
}

/// The darray's grid of `integers` (its contents: size, rank, ndims, gsizes, distribs, dargs,
/// psizes, order), checked.
grid darray_grid(const std::vector<MPI_Count>& integers, const rmpl_mpi_datatype& old) {
  // (All but the global sizes are ints, checked as such by the constructor.)
  const auto rank = static_cast<int>(integers[1]), ndims = static_cast<int>(integers[2]);
  const MPI_Count* gsizes = &integers[3];
  const MPI_Count* distribs = gsizes + ndims;
  const MPI_Count* dargs = distribs + ndims;
  const MPI_Count* psizes = dargs + ndims;
  const auto order = static_cast<int>(psizes[ndims]);
  // The process grid is in C order whatever `order` is (MPI-3.1 4.1.4): rank = row-major index.
  std::vector<ranges> indices(static_cast<std::size_t>(ndims));
  int rest = rank;
  for (int d = ndims - 1; d >= 0; --d) {
    const auto psize = static_cast<int>(psizes[d]);
    const int coord = rest % psize;
    rest /= psize;
    indices[d] = distributed_indices(gsizes[d], static_cast<int>(distribs[d]),
                                     static_cast<int>(dargs[d]), psize, coord);
  }
  return grid{ndims, gsizes, order, std::move(indices), old};
}

}  // namespace

namespace rmpl::mpi::impl {
namespace {

// The constructors: each a template over its binding's count type (MPI_X and MPI_X_c).

template <class Count>
int Type_contiguous(Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  rmpl::mpi::count(count);
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  construct(oldtype, newtype, MPI_COMBINER_CONTIGUOUS, {count}, {}, [&](auto&& visit) {
    visit(piece{0, count, &old});
  });
  made_by<Count>(*newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_vector(Count count, Count blocklen, Count stride, MPI_Datatype oldtype,
                MPI_Datatype* newtype) {
  rmpl::mpi::count(count);
  blocklength(blocklen, -1);
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  const MPI_Aint step = multiply(static_cast<MPI_Aint>(stride), old.extent);
  vector(oldtype, newtype, MPI_COMBINER_VECTOR, {count, blocklen, stride}, {}, count, blocklen,
         step, old);
  made_by<Count>(*newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_create_hvector(Count count, Count blocklen, extent_of<Count> stride, MPI_Datatype oldtype,
                        MPI_Datatype* newtype) {
  return hvector(binding_name<Count>("MPI_Type_create_hvector", "MPI_Type_create_hvector_c"), count,
                 blocklen, stride, oldtype, newtype);
}

int Type_hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype oldtype,
                 MPI_Datatype* newtype) {
  return hvector("MPI_Type_hvector", count, blocklen, stride, oldtype, newtype);
}

template <class Count>
int Type_indexed(Count count, const Count blocklengths[], const Count displacements[],
                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  rmpl::mpi::count(count);
  array(blocklengths, count, "array_of_blocklengths");
  array(displacements, count, "array_of_displacements");
  for (Count i = 0; i < count; ++i) blocklength(blocklengths[i], i);
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  std::vector<MPI_Count> integers{count};
  integers.insert(integers.end(), blocklengths, blocklengths + count);
  integers.insert(integers.end(), displacements, displacements + count);
  construct(oldtype, newtype, MPI_COMBINER_INDEXED, std::move(integers), {}, [&](auto&& visit) {
    for (Count i = 0; i < count; ++i) {
      visit(piece{multiply(static_cast<MPI_Aint>(displacements[i]), old.extent), blocklengths[i],
                  &old});
    }
  });
  made_by<Count>(*newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_create_hindexed(Count count, const Count blocklengths[],
                         const extent_of<Count> displacements[], MPI_Datatype oldtype,
                         MPI_Datatype* newtype) {
  return hindexed(binding_name<Count>("MPI_Type_create_hindexed", "MPI_Type_create_hindexed_c"),
                  count, blocklengths, displacements, oldtype, newtype);
}

int Type_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return hindexed("MPI_Type_hindexed", count, blocklengths, displacements, oldtype, newtype);
}

template <class Count>
int Type_create_indexed_block(Count count, Count blocklen, const Count displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  rmpl::mpi::count(count);
  blocklength(blocklen, -1);
  array(displacements, count, "array_of_displacements");
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  std::vector<MPI_Count> integers{count, blocklen};
  integers.insert(integers.end(), displacements, displacements + count);
  construct(
      oldtype, newtype, MPI_COMBINER_INDEXED_BLOCK, std::move(integers), {}, [&](auto&& visit) {
        for (Count i = 0; i < count; ++i) {
          visit(
              piece{multiply(static_cast<MPI_Aint>(displacements[i]), old.extent), blocklen, &old});
        }
      });
  made_by<Count>(*newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_create_hindexed_block(Count count, Count blocklen, const extent_of<Count> displacements[],
                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  rmpl::mpi::count(count);
  blocklength(blocklen, -1);
  array(displacements, count, "array_of_displacements");
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  construct(oldtype, newtype, MPI_COMBINER_HINDEXED_BLOCK, {count, blocklen},
            std::vector<MPI_Aint>(displacements, displacements + count), [&](auto&& visit) {
              for (Count i = 0; i < count; ++i) {
                visit(piece{static_cast<MPI_Aint>(displacements[i]), blocklen, &old});
              }
            });
  made_by<Count>(*newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_create_struct(Count count, const Count blocklengths[],
                       const extent_of<Count> displacements[], const MPI_Datatype types[],
                       MPI_Datatype* newtype) {
  return structure(binding_name<Count>("MPI_Type_create_struct", "MPI_Type_create_struct_c"), count,
                   blocklengths, displacements, types, newtype);
}

int Type_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                const MPI_Datatype types[], MPI_Datatype* newtype) {
  return structure("MPI_Type_struct", count, blocklengths, displacements, types, newtype);
}

template <class Count>
int Type_create_subarray(int ndims, const Count sizes[], const Count subsizes[],
                         const Count starts[], int order, MPI_Datatype oldtype,
                         MPI_Datatype* newtype) {
  if (ndims <= 0) fail(MPI_ERR_ARG, "ndims {} is not positive", ndims);
  array(sizes, ndims, "array_of_sizes");
  array(subsizes, ndims, "array_of_subsizes");
  array(starts, ndims, "array_of_starts");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    fail(MPI_ERR_ARG, "order {} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  for (int d = 0; d < ndims; ++d) {
    if (sizes[d] <= 0) fail(MPI_ERR_ARG, "array_of_sizes[{}] = {} is not positive", d, sizes[d]);
    if (subsizes[d] <= 0 || subsizes[d] > sizes[d]) {
      fail(MPI_ERR_ARG, "array_of_subsizes[{}] = {} is not in 1..array_of_sizes[{}] = {}", d,
           subsizes[d], d, sizes[d]);
    }
    if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d]) {
      fail(MPI_ERR_ARG,
           "array_of_starts[{}] = {} is not in 0..{} (array_of_sizes[{}] = {} minus "
           "array_of_subsizes[{}] = {})",
           d, starts[d], sizes[d] - subsizes[d], d, sizes[d], d, subsizes[d]);
    }
  }
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  std::vector<ranges> indices(static_cast<std::size_t>(ndims));
  for (int d = 0; d < ndims; ++d) add_range(indices[d], starts[d], subsizes[d]);
  std::vector<MPI_Count> integers{ndims};
  integers.insert(integers.end(), sizes, sizes + ndims);
  integers.insert(integers.end(), subsizes, subsizes + ndims);
  integers.insert(integers.end(), starts, starts + ndims);
  integers.push_back(order);
  const grid layout{ndims, &integers[1], order, std::move(indices), old};
  const MPI_Aint whole_extent = layout.extent();
  rmpl_mpi_datatype t;
  lay_out(
      t, [&](auto&& visit) { layout.for_each_piece(visit); }, false);
  // MPI-3.1 4.1.3: the subarray type is resized to the whole array, lb 0.
  t.lb = 0;
  t.extent = whole_extent;
  t.explicit_lb = t.explicit_ub = true;
  set_contiguous(t);
  t.combiner = MPI_COMBINER_SUBARRAY;
  t.integers = std::move(integers);
  t.types = {oldtype};
  t.large = large_count<Count>;
  publish(std::move(t), newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_create_darray(int size, int rank, int ndims, const Count gsizes[], const int distribs[],
                       const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  if (size <= 0) fail(MPI_ERR_ARG, "size {} is not positive", size);
  if (rank < 0 || rank >= size) fail(MPI_ERR_RANK, "rank {} is not in 0..{}", rank, size - 1);
  if (ndims <= 0) fail(MPI_ERR_ARG, "ndims {} is not positive", ndims);
  array(gsizes, ndims, "array_of_gsizes");
  array(distribs, ndims, "array_of_distribs");
  array(dargs, ndims, "array_of_dargs");
  array(psizes, ndims, "array_of_psizes");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    fail(MPI_ERR_ARG, "order {} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  long long processes = 1;
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] <= 0) fail(MPI_ERR_ARG, "array_of_gsizes[{}] = {} is not positive", d, gsizes[d]);
    if (psizes[d] <= 0) fail(MPI_ERR_ARG, "array_of_psizes[{}] = {} is not positive", d, psizes[d]);
    processes = std::min(processes * psizes[d], static_cast<long long>(size) + 1);
    const int distrib = distribs[d], darg = dargs[d];
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC &&
        distrib != MPI_DISTRIBUTE_NONE) {
      fail(MPI_ERR_ARG, "array_of_distribs[{}] = {} is not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE",
           d, distrib);
    }
    if (distrib == MPI_DISTRIBUTE_NONE && psizes[d] != 1) {
      fail(MPI_ERR_ARG,
           "dimension {} is not distributed (MPI_DISTRIBUTE_NONE) but array_of_psizes[{}] is {}, "
           "not 1",
           d, d, psizes[d]);
    }
    if (distrib != MPI_DISTRIBUTE_NONE && darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0) {
      fail(MPI_ERR_ARG, "array_of_dargs[{}] = {} is neither positive nor MPI_DISTRIBUTE_DFLT_DARG",
           d, darg);
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
        static_cast<long long>(darg) * psizes[d] < gsizes[d]) {
      fail(MPI_ERR_ARG,
           "block distribution of dimension {}: {} processes of blocks of {} (array_of_dargs[{}]) "
           "hold only {} of its {} elements",
           d, psizes[d], darg, d, static_cast<long long>(darg) * psizes[d], gsizes[d]);
    }
  }
  if (processes != size) {
    fail(MPI_ERR_ARG, "the process grid (array_of_psizes) has {}{} processes, but size is {}",
         processes > size ? "more than " : "", processes > size ? size : processes, size);
  }
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");

  std::vector<MPI_Count> integers{size, rank, ndims};
  integers.insert(integers.end(), gsizes, gsizes + ndims);
  for (const int* a : {distribs, dargs, psizes}) integers.insert(integers.end(), a, a + ndims);
  integers.push_back(order);
  const grid layout = darray_grid(integers, old);
  rmpl_mpi_datatype t;
  lay_out(
      t, [&](auto&& visit) { layout.for_each_piece(visit); }, false);
  // The whole global array, lb 0, like a subarray.
  t.lb = 0;
  t.extent = layout.extent();
  t.explicit_lb = t.explicit_ub = true;
  set_contiguous(t);
  t.combiner = MPI_COMBINER_DARRAY;
  t.integers = std::move(integers);
  t.types = {oldtype};
  t.large = large_count<Count>;
  publish(std::move(t), newtype);
  return MPI_SUCCESS;
}

template <class Count>
int Type_create_resized(MPI_Datatype oldtype, extent_of<Count> lb, extent_of<Count> extent,
                        MPI_Datatype* newtype) {
  const rmpl_mpi_datatype& old = datatype(oldtype, false);
  output(newtype, "newtype");
  add(lb, extent);  // the upper bound must be representable
  rmpl_mpi_datatype t;
  copy_layout(old, t);
  t.lb = lb;
  t.extent = extent;
  t.explicit_lb = t.explicit_ub = true;
  set_contiguous(t);
  t.combiner = MPI_COMBINER_RESIZED;
  t.addresses = {static_cast<MPI_Aint>(lb), static_cast<MPI_Aint>(extent)};
  t.types = {oldtype};
  t.large = large_count<Count>;
  publish(std::move(t), newtype);
  return MPI_SUCCESS;
}

int Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const rmpl_mpi_datatype& old = rmpl::mpi::datatype(oldtype, false);
  output(newtype, "newtype");
  rmpl_mpi_datatype t;
  copy_layout(old, t);
  if (old.committed) commit(t);  // a duplicate is as ready for use as the original (4.1.10)
  t.combiner = MPI_COMBINER_DUP;
  t.types = {oldtype};
  MPI_Datatype made = MPI_DATATYPE_NULL;
  publish(std::move(t), &made);
  try {
    copy_attributes(oldtype, made);
  } catch (...) {
    made->tag = magic::dead;
    release(made);
    throw;
  }
  *newtype = made;
  return MPI_SUCCESS;
}

int Type_commit(MPI_Datatype* datatype) {
  output(datatype, "datatype");
  commit(rmpl::mpi::datatype(*datatype, false));
  return MPI_SUCCESS;
}

int Type_free(MPI_Datatype* datatype) {
  output(datatype, "datatype");
  rmpl_mpi_datatype& t = rmpl::mpi::datatype(*datatype, false);
  if (t.predefined) fail(MPI_ERR_TYPE, "{} is a predefined datatype; it cannot be freed", t.name);
  delete_attributes(*datatype);  // a failing delete callback leaves the type as it is
  if (t.references == 0) {
    release(&t);
  } else {
    // Still named by the contents of other types: unusable from now on, kept until they go.
    t.tag = magic::dead;
  }
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

// MPI_Type_size, _x and _c; MPI_Type_get_extent and MPI_Type_get_true_extent, _x and _c: one
// template each over the binding's result type (MPI_X_x is MPI_X_c under its MPI-3 name).
template <class Count>
int Type_size(MPI_Datatype datatype, Count* size) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(size, "size");
  *size = t.size > std::numeric_limits<Count>::max() ? MPI_UNDEFINED : static_cast<Count>(t.size);
  return MPI_SUCCESS;
}
int Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return Type_size<MPI_Count>(datatype, size);
}

template <class Count>
int Type_get_extent(MPI_Datatype datatype, extent_of<Count>* lb, extent_of<Count>* extent) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(lb, "lb");
  output(extent, "extent");
  *lb = t.lb;
  *extent = t.extent;
  return MPI_SUCCESS;
}
int Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return Type_get_extent<MPI_Count>(datatype, lb, extent);
}

template <class Count>
int Type_get_true_extent(MPI_Datatype datatype, extent_of<Count>* true_lb,
                         extent_of<Count>* true_extent) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(true_lb, "true_lb");
  output(true_extent, "true_extent");
  *true_lb = t.true_lb;
  *true_extent = t.true_extent;
  return MPI_SUCCESS;
}
int Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return Type_get_true_extent<MPI_Count>(datatype, true_lb, true_extent);
}

int Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(extent, "extent");
  *extent = t.extent;
  return MPI_SUCCESS;
}

int Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(displacement, "displacement");
  *displacement = t.lb;
  return MPI_SUCCESS;
}

int Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(displacement, "displacement");
  *displacement = t.lb + t.extent;
  return MPI_SUCCESS;
}

int Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                         MPI_Datatype* pair_type) {
  rmpl::mpi::datatype(value_type, false);
  rmpl::mpi::datatype(index_type, false);
  if (pair_type == nullptr) fail(MPI_ERR_ARG, "the pair type pointer is null");
  // MPI-4.1: the predefined value-index type of MPI_MINLOC / MPI_MAXLOC for these two, or
  // MPI_DATATYPE_NULL when there is none.
  static const struct {
    MPI_Datatype value, index, pair;
  } pairs[] = {{MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
               {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
               {MPI_LONG, MPI_INT, MPI_LONG_INT},
               {MPI_INT, MPI_INT, MPI_2INT},
               {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
               {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
               {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
               {MPI_REAL, MPI_REAL, MPI_2REAL},
               {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION}};
  *pair_type = MPI_DATATYPE_NULL;
  for (const auto& p : pairs) {
    if (p.value == value_type && p.index == index_type) *pair_type = p.pair;
  }
  return MPI_SUCCESS;
}

/// A datatype's contents as MPI_Type_get_contents(_c) return them. A large-count constructor's
/// type keeps its arguments as its int twin lays them out (`integers`, `addresses`); the standard
/// returns its counts, block lengths and displacements as large counts instead, and of the
/// arguments of a subarray or darray only the global sizes (MPI-4.1 5.1.13).
struct contents {
  std::vector<MPI_Count> integers;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Count> large_counts;
};

contents contents_of(const rmpl_mpi_datatype& t) {
  if (!t.large) return {t.integers, t.addresses, {}};
  const auto& n = t.integers;
  contents c;
  auto append = [](std::vector<MPI_Count>& to, auto first, auto last) {
    to.insert(to.end(), first, last);
  };
  switch (t.combiner) {
    case MPI_COMBINER_HVECTOR:         // count, blocklength, stride
    case MPI_COMBINER_HINDEXED:        // count, blocklengths, displacements
    case MPI_COMBINER_HINDEXED_BLOCK:  // count, blocklength, displacements
    case MPI_COMBINER_STRUCT:          // count, blocklengths, displacements (and the types)
    case MPI_COMBINER_RESIZED:         // lb, extent
      c.large_counts = n;
      append(c.large_counts, t.addresses.begin(), t.addresses.end());
      return c;
    case MPI_COMBINER_SUBARRAY: {  // ndims and order are integers, the sizes large counts
      const auto ndims = static_cast<std::size_t>(n.at(0));
      c.integers = {n.at(0), n.at(1 + 3 * ndims)};
      append(c.large_counts, n.begin() + 1, n.begin() + 1 + static_cast<std::ptrdiff_t>(3 * ndims));
      return c;
    }
    case MPI_COMBINER_DARRAY: {  // the global sizes are large counts, the rest integers
      const auto ndims = static_cast<std::ptrdiff_t>(n.at(2));
      append(c.integers, n.begin(), n.begin() + 3);
      append(c.integers, n.begin() + 3 + ndims, n.end());
      append(c.large_counts, n.begin() + 3, n.begin() + 3 + ndims);
      return c;
    }
    default:  // contiguous, vector, indexed, indexed_block: every argument a large count
      c.large_counts = n;
      return c;
  }
}

/// MPI_Type_get_envelope refuses a large-count constructor's type: an int may not hold its
/// arguments, and their meaning differs (MPI-4.1 5.1.13).
void refuse_large(const rmpl_mpi_datatype& t, const char* function) {
  if (t.large) {
    fail(MPI_ERR_TYPE,
         "datatype {} was made by a large-count constructor: its arguments come back through "
         "{}_c",
         describe(t), function);
  }
}

int Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                      int* num_datatypes, int* combiner) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(num_integers, "num_integers");
  output(num_addresses, "num_addresses");
  output(num_datatypes, "num_datatypes");
  output(combiner, "combiner");
  refuse_large(t, "MPI_Type_get_envelope");
  *num_integers = static_cast<int>(t.integers.size());
  *num_addresses = static_cast<int>(t.addresses.size());
  *num_datatypes = static_cast<int>(t.types.size());
  *combiner = t.combiner;
  return MPI_SUCCESS;
}

int Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                        MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(num_integers, "num_integers");
  output(num_addresses, "num_addresses");
  output(num_large_counts, "num_large_counts");
  output(num_datatypes, "num_datatypes");
  output(combiner, "combiner");
  const contents c = contents_of(t);
  *num_integers = static_cast<MPI_Count>(c.integers.size());
  *num_addresses = static_cast<MPI_Count>(c.addresses.size());
  *num_large_counts = static_cast<MPI_Count>(c.large_counts.size());
  *num_datatypes = static_cast<MPI_Count>(t.types.size());
  *combiner = t.combiner;
  return MPI_SUCCESS;
}

/// MPI_Type_get_contents(_c): `max_*` and the arrays as the program gave them (the large counts'
/// only in the _c form).
template <class Count>
void copy_contents(const rmpl_mpi_datatype& t, Count max_integers, Count max_addresses,
                   Count max_large_counts, Count max_datatypes, int integers[],
                   MPI_Aint addresses[], MPI_Count large_counts[], MPI_Datatype datatypes[]) {
  if (t.combiner == MPI_COMBINER_NAMED) {
    fail(MPI_ERR_TYPE,
         "{} is a predefined datatype: it has no contents (its combiner is "
         "MPI_COMBINER_NAMED)",
         describe(t));
  }
  const contents c = contents_of(t);
  const auto room = [](Count max, std::size_t needed, const void* a, const char* what) {
    if (max < 0 || static_cast<std::size_t>(max) < needed) {
      fail(MPI_ERR_ARG, "{} is {}, but the datatype's contents have {} of them", what, max, needed);
    }
    if (needed > 0 && a == nullptr) fail(MPI_ERR_ARG, "the array for {} is null", what);
  };
  room(max_integers, c.integers.size(), integers, "max_integers");
  room(max_addresses, c.addresses.size(), addresses, "max_addresses");
  room(max_large_counts, c.large_counts.size(), large_counts, "max_large_counts");
  room(max_datatypes, t.types.size(), datatypes, "max_datatypes");
  // (The integers of an int constructor's type, and a large one's ndims, order..., fit an int.)
  std::transform(c.integers.begin(), c.integers.end(), integers,
                 [](MPI_Count v) { return static_cast<int>(v); });
  std::copy(c.addresses.begin(), c.addresses.end(), addresses);
  if (large_counts != nullptr) {  // (none in the int form: room() saw to the sizes)
    std::copy(c.large_counts.begin(), c.large_counts.end(), large_counts);
  }
  // MPI-3.1 4.1.13: derived types come back as new handles the program frees.
  for (std::size_t i = 0; i < t.types.size(); ++i) {
    const MPI_Datatype component = t.types[i];
    datatypes[i] = component->predefined ? component : clone(*component);
  }
}

int Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                      int array_of_integers[], MPI_Aint array_of_addresses[],
                      MPI_Datatype array_of_datatypes[]) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  refuse_large(t, "MPI_Type_get_contents");
  copy_contents(t, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                array_of_addresses, nullptr, array_of_datatypes);
  return MPI_SUCCESS;
}

int Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                        MPI_Count max_large_counts, MPI_Count max_datatypes,
                        int array_of_integers[], MPI_Aint array_of_addresses[],
                        MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
  copy_contents(rmpl::mpi::datatype(datatype, false), max_integers, max_addresses, max_large_counts,
                max_datatypes, array_of_integers, array_of_addresses, array_of_large_counts,
                array_of_datatypes);
  return MPI_SUCCESS;
}

int Type_set_name(MPI_Datatype datatype, const char* type_name) {
  rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(type_name, "type_name");
  t.name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const rmpl_mpi_datatype& t = rmpl::mpi::datatype(datatype, false);
  output(type_name, "type_name");
  output(resultlen, "resultlen");
  const std::size_t n = std::min<std::size_t>(t.name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, t.name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

int Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  output(datatype, "datatype");
  std::vector<MPI_Datatype> candidates;
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
      candidates = {MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG_LONG_INT};
      break;
    case MPI_TYPECLASS_REAL:
      candidates = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
      break;
    case MPI_TYPECLASS_COMPLEX:
      candidates = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
      break;
    default:
      fail(MPI_ERR_ARG, "typeclass {} is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", typeclass);
  }
  for (MPI_Datatype candidate : candidates) {
    if (candidate->size == size) {
      *datatype = candidate;
      return MPI_SUCCESS;
    }
  }
  fail(MPI_ERR_ARG, "no predefined type of typeclass {} has {} bytes", typeclass, size);
}

int Get_address(const void* location, MPI_Aint* address) {
  output(address, "address");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

int Address(void* location, MPI_Aint* address) {
  output(address, "address");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

// Address arithmetic on MPI_Aint as on the unsigned addresses it holds (MPI-3.1 4.1.5).
MPI_Aint Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) +
                               static_cast<std::uintptr_t>(disp));
}

MPI_Aint Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) -
                               static_cast<std::uintptr_t>(addr2));
}

}  // namespace
}  // namespace rmpl::mpi::impl

namespace rmpl::mpi {

void for_each_piece(const rmpl_mpi_datatype& t, const std::function<void(const piece&)>& visit) {
  const auto& n = t.integers;
  const auto& a = t.addresses;
  auto at = [](const std::vector<MPI_Count>& v, MPI_Count i) {
    return v.at(static_cast<std::size_t>(i));
  };
  const rmpl_mpi_datatype* old = t.types.empty() ? nullptr : t.types[0];
  switch (t.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      visit(piece{0, 1, old});
      return;
    case MPI_COMBINER_CONTIGUOUS:
      visit(piece{0, n.at(0), old});
      return;
    case MPI_COMBINER_VECTOR:
      for (MPI_Count i = 0; i < n.at(0); ++i) visit(piece{i * n.at(2) * old->extent, n.at(1), old});
      return;
    case MPI_COMBINER_HVECTOR:
      for (MPI_Count i = 0; i < n.at(0); ++i) visit(piece{i * a.at(0), n.at(1), old});
      return;
    case MPI_COMBINER_INDEXED:
      for (MPI_Count i = 0; i < n.at(0); ++i) {
        visit(piece{at(n, 1 + n[0] + i) * old->extent, at(n, 1 + i), old});
      }
      return;
    case MPI_COMBINER_HINDEXED:
      for (MPI_Count i = 0; i < n.at(0); ++i)
        visit(piece{a.at(static_cast<std::size_t>(i)), at(n, 1 + i), old});
      return;
    case MPI_COMBINER_INDEXED_BLOCK:
      for (MPI_Count i = 0; i < n.at(0); ++i)
        visit(piece{at(n, 2 + i) * old->extent, n.at(1), old});
      return;
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (MPI_Count i = 0; i < n.at(0); ++i)
        visit(piece{a.at(static_cast<std::size_t>(i)), n.at(1), old});
      return;
    case MPI_COMBINER_STRUCT:
      for (MPI_Count i = 0; i < n.at(0); ++i) {
        const auto k = static_cast<std::size_t>(i);
        visit(piece{a.at(k), at(n, 1 + i), t.types.at(k)});
      }
      return;
    case MPI_COMBINER_SUBARRAY: {
      const auto ndims = static_cast<int>(n.at(0));
      std::vector<ranges> indices(static_cast<std::size_t>(ndims));
      for (int d = 0; d < ndims; ++d) {
        add_range(indices[d], at(n, 1 + 2 * ndims + d), at(n, 1 + ndims + d));
      }
      grid{ndims, &n[1], static_cast<int>(at(n, 1 + 3 * ndims)), std::move(indices), *old}
          .for_each_piece(visit);
      return;
    }
    case MPI_COMBINER_DARRAY:
      darray_grid(n, *old).for_each_piece(visit);
      return;
    default:
      fail(MPI_ERR_TYPE, "datatype {} has no constructor to describe its pieces", describe(t));
  }
}

}  // namespace rmpl::mpi

#include "mpi/bindings/datatypes.inc"  // the MPI_ and PMPI_ functions (generated)
