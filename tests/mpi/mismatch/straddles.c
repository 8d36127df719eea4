/* Counts that disagree across the size at which a collective changes algorithm, in the default
 * mode (an erroneous program), with MPI_ERRORS_RETURN: one rank (the root, or the last rank)
 * passes a count that takes one algorithm, the others a count that takes another (the short
 * protocol against the shared rounds or messages). Each rank's algorithm follows
 * from its own count, so before the entries of coll/shared_short.hpp ("straddles") the ranks
 * waited for each other in different algorithms until the harness's timeout. Every rank must
 * return, and the ranks that receive a size they do not expect must fail: a broadcast's ranks
 * whose count is not the root's, a reduce's root, everyone in the others. Each case runs on a
 * fresh duplicate of MPI_COMM_WORLD, freed after it (after a disagreement a communicator is not
 * used again). For debugging: RMPL_STRADDLE_VERBOSE=1 names each case as it starts,
 * RMPL_STRADDLE_ONLY=<collective name> runs that one alone. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "mismatched_call.h"

static int rank, size;

/* The cases: one rank (the root, or the last rank) passes `odd` ints (per block for allgather and
 * alltoall), the others `others`. 2 ints take the short protocol everywhere; 300 (1200 bytes)
 * take the shared rounds (a reduce's binomial tree from 3 ranks); 20000 (80 KB) the shared rounds
 * or messages (an alltoall's linear exchange, a broadcast with 2 ranks). Covered
 * (coll/shared_short.hpp, "straddles"): whoever takes the short protocol meets the entry of a
 * rank that did not and follows it (an allreduce's, allgather's or alltoall's ranks, a broadcast's
 * readers) or fails (a reduce's root); a broadcast's reader or a reduce's rank beyond the limit
 * that waits in the shared rounds sees a member that took the protocol and fails. Those that
 * wait on messages instead (a reduce's binomial tree, a broadcast's with 2 ranks from 32 KiB), and
 * counts on both sides of a change between two other algorithms, are stalls.c's. */
struct straddle {
  enum coll c;
  int odd_last; /* the odd rank: 0, or the last rank */
  int odd, others;
};
static const struct straddle cases[] = {
    {ALLREDUCE, 0, 2, 300},     {ALLREDUCE, 0, 300, 2},   {ALLREDUCE, 1, 2, 300},
    {ALLREDUCE, 1, 300, 2},     {ALLREDUCE, 0, 2, 20000}, {ALLREDUCE, 1, 20000, 2},
    {ALLREDUCE, 0, 300, 20000}, {ALLGATHER, 0, 2, 300},   {ALLGATHER, 0, 300, 2},
    {ALLGATHER, 1, 2, 300},     {ALLGATHER, 1, 300, 2},   {ALLGATHER, 0, 2, 20000},
    {ALLGATHER, 1, 20000, 2},   {ALLTOALL, 0, 2, 300},    {ALLTOALL, 0, 300, 2},
    {ALLTOALL, 1, 2, 300},      {ALLTOALL, 1, 300, 2},    {BCAST, 0, 300, 2},
    {BCAST, 0, 20000, 2},       {BCAST, 1, 2, 300},       {BCAST, 1, 2, 20000},
    {BCAST, 0, 2, 300},         {BCAST, 1, 300, 2},       {REDUCE, 0, 2, 20000},
    {REDUCE, 0, 20000, 2},      {REDUCE, 1, 2, 20000},    {REDUCE, 1, 20000, 2},
};

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int verbose = getenv("RMPL_STRADDLE_VERBOSE") != NULL;
  const char* only = getenv("RMPL_STRADDLE_ONLY");
  if (size > 1) { /* one rank has nobody to disagree with */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
      const enum coll c = cases[k].c;
      if (only != NULL && *only != '\0' && strcmp(only, names[c]) != 0) continue;
      const int odd = cases[k].odd_last ? size - 1 : 0;
      const int odd_count = cases[k].odd;
      const int others = cases[k].others;
      const int mine = rank == odd ? odd_count : others;
      const int root_count = odd == 0 ? odd_count : others;
      MPI_Comm comm;
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
      CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
      if (verbose && rank == 0) {
        printf("%s: rank %d passes %d ints, the others %d\n", names[c], odd, odd_count, others);
        fflush(stdout);
      }
      char what[160];
      snprintf(what, sizeof what, "%s, rank %d passing %d ints and the others %d (this rank %d)",
               names[c], odd, odd_count, others, mine);
      check_outcome(mismatched_call(c, mine, comm), must_fail(c, rank, mine, root_count), what);
      MPI_Comm_free(&comm);
      /* The next case starts together on every rank. */
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
