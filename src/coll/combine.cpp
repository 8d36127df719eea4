// The combine step of every reduction: inout[i] = in[i] op inout[i].
//
// combine() looks up the (operator, element type) pair once and gets a kernel: a tight loop over
// typed __restrict pointers, instantiated from one element function per operator family
// (arithmetic, logical, bitwise, location). Compiled with -O3 (src/CMakeLists.txt), GCC vectorises
// the arithmetic, logical and bitwise loops; at -O2 its "very cheap" cost model would not, since
// the element count is not known to be a multiple of the vector width.
//
// Semantics follow MPI: integer sums and products wrap (computed in unsigned arithmetic, so they
// are never undefined behaviour); min and max are `a < b ? a : b` forms (on floats that is what
// minps/maxps compute; with a NaN operand the result is unspecified, as in MPI); logical operators
// give 1 or 0 in the element type, and any non-zero value (NaN included) is true; bool elements
// are read as bytes, so a non-canonical byte from the C API counts as true and every result is a
// canonical 0 or 1; minloc/maxloc keep the smallest (largest) value and, among equal values, the
// smallest index.
#include "coll/combine.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "rmpl/types.hpp"

namespace rmpl::coll {
namespace {

using detail::builtin_op;
using detail::scalar;

using kernel = void (*)(const void* in, void* inout, std::size_t count);

// ---- element functions, one template per operator family ----

/// Integers smaller than int promote to int, where a product can overflow: wrap in unsigned int.
template <class T>
using wrapping_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

/// sum, product, min, max on integers and floating point.
template <builtin_op Op, class T>
T arithmetic(T a, T b) {
  if constexpr (Op == builtin_op::sum || Op == builtin_op::product) {
    if constexpr (std::is_integral_v<T>) {
      using W = wrapping_t<T>;
      if constexpr (Op == builtin_op::sum)
        return static_cast<T>(W(a) + W(b));
      else
        return static_cast<T>(W(a) * W(b));
    } else {
      if constexpr (Op == builtin_op::sum)
        return a + b;
      else
        return a * b;
    }
  } else if constexpr (Op == builtin_op::min) {
    return a < b ? a : b;
  } else {
    static_assert(Op == builtin_op::max);
    return a > b ? a : b;
  }
}

/// logical_and, logical_or, logical_xor: non-zero is true; the result is 1 or 0.
template <builtin_op Op, class T>
T logical(T a, T b) {
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    // SSE2 has no 64-bit compare, so `a != 0` would keep GCC from vectorising the loop; the top
    // bit of a | -a is the same truth value.
    using U = std::make_unsigned_t<T>;
    const auto truth = [](U v) { return static_cast<U>((v | (U(0) - v)) >> 63); };
    if constexpr (Op == builtin_op::logical_and)
      return static_cast<T>(truth(U(a)) & truth(U(b)));
    else if constexpr (Op == builtin_op::logical_or)
      return static_cast<T>(truth(U(a) | U(b)));
    else {
      static_assert(Op == builtin_op::logical_xor);
      return static_cast<T>(truth(U(a)) ^ truth(U(b)));
    }
  } else {
    // Non-short-circuit operators and a final select vectorise (on double, too, where a bool to
    // double conversion would not).
    const bool x = a != T(0);
    const bool y = b != T(0);
    bool r;
    if constexpr (Op == builtin_op::logical_and)
      r = x & y;
    else if constexpr (Op == builtin_op::logical_or)
      r = x | y;
    else {
      static_assert(Op == builtin_op::logical_xor);
      r = x != y;
    }
    return r ? T(1) : T(0);
  }
}

/// bit_and, bit_or, bit_xor on integers.
template <builtin_op Op, class T>
T bitwise(T a, T b) {
  if constexpr (Op == builtin_op::bit_and)
    return static_cast<T>(a & b);
  else if constexpr (Op == builtin_op::bit_or)
    return static_cast<T>(a | b);
  else {
    static_assert(Op == builtin_op::bit_xor);
    return static_cast<T>(a ^ b);
  }
}

/// minloc, maxloc on value_index<T>: the better value; among equal values the smaller index.
template <builtin_op Op, class V>
V location(V a, V b) {
  const bool better = Op == builtin_op::minloc ? a.value < b.value : b.value < a.value;
  const bool take_a = better || (a.value == b.value && a.index < b.index);
  return take_a ? a : b;
}

// ---- loops ----

template <class T, T (*F)(T, T)>
void loop(const T* __restrict in, T* __restrict inout, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) inout[i] = F(in[i], inout[i]);
}

template <class T>
bool aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

