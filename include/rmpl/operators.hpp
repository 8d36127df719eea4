// Reduction operators for reduce, allreduce, scan, exscan and reduce_scatter.
//
// Built-in operators run vectorised loops inside the library: rmpl::ops::sum, product, min, max,
// logical_and/or/xor on every arithmetic type, bit_and/or/xor on integers and bool, and
// minloc/maxloc on rmpl::value_index<T>. The standard function objects std::plus, std::multiplies,
// std::logical_and, std::logical_or, std::bit_and, std::bit_or and std::bit_xor (typed or <>) mean
// the same built-ins.
//
// Any other callable `T f(const T& a, const T& b)` is a user operator. It must be associative;
// it is taken as NOT commutative, so operands are always combined in rank order
// (x0 op x1 op ... op xn-1); wrap it in rmpl::commutative(f) to let the library reorder them.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace rmpl {

/// A value and the rank (or any index) it came from: the element type of minloc and maxloc.
template <class T>
struct value_index {
  T value;
  int index;
  friend bool operator==(const value_index&, const value_index&) = default;
};

namespace ops {
struct sum {};
struct product {};
struct min {};
struct max {};
struct logical_and {};
struct logical_or {};
struct logical_xor {};
struct bit_and {};
struct bit_or {};
struct bit_xor {};
/// The smallest value and, among equal values, the smallest index.
struct minloc {};
/// The largest value and, among equal values, the smallest index.
struct maxloc {};
}  // namespace ops

/// Declares a user operator commutative: the library may combine operands in any order.
template <class F>
struct commutative_op {
  F f;
};
template <class F>
commutative_op<std::decay_t<F>> commutative(F&& f) {
  return {std::forward<F>(f)};
}

namespace detail {

enum class builtin_op : std::uint8_t {
  none,  ///< a user operator
  sum,
  product,
  min,
  max,
  logical_and,
  logical_or,
  logical_xor,
  bit_and,
  bit_or,
  bit_xor,
  minloc,
  maxloc,
};

/// The element types the built-in operators know.
enum class scalar : std::uint8_t {
  none,
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  f32,
  f64,
  f80,  ///< long double
  boolean,
  vi_i16,  ///< value_index<short>... for minloc / maxloc
  vi_i32,
  vi_i64,
  vi_f32,
  vi_f64,
  vi_f80,
};

// One type and its tag a line (clang-format would split each).
// clang-format off
template <class T>
constexpr scalar scalar_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) return scalar::boolean;
  else if constexpr (std::is_same_v<U, float>) return scalar::f32;
  else if constexpr (std::is_same_v<U, double>) return scalar::f64;
  else if constexpr (std::is_same_v<U, long double>) return scalar::f80;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    if constexpr (sizeof(U) == 1) return scalar::i8;
    else if constexpr (sizeof(U) == 2) return scalar::i16;
    else if constexpr (sizeof(U) == 4) return scalar::i32;
    else if constexpr (sizeof(U) == 8) return scalar::i64;
    else return scalar::none;
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>) {
    if constexpr (sizeof(U) == 1) return scalar::u8;
    else if constexpr (sizeof(U) == 2) return scalar::u16;
    else if constexpr (sizeof(U) == 4) return scalar::u32;
    else if constexpr (sizeof(U) == 8) return scalar::u64;
    else return scalar::none;
  } else if constexpr (std::is_same_v<U, value_index<short>>) return scalar::vi_i16;
  else if constexpr (std::is_same_v<U, value_index<int>>) return scalar::vi_i32;
  else if constexpr (std::is_same_v<U, value_index<long>> ||
                     std::is_same_v<U, value_index<long long>>) return scalar::vi_i64;
  else if constexpr (std::is_same_v<U, value_index<float>>) return scalar::vi_f32;
  else if constexpr (std::is_same_v<U, value_index<double>>) return scalar::vi_f64;
  else if constexpr (std::is_same_v<U, value_index<long double>>) return scalar::vi_f80;
  else return scalar::none;
}
// clang-format on

template <class T>
constexpr bool is_value_index = false;
template <class T>
constexpr bool is_value_index<value_index<T>> = true;

template <class O>
constexpr bool is_commutative_op = false;
template <class F>
constexpr bool is_commutative_op<commutative_op<F>> = true;

/// A reduction operator with its element type erased: what the compiled library receives.
struct reduction {
  builtin_op op = builtin_op::none;
  scalar type = scalar::none;
  std::size_t element = 0;  ///< bytes per element
  bool commutative = true;
  /// User operators: inout[i] = in[i] op inout[i] for i < count, where `in` holds the operand of
  /// the lower ranks (MPI's convention for user functions).
  std::function<void(const void* in, void* inout, std::size_t count)> user;
};

