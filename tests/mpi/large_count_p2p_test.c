/* The large-count point-to-point bindings (MPI-4.0's MPI_X_c: MPI_Count counts) around a ring:
 * each moves what its int twin moves, in every mode (standard, synchronous, buffered, ready,
 * nonblocking, persistent, send-receive, matched receives), statuses report MPI_Count counts that
 * an int cannot hold, errors name the _c function, and a count above INT_MAX passes through
 * untruncated (elements of a zero-size type: no memory). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { n_ints = 100 };

static int rank, size, next, prev;

static void fill(int* buf, int n, int owner, int salt) {
  for (int i = 0; i < n; ++i) buf[i] = owner * 1000 + salt * 100 + i;
}

static void expect(const int* buf, int n, int owner, int salt, const char* what) {
  for (int i = 0; i < n; ++i) {
    CHECK(buf[i] == owner * 1000 + salt * 100 + i, "%s: element %d is %d, want %d", what, i, buf[i],
          owner * 1000 + salt * 100 + i);
  }
}

static void expect_count(const MPI_Status* s, MPI_Datatype t, MPI_Count want, const char* what) {
  MPI_Count got = -1;
  CHECK_MPI(MPI_Get_count_c(s, t, &got));
  CHECK(got == want, "%s: MPI_Get_count_c gives %lld, want %lld", what, (long long)got,
        (long long)want);
  CHECK_MPI(MPI_Get_elements_c(s, t, &got));
  CHECK(got == want, "%s: MPI_Get_elements_c gives %lld, want %lld", what, (long long)got,
        (long long)want);
  CHECK(s->MPI_SOURCE == prev, "%s: source %d, want %d", what, s->MPI_SOURCE, prev);
}

/* The blocking sends, each to the next rank, received with MPI_Recv_c from the previous one. */
static void blocking_modes(void) {
  int out[n_ints], in[n_ints];
  MPI_Status s;
  for (int salt = 0; salt < 3; ++salt) {
    fill(out, n_ints, rank, salt);
    memset(in, 0, sizeof in);
    MPI_Request r;
    CHECK_MPI(MPI_Irecv_c(in, n_ints, MPI_INT, prev, salt, MPI_COMM_WORLD, &r));
    if (salt == 0) CHECK_MPI(MPI_Send_c(out, n_ints, MPI_INT, next, salt, MPI_COMM_WORLD));
    if (salt == 1) CHECK_MPI(MPI_Ssend_c(out, n_ints, MPI_INT, next, salt, MPI_COMM_WORLD));
    if (salt == 2) {
      /* Ready mode: every receive is posted before the barrier. */
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Rsend_c(out, n_ints, MPI_INT, next, salt, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Wait(&r, &s));
    expect(in, n_ints, prev, salt, "MPI_Send_c/Ssend_c/Rsend_c into MPI_Irecv_c");
    expect_count(&s, MPI_INT, n_ints, "MPI_Irecv_c");
  }

  /* MPI_Recv_c of a derived type: every second int of 2 * n_ints. */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(n_ints, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int wide[2 * n_ints];
  memset(wide, 0, sizeof wide);
  fill(out, n_ints, rank, 4);
  MPI_Request r;
  CHECK_MPI(MPI_Isend_c(out, n_ints, MPI_INT, next, 4, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Recv_c(wide, 1, strided, prev, 4, MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < n_ints; ++i) {
    CHECK(wide[2 * i] == prev * 1000 + 400 + i && wide[2 * i + 1] == 0,
          "MPI_Recv_c into a vector type: element %d is %d, gap %d", i, wide[2 * i],
          wide[2 * i + 1]);
  }
  MPI_Count elements = 0;
  CHECK_MPI(MPI_Get_elements_c(&s, strided, &elements));
  CHECK(elements == n_ints, "MPI_Get_elements_c of the vector type: %lld", (long long)elements);
  CHECK_MPI(MPI_Type_free(&strided));
}

/* The buffered sends with a buffer attached by MPI_Buffer_attach_c. */
static void buffered_modes(void) {
  const MPI_Count room = 4 * (n_ints * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
  char* space = malloc((size_t)room);
  CHECK(space != NULL, "no memory");
  CHECK_MPI(MPI_Buffer_attach_c(space, room));
  int out[n_ints], in[n_ints];
  fill(out, n_ints, rank, 5);
  CHECK_MPI(MPI_Bsend_c(out, n_ints, MPI_INT, next, 5, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv_c(in, n_ints, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  expect(in, n_ints, prev, 5, "MPI_Bsend_c");
  MPI_Request r;
  fill(out, n_ints, rank, 6);
  CHECK_MPI(MPI_Ibsend_c(out, n_ints, MPI_INT, next, 6, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Recv_c(in, n_ints, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  expect(in, n_ints, prev, 6, "MPI_Ibsend_c");
  void* back = NULL;
  MPI_Count back_size = 0;
  CHECK_MPI(MPI_Buffer_detach_c(&back, &back_size));
  CHECK(back == space && back_size == room, "MPI_Buffer_detach_c gives %p and %lld, want %p, %lld",
        back, (long long)back_size, (void*)space, (long long)room);
  free(space);
}

/* The nonblocking and persistent forms, each started twice. */
static void nonblocking_and_persistent(void) {
  int out[n_ints], in[n_ints];
  MPI_Request send, recv;
  MPI_Status s;
  fill(out, n_ints, rank, 7);
  CHECK_MPI(MPI_Irecv_c(in, n_ints, MPI_INT, prev, 7, MPI_COMM_WORLD, &recv));
  CHECK_MPI(MPI_Issend_c(out, n_ints, MPI_INT, next, 7, MPI_COMM_WORLD, &send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&recv, &s));
  expect(in, n_ints, prev, 7, "MPI_Issend_c");

  CHECK_MPI(MPI_Irecv_c(in, n_ints, MPI_INT, prev, 8, MPI_COMM_WORLD, &recv));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  fill(out, n_ints, rank, 8);
  CHECK_MPI(MPI_Irsend_c(out, n_ints, MPI_INT, next, 8, MPI_COMM_WORLD, &send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&recv, &s));
  expect(in, n_ints, prev, 8, "MPI_Irsend_c");

  /* Persistent: the standard and synchronous sends, and the ready one after a barrier. */
  for (int mode = 0; mode < 3; ++mode) {
    const int tag = 10 + mode;
    CHECK_MPI(MPI_Recv_init_c(in, n_ints, MPI_INT, prev, tag, MPI_COMM_WORLD, &recv));
    if (mode == 0)
      CHECK_MPI(MPI_Send_init_c(out, n_ints, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
    if (mode == 1) {
      CHECK_MPI(MPI_Ssend_init_c(out, n_ints, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
    }
    if (mode == 2) {
      CHECK_MPI(MPI_Rsend_init_c(out, n_ints, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
    }
    for (int round = 0; round < 2; ++round) {
      fill(out, n_ints, rank, tag + round);
      memset(in, 0, sizeof in);
      CHECK_MPI(MPI_Start(&recv));
      if (mode == 2) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Start(&send));
      CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Wait(&recv, &s));
      expect(in, n_ints, prev, tag + round, "a persistent _c send and MPI_Recv_init_c");
      expect_count(&s, MPI_INT, n_ints, "MPI_Recv_init_c");
      /* Nobody refills `out` before every rank has received the round. */
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Request_free(&send));
    CHECK_MPI(MPI_Request_free(&recv));
  }

  const MPI_Count room = n_ints * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD;
  char* space = malloc((size_t)room);
  CHECK(space != NULL, "no memory");
  CHECK_MPI(MPI_Buffer_attach_c(space, room));
  CHECK_MPI(MPI_Bsend_init_c(out, n_ints, MPI_INT, next, 13, MPI_COMM_WORLD, &send));
  fill(out, n_ints, rank, 13);
  CHECK_MPI(MPI_Start(&send));
  CHECK_MPI(MPI_Recv_c(in, n_ints, MPI_INT, prev, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&send));
  expect(in, n_ints, prev, 13, "MPI_Bsend_init_c");
  void* back = NULL;
  MPI_Count back_size = 0;
  CHECK_MPI(MPI_Buffer_detach_c(&back, &back_size));
  free(space);
}

/* Send and receive at once, with separate buffers and in place, blocking and not. */
static void send_receive(void) {
  int out[n_ints], in[n_ints];
  MPI_Status s;
  MPI_Request r;
  fill(out, n_ints, rank, 14);
  CHECK_MPI(MPI_Sendrecv_c(out, n_ints, MPI_INT, next, 14, in, n_ints, MPI_INT, prev, 14,
                           MPI_COMM_WORLD, &s));
  expect(in, n_ints, prev, 14, "MPI_Sendrecv_c");
  expect_count(&s, MPI_INT, n_ints, "MPI_Sendrecv_c");

  fill(out, n_ints, rank, 15);
  CHECK_MPI(MPI_Isendrecv_c(out, n_ints, MPI_INT, next, 15, in, n_ints, MPI_INT, prev, 15,
                            MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &s));
  expect(in, n_ints, prev, 15, "MPI_Isendrecv_c");
  expect_count(&s, MPI_INT, n_ints, "MPI_Isendrecv_c");

  fill(in, n_ints, rank, 16);
  CHECK_MPI(MPI_Sendrecv_replace_c(in, n_ints, MPI_INT, next, 16, prev, 16, MPI_COMM_WORLD, &s));
  expect(in, n_ints, prev, 16, "MPI_Sendrecv_replace_c");
  expect_count(&s, MPI_INT, n_ints, "MPI_Sendrecv_replace_c");

  fill(in, n_ints, rank, 17);
  CHECK_MPI(MPI_Isendrecv_replace_c(in, n_ints, MPI_INT, next, 17, prev, 17, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &s));
  expect(in, n_ints, prev, 17, "MPI_Isendrecv_replace_c");
  expect_count(&s, MPI_INT, n_ints, "MPI_Isendrecv_replace_c");
}

/* Matched receives: MPI_Mprobe then MPI_Mrecv_c, MPI_Improbe then MPI_Imrecv_c. */
static void matched_receives(void) {
  int out[n_ints], in[n_ints];
  MPI_Request send, recv;
  MPI_Message m;
  MPI_Status s;
  fill(out, n_ints, rank, 18);
  CHECK_MPI(MPI_Isend_c(out, n_ints, MPI_INT, next, 18, MPI_COMM_WORLD, &send));
  CHECK_MPI(MPI_Mprobe(prev, 18, MPI_COMM_WORLD, &m, &s));
  CHECK_MPI(MPI_Mrecv_c(in, n_ints, MPI_INT, &m, &s));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK(m == MPI_MESSAGE_NULL, "MPI_Mrecv_c leaves the message MPI_MESSAGE_NULL");
  expect(in, n_ints, prev, 18, "MPI_Mrecv_c");
  expect_count(&s, MPI_INT, n_ints, "MPI_Mrecv_c");

  fill(out, n_ints, rank, 19);
  CHECK_MPI(MPI_Isend_c(out, n_ints, MPI_INT, next, 19, MPI_COMM_WORLD, &send));
  int found = 0;
  while (!found) CHECK_MPI(MPI_Improbe(prev, 19, MPI_COMM_WORLD, &found, &m, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Imrecv_c(in, n_ints, MPI_INT, &m, &recv));
  CHECK_MPI(MPI_Wait(&recv, &s));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  expect(in, n_ints, prev, 19, "MPI_Imrecv_c");
  expect_count(&s, MPI_INT, n_ints, "MPI_Imrecv_c");
}

/* Counts an int cannot hold: in a status (MPI_Status_set_elements_c), and through a send and a
 * receive of a zero-size type, which a binding that truncated to int would see as negative. */
static void beyond_int(void) {
  const MPI_Count big = 3000000000LL;
  MPI_Status s;
  CHECK_MPI(MPI_Status_set_elements_c(&s, MPI_INT, big));
  MPI_Count got = 0;
  CHECK_MPI(MPI_Get_count_c(&s, MPI_INT, &got));
  CHECK(got == big, "MPI_Get_count_c after MPI_Status_set_elements_c: %lld", (long long)got);
  CHECK_MPI(MPI_Get_elements_c(&s, MPI_INT, &got));
  CHECK(got == big, "MPI_Get_elements_c after MPI_Status_set_elements_c: %lld", (long long)got);
  int small = 0;
  CHECK_MPI(MPI_Get_count(&s, MPI_INT, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Get_count of %lld elements: %d, want MPI_UNDEFINED",
        (long long)big, small);

  MPI_Datatype empty;
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_MPI(MPI_Type_commit(&empty));
  int anchor = 0;
  MPI_Request r;
  CHECK_MPI(MPI_Irecv_c(&anchor, big, empty, prev, 20, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Send_c(&anchor, big, empty, next, 20, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, &s));
  CHECK(s.MPI_SOURCE == prev, "the empty message's source %d, want %d", s.MPI_SOURCE, prev);
  CHECK_MPI(MPI_Sendrecv_c(&anchor, big, empty, next, 21, &anchor, big, empty, prev, 21,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Type_free(&empty));
}

/* A failing _c call names itself (MPI_Error_string tells the latest failure: checked after each
 * call); a negative count is MPI_ERR_COUNT. */
static void expect_count_error(int code, const char* name) {
  int error_class = MPI_SUCCESS;
  CHECK_MPI(MPI_Error_class(code, &error_class));
  CHECK(error_class == MPI_ERR_COUNT, "%s with a negative count: class %d, want MPI_ERR_COUNT",
        name, error_class);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  CHECK_MPI(MPI_Error_string(code, text, &length));
  CHECK(strstr(text, name) != NULL, "%s's error does not name it: %s", name, text);
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int buf[1] = {0};
  MPI_Request r;
  expect_count_error(MPI_Send_c(buf, -1, MPI_INT, next, 0, MPI_COMM_WORLD), "MPI_Send_c");
  expect_count_error(MPI_Recv_c(buf, -2, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     "MPI_Recv_c");
  expect_count_error(MPI_Ssend_c(buf, -3, MPI_INT, next, 0, MPI_COMM_WORLD), "MPI_Ssend_c");
  expect_count_error(
      MPI_Sendrecv_replace_c(buf, -4, MPI_INT, next, 0, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
      "MPI_Sendrecv_replace_c");
  expect_count_error(MPI_Isend_c(buf, -5, MPI_INT, next, 0, MPI_COMM_WORLD, &r), "MPI_Isend_c");
  expect_count_error(MPI_Irecv_c(buf, -6, MPI_INT, prev, 0, MPI_COMM_WORLD, &r), "MPI_Irecv_c");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  blocking_modes();
  buffered_modes();
  nonblocking_and_persistent();
  send_receive();
  matched_receives();
  beyond_int();
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
