/* MPI_THREAD_MULTIPLE: MPI_Init_thread grants it and MPI_Query_thread says so; then 2, 4 and 8
 * threads per rank at once, every one calling MPI:
 *   - a ring on MPI_COMM_WORLD, each thread on its own tag, in sizes that take every protocol
 *     (inline, eager, rendezvous), every payload checked;
 *   - collectives (blocking and nonblocking) at once, each thread on a communicator of its own;
 *   - receives from MPI_ANY_SOURCE racing one another for messages of every rank and thread, each
 *     message taken exactly once;
 *   - a thread blocked in MPI_Recv from its own rank while another thread sends it the message
 *     later (the waiting thread must be woken, not left asleep until a timeout). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum { max_threads = 8, tag_race = 1000 };

static int rank_, size_;
static int threads_;
static MPI_Comm comms_[max_threads];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Rounds per thread, fewer when many threads share the two cores of a test machine. */
static int rounds(int base) {
  int r = base / (size_ * threads_);
  return r < 4 ? 4 : r;
}

static unsigned char pattern(int from, int thread, int round, size_t i) {
  return (unsigned char)(from * 131 + thread * 31 + round * 7 + (int)i);
}

static void* ring(void* arg) {
  const int t = (int)(intptr_t)arg;
  static const size_t sizes[] = {8, 200, 4096, 70000};
  const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  unsigned char* out = malloc(70000);
  unsigned char* in = malloc(70000);
  CHECK(out && in, "out of memory");
  const int n = rounds(3000);
  for (int round = 0; round < n; ++round) {
    const size_t bytes = sizes[round % 4];
    for (size_t i = 0; i < bytes; ++i) out[i] = pattern(rank_, t, round, i);
    MPI_Request r;
    CHECK_MPI(MPI_Isend(out, (int)bytes, MPI_BYTE, next, t, MPI_COMM_WORLD, &r));
    MPI_Status s;
    CHECK_MPI(MPI_Recv(in, 70000, MPI_BYTE, prev, t, MPI_COMM_WORLD, &s));
    int got = -1;
    CHECK_MPI(MPI_Get_count(&s, MPI_BYTE, &got));
    CHECK(got == (int)bytes && s.MPI_TAG == t && s.MPI_SOURCE == prev,
          "thread %d round %d: %d bytes with tag %d from %d, expected %zu with tag %d from %d", t,
          round, got, s.MPI_TAG, s.MPI_SOURCE, bytes, t, prev);
    for (size_t i = 0; i < bytes; ++i) {
      CHECK(in[i] == pattern(prev, t, round, i),
            "thread %d round %d: byte %zu of %zu from rank %d is %d, expected %d", t, round, i,
            bytes, prev, in[i], pattern(prev, t, round, i));
    }
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  free(out);
  free(in);
  return NULL;
}

static void* collectives(void* arg) {
  const int t = (int)(intptr_t)arg;
  MPI_Comm c = comms_[t];
  const int n = rounds(1500);
  for (int round = 0; round < n; ++round) {
    long v[3] = {rank_ + t, round, 1}, sum[3] = {0, 0, 0};
    CHECK_MPI(MPI_Allreduce(v, sum, 3, MPI_LONG, MPI_SUM, c));
    const long ranks_sum = (long)size_ * (size_ - 1) / 2 + (long)size_ * t;
    CHECK(sum[0] == ranks_sum && sum[1] == (long)round * size_ && sum[2] == size_,
          "thread %d round %d: allreduce gave %ld %ld %ld, expected %ld %ld %d", t, round, sum[0],
          sum[1], sum[2], ranks_sum, (long)round * size_, size_);
    const int root = (round + t) % size_;
    int b[64];
    for (int i = 0; i < 64; ++i) b[i] = rank_ == root ? root * 1000 + round + i : -1;
    CHECK_MPI(MPI_Bcast(b, 64, MPI_INT, root, c));
    for (int i = 0; i < 64; ++i) {
      CHECK(b[i] == root * 1000 + round + i, "thread %d round %d: bcast element %d is %d", t, round,
            i, b[i]);
    }
    MPI_Request r;
    int mine = rank_ * 10 + t, all[64];
    CHECK_MPI(MPI_Iallgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < size_; ++i) {
      CHECK(all[i] == i * 10 + t, "thread %d round %d: allgather element %d is %d", t, round, i,
            all[i]);
    }
    CHECK_MPI(MPI_Barrier(c));
  }
  return NULL;
}

/* Every thread of every rank sends `n` messages to every rank (itself too) on tag_race and
 * receives size * n with MPI_ANY_SOURCE: the receives of a rank's threads race for all of them.
 * seen[t] records what thread t took, merged after the join. */
static int race_rounds;
static unsigned char* seen[max_threads];

static void* race(void* arg) {
  const int t = (int)(intptr_t)arg;
  const int n = race_rounds;
  MPI_Request* sends = malloc(sizeof(MPI_Request) * (size_t)(size_ * n));
  int* out = malloc(sizeof(int) * 3 * (size_t)(size_ * n));
  CHECK(sends && out, "out of memory");
  for (int k = 0; k < n; ++k) {
    for (int d = 0; d < size_; ++d) {
      int* m = out + 3 * (k * size_ + d);
      m[0] = rank_;
      m[1] = t;
      m[2] = k;
      CHECK_MPI(MPI_Isend(m, 3, MPI_INT, d, tag_race, MPI_COMM_WORLD, &sends[k * size_ + d]));
    }
  }
  for (int k = 0; k < size_ * n; ++k) {
    int m[3];
    MPI_Status s;
    CHECK_MPI(MPI_Recv(m, 3, MPI_INT, MPI_ANY_SOURCE, tag_race, MPI_COMM_WORLD, &s));
    CHECK(m[0] == s.MPI_SOURCE && m[0] >= 0 && m[0] < size_ && m[1] >= 0 && m[1] < threads_ &&
              m[2] >= 0 && m[2] < n,
          "thread %d: any-source receive from %d holds (%d, %d, %d)", t, s.MPI_SOURCE, m[0], m[1],
          m[2]);
    seen[t][(m[0] * threads_ + m[1]) * n + m[2]]++;
  }
  CHECK_MPI(MPI_Waitall(size_ * n, sends, MPI_STATUSES_IGNORE));
  free(sends);
  free(out);
  return NULL;
}

static void run_threads(void* (*body)(void*)) {
  pthread_t th[max_threads];
  for (int t = 0; t < threads_; ++t) {
    CHECK(pthread_create(&th[t], NULL, body, (void*)(intptr_t)t) == 0, "pthread_create failed");
  }
  for (int t = 0; t < threads_; ++t) CHECK(pthread_join(th[t], NULL) == 0, "pthread_join failed");
}

static void check_race(void) {
  const int n = race_rounds;
  const size_t cells = (size_t)size_ * threads_ * n;
  for (int t = 0; t < threads_; ++t) seen[t] = calloc(cells, 1);
  run_threads(race);
  for (size_t i = 0; i < cells; ++i) {
    int times = 0;
    for (int t = 0; t < threads_; ++t) times += seen[t][i];
    CHECK(times == 1, "%d threads: message %zu of rank %zu thread %zu taken %d times", threads_,
          i % (size_t)n, i / n / threads_, i / n % threads_, times);
  }
  for (int t = 0; t < threads_; ++t) free(seen[t]);
}

/* A thread blocked in MPI_Recv from this rank; another sends it the message after it has had time
 * to go to sleep. The delay between the send and the receive's return must be short: a waiter left
 * asleep on the doorbell would return only at its sleep's bound. */
static double sent_at;
static void* late_sender(void* arg) {
  (void)arg;
  struct timespec pause = {0, 30 * 1000 * 1000};
  nanosleep(&pause, NULL);
  const int v = 4242;
  sent_at = now();
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank_, 77, MPI_COMM_WORLD));
  return NULL;
}