/// The kernel for element type T and element function F. Buffers the caller did not align for T
/// (bytes at any offset, from the C API or a packed message) go through aligned chunks.
template <class T, T (*F)(T, T)>
void run(const void* in, void* inout, std::size_t count) {
  if (aligned<T>(in) && aligned<T>(inout)) {
    loop<T, F>(static_cast<const T*>(in), static_cast<T*>(inout), count);
    return;
  }
  constexpr std::size_t chunk = 4096 / sizeof(T);
  T a[chunk];
  T b[chunk];
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(inout);
  for (std::size_t done = 0; done < count; done += chunk) {
    const std::size_t n = count - done < chunk ? count - done : chunk;
    std::memcpy(a, src + done * sizeof(T), n * sizeof(T));
    std::memcpy(b, dst + done * sizeof(T), n * sizeof(T));
    loop<T, F>(a, b, n);
    std::memcpy(dst + done * sizeof(T), b, n * sizeof(T));
  }
}

// ---- dispatch ----

/// The kernel for `op` on elements of type T, or nullptr when the pair makes no sense.
template <class T>
constexpr kernel kernel_for(builtin_op op) {
  using enum builtin_op;
  if constexpr (detail::is_value_index<T>) {
    if (op == minloc) return &run<T, location<minloc, T>>;
    if (op == maxloc) return &run<T, location<maxloc, T>>;
  } else if constexpr (std::is_same_v<T, bool>) {
    // Read as bytes (any non-zero byte is true); every operator is then a logical one.
    using B = std::uint8_t;
    switch (op) {
      case sum:
      case max:
      case logical_or:
      case bit_or:
        return &run<B, logical<logical_or, B>>;
      case product:
      case min:
      case logical_and:
      case bit_and:
        return &run<B, logical<logical_and, B>>;
      case logical_xor:
      case bit_xor:
        return &run<B, logical<logical_xor, B>>;
      default:
        break;
    }
  } else {
    static_assert(std::is_arithmetic_v<T>);
    switch (op) {
      case sum:
        return &run<T, arithmetic<sum, T>>;
      case product:
        return &run<T, arithmetic<product, T>>;
      case min:
        return &run<T, arithmetic<min, T>>;
      case max:
        return &run<T, arithmetic<max, T>>;
      case logical_and:
        return &run<T, logical<logical_and, T>>;
      case logical_or:
        return &run<T, logical<logical_or, T>>;
      case logical_xor:
        return &run<T, logical<logical_xor, T>>;
      case bit_and:
        if constexpr (std::is_integral_v<T>) return &run<T, bitwise<bit_and, T>>;
        break;
      case bit_or:
        if constexpr (std::is_integral_v<T>) return &run<T, bitwise<bit_or, T>>;
        break;
      case bit_xor:
        if constexpr (std::is_integral_v<T>) return &run<T, bitwise<bit_xor, T>>;
        break;
      default:
        break;
    }
  }
  return nullptr;
}

static_assert(sizeof(long) == sizeof(long long), "vi_i64 stands for value_index<long> too");

/// Calls fn(std::type_identity<T>{}) with the C++ type of `type` (void for none or an unknown
/// value).
template <class Fn>
constexpr auto with_type(scalar type, Fn&& fn) {
  using std::type_identity;
  switch (type) {
    case scalar::i8:
      return fn(type_identity<std::int8_t>{});
    case scalar::i16:
      return fn(type_identity<std::int16_t>{});
    case scalar::i32:
      return fn(type_identity<std::int32_t>{});
    case scalar::i64:
      return fn(type_identity<std::int64_t>{});
    case scalar::u8:
      return fn(type_identity<std::uint8_t>{});
    case scalar::u16:
      return fn(type_identity<std::uint16_t>{});
    case scalar::u32:
      return fn(type_identity<std::uint32_t>{});
    case scalar::u64:
      return fn(type_identity<std::uint64_t>{});
    case scalar::f32:
      return fn(type_identity<float>{});
    case scalar::f64:
      return fn(type_identity<double>{});
    case scalar::f80:
      return fn(type_identity<long double>{});
    case scalar::boolean:
      return fn(type_identity<bool>{});
    case scalar::vi_i16:
      return fn(type_identity<value_index<short>>{});
    case scalar::vi_i32:
      return fn(type_identity<value_index<int>>{});
    case scalar::vi_i64:
      return fn(type_identity<value_index<long long>>{});
    case scalar::vi_f32:
      return fn(type_identity<value_index<float>>{});
    case scalar::vi_f64:
      return fn(type_identity<value_index<double>>{});
    case scalar::vi_f80:
      return fn(type_identity<value_index<long double>>{});
    case scalar::none:
      break;
  }
  return fn(type_identity<void>{});
}

const char* name_of_type(scalar type) noexcept {
  switch (type) {
    case scalar::none:
      return "untyped";
    case scalar::i8:
      return "int8";
    case scalar::i16:
      return "int16";
    case scalar::i32:
      return "int32";
    case scalar::i64:
      return "int64";
    case scalar::u8:
      return "uint8";
    case scalar::u16:
      return "uint16";
    case scalar::u32:
      return "uint32";
    case scalar::u64:
      return "uint64";
    case scalar::f32:
      return "float";
    case scalar::f64:
      return "double";
    case scalar::f80:
      return "long double";
    case scalar::boolean:
      return "bool";
    case scalar::vi_i16:
      return "value_index<short>";
    case scalar::vi_i32:
      return "value_index<int>";
    case scalar::vi_i64:
      return "value_index<long>";
    case scalar::vi_f32:
      return "value_index<float>";
    case scalar::vi_f64:
      return "value_index<double>";
    case scalar::vi_f80:
      return "value_index<long double>";
  }
  return "unknown type";
}

