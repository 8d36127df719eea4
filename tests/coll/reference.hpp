// Shared pieces of the collective tests: deterministic per-rank inputs (every rank can compute
// every other rank's input, so each rank checks its own result against a serial reference), the
// serial references themselves, the loop over a collective's algorithms, and result comparison that
// names the first wrong element instead of printing megabytes.
#pragma once

#include <gtest/gtest.h>
#include <rmpl/rmpl.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iomanip>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "coll/select.hpp"
#include "mp_test.hpp"

namespace coll_test {

// ---------------------------------------------------------------- sizes

/// RMPL_TEST_LARGE=0 leaves out the multi-MiB cases (they dominate the run time under sanitizers).
inline bool large_enabled() {
  return rmpl_test::env_long("RMPL_TEST_LARGE", 1) != 0;
}
/// Empty, one element, a small odd count, and an odd count past the inline and eager sizes for most
/// element types.
inline std::vector<std::size_t> small_counts() {
  return {0, 1, 3, 1001};
}
/// The large case: 1 Mi elements (8 MiB of doubles), odd so no algorithm's halving divides it
/// evenly.
inline constexpr std::size_t large_count = (std::size_t{1} << 20) + 3;

// ---------------------------------------------------------------- algorithms

/// Restores "auto" for a collective when it goes out of scope, even when an ASSERT left early.
class forced_algorithm {
 public:
  forced_algorithm(std::string_view collective, std::string_view algorithm)
      : collective_(collective) {
    rmpl::coll::force_algorithm(collective_, algorithm);
  }
  ~forced_algorithm() {
    try {
      rmpl::coll::force_algorithm(collective_, "auto");
    } catch (...) {
    }
  }
  forced_algorithm(const forced_algorithm&) = delete;
  forced_algorithm& operator=(const forced_algorithm&) = delete;

