/* The C API's point-to-point calls (rmpl.h), in plain C11, under rmplrun with any number of ranks.
 * Prints a TAP line per check (tap.h) and exits non-zero if any check failed. */
#include <rmpl.h>

#include <stdio.h>
#include <string.h>

#include "tap.h"

static int next_rank(void) {
  return (rank + 1) % size;
}
static int prev_rank(void) {
  return (rank + size - 1) % size;
}

/* rmpl_send completes only when the receiver has the message, so a ring of them alternates: even
 * ranks send first, odd ranks receive first (with one rank it would wait for itself). */
static void test_send_receive_ring(void) {
  if (size == 1) {
    if (rank == 0) printf("ok %d - rmpl_send/rmpl_receive ring # SKIP needs 2 ranks\n", ++checks);
    return;
  }
  int out = 100 + rank, in = -1;
  rmpl_status st;
  int send_code, receive_code;
  if (rank % 2 == 0) {
    send_code = rmpl_send(&out, sizeof out, next_rank(), 1);
    receive_code = rmpl_receive(&in, sizeof in, prev_rank(), 1, &st);
  } else {
    receive_code = rmpl_receive(&in, sizeof in, prev_rank(), 1, &st);
    send_code = rmpl_send(&out, sizeof out, next_rank(), 1);
  }
  check_code(send_code, RMPL_SUCCESS, "rmpl_send to the next rank");
  check_code(receive_code, RMPL_SUCCESS, "rmpl_receive from the previous rank");
  check(in == 100 + prev_rank(), "rmpl_receive delivered the previous rank's value");
  check(st.source == prev_rank() && st.tag == 1 && st.bytes == sizeof in,
        "rmpl_receive's status names source, tag and size");

  /* A large message (receiver-initiated copy). */
  static char big_out[1 << 20], big_in[1 << 20];
  for (size_t i = 0; i < sizeof big_out; ++i) big_out[i] = (char)(i * 7 + (size_t)rank);
  if (rank % 2 == 0) {
    send_code = rmpl_send(big_out, sizeof big_out, next_rank(), 2);
    receive_code = rmpl_receive(big_in, sizeof big_in, RMPL_ANY_SOURCE, RMPL_ANY_TAG, &st);
  } else {
    receive_code = rmpl_receive(big_in, sizeof big_in, RMPL_ANY_SOURCE, RMPL_ANY_TAG, &st);
    send_code = rmpl_send(big_out, sizeof big_out, next_rank(), 2);
  }
  int intact = receive_code == RMPL_SUCCESS;
  for (size_t i = 0; intact && i < sizeof big_in; ++i) {
    intact = big_in[i] == (char)(i * 7 + (size_t)prev_rank());
  }
  check(send_code == RMPL_SUCCESS && intact && st.bytes == sizeof big_in && st.tag == 2,
        "1 MiB rmpl_send/rmpl_receive ring with wildcards");
}

static void test_send_and_receive(void) {
  int out = 200 + rank, in = -1;
  rmpl_status st;
  int code =
      rmpl_send_and_receive(&out, sizeof out, next_rank(), 3, &in, sizeof in, prev_rank(), 3, &st);
  check_code(code, RMPL_SUCCESS, "rmpl_send_and_receive ring shift");
  check(in == 200 + prev_rank() && st.source == prev_rank(), "rmpl_send_and_receive delivered");
}

