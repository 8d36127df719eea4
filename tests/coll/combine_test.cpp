// The combine step of reductions, in one process: every built-in (operator, type) pair against a
// scalar reference computed here, every meaningless pair rejected with a message naming both,
// minloc/maxloc ties, logical operators on floats, user operators (argument order) and
// make_reduction's mapping of function objects to built-ins.
#include "coll/combine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "rmpl/types.hpp"

namespace {

using rmpl::value_index;
using rmpl::coll::combine;
using rmpl::detail::builtin_op;
using rmpl::detail::make_reduction;
using rmpl::detail::reduction;
using rmpl::detail::scalar;
using rmpl::detail::scalar_of;

constexpr builtin_op builtin_ops[] = {
    builtin_op::sum,         builtin_op::product,    builtin_op::min,         builtin_op::max,
    builtin_op::logical_and, builtin_op::logical_or, builtin_op::logical_xor, builtin_op::bit_and,
    builtin_op::bit_or,      builtin_op::bit_xor,    builtin_op::minloc,      builtin_op::maxloc,
};

constexpr std::size_t counts[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 300, 1001};

template <class T>
constexpr bool is_vi = rmpl::detail::is_value_index<T>;

/// What combine's messages call each type.
const char* type_name(scalar s) {
  switch (s) {
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
  return "?";
}

reduction builtin(builtin_op op, scalar type, std::size_t element) {
  reduction r;
  r.op = op;
  r.type = type;
  r.element = element;
  return r;
}

/// MPI's table: which built-in operators apply to T.
template <class T>
bool valid(builtin_op op) {
  if constexpr (is_vi<T>) {
    return op == builtin_op::minloc || op == builtin_op::maxloc;
  } else {
    switch (op) {
      case builtin_op::bit_and:
      case builtin_op::bit_or:
      case builtin_op::bit_xor:
        return std::is_integral_v<T>;
      case builtin_op::minloc:
      case builtin_op::maxloc:
        return false;
      default:
        return true;
    }
  }
}

/// The reference result of `a op b` for one element, written the obvious way.
template <class T>
T reference(builtin_op op, T a, T b) {
  using enum builtin_op;
  if constexpr (is_vi<T>) {
    const bool a_better = op == minloc ? a.value < b.value : a.value > b.value;
    const bool b_better = op == minloc ? b.value < a.value : b.value > a.value;
    if (a_better) return a;
    if (b_better) return b;
    return {a.value, std::min(a.index, b.index)};
  } else {
    const bool x = a != T(0);
    const bool y = b != T(0);
    switch (op) {
      case logical_and:
        return x && y ? T(1) : T(0);
      case logical_or:
        return x || y ? T(1) : T(0);
      case logical_xor:
        return x != y ? T(1) : T(0);
      case min:
        return std::min(a, b);
      case max:
        return std::max(a, b);
      default:
        break;
    }
    if constexpr (std::is_same_v<T, bool>) {
      switch (op) {
        case sum:
          return int(a) + int(b) != 0;
        case product:
          return int(a) * int(b) != 0;
        case bit_and:
          return (int(a) & int(b)) != 0;
        case bit_or:
          return (int(a) | int(b)) != 0;
        case bit_xor:
          return (int(a) ^ int(b)) != 0;
        default:
          break;
      }
    } else if constexpr (std::is_integral_v<T>) {
      // Wrapping arithmetic, done in 64-bit unsigned and truncated.
      const std::uint64_t u = static_cast<std::uint64_t>(a);
      const std::uint64_t v = static_cast<std::uint64_t>(b);
      switch (op) {
        case sum:
          return static_cast<T>(u + v);
        case product:
          return static_cast<T>(u * v);
        case bit_and:
          return static_cast<T>(u & v);
        case bit_or:
          return static_cast<T>(u | v);
        case bit_xor:
          return static_cast<T>(u ^ v);
        default:
          break;
      }
    } else {
      switch (op) {
        case sum:
          return a + b;
        case product:
          return a * b;
        default:
          break;
      }
    }
  }
  ADD_FAILURE() << "no reference for operator " << rmpl::coll::name_of(op);
  return a;
}

template <class T>
bool same(const T& x, const T& y) {
  if constexpr (is_vi<T>)
    return same(x.value, y.value) && x.index == y.index;
  else if constexpr (std::is_floating_point_v<T>)
    return x == y || (std::isnan(x) && std::isnan(y));
  else
    return x == y;
}

template <class T>
std::string show(const T& v) {
  if constexpr (is_vi<T>) {
    std::ostringstream s;  // not operator+: GCC 12 warns falsely about it (-Wrestrict)
    s << '{' << show(v.value) << ", " << v.index << '}';
    return s.str();
  } else if constexpr (std::is_floating_point_v<T>)
    return std::to_string(v);
  else
    return std::to_string(static_cast<long long>(v)) + (std::is_unsigned_v<T> ? "u" : "");
}

/// Varied values: zero, ones, extremes, small and large random ones (no NaN: min and max of a NaN
/// are unspecified, as in MPI).
template <class T>
T random_value(std::mt19937_64& g) {
  using L = std::numeric_limits<T>;
  const auto pick = g() % 16;
  if constexpr (std::is_same_v<T, bool>) {
    return pick % 2 == 0;
  } else if constexpr (std::is_integral_v<T>) {
    switch (pick) {
      case 0:
        return T(0);
      case 1:
        return T(1);
      case 2:
        return static_cast<T>(-1);  // the maximum of unsigned types
      case 3:
        return L::min();
      case 4:
        return L::max();
      case 5:
        return static_cast<T>(L::max() - 1);
      case 6:
        return static_cast<T>(L::min() + 1);
      case 7:
      case 8:
      case 9:
        return static_cast<T>(static_cast<int>(g() % 21) - 10);
      default:
        return static_cast<T>(g());
    }
  } else {
    switch (pick) {
      case 0:
        return T(0);
      case 1:
        return -T(0);
      case 2:
        return T(1);
      case 3:
        return T(-1);
      case 4:
        return L::max();
      case 5:
        return L::lowest();
      case 6:
        return L::denorm_min();
      case 7:
        return T(-1e-30);
      case 8:
        return T(0.5);
      default: {
        std::uniform_real_distribution<double> d(-1e6, 1e6);
        return static_cast<T>(d(g));
      }
    }
  }
}

/// For minloc/maxloc: few distinct values and indices, so ties are frequent.
template <class V>
V random_vi(std::mt19937_64& g) {
  using T = decltype(V::value);
  T value;
  switch (g() % 8) {
    case 0:
      value = std::numeric_limits<T>::max();
      break;
    case 1:
      value = std::numeric_limits<T>::lowest();
      break;
    case 2:
      value = -T(0);
      break;
    default:
      value = static_cast<T>(static_cast<int>(g() % 5) - 2);
  }
  return {value, static_cast<int>(g() % 6)};
}

template <class T>
T random_element(std::mt19937_64& g) {
  if constexpr (is_vi<T>)
    return random_vi<T>(g);
  else
    return random_value<T>(g);
}

// ---- every (operator, type) pair ----

template <class T>
class CombineTyped : public ::testing::Test {};

using element_types =
    ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                     std::uint16_t, std::uint32_t, std::uint64_t, char, long long, float, double,
                     long double, bool, value_index<short>, value_index<int>, value_index<long>,
                     value_index<long long>, value_index<float>, value_index<double>,
                     value_index<long double>>;
TYPED_TEST_SUITE(CombineTyped, element_types);

/// Checks combine(op) over `count` elements at element offset `offset` of aligned arrays (so the
/// vector loops run with every alignment of their start), or through byte buffers misaligned by
/// one byte when `misaligned`. The elements just past the end must be left alone.
template <class T>
void check_pair(builtin_op op, std::size_t count, std::size_t offset, bool misaligned,
                std::mt19937_64& g) {
  constexpr std::size_t guard = 3;
  const std::size_t n = offset + count + guard;
  std::unique_ptr<T[]> in(new T[n]);
  std::unique_ptr<T[]> inout(new T[n]);
  std::unique_ptr<T[]> expected(new T[n]);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = random_element<T>(g);
    inout[i] = random_element<T>(g);
    expected[i] = inout[i];
  }
  for (std::size_t i = offset; i < offset + count; ++i)
    expected[i] = reference(op, in[i], inout[i]);

  const reduction r = builtin(op, scalar_of<T>(), sizeof(T));
  if (!misaligned) {
    combine(r, in.get() + offset, inout.get() + offset, count);
  } else {
    std::vector<unsigned char> a(n * sizeof(T) + 1);
    std::vector<unsigned char> b(n * sizeof(T) + 1);
    std::memcpy(a.data() + 1, in.get(), n * sizeof(T));
    std::memcpy(b.data() + 1, inout.get(), n * sizeof(T));
    combine(r, a.data() + 1 + offset * sizeof(T), b.data() + 1 + offset * sizeof(T), count);
    std::memcpy(inout.get(), b.data() + 1, n * sizeof(T));
  }
  int reported = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!same(inout[i], expected[i]) && reported++ < 5)
      ADD_FAILURE() << rmpl::coll::name_of(op) << " on " << type_name(scalar_of<T>()) << ", count "
                    << count << ", offset " << offset << (misaligned ? " (misaligned)" : "")
                    << ": element " << i << " is " << show(inout[i]) << ", expected "
                    << show(expected[i]) << " (in " << show(in[i]) << ")";
  }
}

