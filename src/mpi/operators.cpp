// Reduction operators (MPI's chapter 5.9): the predefined operators, user operators, and the
// kernel reduction an operator means on a datatype.
//
// A predefined operator applies to the datatypes MPI-3.1 5.9.2 lists for it, and to derived
// datatypes made of one such type (reduced element by element); the kernel's built-in loops do
// the work. A user operator is called on the datatype the program passed, as MPI requires.
#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "coll/combine.hpp"
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"
#include "mpi/operators.hpp"
#include "mpi/pool.hpp"

using rmpl::detail::builtin_op;

// The predefined operators: constant objects inside the library, like the predefined datatypes.
struct rmpl_mpi_op rmpl_mpi_max {
  .predefined = true, .builtin = builtin_op::max
};
struct rmpl_mpi_op rmpl_mpi_min {
  .predefined = true, .builtin = builtin_op::min
};
struct rmpl_mpi_op rmpl_mpi_sum {
  .predefined = true, .builtin = builtin_op::sum
};
struct rmpl_mpi_op rmpl_mpi_prod {
  .predefined = true, .builtin = builtin_op::product
};
struct rmpl_mpi_op rmpl_mpi_land {
  .predefined = true, .builtin = builtin_op::logical_and
};
struct rmpl_mpi_op rmpl_mpi_band {
  .predefined = true, .builtin = builtin_op::bit_and
};
struct rmpl_mpi_op rmpl_mpi_lor {
  .predefined = true, .builtin = builtin_op::logical_or
};
struct rmpl_mpi_op rmpl_mpi_bor {
  .predefined = true, .builtin = builtin_op::bit_or
};
struct rmpl_mpi_op rmpl_mpi_lxor {
  .predefined = true, .builtin = builtin_op::logical_xor
};
struct rmpl_mpi_op rmpl_mpi_bxor {
  .predefined = true, .builtin = builtin_op::bit_xor
};
struct rmpl_mpi_op rmpl_mpi_minloc {
  .predefined = true, .builtin = builtin_op::minloc
};
struct rmpl_mpi_op rmpl_mpi_maxloc {
  .predefined = true, .builtin = builtin_op::maxloc
};
struct rmpl_mpi_op rmpl_mpi_replace {
  .predefined = true, .one_sided_only = true
};
struct rmpl_mpi_op rmpl_mpi_no_op {
  .predefined = true, .one_sided_only = true
};

