// One check per reduction collective (reduce, allreduce, scan, exscan, reduce_scatter_block,
// reduce_scatter): build this rank's operand from an element function every rank can evaluate for
// every rank, run the collective in one of its forms, and compare with the serial fold. Shared by
// the built-in operator tests and the non-commutative ones.
#pragma once

#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "reference.hpp"

namespace coll_test {

/// Every rank runs the same sequence of calls, so a counter names each call identically everywhere;
/// each call gets new data, so a result left over from the previous call cannot pass for this one.
/// The counter restarts with each test (fixture below): a test that runs calls on a communicator
/// some ranks are not in would otherwise leave the ranks' counters out of step.
inline int& salt_counter() {
  static int salt = 0;
  return salt;
}
inline int next_salt() {
  return ++salt_counter();
}

/// The fixture of the collective tests: the harness's (barrier before, agreement after) and a
/// fresh salt counter.
class fixture : public rmpl_test::collective {
 protected:
  void SetUp() override {
    rmpl_test::collective::SetUp();
    salt_counter() = 0;
  }
};

enum class form { blocking, nonblocking, in_place };
inline const char* form_name(form f) {
  switch (f) {
    case form::blocking:
      return "blocking";
    case form::nonblocking:
      return "nonblocking";
    case form::in_place:
      return "in place";
  }
  return "?";
}

/// Element i of rank r's operand in the call salted `salt`.
template <class T>
using element_fn = std::function<T(int rank, std::size_t i, int salt)>;

template <class T>
element_fn<T> inputs_of(input_kind kind) {
  return [kind](int r, std::size_t i, int salt) { return input<T>(kind, r, i, salt); };
}

template <class T>
std::vector<T> operand(const element_fn<T>& e, int rank, std::size_t first, std::size_t count,
                       int salt) {
  std::vector<T> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = e(rank, first + i, salt);
  return out;
}

/// The fold over ranks [first_rank, last_rank) of elements [first, first + count).
template <class T, class Op>
std::vector<T> reduced(const Op& op, const element_fn<T>& e, int salt, int first_rank,
                       int last_rank, std::size_t first, std::size_t count) {
  return fold<T>(op, first_rank, last_rank, first, count,
                 [&](int r, std::size_t i) { return e(r, i, salt); });
}

inline std::string reduction_trace(std::size_t count, int root, form f,
                                   const char* unit = "elements") {
  return std::to_string(count) + " " + unit +
         (root >= 0 ? ", root " + std::to_string(root) : std::string()) + ", " + form_name(f);
}

// ---------------------------------------------------------------- the checks

template <class T, class Op>
void check_reduce(const rmpl::communicator& c, const Op& op, const element_fn<T>& e,
                  std::size_t count, int root, form f) {
  SCOPED_TRACE(reduction_trace(count, root, f));
  const int salt = next_salt();
  const bool at_root = c.rank() == root;
  const std::vector<T> in = operand(e, c.rank(), 0, count, salt);
  std::vector<T> out;
  switch (f) {
    case form::blocking: {
      // Outside the root the output must not be touched: full of sentinels, which must stay.
      out.assign(count, sentinel<T>());
      c.reduce(in, out, op, root);
      break;
    }
    case form::nonblocking: {
      // Outside the root the output may be empty.
      out.assign(at_root ? count : 0, sentinel<T>());
      rmpl::request r = c.ireduce(in, out, op, root);
      r.wait();
      break;
    }
    case form::in_place: {
      out = in;
      c.reduce(out, op, root);
      break;
    }
  }
  std::vector<T> want;
  if (at_root) {
    want = reduced(op, e, salt, 0, c.size(), 0, count);
  } else if (f == form::in_place) {
    want = in;  // the operand, unchanged
  } else {
    want.assign(out.size(), sentinel<T>());
  }
  EXPECT_EQ(first_difference(out, want), "") << (at_root ? "at the root" : "outside the root");
  EXPECT_EQ(first_difference(in, operand(e, c.rank(), 0, count, salt)), "")
      << "reduce wrote its input";
}

template <class T, class Op>
void check_allreduce(const rmpl::communicator& c, const Op& op, const element_fn<T>& e,
                     std::size_t count, form f) {
  SCOPED_TRACE(reduction_trace(count, -1, f));
  const int salt = next_salt();
  const std::vector<T> in = operand(e, c.rank(), 0, count, salt);
  std::vector<T> out(count, sentinel<T>());
  switch (f) {
    case form::blocking:
      c.allreduce(in, out, op);
      break;
    case form::nonblocking: {
      rmpl::request r = c.iallreduce(in, out, op);
      r.wait();
      break;
    }
    case form::in_place:
      out = in;
      c.allreduce(out, op);
      break;
  }
  EXPECT_EQ(first_difference(out, reduced(op, e, salt, 0, c.size(), 0, count)), "");
}

/// Inclusive (exclusive = false) or exclusive prefix reduction.
template <class T, class Op>
void check_scan(const rmpl::communicator& c, const Op& op, const element_fn<T>& e,
                std::size_t count, form f, bool exclusive) {
  SCOPED_TRACE(reduction_trace(count, -1, f) + (exclusive ? ", exscan" : ", scan"));
  const int salt = next_salt();
  const std::vector<T> in = operand(e, c.rank(), 0, count, salt);
  std::vector<T> out(count, sentinel<T>());
  if (f == form::in_place) out = in;
  auto run = [&](auto&& send, auto&& receive) {
    if (f == form::nonblocking) {
      rmpl::request r = exclusive ? c.iexscan(send, receive, op) : c.iscan(send, receive, op);
      r.wait();
    } else if (exclusive) {
      c.exscan(send, receive, op);
    } else {
      c.scan(send, receive, op);
    }
  };
  if (f == form::in_place) {
    run(out, out);
  } else {
    run(in, out);
  }
  std::vector<T> want;
  if (exclusive && c.rank() == 0) {
    // Rank 0's output is left untouched: the sentinels, or in place its own operand.
    want = f == form::in_place ? in : std::vector<T>(count, sentinel<T>());
  } else {
    want = reduced(op, e, salt, 0, exclusive ? c.rank() : c.rank() + 1, 0, count);
  }
  EXPECT_EQ(first_difference(out, want), "");
}

/// Each rank receives `count` elements (block `rank` of the reduced size() * count).
template <class T, class Op>
void check_reduce_scatter_block(const rmpl::communicator& c, const Op& op, const element_fn<T>& e,
                                std::size_t count, form f) {
  SCOPED_TRACE(reduction_trace(count, -1, f, "elements per rank"));
  const int salt = next_salt();
  const std::size_t total = count * static_cast<std::size_t>(c.size());
  const std::vector<T> in = operand(e, c.rank(), 0, total, salt);
  std::vector<T> out(count, sentinel<T>());
  if (f == form::nonblocking) {
    rmpl::request r = c.ireduce_scatter_block(in, out, op);
    r.wait();
  } else {
    c.reduce_scatter_block(in, out, op);
  }
  const std::size_t first = count * static_cast<std::size_t>(c.rank());
  EXPECT_EQ(first_difference(out, reduced(op, e, salt, 0, c.size(), first, count)), "");
}

/// Uneven counts with zeros: rank r receives base + r elements, except every third rank (from
/// rank 1), which receives none.
inline std::vector<std::size_t> uneven_counts(int n, std::size_t base) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    counts[static_cast<std::size_t>(r)] = r % 3 == 1 ? 0 : base + static_cast<std::size_t>(r);
  }
  return counts;
}