TYPED_TEST(CombineTyped, ValidPairsMatchTheReference) {
  using T = TypeParam;
  std::mt19937_64 g(12345);
  for (builtin_op op : builtin_ops) {
    if (!valid<T>(op)) continue;
    for (std::size_t count : counts) {
      check_pair<T>(op, count, 0, false, g);
      check_pair<T>(op, count, 1, false, g);
      if (alignof(T) > 1) check_pair<T>(op, count, 0, true, g);
    }
  }
}

void expect_invalid(const reduction& r, const std::string& op_name, const std::string& type) {
  // Large enough for one element of any type, should the pair be (wrongly) accepted.
  alignas(64) const unsigned char in[64] = {};
  alignas(64) unsigned char inout[64] = {};
  try {
    combine(r, in, inout, 1);
    ADD_FAILURE() << op_name << " on " << type << " was accepted";
  } catch (const rmpl::error& e) {
    EXPECT_EQ(e.code(), rmpl::errc::invalid_argument) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find(op_name), std::string::npos) << what;
    EXPECT_NE(what.find(type), std::string::npos) << what;
  }
}

TYPED_TEST(CombineTyped, InvalidPairsThrowNamingOperatorAndType) {
  using T = TypeParam;
  for (builtin_op op : builtin_ops) {
    if (valid<T>(op)) continue;
    expect_invalid(builtin(op, scalar_of<T>(), sizeof(T)), rmpl::coll::name_of(op),
                   type_name(scalar_of<T>()));
  }
}

