/* A timed sweep of the blocking collectives over message sizes 1 B .. 64 KiB (powers of two), the
 * way collective benchmarks drive a library: the same call repeated back to back at each size, so
 * that every size-chosen algorithm and the switches between them are crossed, with buffers reused
 * from one call to the next. Unlike a benchmark, every repetition carries new data and every result
 * is checked (a stale or half-written buffer from the previous repetition fails), and the barrier
 * is checked to hold every rank until the last has entered. Rank 0 prints the mean time per call of
 * each collective at each size (RMPL_SWEEP_QUIET=1 leaves the table out). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAX_BYTES = 64 * 1024, REPEATS = 3 };

static int rank, size;

static void* alloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  CHECK(p != NULL, "out of memory (%zu bytes)", bytes);
  return p;
}

/* Byte i of what rank `from` contributes for rank `to` in repetition `rep`: differs between
 * repetitions, ranks, destinations and 256-byte stretches, so a block in the wrong place, from the
 * wrong rank or left from an earlier repetition shows. */
static unsigned char byte_of(int rep, int from, int to, size_t i) {
  return (unsigned char)((i * 7 + (size_t)from * 31 + (size_t)to * 17 + (size_t)rep * 101) ^
                         (i >> 8));
}

static void fill(unsigned char* v, size_t n, int rep, int from, int to) {
  for (size_t i = 0; i < n; ++i) v[i] = byte_of(rep, from, to, i);
}

static void expect_bytes(const unsigned char* v, size_t n, int rep, int from, int to,
                         const char* what, size_t bytes) {
  for (size_t i = 0; i < n; ++i) {
    CHECK(v[i] == byte_of(rep, from, to, i),
          "%s of %zu bytes, repetition %d: byte %zu of rank %d's block for rank %d is %u, "
          "expected %u",
          what, bytes, rep, i, from, to, v[i], byte_of(rep, from, to, i));
  }
}

/* ---- reductions: unsigned char below 4 bytes (SUM wraps modulo 256, as C's unsigned char does),
 * float from 4 bytes on, with small integers so that every sum is exact ---- */

static MPI_Op op_of(int rep) {
  return rep % 3 == 0 ? MPI_SUM : rep % 3 == 1 ? MPI_MAX : MPI_MIN;
}
static const char* op_name(int rep) {
  return rep % 3 == 0 ? "SUM" : rep % 3 == 1 ? "MAX" : "MIN";
}
static double combine(int rep, double a, double b) {
  return rep % 3 == 0 ? a + b : rep % 3 == 1 ? (a > b ? a : b) : (a < b ? a : b);
}

static int input(int rep, int r, size_t i) {
  return (int)((i * 5 + (size_t)r * 13 + (size_t)rep * 3 + (i >> 10)) % 1000);
}

typedef struct {
  MPI_Datatype type;
  size_t width; /* bytes per element */
  size_t count;
} elements;

static elements reduction_elements(size_t bytes) {
  elements e = {MPI_FLOAT, sizeof(float), bytes / sizeof(float)};
  if (bytes < sizeof(float)) {
    e.type = MPI_UNSIGNED_CHAR;
    e.width = 1;
    e.count = bytes;
  }
  return e;
}

static void put(const elements* e, void* buf, size_t i, double v) {
  if (e->width == 1)
    ((unsigned char*)buf)[i] = (unsigned char)(unsigned)v;
  else
    ((float*)buf)[i] = (float)v;
}
static double get(const elements* e, const void* buf, size_t i) {
  return e->width == 1 ? (double)((const unsigned char*)buf)[i] : (double)((const float*)buf)[i];
}

/* The reference of element i over ranks first..last (the operator in the element type). */
static double reference(const elements* e, int rep, int first, int last, size_t i) {
  double acc = input(rep, first, i);
  for (int r = first + 1; r <= last; ++r) acc = combine(rep, acc, input(rep, r, i));
  if (e->width == 1) acc = (double)((unsigned)acc % 256u);
  return acc;
}

static void expect_reduced(const elements* e, const void* out, size_t first_elem, size_t n, int rep,
                           int first, int last, const char* what, size_t bytes) {
  for (size_t i = 0; i < n; ++i) {
    const double want = reference(e, rep, first, last, first_elem + i);
    const double got = get(e, out, i);
    CHECK(got == want,
          "%s MPI_%s of %zu bytes, repetition %d: element %zu is %g, expected %g (ranks %d..%d)",
          what, op_name(rep), bytes, rep, first_elem + i, got, want, first, last);
  }
}

/* ---- the collectives: each runs one call of `bytes` for repetition `rep`, timed, then checks ----
 */

