// What rmpl's multi-rank benchmark programs (collectives.cpp, seeds.cpp) share: agreeing on the
// slowest rank's figure outside the timed part. (bench/mpi/ranks.h is the same for the MPI ones.)
#pragma once

#include <rmpl/rmpl.hpp>

namespace rmpl_bench {

/// The largest of every rank's `v`, on every rank of `w` (linear through rank 0, point to point on
/// `tag`).
inline double max_over_ranks(const rmpl::communicator& w, double v, int tag) {
  if (w.rank() == 0) {
    for (int r = 1; r < w.size(); ++r) {
      const double x = w.recv_value<double>(r, tag);
      if (x > v) v = x;
    }
    for (int r = 1; r < w.size(); ++r) w.send_value(v, r, tag);
  } else {
    w.send_value(v, 0, tag);
    v = w.recv_value<double>(0, tag);
  }
  return v;
}

}  // namespace rmpl_bench