TYPED_TEST(CombineTyped, ElementSizeMustMatchTheType) {
  using T = TypeParam;
  for (builtin_op op : builtin_ops) {
    if (!valid<T>(op)) continue;
    for (std::size_t element : {std::size_t(0), sizeof(T) + 1, sizeof(T) / 2})
      expect_invalid(builtin(op, scalar_of<T>(), element), rmpl::coll::name_of(op),
                     type_name(scalar_of<T>()));
  }
}

// ---- the rest of the invalid arguments ----

TEST(Combine, BuiltinOperatorsNeedABuiltinType) {
  for (builtin_op op : builtin_ops)
    expect_invalid(builtin(op, scalar::none, 4), rmpl::coll::name_of(op), "untyped");
}

TEST(Combine, UnknownCodesFromTheCApiAreRejected) {
  expect_invalid(builtin(static_cast<builtin_op>(77), scalar::i32, 4), "unknown operator (77)",
                 "int32");
  expect_invalid(builtin(builtin_op::sum, static_cast<scalar>(99), 4), "sum", "unknown type (99)");
}

TEST(Combine, UserOperatorWithoutFunctionThrows) {
  reduction r;
  int a = 1, b = 2;
  try {
    combine(r, &a, &b, 1);
    ADD_FAILURE() << "accepted";
  } catch (const rmpl::error& e) {
    EXPECT_EQ(e.code(), rmpl::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("user operator"), std::string::npos) << e.what();
  }
}

