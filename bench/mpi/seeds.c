/* The seed papers' cases against the MPI C API: the same logic as bench/seeds.cpp (rmpl's native
 * version), step for step, so rmpl's MPI layer and the peers (Open MPI, MPICH) do the same work.
 *
 * Built by the seeds runner with each peer's compiler wrapper (mpicc.openmpi / mpicc.mpich -O3)
 * and with rmpl's bin/mpicc; CMake never builds it, so rmpl's build does not depend on MPI.
 *
 * Cases, each at every size (8 B, then the powers of 4 up to 16 MiB; --sizes replaces them). The
 * flavour is the sender's: `sync` = MPI_Ssend (the seeds' synchronous send), `async` = MPI_Isend of
 * everything of one operation, then MPI_Waitall. Receivers post MPI_Irecv for every message they
 * expect in one operation, then MPI_Waitall, unless said otherwise.
 *   - latency: ranks 0 and 1 ping-pong (sync: Ssend + Recv, async: Send + Recv); time_s = round
 *     trip / 2. Other ranks idle.
 *   - onetoall: rank 0 sends to ranks 1..P-1 in rank order; MBps = (P-1) * bytes / time.
 *   - alltoone: ranks 1..P-1 send to rank 0; MBps = (P-1) * bytes / time.
 *   - alltoall: every rank sends to every other. sync: step k = 1..P-1 posts the receive from
 *     r-k, Ssends to r+k, waits for the receive (blocking sends in rank order would deadlock);
 *     async: Irecv all, Isend all (to r+1, r+2, ...), Waitall. MBps = P * (P-1) * bytes / time.
 *   - broadcast: MPI_Bcast from root 0; time_s. Flavour coll.
 *   - reduce: MPI_Reduce, MPI_SUM of bytes/8 doubles (at least 1) to root 0; time_s. Flavour coll.
 *   - anysource: param k = 1..P-1 senders (ranks 1..k) send one message each per operation; rank
 *     0 takes them with blocking MPI_Recv from MPI_ANY_SOURCE (as MPIN's test); time_s = time per
 *     received message. Sizes 8, 1 KiB and 64 KiB (or those of --sizes).
 *   - stream: rank 0 sends a window of param = W messages to rank 1 (Isend, sync: Issend, x W +
 *     Waitall), rank 1 takes them (Irecv x W, each into its own buffer, + Waitall) and sends a
 *     0-byte ack, which rank 0 waits for; MBps = W * bytes / time per window. W = 64, fewer
 *     beyond 1 MiB so that a window's buffers stay within 64 MiB (4 at 16 MiB). Other ranks idle.
 * Per point:
 *   - calibration (also the warm-up): every rank runs batches of 1, 2, 4, ... operations back to
 *     back; after each batch the ranks agree (through rank 0, point to point, untimed) on the
 *     slowest rank's elapsed time, until a batch takes a tenth of the target time (0.05 s; 0.01 s
 *     with --quick); the measured batch is then sized to take the target time (at least 2
 *     operations), and sized again (up to 3 times) while it took less than half the target;
 *   - the figure comes from the measured batch's time per operation (the slowest rank's);
 *   - untimed, a check of the last operation's data: the first and last byte of every received
 *     message (a pattern of sender, byte index and case; buffers are zeroed before each point),
 *     and for reduce the first and last sum.
 * Rank 0 prints one CSV line per point (and nothing else on stdout):
 *   seeds,<case>,<flavour>,<ranks>,<param>,<bytes>,<operations timed>,MBps|time_s,<value>
 * or, when the check failed on some rank:  check_failed,<case>,<flavour>,<ranks>,<param>,<bytes>
 * MBps is 10^6 bytes of payload delivered per second.
 *
 *   mpirun -n 4 seeds [--quick] [--time S] [--sizes 8,1024,...] [--cases latency,stream,...]
 * With one rank nothing runs. Exit status: 0, 1 if a check failed, 2 on a bad option. */
#define _POSIX_C_SOURCE 200809L /* posix_memalign under -std=c11 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"

enum { TAG_CTRL = 1, TAG_DATA = 2, TAG_ACK = 3 };
enum kase {
  C_LATENCY,
  C_ONETOALL,
  C_ALLTOONE,
  C_ALLTOALL,
  C_BROADCAST,
  C_REDUCE,
  C_ANYSOURCE,
  C_STREAM,
  C_COUNT
};
enum flavour { F_SYNC, F_ASYNC, F_COLL };

static const char* const case_names[C_COUNT] = {"latency",   "onetoall", "alltoone",  "alltoall",
                                                "broadcast", "reduce",   "anysource", "stream"};