template <class O>
constexpr builtin_op builtin_of_std() {
  return builtin_op::none;
}
#define RMPL_STD_BUILTIN(fn, code)                   \
  template <>                                        \
  constexpr builtin_op builtin_of_std<std::fn<>>() { \
    return builtin_op::code;                         \
  }
RMPL_STD_BUILTIN(plus, sum)
RMPL_STD_BUILTIN(multiplies, product)
RMPL_STD_BUILTIN(logical_and, logical_and)
RMPL_STD_BUILTIN(logical_or, logical_or)
RMPL_STD_BUILTIN(bit_and, bit_and)
RMPL_STD_BUILTIN(bit_or, bit_or)
RMPL_STD_BUILTIN(bit_xor, bit_xor)
#undef RMPL_STD_BUILTIN

template <class Op>
constexpr builtin_op builtin_of() {
  using O = std::remove_cvref_t<Op>;
  if constexpr (std::is_same_v<O, ops::sum>)
    return builtin_op::sum;
  else if constexpr (std::is_same_v<O, ops::product>)
    return builtin_op::product;
  else if constexpr (std::is_same_v<O, ops::min>)
    return builtin_op::min;
  else if constexpr (std::is_same_v<O, ops::max>)
    return builtin_op::max;
  else if constexpr (std::is_same_v<O, ops::logical_and>)
    return builtin_op::logical_and;
  else if constexpr (std::is_same_v<O, ops::logical_or>)
    return builtin_op::logical_or;
  else if constexpr (std::is_same_v<O, ops::logical_xor>)
    return builtin_op::logical_xor;
  else if constexpr (std::is_same_v<O, ops::bit_and>)
    return builtin_op::bit_and;
  else if constexpr (std::is_same_v<O, ops::bit_or>)
    return builtin_op::bit_or;
  else if constexpr (std::is_same_v<O, ops::bit_xor>)
    return builtin_op::bit_xor;
  else if constexpr (std::is_same_v<O, ops::minloc>)
    return builtin_op::minloc;
  else if constexpr (std::is_same_v<O, ops::maxloc>)
    return builtin_op::maxloc;
  else
    return builtin_of_std<O>();
}

/// std::plus<T> and friends name the same built-ins as std::plus<>.
template <class O>
struct untyped {
  using type = O;
};
template <template <class> class F, class T>
requires(!std::is_void_v<T>) struct untyped<F<T>> {
  using type = F<void>;
};

/// The reduction for elements of type T under operator `op` (checked at compile time: a built-in
/// must make sense for T, a user operator must take two T and return a T).
template <class T, class Op>
reduction make_reduction(Op&& op) {
  using O = std::remove_cvref_t<Op>;
  reduction r;
  r.element = sizeof(T);
  if constexpr (builtin_of<typename untyped<O>::type>() != builtin_op::none) {
    constexpr builtin_op code = builtin_of<typename untyped<O>::type>();
    constexpr scalar type = scalar_of<T>();
    if constexpr (code == builtin_op::minloc || code == builtin_op::maxloc) {
      static_assert(is_value_index<T> && type != scalar::none,
                    "minloc/maxloc reduce rmpl::value_index<T> with T short, int, long, long long, "
                    "float, double or long double");
    } else if constexpr (code == builtin_op::bit_and || code == builtin_op::bit_or ||
                         code == builtin_op::bit_xor) {
      static_assert(std::is_integral_v<T> && type != scalar::none,
                    "bitwise operators reduce integers (or bool) of 1, 2, 4 or 8 bytes");
    } else {
      static_assert(std::is_arithmetic_v<T> && type != scalar::none,
                    "this built-in operator reduces arithmetic types");
    }
    r.op = code;
    r.type = type;
    r.commutative = true;
  } else {
    bool commutes = false;
    auto wrap = [&](auto f) {
      static_assert(std::is_invocable_r_v<T, decltype(f)&, const T&, const T&>,
                    "a user reduction operator takes (const T&, const T&) and returns T");
      r.user = [f = std::move(f)](const void* in, void* inout, std::size_t count) mutable {
        const T* a = static_cast<const T*>(in);
        T* b = static_cast<T*>(inout);
        for (std::size_t i = 0; i < count; ++i) b[i] = f(a[i], b[i]);
      };
    };
    if constexpr (is_commutative_op<O>) {
      commutes = true;
      wrap(std::forward<Op>(op).f);
    } else {
      wrap(std::forward<Op>(op));
    }
    r.commutative = commutes;
  }
  return r;
}

}  // namespace detail
}  // namespace rmpl