TEST(Combine, ZeroElementsMayHaveNullBuffers) {
  combine(builtin(builtin_op::sum, scalar::f64, sizeof(double)), nullptr, nullptr, 0);
  combine(make_reduction<int>([](int x, int y) { return x - y; }), nullptr, nullptr, 0);
}

// ---- semantics worth spelling out ----

TEST(Combine, MinlocMaxlocTies) {
  using vi = value_index<int>;
  struct row {
    vi in, inout, minloc, maxloc;
  };
  const row rows[] = {
      {{3, 5}, {3, 2}, {3, 2}, {3, 2}},  // equal values: the smaller index, from either side
      {{3, 1}, {3, 4}, {3, 1}, {3, 1}}, {{3, 4}, {3, 4}, {3, 4}, {3, 4}},
      {{2, 9}, {3, 0}, {2, 9}, {3, 0}},  // different values: the index goes with the value
      {{4, 0}, {3, 9}, {3, 9}, {4, 0}}, {{-7, 3}, {7, 1}, {-7, 3}, {7, 1}},
  };
  for (builtin_op op : {builtin_op::minloc, builtin_op::maxloc}) {
    std::vector<vi> in, inout;
    for (const row& r : rows) {
      in.push_back(r.in);
      inout.push_back(r.inout);
    }
    combine(builtin(op, scalar::vi_i32, sizeof(vi)), in.data(), inout.data(), inout.size());
    for (std::size_t i = 0; i < std::size(rows); ++i) {
      const vi want = op == builtin_op::minloc ? rows[i].minloc : rows[i].maxloc;
      EXPECT_EQ(inout[i], want) << rmpl::coll::name_of(op) << " row " << i;
    }
  }
  // Signed zeros are equal values.
  using vd = value_index<double>;
  vd a[] = {{-0.0, 2}, {0.0, 1}};
  vd b[] = {{0.0, 1}, {-0.0, 2}};
  combine(builtin(builtin_op::maxloc, scalar::vi_f64, sizeof(vd)), a, b, 2);
  EXPECT_EQ(b[0].index, 1);
  EXPECT_EQ(b[1].index, 1);
  EXPECT_EQ(b[0].value, 0.0);
}

template <class T>
void check_logical_on_floats() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const T in[] = {0.0, -0.0, 0.5, nan, inf, 0.0, -3, T(1e-300L), -0.0};
  const T inout[] = {0.0, 1.0, 0.0, 0.0, -inf, nan, 2, 0.0, -0.0};
  // NaN and infinities are true, both zeros false (1e-300 is 0 as a float).
  const bool tiny = T(1e-300L) != T(0);
  const T want_and[] = {0, 0, 0, 0, 1, 0, 1, 0, 0};
  const T want_or[] = {0, 1, 1, 1, 1, 1, 1, T(tiny), 0};
  const T want_xor[] = {0, 1, 1, 1, 0, 1, 0, T(tiny), 0};
  struct {
    builtin_op op;
    const T* want;
  } cases[] = {{builtin_op::logical_and, want_and},
               {builtin_op::logical_or, want_or},
               {builtin_op::logical_xor, want_xor}};
  for (const auto& c : cases) {
    T out[std::size(inout)];
    std::copy(std::begin(inout), std::end(inout), out);
    combine(builtin(c.op, scalar_of<T>(), sizeof(T)), in, out, std::size(out));
    for (std::size_t i = 0; i < std::size(out); ++i) {
      EXPECT_EQ(out[i], c.want[i])
          << rmpl::coll::name_of(c.op) << " on " << type_name(scalar_of<T>()) << ", element " << i;
      EXPECT_FALSE(std::signbit(out[i])) << "results are +0 or 1";
    }
  }
}