 private:
  std::string collective_;
};

/// The algorithms of `collective` ("auto" first), as strings.
inline std::vector<std::string> algorithms_of(std::string_view collective) {
  std::vector<std::string> out;
  for (std::string_view a : rmpl::coll::algorithms(collective)) out.emplace_back(a);
  return out;
}

/// Runs body(algorithm) once per algorithm of `collective`, with that algorithm forced and a trace
/// naming it; "auto" is restored afterwards. Every rank runs the same loop, so all ranks agree on
/// the algorithm of each call.
template <class F>
void for_each_algorithm(std::string_view collective, F&& body) {
  for (const std::string& algorithm : algorithms_of(collective)) {
    SCOPED_TRACE(::testing::Message() << collective << " algorithm " << algorithm);
    forced_algorithm scope(collective, algorithm);
    body(algorithm);
    if (::testing::Test::HasFailure()) return;
  }
}

/// Whether any rank of `c` has failed the current test so far, agreed over `c` by point-to-point
/// (to rank 0 and back, on a tag no test uses). A rank that has not failed but whose peers have
/// records a failure too, so that every rank leaves its loops at the same call: otherwise the
/// failed rank's next collective would meet its peers' previous one. (Only for tests that post no
/// wildcard receives on `c`.)
inline bool any_failed(const rmpl::communicator& c) {
  constexpr int tag = rmpl::tag_ub - 1;
  const std::int32_t mine = ::testing::Test::HasFailure() ? 1 : 0;
  std::int32_t all = mine;
  if (c.size() > 1) {
    if (c.rank() == 0) {
      for (int r = 1; r < c.size(); ++r) all |= c.recv_value<std::int32_t>(r, tag);
      for (int r = 1; r < c.size(); ++r) c.send_value(all, r, tag);
    } else {
      c.send_value(mine, 0, tag);
      all = c.recv_value<std::int32_t>(0, tag);
    }
  }
  if (all != 0 && mine == 0) ADD_FAILURE() << "[collective] another rank failed this call";
  return all != 0;
}

// ---------------------------------------------------------------- inputs

/// A 64-bit mix (splitmix64 finaliser over the combined arguments): cheap enough for references
/// over millions of elements.
inline std::uint64_t hash(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^
                    (b + 0x632BE59BD9B4E019ull) * 0xD1B54A32D192ED03ull ^
                    (c + 1) * 0x8CB92BA72F3D8DD7ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

/// Element i of `who`'s contribution to call number `call` of a test that runs many calls: small
/// integers in doubles, so sums over any number of ranks are exact in any order.
inline double call_value(int who, std::size_t i, int call) {
  return static_cast<double>((who * 7 + static_cast<int>(i % 1000) * 3 + call) % 101);
}
/// `who`'s whole contribution to call `call`.
inline std::vector<double> call_values(int who, std::size_t count, int call) {
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = call_value(who, i, call);
  return v;
}
/// The sum of call `call`'s contributions over `members` ranks (keyed by communicator rank).
inline std::vector<double> call_sum(int members, std::size_t count, int call) {
  std::vector<double> v(count, 0);
  for (int r = 0; r < members; ++r) {
    for (std::size_t i = 0; i < count; ++i) v[i] += call_value(r, i, call);
  }
  return v;
}

/// What an input must look like for an operator to give an exactly predictable result.
enum class input_kind {
  general,  ///< small signed values (doubles: multiples of 1/4), so sums are exact in any order
  product,  ///< 1, -1 and 2 (1 and -1 for char): products of 8 ranks stay exact and in range
  logical,  ///< many zeros among non-zero values
  bits,     ///< arbitrary bit patterns
};

template <class T>
constexpr bool is_value_index = false;
template <class T>
constexpr bool is_value_index<rmpl::value_index<T>> = true;

/// Element i of rank r's input; `salt` makes different calls use different data.
template <class T>
T input(input_kind kind, int rank, std::size_t i, int salt) {
  const std::uint64_t h =
      hash(static_cast<std::uint64_t>(rank), i, static_cast<std::uint64_t>(salt));
  if constexpr (is_value_index<T>) {
    // Few distinct values so that ties are common; the index falls as the rank rises, so a tie
    // resolved by "smallest index" picks the highest rank, never by accident the first operand.
    using V = decltype(T{}.value);
    return T{static_cast<V>(static_cast<int>(h % 5)) / 2, 1000 - rank};
  } else {
    switch (kind) {
      case input_kind::general:
        if constexpr (std::is_floating_point_v<T>) {
          return static_cast<T>(static_cast<int>(h % 81) - 40) / 4;
        } else if constexpr (sizeof(T) == 8) {
          // Past 32 bits, so a 64-bit type reduced as a 32-bit one shows up.
          return static_cast<T>(static_cast<std::int64_t>(h % 2001) - 1000 +
                                (static_cast<std::int64_t>(h >> 40 & 3) << 40));
        } else if constexpr (sizeof(T) == 1) {
          return static_cast<T>(static_cast<int>(h % 15) - 7);  // 8 ranks: |sum| <= 56
        } else {
          return static_cast<T>(static_cast<int>(h % 2001) - 1000);
        }
      case input_kind::product: {
        if constexpr (sizeof(T) == 1) return static_cast<T>(h % 3 == 0 ? -1 : 1);
        static constexpr int values[] = {1, -1, 2, 1};
        return static_cast<T>(values[h % 4]);
      }
      case input_kind::logical:
        return static_cast<T>(h % 3 == 0 ? 0 : static_cast<int>(h % 5) + 1);
      case input_kind::bits:
        return static_cast<T>(h);
    }
    return T{};
  }
}

template <class T>
std::vector<T> inputs(input_kind kind, int rank, std::size_t count, int salt) {
  std::vector<T> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = input<T>(kind, rank, i, salt);
  return out;
}

// ---------------------------------------------------------------- serial reference of operators

template <class T, class Op>
T apply(const Op& op, const T& a, const T& b) {
  using O = std::remove_cvref_t<Op>;
  namespace ops = rmpl::ops;
  if constexpr (std::is_same_v<O, ops::sum>)
    return static_cast<T>(a + b);
  else if constexpr (std::is_same_v<O, ops::product>)
    return static_cast<T>(a * b);
  else if constexpr (std::is_same_v<O, ops::min>)
    return b < a ? b : a;
  else if constexpr (std::is_same_v<O, ops::max>)
    return a < b ? b : a;
  else if constexpr (std::is_same_v<O, ops::logical_and>)
    return static_cast<T>(a != 0 && b != 0);
  else if constexpr (std::is_same_v<O, ops::logical_or>)
    return static_cast<T>(a != 0 || b != 0);
  else if constexpr (std::is_same_v<O, ops::logical_xor>)
    return static_cast<T>((a != 0) != (b != 0));
  else if constexpr (std::is_same_v<O, ops::bit_and>)
    return static_cast<T>(a & b);
  else if constexpr (std::is_same_v<O, ops::bit_or>)
    return static_cast<T>(a | b);
  else if constexpr (std::is_same_v<O, ops::bit_xor>)
    return static_cast<T>(a ^ b);
  else if constexpr (std::is_same_v<O, ops::minloc>) {
    if (a.value < b.value) return a;
    if (b.value < a.value) return b;
    return a.index <= b.index ? a : b;
  } else if constexpr (std::is_same_v<O, ops::maxloc>) {
    if (a.value > b.value) return a;
    if (b.value > a.value) return b;
    return a.index <= b.index ? a : b;
  } else if constexpr (requires { op.f; }) {
    return static_cast<T>(op.f(a, b));  // rmpl::commutative(f)
  } else {
    return static_cast<T>(op(a, b));  // std::plus<> and friends, user callables
  }
}

/// x_first op x_first+1 op ... op x_last-1 over elements [first_element, first_element + count),
/// in rank order, where element_of(r, i) is element i of rank r's operand. Empty when first >=
/// last.
template <class T, class Op, class ElementOf>
std::vector<T> fold(const Op& op, int first, int last, std::size_t first_element, std::size_t count,
                    ElementOf&& element_of) {
  if (first >= last) return {};
  std::vector<T> acc(count);
  for (std::size_t i = 0; i < count; ++i) acc[i] = element_of(first, first_element + i);
  for (int r = first + 1; r < last; ++r) {
    for (std::size_t i = 0; i < count; ++i)
      acc[i] = apply(op, acc[i], element_of(r, first_element + i));
  }
  return acc;
}

// ---------------------------------------------------------------- data movement items

/// Element i of what `source` contributes (salted per call): distinct across sources and
/// positions, so a block delivered to the wrong place shows up.
template <class T>
T item(int source, std::size_t i, int salt) {
  const std::uint64_t h =
      hash(static_cast<std::uint64_t>(source) + 77, i, static_cast<std::uint64_t>(salt));
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(h % 2000001) - 1000000) / 8;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(h);
  } else {
    T value;
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    for (std::size_t b = 0; b < sizeof(T); ++b) bytes[b] = static_cast<unsigned char>(hash(h, b));
    std::memcpy(&value, bytes, sizeof(T));
    return value;
  }
}

