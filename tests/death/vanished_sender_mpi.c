/* A sender whose process is gone before its receivers read its message by single copy, at a
 * moment when the launcher has not yet said so in the segment (tests/death/death_test.sh stops
 * rmplrun with SIGSTOP, kills the sender, lets the receivers read, then resumes rmplrun). The read
 * fails with ESRCH; a receiver must report MPI_ERR_PROC_FAILED naming the sender and how it died,
 * not MPI_ERR_OTHER ("single copy ... failed: No such process").
 *
 *   vanished_sender_mpi DIR MARKER
 *
 * Rank 0 starts a rendezvous send (100 KB: above the eager limit, below the assisted copy's) to
 * every other rank, writes its pid to DIR/ready and sleeps until it is killed. The others wait
 * (outside MPI) for DIR/go, then MPI_Recv the message with MPI_ERRORS_RETURN and print
 *   rank R: MPI_Recv returned <MPI_Error_string>
 * exiting 0 if the class was MPI_ERR_PROC_FAILED, 1 otherwise, 4 if the receive succeeded. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { bytes = 100000 };

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [MARKER]\n", argv[0]);
    return 2;
  }
  const char* dir = argv[1];
  char ready[4096], go[4096];
  snprintf(ready, sizeof ready, "%s/ready", dir);
  snprintf(go, sizeof go, "%s/go", dir);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  setvbuf(stdout, NULL, _IOLBF, 0);
  static char buffer[bytes];
  if (rank == 0) {
    memset(buffer, 7, sizeof buffer);
    for (int peer = 1; peer < size; ++peer) {
      MPI_Request r;
      MPI_Isend(buffer, bytes, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &r);
    }
    /* The requests stay pending: the RTS cells are in the receivers' rings. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", ready);
    FILE* f = fopen(tmp, "w");
    if (!f) return 3;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    rename(tmp, ready); /* appears whole */
    for (;;) pause();
  }
  while (access(go, F_OK) != 0) usleep(10000);
  const int err = MPI_Recv(buffer, bytes, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (err == MPI_SUCCESS) {
    printf("rank %d: MPI_Recv succeeded from a killed sender\n", rank);
    return 4;
  }
  int error_class = 0, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_class(err, &error_class);
  MPI_Error_string(err, text, &len);
  printf("rank %d: MPI_Recv returned %s\n", rank, text);
  MPI_Finalize();
  return error_class == MPI_ERR_PROC_FAILED ? 0 : 1;
}
