// Every built-in operator and std:: function object on every element type family, under every
// algorithm of every reduction (forced): 1001 elements blocking, 3 nonblocking (root size() - 1
// for reduce) and in place where there is a form for it; compared with a serial fold of the
// operands every rank can compute. Part of the coll_reductions program (its own file so that the
// two halves compile in parallel: together they were the slowest file of the build).
#include <cstdint>
#include <functional>
#include <string>

#include "reduction_checks.hpp"

namespace {

using coll_test::element_fn;
using coll_test::form;
using coll_test::input_kind;
using coll_test::inputs_of;
using coll_test::reduction_names;
using rmpl_test::size;
using rmpl_test::world;

class Operators : public coll_test::fixture {};

/// Every reduction under every algorithm with `op` on T: 1001 elements blocking and 3 nonblocking
/// (root size() - 1 for reduce), and in place where there is a form for it.
template <class T, class Op>
void all_reductions(const char* op_name, const Op& op, input_kind kind) {
  SCOPED_TRACE(op_name);
  auto c = world();
  element_fn<T> e = inputs_of<T>(kind);
  for (const std::string& collective : reduction_names()) {
    coll_test::for_each_algorithm(collective, [&](const std::string&) {
      coll_test::check_reduction<T>(collective, c, op, e, 1001, size() - 1, form::blocking);
      coll_test::check_reduction<T>(collective, c, op, e, 3, 0, form::nonblocking);
      if (collective == "allreduce") {
        coll_test::check_reduction<T>(collective, c, op, e, 1001, -1, form::in_place);
      }
      coll_test::any_failed(c);
    });
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_F(Operators, Int) {
  all_reductions<int>("sum", rmpl::ops::sum{}, input_kind::general);
  all_reductions<int>("product", rmpl::ops::product{}, input_kind::product);
  all_reductions<int>("min", rmpl::ops::min{}, input_kind::general);
  all_reductions<int>("max", rmpl::ops::max{}, input_kind::general);
  all_reductions<int>("logical_and", rmpl::ops::logical_and{}, input_kind::logical);
  all_reductions<int>("logical_or", rmpl::ops::logical_or{}, input_kind::logical);
  all_reductions<int>("logical_xor", rmpl::ops::logical_xor{}, input_kind::logical);
  all_reductions<int>("bit_and", rmpl::ops::bit_and{}, input_kind::bits);
  all_reductions<int>("bit_or", rmpl::ops::bit_or{}, input_kind::bits);
  all_reductions<int>("bit_xor", rmpl::ops::bit_xor{}, input_kind::bits);
}

TEST_F(Operators, IntStandardFunctionObjects) {
  all_reductions<int>("std::plus<>", std::plus<>{}, input_kind::general);
  all_reductions<int>("std::multiplies<int>", std::multiplies<int>{}, input_kind::product);
  all_reductions<int>("std::bit_xor<>", std::bit_xor<>{}, input_kind::bits);
  all_reductions<int>("std::bit_and<int>", std::bit_and<int>{}, input_kind::bits);
  all_reductions<int>("std::logical_or<>", std::logical_or<>{}, input_kind::logical);
  all_reductions<int>("std::logical_and<>", std::logical_and<>{}, input_kind::logical);
}

TEST_F(Operators, Double) {
  all_reductions<double>("sum", rmpl::ops::sum{}, input_kind::general);
  all_reductions<double>("product", rmpl::ops::product{}, input_kind::product);
  all_reductions<double>("min", rmpl::ops::min{}, input_kind::general);
  all_reductions<double>("max", rmpl::ops::max{}, input_kind::general);
  all_reductions<double>("std::plus<double>", std::plus<double>{}, input_kind::general);
  all_reductions<double>("std::multiplies<>", std::multiplies<>{}, input_kind::product);
}

TEST_F(Operators, Int64) {
  all_reductions<std::int64_t>("sum", rmpl::ops::sum{}, input_kind::general);
  all_reductions<std::int64_t>("product", rmpl::ops::product{}, input_kind::product);
  all_reductions<std::int64_t>("min", rmpl::ops::min{}, input_kind::general);
  all_reductions<std::int64_t>("max", rmpl::ops::max{}, input_kind::general);
  all_reductions<std::int64_t>("bit_or", rmpl::ops::bit_or{}, input_kind::bits);
  all_reductions<std::int64_t>("std::plus<>", std::plus<>{}, input_kind::general);
}

TEST_F(Operators, Char) {
  all_reductions<char>("sum", rmpl::ops::sum{}, input_kind::general);
  all_reductions<char>("min", rmpl::ops::min{}, input_kind::general);
  all_reductions<char>("max", rmpl::ops::max{}, input_kind::general);
  all_reductions<char>("bit_xor", rmpl::ops::bit_xor{}, input_kind::bits);
  all_reductions<char>("logical_and", rmpl::ops::logical_and{}, input_kind::logical);
}

TEST_F(Operators, OtherArithmeticTypes) {
  all_reductions<float>("sum", rmpl::ops::sum{}, input_kind::general);
  all_reductions<short>("max", rmpl::ops::max{}, input_kind::general);
  all_reductions<unsigned char>("bit_or", rmpl::ops::bit_or{}, input_kind::bits);
  all_reductions<std::uint64_t>("bit_and", rmpl::ops::bit_and{}, input_kind::bits);
  all_reductions<std::uint64_t>("sum", rmpl::ops::sum{}, input_kind::bits);  // wraps, exactly
  all_reductions<std::uint32_t>("product", rmpl::ops::product{}, input_kind::bits);
  all_reductions<long double>("min", rmpl::ops::min{}, input_kind::general);
}

// Ties are common in these inputs, and the index falls as the rank rises: a tie must go to the
// smallest index (the highest rank), whatever order the operands met in.
TEST_F(Operators, MinlocAndMaxloc) {
  all_reductions<rmpl::value_index<double>>("minloc", rmpl::ops::minloc{}, input_kind::general);
  all_reductions<rmpl::value_index<double>>("maxloc", rmpl::ops::maxloc{}, input_kind::general);
  all_reductions<rmpl::value_index<int>>("minloc", rmpl::ops::minloc{}, input_kind::general);
  all_reductions<rmpl::value_index<float>>("maxloc", rmpl::ops::maxloc{}, input_kind::general);
}

}  // namespace