TEST(Combine, LogicalOperatorsOnFloats) {
  check_logical_on_floats<float>();
  check_logical_on_floats<double>();
  check_logical_on_floats<long double>();
}

TEST(Combine, LogicalOperatorsOnIntegersGiveOneOrZero) {
  const std::int64_t in[] = {std::numeric_limits<std::int64_t>::min(), 0, 5, -1, 0};
  std::int64_t inout[] = {2, 0, 0, -9, std::numeric_limits<std::int64_t>::min()};
  combine(builtin(builtin_op::logical_and, scalar::i64, 8), in, inout, 5);
  EXPECT_EQ(std::vector<std::int64_t>(inout, inout + 5),
            (std::vector<std::int64_t>{1, 0, 0, 1, 0}));
}

TEST(Combine, BoolBytesOtherThanZeroOrOneAreTrue) {
  // The C API may hand over bool buffers holding any byte; every result is a canonical 0 or 1.
  const std::uint8_t in[] = {2, 0, 255, 1, 2};
  std::uint8_t inout[] = {1, 7, 4, 0, 2};
  combine(builtin(builtin_op::bit_and, scalar::boolean, 1), in, inout, 5);
  EXPECT_EQ(std::vector<std::uint8_t>(inout, inout + 5),
            (std::vector<std::uint8_t>{1, 0, 1, 0, 1}));
  std::uint8_t inout2[] = {1, 7, 4, 0, 2};
  combine(builtin(builtin_op::bit_xor, scalar::boolean, 1), in, inout2, 5);
  EXPECT_EQ(std::vector<std::uint8_t>(inout2, inout2 + 5),
            (std::vector<std::uint8_t>{0, 1, 0, 1, 0}));
}

TEST(Combine, IntegerOverflowWraps) {
  const std::int32_t in[] = {std::numeric_limits<std::int32_t>::max(), 65536};
  std::int32_t inout[] = {1, 65536};
  combine(builtin(builtin_op::sum, scalar::i32, 4), in, inout, 1);
  EXPECT_EQ(inout[0], std::numeric_limits<std::int32_t>::min());
  combine(builtin(builtin_op::product, scalar::i32, 4), in + 1, inout + 1, 1);
  EXPECT_EQ(inout[1], 0);
  const std::uint16_t a[] = {65535};
  std::uint16_t b[] = {65535};
  combine(builtin(builtin_op::product, scalar::u16, 2), a, b, 1);
  EXPECT_EQ(b[0], 1);
}

// ---- user operators ----

TEST(Combine, UserOperatorGetsInThenInout) {
  // Not commutative: x op y = 10 x + y, so the order of the arguments shows.
  const reduction r = make_reduction<int>([](const int& x, const int& y) { return 10 * x + y; });
  EXPECT_EQ(r.op, builtin_op::none);
  EXPECT_FALSE(r.commutative);
  EXPECT_EQ(r.element, sizeof(int));
  for (std::size_t count : counts) {
    std::vector<int> in(count), inout(count), want(count);
    for (std::size_t i = 0; i < count; ++i) {
      in[i] = static_cast<int>(i % 10);
      inout[i] = static_cast<int>(i % 7);
      want[i] = 10 * in[i] + inout[i];
    }
    combine(r, in.data(), inout.data(), count);
    EXPECT_EQ(inout, want) << "count " << count;
  }
}

struct mat2 {  // 2x2 matrices under multiplication: associative, not commutative
  long a, b, c, d;
  friend bool operator==(const mat2&, const mat2&) = default;
};
mat2 operator*(const mat2& x, const mat2& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
          x.c * y.b + x.d * y.d};
}

