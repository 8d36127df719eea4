/* The buffers of buffered sends by communicator and session (MPI-4.1 3.6.2), around a ring: a
 * communicator's buffer bounds its buffered sends alone (one that does not fit fails with
 * MPI_ERR_BUFFER while the process's buffer is free), detaching gives the buffer back once its
 * messages are delivered, flush and iflush wait for them; a session's buffer serves the
 * communicators made from its groups; MPI_BUFFER_AUTOMATIC has no bound; the _c forms give the
 * size as an MPI_Count. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { n_ints = 256 };

static int rank, size, next, prev;

static int class_of(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

/* One buffered send of n ints on `comm` to the next rank, received from the previous one. */
static void ring_bsend(MPI_Comm comm, int n, int tag) {
  int* out = malloc(sizeof(int) * (size_t)n);
  int* in = malloc(sizeof(int) * (size_t)n);
  CHECK(out != NULL && in != NULL, "no memory");
  for (int i = 0; i < n; ++i) out[i] = rank * 100000 + tag * 1000 + i;
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(in, n, MPI_INT, prev, tag, comm, &r));
  CHECK_MPI(MPI_Bsend(out, n, MPI_INT, next, tag, comm));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) {
    CHECK(in[i] == prev * 100000 + tag * 1000 + i, "tag %d: element %d is %d", tag, i, in[i]);
  }
  free(out);
  free(in);
}

static void communicator_buffer(void) {
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  /* No buffer anywhere: a buffered send fails. */
  int one = 1;
  CHECK(class_of(MPI_Bsend(&one, 1, MPI_INT, next, 1, comm)) == MPI_ERR_BUFFER,
        "MPI_Bsend without any buffer attached");
  /* The communicator's own buffer serves it, not MPI_COMM_WORLD. */
  const int room = n_ints * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char* space = malloc((size_t)room);
  CHECK_MPI(MPI_Comm_attach_buffer(comm, space, room));
  CHECK(class_of(MPI_Comm_attach_buffer(comm, space, room)) == MPI_ERR_BUFFER,
        "a second attach to the same communicator");
  ring_bsend(comm, n_ints, 2);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(class_of(MPI_Bsend(&one, 1, MPI_INT, next, 3, MPI_COMM_WORLD)) == MPI_ERR_BUFFER,
        "MPI_COMM_WORLD draws on the communicator's buffer");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* More than it holds fails, with the buffer named. */
  int* big = calloc(2 * n_ints, sizeof(int));
  CHECK(class_of(MPI_Bsend(big, 2 * n_ints, MPI_INT, next, 4, comm)) == MPI_ERR_BUFFER,
        "a buffered send larger than the communicator's buffer");
  free(big);
  CHECK_MPI(MPI_Comm_flush_buffer(comm));
  MPI_Request r;
  CHECK_MPI(MPI_Comm_iflush_buffer(comm, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  void* back = NULL;
  int back_size = 0;
  CHECK_MPI(MPI_Comm_detach_buffer(comm, &back, &back_size));
  CHECK(back == space && back_size == room, "MPI_Comm_detach_buffer gives %p, %d", back, back_size);
  CHECK(class_of(MPI_Comm_detach_buffer(comm, &back, &back_size)) == MPI_ERR_BUFFER,
        "a detach with nothing attached");
  /* The _c forms, and a buffer without bound. */
  CHECK_MPI(MPI_Comm_attach_buffer_c(comm, space, (MPI_Count)room));
  MPI_Count back_c = 0;
  CHECK_MPI(MPI_Comm_detach_buffer_c(comm, &back, &back_c));
  CHECK(back == space && back_c == room, "MPI_Comm_detach_buffer_c gives %p, %lld", back,
        (long long)back_c);
  CHECK_MPI(MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0));
  ring_bsend(comm, 4 * n_ints, 5);
  CHECK_MPI(MPI_Comm_detach_buffer(comm, &back, &back_size));
  CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0, "automatic: %p, %d", back, back_size);
  /* A communicator freed while its buffered message is on its way: the message still arrives
   * (the engine keeps the buffer's account until it is delivered). */
  CHECK_MPI(MPI_Comm_attach_buffer(comm, space, room));
  int out[n_ints], in[n_ints];
  for (int i = 0; i < n_ints; ++i) out[i] = rank + i;
  CHECK_MPI(MPI_Irecv(in, n_ints, MPI_INT, prev, 6, comm, &r));
  CHECK_MPI(MPI_Bsend(out, n_ints, MPI_INT, next, 6, comm));
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < n_ints; ++i) CHECK(in[i] == prev + i, "element %d: %d", i, in[i]);
  /* Its context may serve a new communicator, which draws on the process's buffer again. */
  MPI_Comm again;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &again));
  CHECK_MPI(MPI_Comm_set_errhandler(again, MPI_ERRORS_RETURN));
  CHECK(class_of(MPI_Bsend(&one, 1, MPI_INT, next, 12, again)) == MPI_ERR_BUFFER,
        "a new communicator draws on a freed one's buffer");
  CHECK_MPI(MPI_Comm_free(&again));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  free(space);
}

/* The process's buffer with MPI_BUFFER_AUTOMATIC. */
static void automatic_process_buffer(void) {
  CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  ring_bsend(MPI_COMM_WORLD, 8 * n_ints, 7);
  void* back = NULL;
  int back_size = -1;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0, "MPI_Buffer_detach of automatic: %p %d",
        back, back_size);
}

/* A session's buffer serves the communicators made from its groups. */
static void session_buffer(void) {
  MPI_Session session;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  MPI_Group group;
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create_from_group(group, "org.rmpl.test.buffers", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &comm));
  int one = 1;
  CHECK(class_of(MPI_Bsend(&one, 1, MPI_INT, next, 8, comm)) == MPI_ERR_BUFFER,
        "a session communicator's MPI_Bsend with no buffer attached");
  const MPI_Count room = n_ints * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD;
  char* space = malloc((size_t)room);
  CHECK_MPI(MPI_Session_attach_buffer_c(session, space, room));
  ring_bsend(comm, n_ints, 9);
  CHECK_MPI(MPI_Session_flush_buffer(session));
  MPI_Request r;
  CHECK_MPI(MPI_Session_iflush_buffer(session, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  /* The communicator's own buffer wins over its session's, and gives it back on detach. */
  char* own = malloc((size_t)room);
  CHECK_MPI(MPI_Comm_attach_buffer_c(comm, own, room));
  ring_bsend(comm, n_ints, 10);
  void* back = NULL;
  MPI_Count back_size = 0;
  CHECK_MPI(MPI_Comm_detach_buffer_c(comm, &back, &back_size));
  CHECK(back == own, "the communicator's own buffer came back as %p", back);
  ring_bsend(comm, n_ints, 11);
  CHECK_MPI(MPI_Session_detach_buffer_c(session, &back, &back_size));
  CHECK(back == space && back_size == room, "MPI_Session_detach_buffer_c gives %p, %lld", back,
        (long long)back_size);
  int small = 0;
  CHECK(class_of(MPI_Session_detach_buffer(session, &back, &small)) == MPI_ERR_BUFFER,
        "a session detach with nothing attached");
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Group_free(&group));
  CHECK_MPI(MPI_Session_finalize(&session));
  free(space);
  free(own);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  communicator_buffer();
  automatic_process_buffer();
  session_buffer();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
