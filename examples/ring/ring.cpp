// ring: a token travels around the ring of ranks (0 -> 1 -> ... -> size-1 -> 0) a number of times,
// and every rank adds its rank number whenever the token passes. Rank 0 checks the total, which
// must be laps * (0 + 1 + ... + size-1).
//
//   rmplrun -n 4 ./ring [laps]
#include <rmpl/rmpl.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  rmpl::session session;
  const rmpl::communicator world = session.world();
  const int rank = world.rank(), size = world.size();
  const int laps = argc > 1 ? std::atoi(argv[1]) : 10;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int tag = 0;

  std::int64_t token = 0;
  const double start = rmpl::session::wtime();
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      // Rank 0 starts each lap and gets the token back at its end. sendrecv does both at once, so
      // this also works with a single rank (the token goes to rank 0 itself).
      std::int64_t outgoing = token + rank;
      world.sendrecv(std::span(&outgoing, 1), next, tag, std::span(&token, 1), prev, tag);
    } else {
      token = world.recv_value<std::int64_t>(prev, tag);
      world.send_value(token + rank, next, tag);
    }
  }
  const double seconds = rmpl::session::wtime() - start;

  if (rank != 0) return 0;
  const std::int64_t expected = std::int64_t{laps} * size * (size - 1) / 2;
  std::printf("ring of %d rank%s, %d laps: token = %lld (expected %lld), %.2f us per hop\n", size,
              size == 1 ? "" : "s", laps, static_cast<long long>(token),
              static_cast<long long>(expected), seconds * 1e6 / (static_cast<double>(laps) * size));
  return token == expected ? 0 : 1;
}