enum {
  BARRIER,
  BCAST,
  GATHER,
  GATHERV,
  SCATTER,
  SCATTERV,
  ALLGATHER,
  ALLGATHERV,
  ALLTOALL,
  ALLTOALLV,
  REDUCE,
  ALLREDUCE,
  REDUCE_SCATTER_BLOCK,
  REDUCE_SCATTER,
  SCAN,
  EXSCAN,
  N_COLLECTIVES
};
static const char* names[N_COLLECTIVES] = {"barrier",    "bcast",     "gather",    "gatherv",
                                           "scatter",    "scatterv",  "allgather", "allgatherv",
                                           "alltoall",   "alltoallv", "reduce",    "allreduce",
                                           "red_sc_blk", "red_scat",  "scan",      "exscan"};

static unsigned char *sendbuf, *recvbuf;
static int *counts, *displs, *rcounts;
static double elapsed[N_COLLECTIVES];
static int wtime_is_global;

/* Blocks of the v-forms in reverse rank order in the buffer: rank r's block at the place rank
 * size-1-r would have in the regular form, so that a v-collective that ignores displacements
 * fails. */
static void reversed_layout(size_t bytes) {
  for (int r = 0; r < size; ++r) {
    counts[r] = (int)bytes;
    displs[r] = (size - 1 - r) * (int)bytes;
  }
}