static void test_async(void) {
  rmpl_status st;
  char nothing[8];
  check_code(rmpl_receive_async(nothing, sizeof nothing, RMPL_ANY_SOURCE, 999, &st),
             RMPL_NO_MESSAGE, "rmpl_receive_async with nothing to receive returns RMPL_NO_MESSAGE");

  /* send_async + receive_async_block + wait */
  double out = rank + 0.25, in = -1;
  rmpl_handle send = 0;
  check_code(rmpl_send_async(&out, sizeof out, next_rank(), 4, &send), RMPL_SUCCESS,
             "rmpl_send_async");
  check(send != 0, "rmpl_send_async returns a handle");
  check_code(rmpl_receive_async_block(&in, sizeof in, prev_rank(), 4, &st), RMPL_SUCCESS,
             "rmpl_receive_async_block");
  check(in == prev_rank() + 0.25 && st.source == prev_rank() && st.tag == 4,
        "rmpl_receive_async_block delivered");
  check_code(rmpl_wait(&send, &st), RMPL_SUCCESS, "rmpl_wait on the send");
  check(send == 0, "rmpl_wait resets the handle");

  /* receive_post + test: the receive is posted before the message is sent. */
  long posted_in = -1, posted_out = 300 + rank;
  rmpl_handle receive = 0;
  check_code(rmpl_receive_post(&posted_in, sizeof posted_in, prev_rank(), 5, &receive),
             RMPL_SUCCESS, "rmpl_receive_post");
  check_code(rmpl_send_async(&posted_out, sizeof posted_out, next_rank(), 5, &send), RMPL_SUCCESS,
             "rmpl_send_async to a posted receive");
  int done = 0, code = RMPL_SUCCESS;
  const double deadline = rmpl_wtime() + 60;
  while (!done && code == RMPL_SUCCESS && rmpl_wtime() < deadline) {
    code = rmpl_test(&receive, &done, &st);
  }
  check_code(code, RMPL_SUCCESS, "rmpl_test on a posted receive");
  check(done && receive == 0 && posted_in == 300 + prev_rank() && st.bytes == sizeof posted_in,
        "rmpl_test completes the posted receive");
  check_code(rmpl_wait(&send, NULL), RMPL_SUCCESS, "rmpl_wait with a null status");

  /* A message that is already there: rmpl_receive_async takes it without blocking. */
  int self_out = 7, self_in = 0;
  check_code(rmpl_send_async(&self_out, sizeof self_out, rank, 6, &send), RMPL_SUCCESS,
             "rmpl_send_async to self");
  code = RMPL_NO_MESSAGE;
  while (code == RMPL_NO_MESSAGE && rmpl_wtime() < deadline) {
    code = rmpl_receive_async(&self_in, sizeof self_in, rank, 6, &st);
  }
  check_code(code, RMPL_SUCCESS, "rmpl_receive_async takes a message that has arrived");
  check(self_in == 7, "rmpl_receive_async delivered");
  check_code(rmpl_wait(&send, NULL), RMPL_SUCCESS, "rmpl_wait on the send to self");

  /* Several handles at once. */
  enum { n = 16 };
  int outs[n], ins[n];
  rmpl_handle handles[2 * n];
  for (int i = 0; i < n; ++i) {
    outs[i] = rank * 1000 + i;
    rmpl_receive_post(&ins[i], sizeof ins[i], prev_rank(), 100 + i, &handles[i]);
  }
  for (int i = 0; i < n; ++i)
    rmpl_send_async(&outs[i], sizeof outs[i], next_rank(), 100 + i, &handles[n + i]);
  check_code(rmpl_wait_all(handles, 2 * n), RMPL_SUCCESS, "rmpl_wait_all on 32 handles");
  int all = 1;
  for (int i = 0; i < n; ++i) all = all && ins[i] == prev_rank() * 1000 + i && handles[i] == 0;
  check(all, "rmpl_wait_all completed every receive");
}

static void test_errors(void) {
  int value = 0;
  rmpl_status st;
  check_code(rmpl_send(&value, sizeof value, size, 0), RMPL_ERR_RANK, "send to rank size fails");
  check(rmpl_last_error() != NULL && strstr(rmpl_last_error(), "rank") != NULL,
        "rmpl_last_error names the rank");
  check_code(rmpl_send(&value, sizeof value, -5, 0), RMPL_ERR_RANK, "send to rank -5 fails");
  check_code(rmpl_receive(&value, sizeof value, size + 1, 0, &st), RMPL_ERR_RANK,
             "receive from rank size+1 fails");
  check_code(rmpl_send(&value, sizeof value, rank, -3), RMPL_ERR_TAG, "send with tag -3 fails");
  check(rmpl_last_error() != NULL && strstr(rmpl_last_error(), "-3") != NULL,
        "rmpl_last_error names the tag");
  check_code(rmpl_send(&value, sizeof value, rank, RMPL_TAG_UB + 1), RMPL_ERR_TAG,
             "send with tag RMPL_TAG_UB+1 fails");
  check_code(rmpl_receive(&value, sizeof value, rank, -3, &st), RMPL_ERR_TAG,
             "receive with tag -3 fails");
  rmpl_handle handle = 0;
  check_code(rmpl_send_async(&value, sizeof value, size, 0, &handle), RMPL_ERR_RANK,
             "send_async to rank size fails");
  check(handle == 0, "a failed send_async leaves the handle empty");

  /* Truncation: 64 bytes into 8. */
  char message[64] = {0}, small[8];
  rmpl_handle send = 0;
  rmpl_send_async(message, sizeof message, rank, 9, &send);
  check_code(rmpl_receive(small, sizeof small, rank, 9, &st), RMPL_ERR_TRUNCATE,
             "receive into a short buffer reports truncation");
  check(strstr(rmpl_last_error(), "64") != NULL && strstr(rmpl_last_error(), "8") != NULL,
        "the truncation message gives both sizes");
  rmpl_wait(&send, NULL);

  int all_strings = 1;
  for (int code = RMPL_SUCCESS; code <= RMPL_ERR_EXHAUSTED; ++code) {
    all_strings =
        all_strings && rmpl_error_string(code) != NULL && rmpl_error_string(code)[0] != '\0';
  }
  check(all_strings, "rmpl_error_string describes every code");
  check(rmpl_error_string(12345) != NULL && rmpl_error_string(-1) != NULL,
        "rmpl_error_string is never NULL");
}

int main(int argc, char** argv) {
  tap_init(&argc, &argv);

  test_send_receive_ring();
  test_send_and_receive();
  test_async();
  test_errors();

  return tap_finish();
}
