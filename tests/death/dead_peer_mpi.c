/* The MPI layer's view of a dead rank: with MPI_ERRORS_RETURN, a survivor blocked on the dead rank
 * gets MPI_ERR_PROC_FAILED and a message naming the rank. Run by tests/death/death_test.sh.
 *
 *   dead_peer_mpi DEATH OP STAMP MARKER
 *
 *   DEATH  exit3 or sigkill (the last rank, after MPI_Init and a barrier), or hang (it prints
 *          "rank R: victim pid P" and waits, outside MPI, to be killed from outside; the script
 *          writes STAMP)
 *   OP     recv (MPI_Recv from it), allreduce, iprobe (an MPI_Iprobe loop), sendrecv,
 *          test (an MPI_Irecv from it and an MPI_Test loop), testall (MPI_Iallreduce, MPI_Testall),
 *          finalize (MPI_Finalize, which waits for every rank: it must return the failure, not
 *          MPI_SUCCESS)
 *   STAMP  a file the victim writes its time of death into (CLOCK_REALTIME ns) just before dying
 *
 * Each survivor prints MPI_Error_string of the code it got:
 *   rank R: MPI_Recv failed 2.1 ms after the death: MPI_ERR_PROC_FAILED: ... (MPI_Recv on rank R:
 * ...) and exits 0 if the class was MPI_ERR_PROC_FAILED, 1 otherwise, 4 if the call never failed.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double realtime_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s DEATH OP STAMP [MARKER]\n", argv[0]);
    return 2;
  }
  const char *death = argv[1], *op = argv[2], *stamp = argv[3];
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  setvbuf(stdout, NULL, _IOLBF, 0);
  const int victim = size - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim && strcmp(death, "hang") == 0) {
    printf("rank %d: victim pid %d\n", rank, (int)getpid());
    for (;;) pause();
  }
  if (rank == victim) {
    usleep(100000); /* the others are blocked by now */
    FILE* f = fopen(stamp, "w");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(f, "%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    fclose(f);
    if (strcmp(death, "sigkill") == 0) raise(SIGKILL);
    exit(3);
  }
  printf("rank %d: blocking in %s\n", rank, op);
  int in = rank, out = 0, flag = 0, err = MPI_SUCCESS;
  const char* function = "?";
  const double start = realtime_ms();
  if (strcmp(op, "recv") == 0) {
    function = "MPI_Recv";
    err = MPI_Recv(&out, 1, MPI_INT, victim, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(op, "allreduce") == 0) {
    function = "MPI_Allreduce";
    err = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(op, "sendrecv") == 0) {
    function = "MPI_Sendrecv";
    err = MPI_Sendrecv(&in, 1, MPI_INT, victim, 7, &out, 1, MPI_INT, victim, 7, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  } else if (strcmp(op, "iprobe") == 0) {
    function = "MPI_Iprobe";
    while (err == MPI_SUCCESS && !flag && realtime_ms() - start < 10000) {
      err = MPI_Iprobe(victim, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
  } else if (strcmp(op, "test") == 0) {
    function = "MPI_Test";
    MPI_Request r;
    err = MPI_Irecv(&out, 1, MPI_INT, victim, 7, MPI_COMM_WORLD, &r);
    while (err == MPI_SUCCESS && !flag && realtime_ms() - start < 10000) {
      err = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    }
  } else if (strcmp(op, "testall") == 0) {
    function = "MPI_Testall";
    MPI_Request r;
    err = MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    while (err == MPI_SUCCESS && !flag && realtime_ms() - start < 10000) {
      err = MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE);
    }
  } else if (strcmp(op, "finalize") == 0) {
    function = "MPI_Finalize";
    err = MPI_Finalize();
  } else {
    fprintf(stderr, "dead_peer_mpi: unknown operation '%s'\n", op);
    return 2;
  }
  if (err == MPI_SUCCESS) {
    printf("rank %d: %s never failed\n", rank, function);
    return 4;
  }
  const double now = realtime_ms();
  double died = 0;
  FILE* f = fopen(stamp, "r");
  long long ns = 0;
  if (f && fscanf(f, "%lld", &ns) == 1) died = (double)ns * 1e-6;
  if (f) fclose(f);
  int error_class = 0, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_class(err, &error_class);
  MPI_Error_string(err, text, &len); /* the class's name, then the message of its last error */
  printf("rank %d: %s failed %.1f ms after the death: %s\n", rank, function,
         now - (died > start ? died : start), text);
  if (strcmp(op, "finalize") != 0) MPI_Finalize();
  return error_class == MPI_ERR_PROC_FAILED ? 0 : 1;
}