/// The names in error messages; an unknown value (the C API passes any integer) shows its number.
std::string op_name(builtin_op op) {
  std::string s = name_of(op);
  if (s == "unknown operator") s.append(" (").append(std::to_string(int(op))).append(")");
  return s;
}
std::string type_name(scalar type) {
  std::string s = name_of_type(type);
  if (s == "unknown type") s.append(" (").append(std::to_string(int(type))).append(")");
  return s;
}

/// Not fmt (base::fail): under -O3 and the sanitizers, GCC 12 warns falsely inside fmt's parser.
[[noreturn]] void invalid(const std::string& message) {
  throw error(errc::invalid_argument, "rmpl: reduction: " + message);
}

/// A kernel and the element size it was made for.
struct found {
  kernel fn = nullptr;
  std::size_t element = 0;
};
constexpr std::size_t type_count = static_cast<std::size_t>(scalar::vi_f80) + 1;
constexpr std::size_t op_count = static_cast<std::size_t>(builtin_op::maxloc) + 1;

/// Every (element type, operator) pair's kernel, made at compile time: a reduction's combine
/// step costs a table load, not the two switches it would take to find it (at 1 rank, where
/// MPI_Allreduce of one double combines nothing, the check that the pair exists cost 43 of its
/// 700 instructions).
constexpr auto kernels = [] {
  std::array<std::array<found, op_count>, type_count> table{};
  for (std::size_t t = 0; t < type_count; ++t) {
    for (std::size_t o = 0; o < op_count; ++o) {
      table[t][o] = with_type(static_cast<scalar>(t), [&]<class T>(std::type_identity<T>) -> found {
        if constexpr (std::is_void_v<T>)
          return {};
        else
          return {kernel_for<T>(static_cast<builtin_op>(o)), sizeof(T)};
      });
    }
  }
  return table;
}();

/// The kernel of a built-in operator (op.op is not none) on op.type's elements, or nullptr when
/// the pair makes no sense or the element size is not the type's.
kernel kernel_of(const detail::reduction& op) noexcept {
  const auto t = static_cast<std::size_t>(op.type);
  const auto o = static_cast<std::size_t>(op.op);
  if (t >= type_count || o >= op_count) return nullptr;  // the C API passes any integer
  const found& k = kernels[t][o];
  return k.element == op.element ? k.fn : nullptr;
}

/// Why `op` has no kernel: a user operator without a function, or a built-in one that
/// kernel_of() found none for.
[[noreturn]] [[gnu::cold]] void no_kernel(const detail::reduction& op) {
  if (op.op == builtin_op::none) invalid("a user operator without a function");
  const auto t = static_cast<std::size_t>(op.type);
  const auto o = static_cast<std::size_t>(op.op);
  const found k = t < type_count && o < op_count ? kernels[t][o] : found{};
  if (k.fn == nullptr) {
    std::string m = op_name(op.op);
    m.append(" is not defined on ").append(type_name(op.type));
    invalid(m.append(" elements"));
  }
  std::string m = op_name(op.op);
  m.append(" on ").append(type_name(op.type)).append(" elements of ");
  m.append(std::to_string(op.element)).append(" bytes (").append(type_name(op.type));
  invalid(m.append(" has ").append(std::to_string(k.element)).append("-byte elements)"));
}

}  // namespace

void check_combinable(const detail::reduction& op) {
  if (op.op == builtin_op::none ? static_cast<bool>(op.user) : kernel_of(op) != nullptr)
      [[likely]] {
    return;
  }
  no_kernel(op);
}

void combine(const detail::reduction& op, const void* in, void* inout, std::size_t count) {
  if (op.op == builtin_op::none) {
    if (!op.user) [[unlikely]]
      no_kernel(op);
    op.user(in, inout, count);
    return;
  }
  const kernel k = kernel_of(op);
  if (k == nullptr) [[unlikely]]
    no_kernel(op);
  k(in, inout, count);
}

const char* name_of(detail::builtin_op op) noexcept {
  switch (op) {
    case builtin_op::none:
      return "user operator";
    case builtin_op::sum:
      return "sum";
    case builtin_op::product:
      return "product";
    case builtin_op::min:
      return "min";
    case builtin_op::max:
      return "max";
    case builtin_op::logical_and:
      return "logical_and";
    case builtin_op::logical_or:
      return "logical_or";
    case builtin_op::logical_xor:
      return "logical_xor";
    case builtin_op::bit_and:
      return "bit_and";
    case builtin_op::bit_or:
      return "bit_or";
    case builtin_op::bit_xor:
      return "bit_xor";
    case builtin_op::minloc:
      return "minloc";
    case builtin_op::maxloc:
      return "maxloc";
  }
  return "unknown operator";
}

}  // namespace rmpl::coll