TEST(Combine, UserOperatorOnStructs) {
  const reduction r = make_reduction<mat2>([](const mat2& x, const mat2& y) { return x * y; });
  EXPECT_EQ(r.element, sizeof(mat2));
  const mat2 in[] = {{1, 1, 0, 1}, {2, 0, 0, 1}, {0, 1, 1, 0}};
  mat2 inout[] = {{1, 0, 1, 1}, {1, 3, 0, 1}, {1, 2, 3, 4}};
  mat2 want[3];
  for (int i = 0; i < 3; ++i) want[i] = in[i] * inout[i];
  ASSERT_FALSE(want[0] == inout[0] * in[0]) << "the test needs non-commuting operands";
  combine(r, in, inout, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(inout[i], want[i]) << i;
}

TEST(Combine, CommutativeWrapperMarksUserOperators) {
  const auto add = [](const double& x, const double& y) { return x + y; };
  const reduction plain = make_reduction<double>(add);
  const reduction marked = make_reduction<double>(rmpl::commutative(add));
  EXPECT_EQ(plain.op, builtin_op::none);
  EXPECT_FALSE(plain.commutative);
  EXPECT_EQ(marked.op, builtin_op::none);
  EXPECT_TRUE(marked.commutative);
  ASSERT_TRUE(marked.user);
  const double in[] = {1.5, -2};
  double inout[] = {2, 4};
  combine(marked, in, inout, 2);
  EXPECT_EQ(inout[0], 3.5);
  EXPECT_EQ(inout[1], 2);
}

// ---- make_reduction's built-ins ----

TEST(MakeReduction, StandardFunctionObjectsAreBuiltins) {
  const auto expect = [](const reduction& r, builtin_op op, scalar type, std::size_t element) {
    EXPECT_EQ(r.op, op) << rmpl::coll::name_of(r.op);
    EXPECT_EQ(r.type, type) << type_name(r.type);
    EXPECT_EQ(r.element, element);
    EXPECT_TRUE(r.commutative);
    EXPECT_FALSE(r.user);
  };
  expect(make_reduction<int>(std::plus<>{}), builtin_op::sum, scalar::i32, 4);
  expect(make_reduction<int>(std::plus<int>{}), builtin_op::sum, scalar::i32, 4);
  expect(make_reduction<long>(std::multiplies<long>{}), builtin_op::product, scalar::i64, 8);
  expect(make_reduction<unsigned>(std::bit_xor<>{}), builtin_op::bit_xor, scalar::u32, 4);
  expect(make_reduction<bool>(std::logical_or<bool>{}), builtin_op::logical_or, scalar::boolean, 1);
  expect(make_reduction<double>(rmpl::ops::max{}), builtin_op::max, scalar::f64, 8);
  expect(make_reduction<float>(rmpl::ops::logical_xor{}), builtin_op::logical_xor, scalar::f32, 4);
  expect(make_reduction<value_index<long>>(rmpl::ops::minloc{}), builtin_op::minloc, scalar::vi_i64,
         sizeof(value_index<long>));
  expect(make_reduction<value_index<long long>>(rmpl::ops::maxloc{}), builtin_op::maxloc,
         scalar::vi_i64, sizeof(value_index<long long>));
  expect(make_reduction<value_index<short>>(rmpl::ops::maxloc{}), builtin_op::maxloc,
         scalar::vi_i16, sizeof(value_index<short>));

  // And they combine as built-ins.
  const int in[] = {1, 2, 3};
  int inout[] = {10, 20, 30};
  combine(make_reduction<int>(std::plus<int>{}), in, inout, 3);
  EXPECT_EQ(std::vector<int>(inout, inout + 3), (std::vector<int>{11, 22, 33}));
}

TEST(Combine, OperatorNames) {
  EXPECT_STREQ(rmpl::coll::name_of(builtin_op::none), "user operator");
  EXPECT_STREQ(rmpl::coll::name_of(builtin_op::sum), "sum");
  EXPECT_STREQ(rmpl::coll::name_of(builtin_op::product), "product");
  EXPECT_STREQ(rmpl::coll::name_of(builtin_op::logical_xor), "logical_xor");
  EXPECT_STREQ(rmpl::coll::name_of(builtin_op::bit_and), "bit_and");
  EXPECT_STREQ(rmpl::coll::name_of(builtin_op::maxloc), "maxloc");
}

}  // namespace
