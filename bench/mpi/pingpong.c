/* Ping-pong latency and bandwidth against the MPI C API: the same logic as bench/pingpong.cpp
 * (rmpl's native version), line for line, so the peers (Open MPI, MPICH) are measured the same way.
 *
 * Built by bench/run-pingpong with each peer's compiler wrapper (mpicc.openmpi / mpicc.mpich -O3);
 * CMake never builds it, so rmpl's build does not depend on MPI.
 *
 * Ranks 2k and 2k+1 form a pair; all pairs ping-pong at once (an odd last rank idles). Per size:
 *   - calibration (also the warm-up): the pair leader runs batches of 1, 2, 4, ... round trips
 * until one batch takes at least a tenth of the target time, then sizes the measured batch to take
 * the target time (0.2 s; 0.05 s with --quick);
 *   - every rank meets at a barrier, so the pairs' measured batches overlap;
 *   - the measured batch: latency = elapsed / (2 * round trips), i.e. one-way time;
 *     bandwidth = size / one-way time (the ping-pong's, not a streaming rate), in 10^6 bytes/s.
 * Rank 0 averages the pairs' one-way times and prints one CSV line per point:
 *   pingpong,<ranks>,<size_bytes>,latency_us|bandwidth_MBps,<value>
 * With 2 ranks: latency at 0, 8, 1024 and 4096 bytes, bandwidth at 64 KiB, 1 MiB and 16 MiB.
 * With more ranks: latency only (the concurrent-pairs case).
 * Before each batch the leader sends its partner the batch length (0: done) on a control tag; that
 * message is not inside the timed region. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_CTRL = 1, TAG_PING = 2, TAG_PONG = 3, TAG_RESULT = 4, TAG_BARRIER = 5 };

static const size_t latency_sizes[] = {0, 8, 1024, 4096};
static const size_t bandwidth_sizes[] = {64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
#define MAX_SIZE ((size_t)16 * 1024 * 1024)
#define MIN_ITERS 2
#define MAX_ITERS 10000000L

static int rank_, size_;

/* Linear barrier through rank 0 (untimed; the same in both versions). */
static void barrier(void) {
  char token = 0;
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r)
      MPI_Recv(&token, 1, MPI_BYTE, r, TAG_BARRIER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 1; r < size_; ++r) MPI_Send(&token, 1, MPI_BYTE, r, TAG_BARRIER, MPI_COMM_WORLD);
  } else {
    MPI_Send(&token, 1, MPI_BYTE, 0, TAG_BARRIER, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_BYTE, 0, TAG_BARRIER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/* Leader: tells the partner the batch length, then runs it; returns the elapsed seconds. */
static double leader_batch(char* sbuf, char* rbuf, size_t bytes, int partner, long iters) {
  MPI_Send(&iters, 1, MPI_LONG, partner, TAG_CTRL, MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    MPI_Send(sbuf, (int)bytes, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD);
    MPI_Recv(rbuf, (int)bytes, MPI_BYTE, partner, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return MPI_Wtime() - t0;
}

/* Partner: serves batches until the leader sends 0. */
static void partner_batches(char* sbuf, char* rbuf, size_t bytes, int leader) {
  for (;;) {
    long iters = 0;
    MPI_Recv(&iters, 1, MPI_LONG, leader, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (iters == 0) return;
    for (long i = 0; i < iters; ++i) {
      MPI_Recv(rbuf, (int)bytes, MPI_BYTE, leader, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sbuf, (int)bytes, MPI_BYTE, leader, TAG_PONG, MPI_COMM_WORLD);
    }
  }
}

/* One point: returns (on rank 0) the mean one-way time over the pairs, in seconds. */
static double run_point(char* sbuf, char* rbuf, size_t bytes, double target) {
  const int pairs = size_ / 2;
  const int in_pair = rank_ < 2 * pairs;
  const int leader = in_pair && rank_ % 2 == 0;
  const int peer = leader ? rank_ + 1 : rank_ - 1;
  long iters = 0;

  /* Calibration and warm-up: concurrent in every pair. */
  if (leader) {
    long n = 1;
    for (;;) {
      double t = leader_batch(sbuf, rbuf, bytes, peer, n);
      if (t >= target / 10 || n >= MAX_ITERS) {
        double est = (double)n * target / (t > 0 ? t : 1e-9);
        iters = est < MIN_ITERS ? MIN_ITERS : est > MAX_ITERS ? MAX_ITERS : (long)est;
        break;
      }
      n *= 2;
    }
    long done = 0;
    MPI_Send(&done, 1, MPI_LONG, peer, TAG_CTRL, MPI_COMM_WORLD);
  } else if (in_pair) {
    partner_batches(sbuf, rbuf, bytes, peer);
  }

  barrier();
  double one_way = 0;
  if (leader) {
    double t = leader_batch(sbuf, rbuf, bytes, peer, iters);
    long done = 0;
    MPI_Send(&done, 1, MPI_LONG, peer, TAG_CTRL, MPI_COMM_WORLD);
    one_way = t / (2.0 * (double)iters);
  } else if (in_pair) {
    partner_batches(sbuf, rbuf, bytes, peer);
  }

  /* Rank 0 (a leader) averages the pairs' results. */
  if (rank_ == 0) {
    double sum = one_way;
    for (int p = 1; p < pairs; ++p) {
      double v = 0;
      MPI_Recv(&v, 1, MPI_DOUBLE, 2 * p, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      sum += v;
    }
    one_way = sum / pairs;
  } else if (leader) {
    MPI_Send(&one_way, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
  }
  barrier();
  return one_way;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  double target = 0.2;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0)
      target = 0.05;
    else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc)
      target = atof(argv[++i]);
    else {
      if (rank_ == 0) fprintf(stderr, "usage: %s [--quick] [--time seconds-per-point]\n", argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (size_ < 2) {
    if (rank_ == 0) fprintf(stderr, "pingpong needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  char* sbuf = NULL;
  char* rbuf = NULL;
  if (posix_memalign((void**)&sbuf, 4096, MAX_SIZE) != 0 ||
      posix_memalign((void**)&rbuf, 4096, MAX_SIZE) != 0) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(sbuf, 'a' + rank_ % 26, MAX_SIZE);
  memset(rbuf, 0, MAX_SIZE);

  if (rank_ == 0) {
    printf("# pingpong (MPI C API), %d ranks, %d concurrent pair(s), %.3f s per point\n", size_,
           size_ / 2, target);
    printf(
        "# latency_us = one-way time (round trip / 2), mean over pairs; "
        "bandwidth_MBps = size / one-way time, 10^6 B/s\n");
    fflush(stdout);
  }
  for (size_t i = 0; i < sizeof latency_sizes / sizeof *latency_sizes; ++i) {
    double t = run_point(sbuf, rbuf, latency_sizes[i], target);
    if (rank_ == 0) {
      printf("pingpong,%d,%zu,latency_us,%.4f\n", size_, latency_sizes[i], t * 1e6);
      fflush(stdout);
    }
  }
  if (size_ == 2) {
    for (size_t i = 0; i < sizeof bandwidth_sizes / sizeof *bandwidth_sizes; ++i) {
      double t = run_point(sbuf, rbuf, bandwidth_sizes[i], target);
      if (rank_ == 0) {
        printf("pingpong,%d,%zu,bandwidth_MBps,%.1f\n", size_, bandwidth_sizes[i],
               (double)bandwidth_sizes[i] / t / 1e6);
        fflush(stdout);
      }
    }
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
