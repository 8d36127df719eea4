/* Counts that disagree where no message size or short-protocol slot shows it at once, in the
 * default mode (an erroneous program), with MPI_ERRORS_RETURN: one rank (the root, or the last
 * rank) passes a count that takes one algorithm, the others a count that takes another, and the
 * algorithms wait for each other in different ways (a tree of messages against the short protocol,
 * the shared rounds against a tree, a binomial tree against a linear exchange), or the communicator
 * holds no collective area (all its collectives go by messages, whose number depends on the
 * count). Before the stalled-call notes of coll/stall.hpp the ranks that wait for a message or a
 * round that never comes waited until the harness's timeout. Every rank must return, and the ranks
 * that wait for what their peers' counts do not provide must fail.
 *
 * Each case runs twice on a fresh duplicate of MPI_COMM_WORLD: the ranks that return first either
 * free it at once and wait in a barrier of MPI_COMM_WORLD (the stalled rank must learn from their
 * notes that they left the communicator), or call a barrier of the same communicator first (they
 * are in a later call of it). Sends still in flight when a disagreement is found end the job
 * instead (tests/mpi/fatal/stalled_sends.c); these cases keep every message eager.
 *
 * With the argument "nonblocking" the calls are MPI_I* and MPI_Wait: the wait stalls, and the
 * oldest collective in flight publishes its launch position (coll/task.cpp, stalled_in_flight).
 * Those cases add a broadcast whose root sends messages (8 bytes: a binomial tree) while the
 * others wait for its shared rounds (1200 bytes), and calls whose sends to a member that failed
 * the call are never taken.
 * For debugging: RMPL_STALL_VERBOSE=1 names each case as it starts. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "mismatched_call.h"

static int rank, size;

/* One rank (the root, or the last rank with odd_last) passes `odd` ints (per block for the
 * gathers, scatters and alltoall), the others `others`; `no_area`: on a communicator made when
 * every collective area slot is taken. */
struct stall_case {
  enum coll c;
  int odd_last;
  int odd, others;
  int no_area;
};
static const struct stall_case cases[] = {
    /* A reduce's binomial tree (3 ranks and more, 264 B - 16 KiB) waits for members that took the
     * short protocol; a broadcast's reader (2 ranks, from 32 KiB) for a root that did. */
    {REDUCE, 0, 100, 2, 0},
    {BCAST, 0, 2, 20000, 0},
    /* Two algorithms other than the short protocol: gather's and scatter's binomial tree and
     * linear exchange (2 KiB), reduce's binomial tree and shared rounds (16 KiB). */
    {GATHER, 0, 1000, 300, 0},
    {GATHER, 0, 300, 1000, 0},
    {SCATTER, 0, 300, 1000, 0},
    {SCATTER, 0, 1000, 300, 0},
    {REDUCE, 0, 5000, 3000, 0},
    {REDUCE, 0, 3000, 5000, 0},
    /* No collective area: messages only. */
    {ALLREDUCE, 0, 2, 300, 1},
    {ALLREDUCE, 1, 300, 2, 1},
    {BCAST, 0, 2, 300, 1},
    {BCAST, 1, 300, 2, 1},
    {REDUCE, 0, 2, 300, 1},
    {REDUCE, 1, 300, 2, 1},
    {ALLGATHER, 0, 2, 300, 1},
    {ALLTOALL, 0, 2, 300, 1},
    {ALLTOALL, 1, 300, 2, 1},
};

/* The nonblocking forms: those that waited until the harness's timeout before
 * operation::stalled_in_flight (found by trying every collective with these counts at 2-8 ranks,
 * with and without an area), and a few that the message sizes catch. */
static const struct stall_case nonblocking_cases[] = {
    {BCAST, 0, 2, 300, 0},      {BCAST, 0, 2, 300, 1},         {BCAST, 1, 300, 2, 1},
    {REDUCE, 0, 5000, 3000, 0}, {REDUCE, 0, 3000, 5000, 0},    {REDUCE, 0, 2, 300, 1},
    {REDUCE, 1, 300, 2, 1},     {ALLREDUCE, 0, 5000, 3000, 1}, {ALLREDUCE, 0, 2, 300, 1},
    {ALLREDUCE, 1, 300, 2, 1},  {ALLGATHER, 0, 2, 300, 1},     {ALLTOALL, 0, 2, 300, 1},
    {ALLTOALL, 1, 300, 2, 1},   {GATHER, 0, 1000, 300, 0},     {GATHER, 0, 1000, 300, 1},
    {SCATTER, 0, 300, 1000, 0}, {SCATTER, 0, 300, 1000, 1},
};

/* The communicators that take every collective area slot (core/area_pool.hpp: 8 per process,
 * one of them the world's). */
#define HELD 8

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int verbose = getenv("RMPL_STALL_VERBOSE") != NULL;
  const int nonblocking = argc > 1 && strcmp(argv[1], "nonblocking") == 0;
  const struct stall_case* list = nonblocking ? nonblocking_cases : cases;
  const size_t count = nonblocking ? sizeof nonblocking_cases / sizeof nonblocking_cases[0]
                                   : sizeof cases / sizeof cases[0];
  if (size > 1) { /* one rank has nobody to disagree with */
    for (int then_barrier = 0; then_barrier < 2; ++then_barrier) {
      for (size_t k = 0; k < count; ++k) {
        const struct stall_case* s = &list[k];
        const int odd = s->odd_last ? size - 1 : 0;
        const int mine = rank == odd ? s->odd : s->others;
        const int root_count = odd == 0 ? s->odd : s->others;
        MPI_Comm held[HELD], comm;
        if (s->no_area) {
          for (int h = 0; h < HELD; ++h) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &held[h]));
        }
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        if (verbose && rank == 0) {
          printf("%s%s%s: rank %d passes %d ints, the others %d; then %s\n", nonblocking ? "i" : "",
                 names[s->c], s->no_area ? " (no area)" : "", odd, s->odd, s->others,
                 then_barrier ? "a barrier of the communicator" : "its free");
          fflush(stdout);
        }
        char what[160];
        snprintf(what, sizeof what,
                 "%s%s%s, rank %d passing %d ints and the others %d (this rank %d)",
                 nonblocking ? "i" : "", names[s->c], s->no_area ? " (no area)" : "", odd, s->odd,
                 s->others, mine);
        const int err =
            nonblocking ? mismatched_icall(s->c, mine, comm) : mismatched_call(s->c, mine, comm);
        check_outcome(err, must_fail(s->c, rank, mine, root_count), what);
        /* Its outcome is not checked: after a disagreement the communicator's state is the
         * erroneous program's (it only has to return). */
        if (then_barrier) (void)MPI_Barrier(comm);
        MPI_Comm_free(&comm);
        if (s->no_area) {
          for (int h = 0; h < HELD; ++h) CHECK_MPI(MPI_Comm_free(&held[h]));
        }
        /* The next case starts together on every rank. */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      }
    }
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
