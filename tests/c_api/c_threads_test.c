/* rmpl_init_threads: every C API call may come from any thread at any time. 4 threads per rank,
 * each on its own tag: a ring of asynchronous sends and blocking receives in sizes of every
 * protocol (every byte checked), then allreduces are left to the main thread while the others keep
 * sending; and a thread blocked in rmpl_receive from its own rank gets a message another thread
 * sends it later. Exits non-zero, naming rank, thread and values, on the first mismatch. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <rmpl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { threads = 4 };
static int rank_, size_;

#define FAIL_IF(cond, ...)                                            \
  do {                                                                \
    if (cond) {                                                       \
      fprintf(stderr, "rank %d: %s:%d: ", rank_, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
      exit(1);                                                        \
    }                                                                 \
  } while (0)

static unsigned char pattern(int from, int thread, int round, size_t i) {
  return (unsigned char)(from * 131 + thread * 31 + round * 7 + (int)i);
}

static void* ring(void* arg) {
  const int t = (int)(intptr_t)arg;
  static const size_t sizes[] = {8, 200, 4096, 70000};
  const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  unsigned char* out = malloc(70000);
  unsigned char* in = malloc(70000);
  FAIL_IF(!out || !in, "out of memory");
  const int n = 2000 / size_ < 40 ? 40 : 2000 / size_;
  for (int round = 0; round < n; ++round) {
    const size_t bytes = sizes[round % 4];
    for (size_t i = 0; i < bytes; ++i) out[i] = pattern(rank_, t, round, i);
    rmpl_handle h = 0;
    int code = rmpl_send_async(out, bytes, next, t, &h);
    FAIL_IF(code != RMPL_SUCCESS, "thread %d: rmpl_send_async returned %d", t, code);
    rmpl_status s;
    code = rmpl_receive(in, 70000, prev, t, &s);
    FAIL_IF(code != RMPL_SUCCESS || s.bytes != bytes || s.source != prev || s.tag != t,
            "thread %d round %d: rmpl_receive returned %d, %zu bytes from %d tag %d, expected "
            "%zu from %d tag %d",
            t, round, code, (size_t)s.bytes, s.source, s.tag, bytes, prev, t);
    for (size_t i = 0; i < bytes; ++i) {
      FAIL_IF(in[i] != pattern(prev, t, round, i),
              "thread %d round %d: byte %zu of %zu is %d, expected %d", t, round, i, bytes, in[i],
              pattern(prev, t, round, i));
    }
    code = rmpl_wait(&h, NULL);
    FAIL_IF(code != RMPL_SUCCESS, "thread %d: rmpl_wait returned %d", t, code);
  }
  free(out);
  free(in);
  return NULL;
}

static void* late_sender(void* arg) {
  (void)arg;
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  const int v = 99;
  rmpl_handle h = 0;
  FAIL_IF(rmpl_send_async(&v, sizeof v, rank_, 500, &h) != RMPL_SUCCESS, "send to self failed");
  FAIL_IF(rmpl_wait(&h, NULL) != RMPL_SUCCESS, "wait for the send to self failed");
  return NULL;
}

int main(int argc, char** argv) {
  FAIL_IF(rmpl_init_threads(&argc, &argv) != RMPL_SUCCESS, "rmpl_init_threads failed");
  rmpl_self_address(&rank_);
  rmpl_partition_size(&size_);
  pthread_t th[threads];
  for (int t = 0; t < threads; ++t) {
    FAIL_IF(pthread_create(&th[t], NULL, ring, (void*)(intptr_t)t) != 0, "pthread_create");
  }
  /* The main thread meanwhile runs collectives with the other ranks' main threads. */
  for (int i = 0; i < 50; ++i) {
    long v = rank_ + i, sum = 0;
    FAIL_IF(rmpl_allreduce(&v, &sum, 1, RMPL_INT64, RMPL_SUM) != RMPL_SUCCESS, "allreduce");
    const long expected = (long)size_ * (size_ - 1) / 2 + (long)size_ * i;
    FAIL_IF(sum != expected, "allreduce %d: %ld, expected %ld", i, sum, expected);
  }
  for (int t = 0; t < threads; ++t) FAIL_IF(pthread_join(th[t], NULL) != 0, "pthread_join");
  for (int i = 0; i < 4; ++i) {
    pthread_t sender;
    FAIL_IF(pthread_create(&sender, NULL, late_sender, NULL) != 0, "pthread_create");
    int v = 0;
    FAIL_IF(rmpl_receive(&v, sizeof v, rank_, 500, NULL) != RMPL_SUCCESS || v != 99,
            "receive from self: %d", v);
    FAIL_IF(pthread_join(sender, NULL) != 0, "pthread_join");
  }
  FAIL_IF(rmpl_barrier() != RMPL_SUCCESS, "barrier");
  FAIL_IF(rmpl_finalize() != RMPL_SUCCESS, "rmpl_finalize");
  return 0;
}
