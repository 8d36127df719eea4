// pingpong: pairs of ranks bounce a message back and forth and report the average round-trip time
// for a few message sizes, from a single byte (carried inline) to 1 MiB (copied directly between
// the two processes).
//
//   rmplrun -n 2 ./pingpong      ranks 0 and 1
//   rmplrun -n 4 ./pingpong      two pairs at the same time: (0,1) and (2,3)
#include <rmpl/rmpl.hpp>

#include <cstdio>
#include <vector>

namespace {

struct size_case {
  std::size_t bytes;
  int rounds;  // fewer for big messages: each takes longer
};
constexpr size_case cases[] = {{1, 2000}, {1024, 1000}, {64 * 1024, 200}, {1024 * 1024, 50}};
constexpr int warmup_rounds = 10;  // not timed: the first messages also set up the connection
constexpr int ping_tag = 1, result_tag = 2;

/// Average round trip, in seconds. The pair's first rank serves, the second returns the ball.
double ping_pong(const rmpl::communicator& world, int partner, bool serves, std::vector<char>& ball,
                 int rounds) {
  double start = 0;
  for (int round = -warmup_rounds; round < rounds; ++round) {
    if (round == 0) start = rmpl::session::wtime();
    if (serves) {
      world.send(ball, partner, ping_tag);
      world.recv(ball, partner, ping_tag);
    } else {
      world.recv(ball, partner, ping_tag);
      world.send(ball, partner, ping_tag);
    }
  }
  return (rmpl::session::wtime() - start) / rounds;
}

}  // namespace

int main() {
  rmpl::session session;  // joins the job rmplrun started (or a job of one rank)
  const rmpl::communicator world = session.world();
  const int rank = world.rank(), size = world.size();

  if (size < 2) {
    std::printf("pingpong needs at least 2 ranks; try: rmplrun -n 2 pingpong\n");
    return 0;
  }
  const int pairs = size / 2;
  if (rank == 0 && size % 2 == 1) std::printf("rank %d has no partner and sits out\n", size - 1);
  if (rank >= 2 * pairs) return 0;

  const int partner = rank ^ 1;  // 0<->1, 2<->3, ...
  const bool serves = rank % 2 == 0;
  std::vector<double> round_trips;
  for (const size_case& c : cases) {
    std::vector<char> ball(c.bytes, 'x');
    round_trips.push_back(ping_pong(world, partner, serves, ball, c.rounds));
  }

  // Rank 0 prints every pair's results; the other serving ranks send theirs to it.
  if (rank == 0) {
    std::printf("%-7s %10s %14s %12s\n", "pair", "bytes", "round trip", "bandwidth");
    for (int pair = 0; pair < pairs; ++pair) {
      std::vector<double> times = round_trips;
      if (pair > 0) world.recv(times, 2 * pair, result_tag);
      for (std::size_t i = 0; i < std::size(cases); ++i) {
        const double bytes_per_second = 2.0 * static_cast<double>(cases[i].bytes) / times[i];
        std::printf("%3d-%-3d %10zu %11.2f us %7.1f MB/s\n", 2 * pair, 2 * pair + 1, cases[i].bytes,
                    times[i] * 1e6, bytes_per_second / 1e6);
      }
    }
  } else if (serves) {
    world.send(round_trips, 0, result_tag);
  }
  return 0;
}