static const char* const flavour_names[] = {"sync", "async", "coll"};
static const size_t default_sizes[] = {8,
                                       16,
                                       64,
                                       256,
                                       1024,
                                       4 * 1024,
                                       16 * 1024,
                                       64 * 1024,
                                       256 * 1024,
                                       1024 * 1024,
                                       4 * 1024 * 1024,
                                       16 * 1024 * 1024};
static const size_t anysource_sizes[] = {8, 1024, 64 * 1024};
#define MAX_SIZES 64
#define WINDOW 64
#define STREAM_AREA ((size_t)64 * 1024 * 1024) /* rank 1's receive buffers for one window */
#define MIN_ITERS 2L
#define MAX_RESIZES 3

static int rank_, size_;
static unsigned char*
    sbuf; /* this rank's outgoing data (doubles for reduce), never received into */
static unsigned char* rbuf; /* incoming messages, one slot of `bytes` each */
static MPI_Request* reqs;
static MPI_Status* statuses;
static int* sources; /* anysource: the sender of each slot in the last operation */

/* Byte i of what rank `sender` sends in case c: never 0, so a zeroed buffer never passes. */
static unsigned char pattern(int sender, size_t i, int c) {
  return (unsigned char)(1 + ((size_t)sender * 37 + (size_t)c * 11 + i * 7) % 255);
}

/* Element i of rank r's reduce input. */
static double reduce_input(int r, size_t i) {
  return (double)(r + 1) + (double)(i % 7);
}

static size_t reduce_elems(size_t bytes) {
  return bytes / 8 > 0 ? bytes / 8 : 1;
}

/* The stream window for `bytes`: 64 messages, fewer when 64 would take more than 64 MiB (each
 * pending receive needs its own buffer: MPI forbids overlapping ones). */
static int stream_window(size_t bytes) {
  if (bytes == 0 || bytes * WINDOW <= STREAM_AREA) return WINDOW;
  return STREAM_AREA / bytes > 0 ? (int)(STREAM_AREA / bytes) : 1;
}

/* MPI_Waitall on the first n of reqs. Statuses are taken (not MPI_STATUSES_IGNORE) because GCC 12
 * warns (-Wstringop-overflow) on MPICH's MPI_STATUSES_IGNORE, a cast integer, as an array. */
static void waitall(int n) {
  MPI_Waitall(n, reqs, statuses);
}

/* A blocking send of the flavour: Ssend (sync) or one Isend + Waitall (async). */
static void send_one(enum flavour f, size_t bytes, int dest) {
  if (f == F_SYNC) {
    MPI_Ssend(sbuf, (int)bytes, MPI_BYTE, dest, TAG_DATA, MPI_COMM_WORLD);
  } else {
    MPI_Isend(sbuf, (int)bytes, MPI_BYTE, dest, TAG_DATA, MPI_COMM_WORLD, &reqs[0]);
    waitall(1);
  }
}

