/* Traffic that never stops, for failure tests across hosts: every rank exchanges 8 MiB with its
 * neighbours in the ring, over and over, errors returned (MPI_ERRORS_RETURN). With ranks placed in
 * blocks on hosts, some ring edges cross hosts, so a link cut or a host lost happens mid-transfer.
 * Each rank prints "rank R: streaming" once its first exchange is done; when a call fails it prints
 * "rank R: exchange N failed after S s: <MPI's error text>" and exits 3. Exits 4 if nothing failed
 * within the seconds given (default 120). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double limit = argc > 1 ? atof(argv[1]) : 120.0;
  const int count = 8 << 20;
  char* out = malloc(count);
  char* in = malloc(count);
  for (int i = 0; i < count; ++i) out[i] = (char)(rank + i);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const double start = now();
  for (long n = 1; now() - start < limit; ++n) {
    double t0 = now();
    int err = MPI_Sendrecv(out, count, MPI_CHAR, next, 7, in, count, MPI_CHAR, prev, 7,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(err, text, &len);
      printf("rank %d: exchange %ld failed after %.1f s: %s\n", rank, n, now() - t0, text);
      fflush(stdout);
      return 3;
    }
    if (n == 1) {
      printf("rank %d: streaming\n", rank);
      fflush(stdout);
    }
  }
  printf("rank %d: no failure within %.0f s\n", rank, limit);
  MPI_Finalize();
  return 4;
}