template <class T, class Op>
void check_reduce_scatter(const rmpl::communicator& c, const Op& op, const element_fn<T>& e,
                          std::size_t base, form f) {
  SCOPED_TRACE(reduction_trace(base, -1, f, "base count"));
  const int salt = next_salt();
  const std::vector<std::size_t> counts = uneven_counts(c.size(), base);
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  std::size_t first = 0;
  for (int r = 0; r < c.rank(); ++r) first += counts[static_cast<std::size_t>(r)];
  const std::size_t mine = counts[static_cast<std::size_t>(c.rank())];
  const std::vector<T> in = operand(e, c.rank(), 0, total, salt);
  std::vector<T> out(mine, sentinel<T>());
  if (f == form::nonblocking) {
    rmpl::request r = c.ireduce_scatter(in, out, counts, op);
    r.wait();
  } else {
    c.reduce_scatter(in, out, counts, op);
  }
  EXPECT_EQ(first_difference(out, reduced(op, e, salt, 0, c.size(), first, mine)), "");
}

// ---------------------------------------------------------------- sweeps

/// The reduction collectives, by their names in rmpl::coll.
inline const std::vector<std::string>& reduction_names() {
  static const std::vector<std::string> names{
      "reduce", "allreduce", "scan", "exscan", "reduce_scatter_block", "reduce_scatter"};
  return names;
}

/// Runs the check of the reduction named `collective` with count elements (per rank for the
/// scattering ones), root (reduce only) and form.
template <class T, class Op>
void check_reduction(const std::string& collective, const rmpl::communicator& c, const Op& op,
                     const element_fn<T>& e, std::size_t count, int root, form f) {
  if (collective == "reduce") {
    check_reduce(c, op, e, count, root, f);
  } else if (collective == "allreduce") {
    check_allreduce(c, op, e, count, f);
  } else if (collective == "scan") {
    check_scan(c, op, e, count, f, false);
  } else if (collective == "exscan") {
    check_scan(c, op, e, count, f, true);
  } else if (collective == "reduce_scatter_block") {
    check_reduce_scatter_block(c, op, e, count, f == form::in_place ? form::blocking : f);
  } else if (collective == "reduce_scatter") {
    check_reduce_scatter(c, op, e, count, f == form::in_place ? form::blocking : f);
  } else {
    ADD_FAILURE() << "no check for " << collective;
  }
}

/// The forms a reduction has: the scattering ones have no in-place form here.
inline std::vector<form> forms_of(const std::string& collective) {
  if (collective == "reduce_scatter_block" || collective == "reduce_scatter") {
    return {form::blocking, form::nonblocking};
  }
  return {form::blocking, form::nonblocking, form::in_place};
}

/// `collective` under every algorithm: with each of `counts`, every root (reduce) and every form;
/// then `large` (if non-zero and RMPL_TEST_LARGE is not 0), root size() - 1, blocking.
template <class T, class Op>
void sweep_reduction(const std::string& collective, const rmpl::communicator& c, const Op& op,
                     const element_fn<T>& e, const std::vector<std::size_t>& counts,
                     std::size_t large) {
  for_each_algorithm(collective, [&](const std::string&) {
    for (std::size_t count : counts) {
      const int roots = collective == "reduce" ? c.size() : 1;
      for (int root = 0; root < roots; ++root) {
        for (form f : forms_of(collective)) {
          check_reduction(collective, c, op, e, count, collective == "reduce" ? root : -1, f);
          if (any_failed(c)) return;
        }
      }
    }
    if (large != 0 && large_enabled()) {
      check_reduction(collective, c, op, e, large, collective == "reduce" ? c.size() - 1 : -1,
                      form::blocking);
      any_failed(c);
    }
  });
}

}  // namespace coll_test
