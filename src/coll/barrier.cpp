// Barrier by dissemination: in round k every rank signals rank + 2^k and waits for rank - 2^k;
// after ceil(log2 n) rounds each rank has heard, directly or not, from every other.
#include "coll/algorithms.hpp"

namespace rmpl::coll {

task barrier_dissemination(exchange x) {
  const int n = x.size();
  for (int distance = 1; distance < n; distance *= 2) {
    x.send({}, (x.rank() + distance) % n);
    x.recv({}, (x.rank() - distance + n) % n);
    co_await x.all();
  }
}

}  // namespace rmpl::coll