/// count items of `source`, numbered from `first`.
template <class T>
std::vector<T> items(int source, std::size_t count, int salt, std::size_t first = 0) {
  std::vector<T> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = item<T>(source, first + i, salt);
  return out;
}

/// A value no item is likely to take: fills receive buffers so an element never written (or
/// written where it must not be) shows up.
template <class T>
T sentinel() {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<T>(0x5A);
  } else {
    T value;
    std::memset(static_cast<void*>(&value), 0x5A, sizeof(T));
    return value;
  }
}

// ---------------------------------------------------------------- comparison

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (requires { a == b; }) {
    return a == b;
  } else {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  }
}

template <class T>
std::string describe(const T& value) {
  std::ostringstream out;
  if constexpr (is_value_index<T>) {
    out << "{" << +value.value << ", " << value.index << "}";
  } else if constexpr (std::is_arithmetic_v<T>) {
    out << +value;
  } else if constexpr (requires { out << value; }) {
    out << value;
  } else {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    out << std::hex << std::setfill('0');
    for (std::size_t b = 0; b < sizeof(T); ++b) out << std::setw(2) << +bytes[b];
  }
  return out.str();
}

/// Empty when got equals want; otherwise the sizes or the first wrong element and how many are
/// wrong.
template <class T>
std::string first_difference(std::span<const T> got, std::span<const T> want) {
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  }
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!same(got[i], want[i])) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return {};
  return "element " + std::to_string(first) + " is " + describe(got[first]) + ", expected " +
         describe(want[first]) + " (" + std::to_string(wrong) + " of " +
         std::to_string(got.size()) + " elements wrong)";
}
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  return first_difference(std::span<const T>(got), std::span<const T>(want));
}

// ---------------------------------------------------------------- waiting with a deadline

/// Polls r.test() (which drives progress) for up to `seconds`: the status if it completed, nothing
/// if not (the request is then still active). A test that would otherwise hang fails instead.
inline std::optional<rmpl::status> wait_for(rmpl::request& r, double seconds) {
  const double deadline = rmpl::session::wtime() + seconds;
  for (;;) {
    if (auto s = r.test()) return s;
    if (rmpl::session::wtime() > deadline) return std::nullopt;
  }
}

/// wait_for, and on timeout a failure naming `what`, a cancel and a wait (so the request is not
/// destroyed pending; only a receive can be cancelled).
inline bool wait_or_fail(rmpl::request& r, double seconds, const std::string& what) {
  if (wait_for(r, seconds)) return true;
  ADD_FAILURE() << what << ": not complete after " << seconds << " s";
  r.cancel();
  r.wait();
  return false;
}

// ---------------------------------------------------------------- errors

inline std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// Runs `operation`, which must throw rmpl::error with one of `codes` and a message containing
/// every one of `words` (compared without case).
inline void expect_error(const std::function<void()>& operation, std::vector<rmpl::errc> codes,
                         const std::vector<std::string>& words, const std::string& what_was_done) {
  try {
    operation();
    ADD_FAILURE() << what_was_done << ": no error (expected " << rmpl::to_string(codes.front())
                  << ")";
  } catch (const rmpl::error& e) {
    EXPECT_NE(std::find(codes.begin(), codes.end(), e.code()), codes.end())
        << what_was_done << ": code " << rmpl::to_string(e.code()) << ", expected "
        << rmpl::to_string(codes.front()) << ": " << e.what();
    std::string message = lowercase(e.what());
    for (const std::string& word : words) {
      EXPECT_NE(message.find(lowercase(word)), std::string::npos)
          << what_was_done << ": the message does not mention \"" << word << "\": " << e.what();
    }
  }
}
inline void expect_error(const std::function<void()>& operation, rmpl::errc code,
                         const std::vector<std::string>& words, const std::string& what_was_done) {
  expect_error(operation, std::vector<rmpl::errc>{code}, words, what_was_done);
}

}  // namespace coll_test