static void check_wake_on_self_send(void) {
  double worst = 0.0, total = 0.0;
  const int n = 8;
  for (int i = 0; i < n; ++i) {
    pthread_t th;
    CHECK(pthread_create(&th, NULL, late_sender, NULL) == 0, "pthread_create failed");
    int v = 0;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank_, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const double delay = now() - sent_at;
    CHECK(pthread_join(th, NULL) == 0, "pthread_join failed");
    CHECK(v == 4242, "receive from self got %d", v);
    total += delay;
    if (delay > worst) worst = delay;
  }
  /* A lost wake-up costs the sleep's bound (100 ms) every time; a loaded machine may delay a
   * thread now and then, but not on average. */
  CHECK(total / n < 0.05,
        "a receive from self returned %.1f ms (worst %.1f ms) on average after "
        "another thread sent its message",
        total / n * 1e3, worst * 1e3);
}

static void* is_main(void* arg) {
  int* flag = arg;
  CHECK_MPI(MPI_Is_thread_main(flag));
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE,
        "MPI_Init_thread provided %d, asked for "
        "MPI_THREAD_MULTIPLE (%d)",
        provided, MPI_THREAD_MULTIPLE);
  int level = -1;
  CHECK_MPI(MPI_Query_thread(&level));
  CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Query_thread says %d", level);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int flag = -1;
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag == 1, "MPI_Is_thread_main on the main thread: %d", flag);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, is_main, &flag) == 0, "pthread_create failed");
  CHECK(pthread_join(th, NULL) == 0, "pthread_join failed");
  CHECK(flag == 0, "MPI_Is_thread_main on another thread: %d", flag);

  static const int counts[] = {2, 4, 8};
  for (int i = 0; i < 3; ++i) {
    threads_ = counts[i];
    run_threads(ring);
    for (int t = 0; t < threads_; ++t) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms_[t]));
    run_threads(collectives);
    for (int t = 0; t < threads_; ++t) CHECK_MPI(MPI_Comm_free(&comms_[t]));
    race_rounds = rounds(400);
    check_race();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  check_wake_on_self_send();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
