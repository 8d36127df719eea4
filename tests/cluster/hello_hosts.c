/* An MPI program as users write them, for runs across hosts: every rank names its host, the ranks
 * agree on a sum (a collective across hosts), pass a token around the ring and exchange a large
 * buffer with their neighbours (point-to-point across hosts, eager and rendezvous), and rank 0
 * prints one line per rank in rank order. Exits 1, saying what was wrong, on any mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, len = 0, failures = 0;
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(name, &len);

  long sum = 0, mine = rank + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (long)size * (size + 1) / 2) {
    fprintf(stderr, "rank %d: allreduce gave %ld, not %ld\n", rank, sum,
            (long)size * (size + 1) / 2);
    ++failures;
  }
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int token = rank;
  MPI_Sendrecv_replace(&token, 1, MPI_INT, next, 1, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (token != prev) {
    fprintf(stderr, "rank %d: token %d from rank %d\n", rank, token, prev);
    ++failures;
  }
  const int count = 1 << 20; /* 4 MiB: UCX's rendezvous between hosts */
  int* out = malloc(sizeof(int) * count);
  int* in = malloc(sizeof(int) * count);
  for (int i = 0; i < count; ++i) out[i] = rank * 1000003 + i;
  MPI_Sendrecv(out, count, MPI_INT, next, 2, in, count, MPI_INT, prev, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < count; ++i) {
    if (in[i] != prev * 1000003 + i) {
      fprintf(stderr, "rank %d: element %d of rank %d's buffer is %d\n", rank, i, prev, in[i]);
      ++failures;
      break;
    }
  }
  free(out);
  free(in);

  char line[MPI_MAX_PROCESSOR_NAME + 64];
  snprintf(line, sizeof line, "rank %d of %d on %s", rank, size, name);
  char* all = rank == 0 ? malloc(sizeof line * (size_t)size) : NULL;
  MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) printf("%s\n", all + (size_t)r * sizeof line);
    free(all);
  }
  int total = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "hello_hosts: all checks passed\n" : "hello_hosts: FAILED\n");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
