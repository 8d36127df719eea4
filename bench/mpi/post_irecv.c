/* The cost of posting nonblocking receives (issue 22, item 24): every rank posts N MPI_Irecv of
 * one double that no message matches yet, then either cancels them all or has its left neighbour
 * satisfy them, and reports the slowest rank's seconds for the posting loop and for the end.
 *   post_irecv N PATTERN END
 *   PATTERN: named    source = left neighbour, tag 0
 *            anysrc   MPI_ANY_SOURCE, tag 0
 *            tags     left neighbour, tag i (a tag per receive)
 *            mixed    cycling through named, MPI_ANY_SOURCE, MPI_ANY_TAG, both wildcards
 *   END:     cancel   MPI_Cancel each, then MPI_Waitall
 *            match    the left neighbour sends N messages in posting order, then MPI_Waitall
 * Prints: post_irecv,<ranks>,<N>,<pattern>,<end>,post_s,<s>,end_s,<s>
 * Build with any mpicc (bench/run-post-irecv does it for rmpl, Open MPI and MPICH). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  const char* pattern = argc > 2 ? argv[2] : "named";
  const char* end = argc > 3 ? argv[3] : "cancel";
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  const int match = strcmp(end, "match") == 0;
  const int which = strcmp(pattern, "anysrc") == 0  ? 1
                    : strcmp(pattern, "tags") == 0  ? 2
                    : strcmp(pattern, "mixed") == 0 ? 3
                                                    : 0;
  double* in = calloc((size_t)n, sizeof *in);
  MPI_Request* r = malloc((size_t)n * sizeof *r);
  if (!in || !r) MPI_Abort(MPI_COMM_WORLD, 2);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < n; ++i) {
    int source = left, tag = which == 2 ? (int)(i % 30000) : 0;
    if (which == 1) source = MPI_ANY_SOURCE;
    if (which == 3) {
      if (i % 4 == 1 || i % 4 == 3) source = MPI_ANY_SOURCE;
      tag = i % 4 >= 2 ? MPI_ANY_TAG : 0;
    }
    MPI_Irecv(&in[i], 1, MPI_DOUBLE, source, tag, MPI_COMM_WORLD, &r[i]);
  }
  const double t1 = MPI_Wtime();
  if (match) {
    /* With any_source receives, the messages of any rank may satisfy them; only the left
     * neighbour sends, so each rank still gets exactly N. */
    for (long i = 0; i < n; ++i) {
      const double v = (double)i;
      const int tag = which == 2 ? (int)(i % 30000) : 0;
      MPI_Send(&v, 1, MPI_DOUBLE, right, tag, MPI_COMM_WORLD);
    }
  } else {
    for (long i = 0; i < n; ++i) MPI_Cancel(&r[i]);
  }
  MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
  const double t2 = MPI_Wtime();
  /* Every rank's receives are done before any sends the figures below: a pending wildcard receive
   * would take them. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (match) {
    /* Non-overtaking: the i-th message from the left neighbour lands in the i-th receive. */
    for (long i = 0; i < n; ++i)
      if (in[i] != (double)i) {
        fprintf(stderr, "post_irecv: rank %d: receive %ld got %g\n", rank, i, in[i]);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
  }
  const double post = max_over_ranks(t1 - t0, 1), fin = max_over_ranks(t2 - t1, 2);
  if (rank == 0)
    printf("post_irecv,%d,%ld,%s,%s,post_s,%.6f,end_s,%.6f\n", size, n, pattern, end, post, fin);
  free(in);
  free(r);
  MPI_Finalize();
  return 0;
}