static double barrier(int rep) {
  /* Every rank must leave after the last one entered: compare each rank's exit time with the
   * latest entry time, on the clock every rank shares (MPI_WTIME_IS_GLOBAL). */
  const double entered = MPI_Wtime();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const double left = MPI_Wtime();
  if (wtime_is_global) {
    double times[2] = {entered, left}, last_entry = 0, first_exit = 0;
    CHECK_MPI(MPI_Allreduce(&times[0], &last_entry, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&times[1], &first_exit, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CHECK(first_exit >= last_entry,
          "barrier, repetition %d: a rank left at %.9f, before the last entered at %.9f", rep,
          first_exit, last_entry);
  }
  return left - entered;
}

static double run(int which, size_t bytes, int rep) {
  const int root = rep % size;
  const size_t total = bytes * (size_t)size;
  const elements e = reduction_elements(bytes);
  double t = 0;
  memset(recvbuf, 0xEE, total);
  switch (which) {
    case BARRIER:
      return barrier(rep);
    case BCAST:
      if (rank == root) fill(recvbuf, bytes, rep, root, 0);
      t = MPI_Wtime();
      CHECK_MPI(MPI_Bcast(recvbuf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      expect_bytes(recvbuf, bytes, rep, root, 0, "bcast", bytes);
      return t;
    case GATHER:
    case GATHERV:
      fill(sendbuf, bytes, rep, rank, root);
      reversed_layout(bytes);
      t = MPI_Wtime();
      if (which == GATHER)
        CHECK_MPI(MPI_Gather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, root,
                             MPI_COMM_WORLD));
      else
        CHECK_MPI(MPI_Gatherv(sendbuf, (int)bytes, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE,
                              root, MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      if (rank == root)
        for (int r = 0; r < size; ++r)
          expect_bytes(recvbuf + (size_t)(which == GATHER ? r : size - 1 - r) * bytes, bytes, rep,
                       r, root, names[which], bytes);
      return t;
    case SCATTER:
    case SCATTERV:
      reversed_layout(bytes);
      if (rank == root)
        for (int r = 0; r < size; ++r)
          fill(sendbuf + (size_t)(which == SCATTER ? r : size - 1 - r) * bytes, bytes, rep, root,
               r);
      t = MPI_Wtime();
      if (which == SCATTER)
        CHECK_MPI(MPI_Scatter(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, root,
                              MPI_COMM_WORLD));
      else
        CHECK_MPI(MPI_Scatterv(sendbuf, counts, displs, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE,
                               root, MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      expect_bytes(recvbuf, bytes, rep, root, rank, names[which], bytes);
      return t;
    case ALLGATHER:
    case ALLGATHERV:
      fill(sendbuf, bytes, rep, rank, 0);
      reversed_layout(bytes);
      t = MPI_Wtime();
      if (which == ALLGATHER)
        CHECK_MPI(MPI_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE,
                                MPI_COMM_WORLD));
      else
        CHECK_MPI(MPI_Allgatherv(sendbuf, (int)bytes, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE,
                                 MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      for (int r = 0; r < size; ++r)
        expect_bytes(recvbuf + (size_t)(which == ALLGATHER ? r : size - 1 - r) * bytes, bytes, rep,
                     r, 0, names[which], bytes);
      return t;
    case ALLTOALL:
    case ALLTOALLV:
      reversed_layout(bytes);
      for (int r = 0; r < size; ++r)
        fill(sendbuf + (size_t)(which == ALLTOALL ? r : size - 1 - r) * bytes, bytes, rep, rank, r);
      t = MPI_Wtime();
      if (which == ALLTOALL)
        CHECK_MPI(MPI_Alltoall(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE,
                               MPI_COMM_WORLD));
      else
        CHECK_MPI(MPI_Alltoallv(sendbuf, counts, displs, MPI_BYTE, recvbuf, counts, displs,
                                MPI_BYTE, MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      for (int r = 0; r < size; ++r)
        expect_bytes(recvbuf + (size_t)(which == ALLTOALL ? r : size - 1 - r) * bytes, bytes, rep,
                     r, rank, names[which], bytes);
      return t;
    case REDUCE:
    case ALLREDUCE:
      for (size_t i = 0; i < e.count; ++i) put(&e, sendbuf, i, input(rep, rank, i));
      t = MPI_Wtime();
      if (which == REDUCE)
        CHECK_MPI(
            MPI_Reduce(sendbuf, recvbuf, (int)e.count, e.type, op_of(rep), root, MPI_COMM_WORLD));
      else
        CHECK_MPI(
            MPI_Allreduce(sendbuf, recvbuf, (int)e.count, e.type, op_of(rep), MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      if (which == ALLREDUCE || rank == root)
        expect_reduced(&e, recvbuf, 0, e.count, rep, 0, size - 1, names[which], bytes);
      return t;
    case REDUCE_SCATTER_BLOCK:
    case REDUCE_SCATTER: {
      /* Each rank's share is `bytes`: the input holds size shares. */
      const size_t n = e.count * (size_t)size;
      for (size_t i = 0; i < n; ++i) put(&e, sendbuf, i, input(rep, rank, i));
      for (int r = 0; r < size; ++r) rcounts[r] = (int)e.count;
      t = MPI_Wtime();
      if (which == REDUCE_SCATTER_BLOCK)
        CHECK_MPI(MPI_Reduce_scatter_block(sendbuf, recvbuf, (int)e.count, e.type, op_of(rep),
                                           MPI_COMM_WORLD));
      else
        CHECK_MPI(
            MPI_Reduce_scatter(sendbuf, recvbuf, rcounts, e.type, op_of(rep), MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      expect_reduced(&e, recvbuf, (size_t)rank * e.count, e.count, rep, 0, size - 1, names[which],
                     bytes);
      return t;
    }
    case SCAN:
    case EXSCAN:
      for (size_t i = 0; i < e.count; ++i) put(&e, sendbuf, i, input(rep, rank, i));
      t = MPI_Wtime();
      if (which == SCAN)
        CHECK_MPI(MPI_Scan(sendbuf, recvbuf, (int)e.count, e.type, op_of(rep), MPI_COMM_WORLD));
      else
        CHECK_MPI(MPI_Exscan(sendbuf, recvbuf, (int)e.count, e.type, op_of(rep), MPI_COMM_WORLD));
      t = MPI_Wtime() - t;
      /* Exscan leaves rank 0's buffer undefined. */
      if (which == SCAN)
        expect_reduced(&e, recvbuf, 0, e.count, rep, 0, rank, names[which], bytes);
      else if (rank > 0)
        expect_reduced(&e, recvbuf, 0, e.count, rep, 0, rank - 1, names[which], bytes);
      return t;
  }
  CHECK(0, "no collective %d", which);
  return 0;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int* global = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag));
  wtime_is_global = flag && *global;

  const size_t most = (size_t)MAX_BYTES * (size_t)size;
  sendbuf = alloc(most);
  recvbuf = alloc(most);
  counts = alloc(sizeof(int) * (size_t)size);
  displs = alloc(sizeof(int) * (size_t)size);
  rcounts = alloc(sizeof(int) * (size_t)size);
  const char* quiet = getenv("RMPL_SWEEP_QUIET");
  const int print = rank == 0 && !(quiet && strcmp(quiet, "1") == 0);
  if (print) {
    printf("# mean microseconds per call at %d ranks (%d calls each)\n# bytes", size, REPEATS);
    for (int c = 0; c < N_COLLECTIVES; ++c) printf(" %10s", names[c]);
    printf("\n");
  }
  for (size_t bytes = 1; bytes <= MAX_BYTES; bytes *= 2) {
    for (int c = 0; c < N_COLLECTIVES; ++c) {
      elapsed[c] = 0;
      for (int rep = 0; rep < REPEATS; ++rep) elapsed[c] += run(c, bytes, rep);
    }
    /* The slowest rank's time, as a benchmark reports it. */
    double slowest[N_COLLECTIVES];
    CHECK_MPI(MPI_Reduce(elapsed, slowest, N_COLLECTIVES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (print) {
      printf("%7zu", bytes);
      for (int c = 0; c < N_COLLECTIVES; ++c) {
        CHECK(slowest[c] >= 0, "%s at %zu bytes took %g s", names[c], bytes, slowest[c]);
        printf(" %10.2f", slowest[c] / REPEATS * 1e6);
      }
      printf("\n");
    }
  }
  free(sendbuf);
  free(recvbuf);
  free(counts);
  free(displs);
  free(rcounts);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