namespace rmpl::mpi {
namespace {

using detail::scalar;
using detail::scalar_of;
using rmpl::value_index;

pool<rmpl_mpi_op>& operators() {
  static pool<rmpl_mpi_op> p;
  return p;
}

std::string name_of(const rmpl_mpi_op& o) {
  static const std::pair<const rmpl_mpi_op*, const char*> names[] = {
      {&rmpl_mpi_max, "MPI_MAX"},         {&rmpl_mpi_min, "MPI_MIN"},
      {&rmpl_mpi_sum, "MPI_SUM"},         {&rmpl_mpi_prod, "MPI_PROD"},
      {&rmpl_mpi_land, "MPI_LAND"},       {&rmpl_mpi_band, "MPI_BAND"},
      {&rmpl_mpi_lor, "MPI_LOR"},         {&rmpl_mpi_bor, "MPI_BOR"},
      {&rmpl_mpi_lxor, "MPI_LXOR"},       {&rmpl_mpi_bxor, "MPI_BXOR"},
      {&rmpl_mpi_minloc, "MPI_MINLOC"},   {&rmpl_mpi_maxloc, "MPI_MAXLOC"},
      {&rmpl_mpi_replace, "MPI_REPLACE"}, {&rmpl_mpi_no_op, "MPI_NO_OP"},
  };
  for (const auto& [object, name] : names) {
    if (object == &o) return name;
  }
  return fmt::format("user operator {}", static_cast<const void*>(&o));
}

std::string name_of(const rmpl_mpi_datatype& t) {
  if (!t.name.empty()) return t.name;
  return fmt::format("derived datatype {}", static_cast<const void*>(&t));
}

/// The groups of MPI-3.1 5.9.2 that decide which predefined operators apply to a type.
enum class type_class { c_integer, fortran_integer, floating, logical, complex, byte, pair, none };

struct named_type {
  const rmpl_mpi_datatype* type;
  type_class group;
  scalar kernel_type = scalar::none;  ///< for complex types: the type of the parts
  std::size_t kernel_size = 0;        ///< bytes of one kernel element (a part, for complex)
  std::size_t value_size = 0;         ///< pair types: bytes of the value
  std::size_t real_index = 0;         ///< Fortran real pairs: bytes of the (real) index
};

template <class T>
named_type of(const rmpl_mpi_datatype& t, type_class group) {
  return {&t, group, scalar_of<T>(), sizeof(T), 0};
}
template <class V>
named_type pair_of(const rmpl_mpi_datatype& t) {
  return {&t, type_class::pair, scalar_of<value_index<V>>(), sizeof(value_index<V>), sizeof(V)};
}
/// MPI_2REAL, MPI_2DOUBLE_PRECISION: a value and its index, both of type V.
template <class V>
named_type real_pair_of(const rmpl_mpi_datatype& t) {
  return {&t,        type_class::pair, scalar_of<value_index<V>>(), sizeof(value_index<V>),
          sizeof(V), sizeof(V)};
}

/// Every predefined datatype and how the predefined operators see it.
const std::vector<named_type>& named_types() {
  using enum type_class;
  static const std::vector<named_type> table = {
      // MPI-3.1 5.9.2 leaves MPI_CHAR (text) out of every operator's types, but Open MPI and MPICH
      // reduce it as a C integer, and programs and benchmarks written against them do so: as
      // there, a char of this platform's signedness.
      of<char>(rmpl_mpi_char, c_integer),
      {&rmpl_mpi_wchar, none},
      {&rmpl_mpi_packed, none},
      {&rmpl_mpi_lb, none},
      {&rmpl_mpi_ub, none},
      of<signed char>(rmpl_mpi_signed_char, c_integer),
      of<unsigned char>(rmpl_mpi_unsigned_char, c_integer),
      of<unsigned char>(rmpl_mpi_byte, byte),
      of<short>(rmpl_mpi_short, c_integer),
      of<unsigned short>(rmpl_mpi_unsigned_short, c_integer),
      of<int>(rmpl_mpi_int, c_integer),
      of<unsigned>(rmpl_mpi_unsigned, c_integer),
      of<long>(rmpl_mpi_long, c_integer),
      of<unsigned long>(rmpl_mpi_unsigned_long, c_integer),
      of<long long>(rmpl_mpi_long_long, c_integer),
      of<unsigned long long>(rmpl_mpi_unsigned_long_long, c_integer),
      of<std::int8_t>(rmpl_mpi_int8_t, c_integer),
      of<std::int16_t>(rmpl_mpi_int16_t, c_integer),
      of<std::int32_t>(rmpl_mpi_int32_t, c_integer),
      of<std::int64_t>(rmpl_mpi_int64_t, c_integer),
      of<std::uint8_t>(rmpl_mpi_uint8_t, c_integer),
      of<std::uint16_t>(rmpl_mpi_uint16_t, c_integer),
      of<std::uint32_t>(rmpl_mpi_uint32_t, c_integer),
      of<std::uint64_t>(rmpl_mpi_uint64_t, c_integer),
      of<MPI_Aint>(rmpl_mpi_aint, fortran_integer),
      of<MPI_Offset>(rmpl_mpi_offset, fortran_integer),
      of<MPI_Count>(rmpl_mpi_count, fortran_integer),
      of<float>(rmpl_mpi_float, floating),
      of<double>(rmpl_mpi_double, floating),
      of<long double>(rmpl_mpi_long_double, floating),
      of<bool>(rmpl_mpi_c_bool, logical),
      of<bool>(rmpl_mpi_cxx_bool, logical),
      of<float>(rmpl_mpi_c_float_complex, complex),
      of<double>(rmpl_mpi_c_double_complex, complex),
      of<long double>(rmpl_mpi_c_long_double_complex, complex),
      pair_of<float>(rmpl_mpi_float_int),
      pair_of<double>(rmpl_mpi_double_int),
      pair_of<long>(rmpl_mpi_long_int),
      pair_of<int>(rmpl_mpi_2int),
      of<int>(rmpl_mpi_integer, fortran_integer),
      of<float>(rmpl_mpi_real, floating),
      of<double>(rmpl_mpi_double_precision, floating),
      of<float>(rmpl_mpi_complex, complex),
      of<double>(rmpl_mpi_double_complex, complex),
      of<int>(rmpl_mpi_logical, logical),
      {&rmpl_mpi_character, none},
      of<std::int8_t>(rmpl_mpi_integer1, fortran_integer),
      of<std::int16_t>(rmpl_mpi_integer2, fortran_integer),
      of<std::int32_t>(rmpl_mpi_integer4, fortran_integer),
      of<std::int64_t>(rmpl_mpi_integer8, fortran_integer),
      of<float>(rmpl_mpi_real4, floating),
      of<double>(rmpl_mpi_real8, floating),
      of<float>(rmpl_mpi_complex8, complex),
      of<double>(rmpl_mpi_complex16, complex),
      of<float>(rmpl_mpi_cxx_float_complex, complex),
      of<double>(rmpl_mpi_cxx_double_complex, complex),
      of<long double>(rmpl_mpi_cxx_long_double_complex, complex),
      pair_of<int>(rmpl_mpi_2integer),
      real_pair_of<float>(rmpl_mpi_2real),
      real_pair_of<double>(rmpl_mpi_2double_precision),
      pair_of<short>(rmpl_mpi_short_int),
      pair_of<long double>(rmpl_mpi_long_double_int),
  };
  return table;
}

/// The one predefined datatype `t`'s data is made of (MPI_LB / MPI_UB markers aside), or null
/// when it mixes several.
const rmpl_mpi_datatype* named_base(const rmpl_mpi_datatype& t, int depth = 0) {
  if (t.combiner == MPI_COMBINER_NAMED) return &t;
  if (t.selected_from != nullptr) return t.selected_from;
  if (depth > 64) return nullptr;  // a corrupt or cyclic description: not reducible
  const rmpl_mpi_datatype* found = nullptr;
  for (MPI_Datatype part : t.types) {
    if (part == nullptr || part == MPI_LB || part == MPI_UB) continue;
    const rmpl_mpi_datatype* base = named_base(*part, depth + 1);
    if (base == nullptr || (found != nullptr && base != found)) return nullptr;
    found = base;
  }
  return found;
}

const named_type* find_named(const rmpl_mpi_datatype* t) {
  for (const named_type& n : named_types()) {
    if (n.type == t) return &n;
  }
  return nullptr;
}

/// Whether MPI-3.1 5.9.2 defines predefined operator `op` on the group `g`.
bool applies(builtin_op op, type_class g) {
  using enum type_class;
  switch (op) {
    case builtin_op::max:
    case builtin_op::min:
      return g == c_integer || g == fortran_integer || g == floating;
    case builtin_op::sum:
    case builtin_op::product:
      return g == c_integer || g == fortran_integer || g == floating || g == complex;
    case builtin_op::logical_and:
    case builtin_op::logical_or:
    case builtin_op::logical_xor:
      // MPI-3.1 lists C integers and logicals; MPICH and Open MPI also take the multi-language
      // integers (MPI_AINT, MPI_OFFSET, MPI_COUNT), and programs written for them rely on it.
      return g == c_integer || g == fortran_integer || g == logical;
    case builtin_op::bit_and:
    case builtin_op::bit_or:
    case builtin_op::bit_xor:
      return g == c_integer || g == fortran_integer || g == byte;
    case builtin_op::minloc:
    case builtin_op::maxloc:
      return g == pair;
    case builtin_op::none:
      break;
  }
  return false;
}

const char* what_applies(builtin_op op) {
  switch (op) {
    case builtin_op::max:
    case builtin_op::min:
      return "integer and floating-point types";
    case builtin_op::sum:
    case builtin_op::product:
      return "integer, floating-point and complex types";
    case builtin_op::logical_and:
    case builtin_op::logical_or:
    case builtin_op::logical_xor:
      return "integer types and MPI_C_BOOL / MPI_CXX_BOOL";
    case builtin_op::bit_and:
    case builtin_op::bit_or:
    case builtin_op::bit_xor:
      return "integer types and MPI_BYTE";
    case builtin_op::minloc:
    case builtin_op::maxloc:
      return "the pair types MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, "
             "MPI_SHORT_INT and MPI_LONG_DOUBLE_INT";
    case builtin_op::none:
      break;
  }
  return "no type";
}

/// MPI_PROD on complex numbers: the kernel has no complex type, so the layer multiplies.
template <class T>
detail::reduction complex_product() {
  detail::reduction r;
  r.element = sizeof(std::complex<T>);
  r.commutative = true;
  r.user = [](const void* in, void* inout, std::size_t count) {
    const auto* a = static_cast<const std::byte*>(in);
    auto* b = static_cast<std::byte*>(inout);
    for (std::size_t i = 0; i < count; ++i) {
      // Through copies: the operands may sit at any byte offset in a packed message.
      std::complex<T> x, y;
      std::memcpy(&x, a + i * sizeof x, sizeof x);
      std::memcpy(&y, b + i * sizeof y, sizeof y);
      y = x * y;
      std::memcpy(b + i * sizeof y, &y, sizeof y);
    }
  };
  return r;
}

/// A user operator's function: MPI_Op_create's (an int count) or MPI_Op_create_c's (MPI_Count).
struct user_function {
  MPI_User_function* plain;
  MPI_User_function_c* large;
};

/// Calls `function` on `count` elements of `type`: at once with an MPI_Count, at most INT_MAX at
/// a time with an int.
void call_user(user_function function, MPI_Datatype type, std::byte* in, std::byte* inout,
               std::size_t count, MPI_Aint stride) {
  if (function.large != nullptr) {
    MPI_Count len = static_cast<MPI_Count>(count);
    MPI_Datatype handle = type;
    if (count > 0) function.large(in, inout, &len, &handle);
    return;
  }
  while (count > 0) {
    int len = count > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(count);
    MPI_Datatype handle = type;
    function.plain(in, inout, &len, &handle);
    count -= static_cast<std::size_t>(len);
    in += static_cast<std::ptrdiff_t>(len) * stride;
    inout += static_cast<std::ptrdiff_t>(len) * stride;
  }
}

/// A user operator's reduction: the kernel hands it packed elements of `t` (t.size bytes each).
detail::reduction user_reduction(const rmpl_mpi_op& o, MPI_Datatype handle) {
  const rmpl_mpi_datatype& t = *handle;
  detail::reduction r;
  r.commutative = o.commutative;
  // A type without data reduces nothing; the kernel still wants a non-zero element size.
  r.element = t.size > 0 ? static_cast<std::size_t>(t.size) : 1;
  const user_function function{o.function, o.large_function};
  if (t.contiguous) {
    // The packed elements are the elements themselves; the function expects each element's
    // start, true_lb before its data.
    const MPI_Aint true_lb = t.true_lb;
    const MPI_Aint stride = static_cast<MPI_Aint>(t.size);
    r.user = [function, handle, true_lb, stride](const void* in, void* inout, std::size_t count) {
      call_user(function, handle,
                const_cast<std::byte*>(static_cast<const std::byte*>(in)) - true_lb,
                static_cast<std::byte*>(inout) - true_lb, count, stride);
    };
    return r;
  }
  if (t.extent <= 0) {
    fail(MPI_ERR_TYPE, "user operator on datatype {}: its extent {} is not positive", name_of(t),
         t.extent);
  }
  // Elements with gaps: laid out as the function expects them (extent apart) in temporaries,
  // then the result is packed back.
  // The layout is copied: the program may free the type while a nonblocking reduction runs.
  auto layout = std::make_shared<const rmpl_mpi_datatype>(t);
  r.user = [function, handle, layout](const void* in, void* inout, std::size_t count) {
    if (count == 0) return;
    const rmpl_mpi_datatype& type = *layout;
    const auto n = static_cast<MPI_Count>(count);
    const std::size_t bytes = count * static_cast<std::size_t>(type.size);
    // Room for `count` elements from their first to their last byte of data.
    const MPI_Aint before = type.true_lb < 0 ? -type.true_lb : 0;
    const MPI_Aint span =
        before + (n - 1) * type.extent + std::max<MPI_Aint>(type.true_lb, 0) + type.true_extent;
    std::vector<std::byte> a(static_cast<std::size_t>(span)), b(a.size());
    unpack(static_cast<const std::byte*>(in), bytes, a.data() + before, n, type);
    unpack(static_cast<const std::byte*>(inout), bytes, b.data() + before, n, type);
    call_user(function, handle, a.data() + before, b.data() + before, count, type.extent);
    pack(b.data() + before, n, type, static_cast<std::byte*>(inout));
  };
  return r;
}

}  // namespace

namespace {

reduction_plan compute_plan(const rmpl_mpi_op& o, const rmpl_mpi_datatype& t, MPI_Datatype type) {
  if (o.one_sided_only) {
    fail(MPI_ERR_OP,
         "{} is defined for one-sided accumulate operations only, not for "
         "collective reductions",
         name_of(o));
  }
  reduction_plan plan;
  if (o.builtin == builtin_op::none) {
    if (o.function == nullptr && o.large_function == nullptr) {
      fail(MPI_ERR_OP, "{} has no function", name_of(o));
    }
    plan.kernel = user_reduction(o, type);
    return plan;
  }
  const rmpl_mpi_datatype* base = named_base(t);
  const named_type* named = find_named(base);
  if (named == nullptr) {
    fail(MPI_ERR_OP,
         "{} does not apply to datatype {}: its data is not made of one predefined "
         "datatype",
         name_of(o), name_of(t));
  }
  if (!applies(o.builtin, named->group)) {
    fail(MPI_ERR_OP, "{} does not apply to datatype {}{}: it is defined on {}", name_of(o),
         name_of(t), base == &t ? "" : fmt::format(" (made of {})", name_of(*base)),
         what_applies(o.builtin));
  }
  const std::size_t base_size = static_cast<std::size_t>(base->size);
  if (named->group == type_class::complex && o.builtin == builtin_op::product) {
    switch (named->kernel_type) {
      case scalar::f32:
        plan.kernel = complex_product<float>();
        break;
      case scalar::f64:
        plan.kernel = complex_product<double>();
        break;
      default:
        plan.kernel = complex_product<long double>();
        break;
    }
  } else {
    plan.kernel.op = o.builtin;
    plan.kernel.type = named->kernel_type;
    plan.kernel.element = named->kernel_size;
    plan.kernel.commutative = true;
  }
  // The datatype's packed element must be what the kernel's loop reads (two parts for complex
  // types; a pair may be packed tighter than its struct, then it is widened).
  const std::size_t expected =
      named->group == type_class::complex ? 2 * named->kernel_size : named->kernel_size;
  if (named->group == type_class::pair && (base_size != expected || named->real_index != 0)) {
    const std::size_t index_size = named->real_index != 0 ? named->real_index : sizeof(int);
    if (base_size != named->value_size + index_size) {
      fail(MPI_ERR_INTERN, "datatype {} holds {} bytes, not a value of {} and an index of {}",
           name_of(*base), base_size, named->value_size, index_size);
    }
    plan.packed_pair = base_size;
    plan.value_size = named->value_size;
    plan.real_index = named->real_index;
    // Where value_index<V> keeps its int: after the value, aligned for an int.
    plan.index_offset = (named->value_size + alignof(int) - 1) / alignof(int) * alignof(int);
  } else if (base_size != expected) {
    fail(MPI_ERR_INTERN, "datatype {} holds {} bytes but the kernel reduces {}-byte elements",
         name_of(*base), base_size, expected);
  }
  // The kernel's own table has the last word (it rejects what its loops do not cover).
  try {
    coll::check_combinable(plan.kernel);
  } catch (const rmpl::error& e) {
    fail(MPI_ERR_OP, "{} on datatype {} is not supported: {}", name_of(o), name_of(t), e.what());
  }
  return plan;
}

}  // namespace

reduction_plan plan_reduction(MPI_Op handle, MPI_Datatype type) {
  // Programs reduce with the same predefined operator and datatype call after call: the plan of
  // the last such pair is kept (predefined handles never change or go away, and the layer is
  // driven by one thread at a time). It saves a quarter of a small MPI_Reduce's instructions.
  static struct {
    MPI_Op op = nullptr;
    MPI_Datatype type = nullptr;
    reduction_plan plan;
  } last;
  if (handle == last.op && type == last.type && handle != nullptr) return last.plan;
  const rmpl_mpi_op& o = op(handle);
  rmpl_mpi_datatype& t = datatype(type);
  reduction_plan plan = compute_plan(o, t, type);
  // What direct_reduction rebuilds from the operator and the type alone, the fast path may use
  // (a plain write: the layer is driven by one thread at a time, MPI_THREAD_FUNNELED).
  if (o.predefined && plan.packed_pair == 0 && !plan.kernel.user && plan.kernel.op == o.builtin &&
      plan.kernel.type == t.basic &&
      plan.kernel.element == static_cast<std::size_t>(t.basic_size)) {
    t.direct_ops |= static_cast<std::uint16_t>(1U << static_cast<unsigned>(o.builtin));
  }
  if (o.predefined && t.predefined) {
    last.op = handle;
    last.type = type;
    last.plan = plan;
  }
  return plan;
}

detail::reduction reduction_of(MPI_Op op, MPI_Datatype t) {
  return plan_reduction(op, t).kernel;
}

namespace {

/// A real pair's index as the kernel's int: integral and within an int's range, or an error
/// naming it (MINLOC / MAXLOC give back an index, which a Fortran program counts in integers).
template <class Real>
int index_of_real(const std::byte* at) {
  Real r;
  std::memcpy(&r, at, sizeof r);
  if (!(r >= static_cast<Real>(INT_MIN) && r <= static_cast<Real>(INT_MAX)) ||
      static_cast<Real>(static_cast<int>(r)) != r) {
    fail(MPI_ERR_ARG, "the index {} of a real pair is not an integer an int holds", r);
  }
  return static_cast<int>(r);
}
template <class Real>
void real_of_index(int index, std::byte* at) {
  const auto r = static_cast<Real>(index);
  std::memcpy(at, &r, sizeof r);
}

}  // namespace

void widen_pairs(const reduction_plan& plan, const std::byte* packed, std::size_t pairs,
                 std::byte* wide) {
  const std::size_t element = plan.kernel.element;
  for (std::size_t i = 0; i < pairs; ++i) {
    std::memset(wide + i * element, 0, element);  // padding: defined bytes on the wire
    const std::byte* pair = packed + i * plan.packed_pair;
    std::memcpy(wide + i * element, pair, plan.value_size);
    std::byte* index = wide + i * element + plan.index_offset;
    if (plan.real_index == 0) {
      std::memcpy(index, pair + plan.value_size, sizeof(int));
    } else {
      const int n = plan.real_index == sizeof(float)
                        ? index_of_real<float>(pair + plan.value_size)
                        : index_of_real<double>(pair + plan.value_size);
      std::memcpy(index, &n, sizeof n);
    }
  }
}

void narrow_pairs(const reduction_plan& plan, const std::byte* wide, std::size_t pairs,
                  std::byte* packed) {
  const std::size_t element = plan.kernel.element;
  for (std::size_t i = 0; i < pairs; ++i) {
    std::byte* pair = packed + i * plan.packed_pair;
    std::memcpy(pair, wide + i * element, plan.value_size);
    if (plan.real_index == 0) {
      std::memcpy(pair + plan.value_size, wide + i * element + plan.index_offset, sizeof(int));
    } else {
      int n = 0;
      std::memcpy(&n, wide + i * element + plan.index_offset, sizeof n);
      if (plan.real_index == sizeof(float)) {
        real_of_index<float>(n, pair + plan.value_size);
      } else {
        real_of_index<double>(n, pair + plan.value_size);
      }
    }
  }
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

/// MPI_Op_create and MPI_Op_create_c: the function's count is an int or an MPI_Count.
template <class Function>
int make_op(Function* user_fn, int commute, MPI_Op* op) {
  if (user_fn == nullptr) fail(MPI_ERR_ARG, "the user function is null");
  if (op == nullptr) fail(MPI_ERR_ARG, "the operator handle's address is null");
  rmpl_mpi_op* o = operators().make();
  if constexpr (std::is_same_v<Function, MPI_User_function_c>) {
    o->large_function = user_fn;
  } else {
    o->function = user_fn;
  }
  o->commutative = commute != 0;
  *op = o;
  return MPI_SUCCESS;
}
int Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return make_op(user_fn, commute, op);
}
int Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return make_op(user_fn, commute, op);
}

int Op_free(MPI_Op* handle) {
  if (handle == nullptr) fail(MPI_ERR_ARG, "the operator handle's address is null");
  rmpl_mpi_op& o = op(*handle);
  if (o.predefined) fail(MPI_ERR_OP, "{} is predefined and cannot be freed", name_of(o));
  // A reduction still pending with this operator holds the function itself, not the object.
  operators().recycle(&o);
  *handle = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int Op_commutative(MPI_Op handle, int* commute) {
  const rmpl_mpi_op& o = op(handle);
  if (commute == nullptr) fail(MPI_ERR_ARG, "the result's address is null");
  *commute = o.commutative ? 1 : 0;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/operators.inc"  // the MPI_ and PMPI_ functions (generated)