/* One operation of the case; ranks that take no part return at once. */
static void run_once(enum kase c, enum flavour f, int param, size_t bytes) {
  const int n = (int)bytes;
  const int p = size_;
  switch (c) {
    case C_LATENCY:
      if (rank_ == 0) {
        if (f == F_SYNC)
          MPI_Ssend(sbuf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        else
          MPI_Send(sbuf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank_ == 1) {
        MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (f == F_SYNC)
          MPI_Ssend(sbuf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        else
          MPI_Send(sbuf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
      }
      break;
    case C_ONETOALL:
      if (rank_ == 0) {
        if (f == F_SYNC) {
          for (int d = 1; d < p; ++d) MPI_Ssend(sbuf, n, MPI_BYTE, d, TAG_DATA, MPI_COMM_WORLD);
        } else {
          for (int d = 1; d < p; ++d)
            MPI_Isend(sbuf, n, MPI_BYTE, d, TAG_DATA, MPI_COMM_WORLD, &reqs[d - 1]);
          waitall(p - 1);
        }
      } else {
        MPI_Irecv(rbuf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[0]);
        waitall(1);
      }
      break;
    case C_ALLTOONE:
      if (rank_ == 0) {
        for (int s = 1; s < p; ++s)
          MPI_Irecv(rbuf + (size_t)(s - 1) * bytes, n, MPI_BYTE, s, TAG_DATA, MPI_COMM_WORLD,
                    &reqs[s - 1]);
        waitall(p - 1);
      } else {
        send_one(f, bytes, 0);
      }
      break;
    case C_ALLTOALL:
      /* Step k receives from r-k into slot k-1 and sends to r+k. */
      if (f == F_SYNC) {
        for (int k = 1; k < p; ++k) {
          MPI_Irecv(rbuf + (size_t)(k - 1) * bytes, n, MPI_BYTE, (rank_ - k + p) % p, TAG_DATA,
                    MPI_COMM_WORLD, &reqs[0]);
          MPI_Ssend(sbuf, n, MPI_BYTE, (rank_ + k) % p, TAG_DATA, MPI_COMM_WORLD);
          MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        }
      } else {
        for (int k = 1; k < p; ++k)
          MPI_Irecv(rbuf + (size_t)(k - 1) * bytes, n, MPI_BYTE, (rank_ - k + p) % p, TAG_DATA,
                    MPI_COMM_WORLD, &reqs[k - 1]);
        for (int k = 1; k < p; ++k)
          MPI_Isend(sbuf, n, MPI_BYTE, (rank_ + k) % p, TAG_DATA, MPI_COMM_WORLD,
                    &reqs[p - 1 + k - 1]);
        waitall(2 * (p - 1));
      }
      break;
    case C_BROADCAST:
      MPI_Bcast(rank_ == 0 ? sbuf : rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case C_REDUCE:
      MPI_Reduce(sbuf, rbuf, (int)reduce_elems(bytes), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case C_ANYSOURCE:
      if (rank_ == 0) {
        for (int j = 0; j < param; ++j) {
          MPI_Status st;
          MPI_Recv(rbuf + (size_t)j * bytes, n, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD,
                   &st);
          sources[j] = st.MPI_SOURCE;
        }
      } else if (rank_ <= param) {
        send_one(f, bytes, 0);
      }
      break;
    case C_STREAM:
      if (rank_ == 0) {
        for (int j = 0; j < param; ++j) {
          if (f == F_SYNC)
            MPI_Issend(sbuf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
          else
            MPI_Isend(sbuf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        }
        waitall(param);
        MPI_Recv(rbuf, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank_ == 1) {
        for (int j = 0; j < param; ++j)
          MPI_Irecv(rbuf + (size_t)j * bytes, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        waitall(param);
        MPI_Send(sbuf, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
      }
      break;
    default:
      break;
  }
}

/* `iters` operations back to back; returns the slowest rank's elapsed seconds (on every rank). */
static double batch(enum kase c, enum flavour f, int param, size_t bytes, long iters) {
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) run_once(c, f, param, bytes);
  return max_over_ranks(MPI_Wtime() - t0, TAG_CTRL);
}

/* How many bytes of rbuf this rank receives into during one operation. */
static size_t recv_extent(enum kase c, int param, size_t bytes) {
  const size_t others = (size_t)(size_ - 1);
  switch (c) {
    case C_LATENCY:
      return rank_ <= 1 ? bytes : 0;
    case C_ONETOALL:
    case C_BROADCAST:
      return rank_ != 0 ? bytes : 0;
    case C_ALLTOONE:
      return rank_ == 0 ? others * bytes : 0;
    case C_ALLTOALL:
      return others * bytes;
    case C_REDUCE:
      return rank_ == 0 ? reduce_elems(bytes) * 8 : 0;
    case C_ANYSOURCE:
      return rank_ == 0 ? (size_t)param * bytes : 0;
    case C_STREAM:
      return rank_ == 1 ? (size_t)stream_window(bytes) * bytes : 0;
    default:
      return 0;
  }
}

/* The first and last byte of a message from `sender`. */
static int message_ok(const unsigned char* m, size_t bytes, int sender, enum kase c) {
  if (bytes == 0) return 1;
  return m[0] == pattern(sender, 0, c) && m[bytes - 1] == pattern(sender, bytes - 1, c);
}

/* Checks what this rank received in the last operation; 1 if right. */
static int check(enum kase c, int param, size_t bytes) {
  const int p = size_;
  int ok = 1;
  switch (c) {
    case C_LATENCY:
      if (rank_ <= 1) ok = message_ok(rbuf, bytes, 1 - rank_, c);
      break;
    case C_ONETOALL:
    case C_BROADCAST:
      if (rank_ != 0) ok = message_ok(rbuf, bytes, 0, c);
      break;
    case C_ALLTOONE:
      if (rank_ == 0)
        for (int s = 1; s < p; ++s) ok &= message_ok(rbuf + (size_t)(s - 1) * bytes, bytes, s, c);
      break;
    case C_ALLTOALL:
      for (int k = 1; k < p; ++k)
        ok &= message_ok(rbuf + (size_t)(k - 1) * bytes, bytes, (rank_ - k + p) % p, c);
      break;
    case C_REDUCE:
      if (rank_ == 0) {
        const double* sum = (const double*)(void*)rbuf;
        const size_t e = reduce_elems(bytes);
        const size_t idx[2] = {0, e - 1};
        for (int k = 0; k < 2; ++k) {
          const size_t i = idx[k];
          ok &= sum[i] == (double)p * (p + 1) / 2 + (double)p * (double)(i % 7);
        }
      }
      break;
    case C_ANYSOURCE:
      /* Which sender filled which slot is up to the library: check each against its status. */
      if (rank_ == 0)
        for (int j = 0; j < param; ++j)
          ok &= sources[j] >= 1 && sources[j] <= param &&
                message_ok(rbuf + (size_t)j * bytes, bytes, sources[j], c);
      break;
    case C_STREAM:
      if (rank_ == 1) {
        for (size_t j = 0; j < (size_t)param; ++j) ok &= message_ok(rbuf + j * bytes, bytes, 0, c);
      }
      break;
    default:
      break;
  }
  return ok;
}

/* The figure of a point from its seconds per operation; sets *metric. */
static double figure(enum kase c, int param, size_t bytes, double per_op, const char** metric) {
  const double p = (double)size_;
  const double b = (double)bytes;
  *metric = "MBps";
  switch (c) {
    case C_LATENCY:
      *metric = "time_s";
      return per_op / 2;
    case C_ONETOALL:
    case C_ALLTOONE:
      return (p - 1) * b / per_op / 1e6;
    case C_ALLTOALL:
      return p * (p - 1) * b / per_op / 1e6;
    case C_ANYSOURCE:
      *metric = "time_s";
      return per_op / param;
    case C_STREAM:
      return param * b / per_op / 1e6;
    default: /* broadcast, reduce */
      *metric = "time_s";
      return per_op;
  }
}

static int run_point(enum kase c, enum flavour f, int param, size_t bytes, double target) {
  /* A clean receive area, so a stale message cannot pass the check. */
  memset(rbuf, 0, recv_extent(c, param, bytes));

  /* Calibration and warm-up (the same loop as rmpl_bench::calibrated in bench/timing.hpp). */
  long n = 1;
  double t = batch(c, f, param, bytes, n);
  while (t < target / 10) {
    n *= 2;
    t = batch(c, f, param, bytes, n);
  }
  long iters = (long)((double)n * target / t);
  if (iters < MIN_ITERS) iters = MIN_ITERS;
  t = batch(c, f, param, bytes, iters);
  /* A slow batch during calibration (a first touch, a descheduled rank) makes the measured one
   * short: size it again from what it took, a few times at most, growing at most 8x a time (an
   * oversubscribed peer's small batches can run far faster per operation than large ones, and an
   * unbounded resize then times seconds instead of the target). */
  for (int again = 0; again < MAX_RESIZES && t < target / 2; ++again) {
    const long grown = (long)((double)iters * target / t);
    iters = grown < 8 * iters ? grown : 8 * iters;
    t = batch(c, f, param, bytes, iters);
  }

  const int bad = max_over_ranks(check(c, param, bytes) ? 0.0 : 1.0, TAG_CTRL) != 0.0;
  if (rank_ == 0) {
    if (bad) {
      printf("check_failed,%s,%s,%d,%d,%zu\n", case_names[c], flavour_names[f], size_, param,
             bytes);
    } else {
      const char* metric = NULL;
      const double v = figure(c, param, bytes, t / (double)iters, &metric);
      printf("seeds,%s,%s,%d,%d,%zu,%ld,%s,%.6g\n", case_names[c], flavour_names[f], size_, param,
             bytes, iters, metric, v);
    }
    fflush(stdout);
  }
  return !bad;
}

/* Fills this rank's outgoing data for case c (`bytes` of it). */
static void fill(enum kase c, size_t bytes) {
  if (c == C_REDUCE) {
    double* in = (double*)(void*)sbuf;
    for (size_t i = 0; i < reduce_elems(bytes); ++i) in[i] = reduce_input(rank_, i);
  } else {
    for (size_t i = 0; i < bytes; ++i) sbuf[i] = pattern(rank_, i, c);
  }
}

/* "a,b,c" into out (at most MAX_SIZES), ascending (the order of the points); 0 on a malformed
 * list or a size beyond an int count. */
static int parse_sizes(const char* s, size_t* out, int* count) {
  *count = 0;
  for (;;) {
    char* end = NULL;
    if (*s < '0' || *s > '9') return 0;
    const unsigned long long v = strtoull(s, &end, 10);
    if (v > INT_MAX || *count == MAX_SIZES) return 0;
    int at = (*count)++;
    for (; at > 0 && out[at - 1] > (size_t)v; --at) out[at] = out[at - 1];
    out[at] = (size_t)v;
    if (*end == '\0') return 1;
    if (*end != ',') return 0;
    s = end + 1;
  }
}

/* "latency,stream" into the chosen flags; 0 on an unknown name. */
static int parse_cases(const char* s, int* chosen) {
  for (int c = 0; c < C_COUNT; ++c) chosen[c] = 0;
  while (*s) {
    const size_t len = strcspn(s, ",");
    int found = 0;
    for (int c = 0; c < C_COUNT; ++c)
      if (strlen(case_names[c]) == len && strncmp(s, case_names[c], len) == 0)
        found = chosen[c] = 1;
    if (!found) return 0;
    s += len;
    if (*s == ',') ++s;
  }
  return 1;
}

static void* alloc(size_t bytes) {
  void* p = NULL;
  if (posix_memalign(&p, 4096, bytes > 0 ? bytes : 1) != 0) {
    fprintf(stderr, "seeds: out of memory (%zu bytes)\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);

  double target = 0.05;
  size_t sizes[MAX_SIZES];
  int nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
  memcpy(sizes, default_sizes, sizeof default_sizes);
  int sizes_given = 0;
  int chosen[C_COUNT];
  for (int c = 0; c < C_COUNT; ++c) chosen[c] = 1;
  int usage = 0;
  for (int i = 1; i < argc && !usage; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      target = 0.01;
    } else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
      target = atof(argv[++i]);
      usage = !(target > 0);
    } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      usage = !parse_sizes(argv[++i], sizes, &nsizes);
      sizes_given = 1;
    } else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
      usage = !parse_cases(argv[++i], chosen);
    } else {
      usage = 1;
    }
  }
  if (usage) {
    if (rank_ == 0)
      fprintf(stderr,
              "usage: %s [--quick] [--time seconds-per-point] [--sizes bytes,...] "
              "[--cases latency,onetoall,alltoone,alltoall,broadcast,reduce,anysource,stream]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }
  if (size_ < 2) { /* every case needs a peer */
    MPI_Finalize();
    return 0;
  }

  const size_t* any_sizes = sizes_given ? sizes : anysource_sizes;
  const int any_nsizes =
      sizes_given ? nsizes : (int)(sizeof anysource_sizes / sizeof *anysource_sizes);
  size_t send_cap = 8; /* reduce sends at least one double */
  size_t recv_cap = 8;
  for (int i = 0; i < nsizes; ++i) {
    const size_t b = sizes[i];
    if (b > send_cap) send_cap = b;
    if ((size_t)(size_ - 1) * b > recv_cap) recv_cap = (size_t)(size_ - 1) * b;
    if ((size_t)stream_window(b) * b > recv_cap) recv_cap = (size_t)stream_window(b) * b;
  }
  for (int i = 0; i < any_nsizes; ++i) {
    if (any_sizes[i] > send_cap) send_cap = any_sizes[i];
    if ((size_t)(size_ - 1) * any_sizes[i] > recv_cap)
      recv_cap = (size_t)(size_ - 1) * any_sizes[i];
  }
  /* Pages are touched only where a rank sends or receives, so a rank's resident memory is what
   * its part needs (e.g. (P-1) * 16 MiB for alltoall). */
  sbuf = alloc(send_cap);
  rbuf = alloc(recv_cap);
  reqs = alloc(sizeof(MPI_Request) * (size_t)(2 * size_ + WINDOW));
  statuses = alloc(sizeof(MPI_Status) * (size_t)(2 * size_ + WINDOW));
  sources = alloc(sizeof(int) * (size_t)size_);

  int ok = 1;
  for (int c = 0; c < C_COUNT; ++c) {
    if (!chosen[c]) continue;
    const enum kase k = (enum kase)c;
    fill(k, send_cap);
    const int coll = k == C_BROADCAST || k == C_REDUCE;
    for (int f = coll ? F_COLL : F_SYNC; f <= (coll ? F_COLL : F_ASYNC); ++f) {
      if (k == C_ANYSOURCE) {
        for (int senders = 1; senders < size_; ++senders)
          for (int i = 0; i < any_nsizes; ++i)
            ok &= run_point(k, (enum flavour)f, senders, any_sizes[i], target);
      } else {
        for (int i = 0; i < nsizes; ++i)
          ok &= run_point(k, (enum flavour)f, k == C_STREAM ? stream_window(sizes[i]) : 0, sizes[i],
                          target);
      }
    }
  }

  free(sbuf);
  free(rbuf);
  free(reqs);
  free(statuses);
  free(sources);
  MPI_Finalize();
  return ok ? 0 : 1;
}
