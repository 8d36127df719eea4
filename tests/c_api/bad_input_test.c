/* Bad input to every kind of C API call (rmpl.h): each must return the right code, leave a message
 * naming what was wrong in rmpl_last_error(), and leave the library working. Plain C11, any number
 * of ranks; every rank passes the same bad argument, so no collective waits for a rank that failed.
 * Prints a TAP line per check (tap.h). */
#include <rmpl.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

/* The call returned `expected` and the last error mentions each of the NULL-terminated words. */
static void check_error(int code, int expected, const char* what, const char* word1,
                        const char* word2) {
  check_code(code, expected, what);
  const char* words[] = {word1, word2};
  for (int i = 0; i < 2; ++i) {
    if (words[i] == NULL || code != expected) continue;
    const int found = strstr(rmpl_last_error(), words[i]) != NULL;
    check(found, what);
    if (!found) printf("[rank %d] #   \"%s\" not in: %s\n", rank, words[i], rmpl_last_error());
  }
  if (rank == 0 && code == expected) printf("#   %s\n", rmpl_last_error());
}

static char text[128];
static const char* number(long long n) {
  snprintf(text, sizeof text, "%lld", n);
  return text;
}

static void test_point_to_point(void) {
  int value = 1;
  char size_text[64];
  snprintf(size_text, sizeof size_text, "size %d", size);
  check_error(rmpl_send(&value, sizeof value, size, 0), RMPL_ERR_RANK, "rmpl_send to rank size",
              size_text, NULL);
  check_error(rmpl_send(&value, sizeof value, -7, 0), RMPL_ERR_RANK, "rmpl_send to rank -7", "-7",
              size_text);
  check_error(rmpl_receive(&value, sizeof value, size + 2, 0, NULL), RMPL_ERR_RANK,
              "rmpl_receive from rank size + 2", size_text, NULL);
  check_error(rmpl_send(&value, sizeof value, rank, -3), RMPL_ERR_TAG, "rmpl_send with tag -3",
              "-3", "1073741823");
  check_error(rmpl_send(&value, sizeof value, rank, RMPL_TAG_UB + 1), RMPL_ERR_TAG,
              "rmpl_send with tag RMPL_TAG_UB + 1", "1073741824", NULL);
  check_error(rmpl_receive(&value, sizeof value, rank, -9, NULL), RMPL_ERR_TAG,
              "rmpl_receive with tag -9", "-9", NULL);
  check_error(rmpl_send(NULL, 8, rank, 0), RMPL_ERR_ARGUMENT, "rmpl_send of a NULL buffer",
              "null buffer of 8 bytes", NULL);
  check_error(rmpl_receive(NULL, 8, rank, 0, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_receive into a NULL buffer", "null buffer of 8 bytes", NULL);
  /* A negative count, as C converts it to size_t. */
  const size_t negative = (size_t)-1;
  check_error(rmpl_send(&value, negative, rank, 0), RMPL_ERR_ARGUMENT, "rmpl_send of a count of -1",
              "rmpl_send", "18446744073709551615");
  check_error(rmpl_receive(&value, negative, rank, 0, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_receive with a capacity of -1", "rmpl_receive", "negative");
  rmpl_handle h = 0;
  check_error(rmpl_send_async(&value, (size_t)-8, rank, 0, &h), RMPL_ERR_ARGUMENT,
              "rmpl_send_async of a count of -8", "rmpl_send_async", NULL);
  check_error(rmpl_send_async(&value, sizeof value, rank, 0, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_send_async without a handle", "handle is NULL", NULL);
  check_error(rmpl_receive_post(&value, sizeof value, rank, 0, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_receive_post without a handle", "handle is NULL", NULL);
  check_error(rmpl_self_address(NULL), RMPL_ERR_ARGUMENT, "rmpl_self_address(NULL)", "rank is NULL",
              NULL);
  check_error(rmpl_partition_size(NULL), RMPL_ERR_ARGUMENT, "rmpl_partition_size(NULL)",
              "size is NULL", NULL);
}

static void test_handles(void) {
  int out = 77, in = 0, done = 0;
  rmpl_handle h = 0;
  check_error(rmpl_wait(NULL, NULL), RMPL_ERR_ARGUMENT, "rmpl_wait(NULL)", "handle is NULL", NULL);
  check_error(rmpl_test(&h, NULL, NULL), RMPL_ERR_ARGUMENT, "rmpl_test without done",
              "done is NULL", NULL);
  check_error(rmpl_wait_all(NULL, 3), RMPL_ERR_ARGUMENT, "rmpl_wait_all(NULL, 3)",
              "handles is NULL", "3");
  check_code(rmpl_wait(&h, NULL), RMPL_SUCCESS, "rmpl_wait on the empty handle succeeds");
  /* A completed handle's copy is stale: its generation has moved on. */
  check_code(rmpl_receive_post(&in, sizeof in, rank, 5, &h), RMPL_SUCCESS, "rmpl_receive_post");
  const rmpl_handle copy = h;
  check_code(rmpl_send(&out, sizeof out, rank, 5), RMPL_SUCCESS, "rmpl_send to itself");
  check_code(rmpl_wait(&h, NULL), RMPL_SUCCESS, "rmpl_wait");
  check(h == 0 && in == 77, "the wait reset the handle and delivered the message");
  rmpl_handle stale = copy;
  check_error(rmpl_wait(&stale, NULL), RMPL_ERR_REQUEST, "rmpl_wait on a stale copy",
              "not a live request", NULL);
  stale = copy;
  check_error(rmpl_test(&stale, &done, NULL), RMPL_ERR_REQUEST, "rmpl_test on a stale copy",
              "not a live request", NULL);
  rmpl_handle forged = ((rmpl_handle)12345 << 32) | 77;
  check_error(rmpl_wait(&forged, NULL), RMPL_ERR_REQUEST, "rmpl_wait on a forged handle",
              "not a live request", NULL);
}

static void test_collectives(void) {
  int one[1] = {1}, many[64] = {0};
  size_t counts[64];
  for (int i = 0; i < 64; ++i) counts[i] = 1;
  char root_text[64];
  snprintf(root_text, sizeof root_text, "root %d", size);
  check_error(rmpl_broadcast(one, sizeof one, size), RMPL_ERR_RANK, "rmpl_broadcast, root size",
              root_text, "rmpl: broadcast on rank");
  check_error(rmpl_reduce(one, many, 1, RMPL_INT32, RMPL_SUM, -1), RMPL_ERR_RANK,
              "rmpl_reduce, root -1", "root -1", NULL);
  check_error(rmpl_gather(one, sizeof one, many, size + 3), RMPL_ERR_RANK,
              "rmpl_gather, root size + 3", number(size + 3), NULL);
  check_error(rmpl_scatterv(many, counts, NULL, one, sizeof one, -2), RMPL_ERR_RANK,
              "rmpl_scatterv, root -2", "root -2", NULL);
  check_error(rmpl_broadcast(NULL, 4, 0), RMPL_ERR_ARGUMENT, "rmpl_broadcast of NULL",
              "rmpl_broadcast", "null receive buffer of 4 bytes");
  check_error(rmpl_allreduce(NULL, many, 2, RMPL_INT32, RMPL_SUM), RMPL_ERR_ARGUMENT,
              "rmpl_allreduce from NULL", "null send buffer of 8 bytes", NULL);
  check_error(rmpl_iallreduce(one, many, (size_t)-1, RMPL_INT32, RMPL_SUM, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_allreduce of a count of -1", "rmpl_allreduce",
              "18446744073709551615 elements of 4 bytes overflow");
  rmpl_handle h = 0;
  check_error(rmpl_iallreduce(one, many, (size_t)-1, RMPL_INT32, RMPL_SUM, &h), RMPL_ERR_ARGUMENT,
              "rmpl_iallreduce of a count of -1", "rmpl_iallreduce", NULL);
  check_error(rmpl_allreduce(one, many, 1, RMPL_INT32, 99), RMPL_ERR_ARGUMENT,
              "rmpl_allreduce with operator 99", "rmpl_allreduce on rank", "99 is not an rmpl_op");
  check_error(rmpl_allreduce(one, many, 1, (rmpl_type)77, RMPL_SUM), RMPL_ERR_ARGUMENT,
              "rmpl_allreduce with type 77", "rmpl_allreduce on rank", "77 is not an rmpl_type");
  check_error(rmpl_allgather(one, (size_t)-4, many), RMPL_ERR_ARGUMENT,
              "rmpl_allgather of a count of -4", "rmpl_allgather on rank", "18446744073709551612");
  check_error(rmpl_allgatherv(one, sizeof one, many, NULL, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_allgatherv without counts", "counts is NULL", NULL);
  size_t negative[64];
  for (int i = 0; i < 64; ++i) negative[i] = (size_t)-1;
  check_error(rmpl_alltoallv(many, negative, NULL, many, counts, NULL), RMPL_ERR_ARGUMENT,
              "rmpl_alltoallv with counts of -1", "send_counts[0]", "negative");
  check_error(rmpl_reduce_scatter(many, one, negative, RMPL_INT32, RMPL_SUM), RMPL_ERR_ARGUMENT,
              "rmpl_reduce_scatter with counts of -1", "counts[0]", NULL);
  /* Afterwards the collectives still work. */
  int sum = 1;
  check_code(rmpl_allreduce(&sum, &sum, 1, RMPL_INT32, RMPL_SUM), RMPL_SUCCESS,
             "rmpl_allreduce after the errors");
  check(sum == size, "rmpl_allreduce after the errors gives the size");
}

static void test_error_mode(void) {
  int mode = -1;
  check_code(rmpl_get_errors(&mode), RMPL_SUCCESS, "rmpl_get_errors");
  check(mode == RMPL_ERRORS_RETURN, "the default is RMPL_ERRORS_RETURN");
  check_error(rmpl_set_errors(5), RMPL_ERR_ARGUMENT, "rmpl_set_errors(5)", "5",
              "RMPL_ERRORS_ARE_FATAL");
  check_code(rmpl_set_errors(RMPL_ERRORS_ARE_FATAL), RMPL_SUCCESS, "rmpl_set_errors(FATAL)");
  check_code(rmpl_get_errors(&mode), RMPL_SUCCESS, "rmpl_get_errors");
  check(mode == RMPL_ERRORS_ARE_FATAL, "rmpl_get_errors reports RMPL_ERRORS_ARE_FATAL");
  check_code(rmpl_set_errors(RMPL_ERRORS_RETURN), RMPL_SUCCESS, "rmpl_set_errors(RETURN)");
  int value = 0;
  check_error(rmpl_send(&value, sizeof value, size, 0), RMPL_ERR_RANK,
              "an error returns again after RMPL_ERRORS_RETURN", number(size), NULL);
}

int main(int argc, char** argv) {
  /* Before rmpl_init: checked once the rank is known, so only rank 0 prints it. */
  int ignored = 0;
  const int early = rmpl_send(&ignored, sizeof ignored, 0, 0);
  char early_text[256];
  snprintf(early_text, sizeof early_text, "%s", rmpl_last_error());
  tap_init(&argc, &argv);
  check_code(early, RMPL_ERR_NOT_INITIALIZED, "rmpl_send before rmpl_init");
  check(strstr(early_text, "not initialized") != NULL, "rmpl_send before rmpl_init: the text");
  if (rank == 0) printf("#   %s\n", early_text);
  test_point_to_point();
  test_handles();
  test_collectives();
  test_error_mode();
  return tap_finish();
}
