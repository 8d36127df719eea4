/* Types whose extent differs from their size (MPI-3.1 4.1): the value-index pairs of MINLOC /
 * MAXLOC (MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
 * MPI_2INT), a resized type (extent > size) and a struct with holes, moved by every collective,
 * blocking and nonblocking, and by point-to-point, at counts from 1 to ones large enough for every
 * size-based algorithm. Element k of a buffer lies at k * extent; only its data bytes may change,
 * and the holes between and after them must keep the receiver's fill byte.
 *
 * What must arrive is computed here, from the test's own description of each type's data (its runs
 * of bytes, from offsetof), never from the library. CMake runs the program again with each
 * algorithm forced (RMPL_COLL_<NAME>), so every algorithm sees these types. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

enum { MAX_RUNS = 4 };

/* A type as the test knows it: its data runs within one element, and its extent. */
typedef struct {
  const char* name;
  MPI_Datatype type;
  MPI_Aint extent;
  int runs;
  MPI_Aint offset[MAX_RUNS], length[MAX_RUNS];
  int pair; /* a value-index pair of this value type: MINLOC / MAXLOC apply */
  int sum;  /* made of ints only: MPI_SUM applies, element value at offset[0] */
} layout;

enum { NOT_PAIR, P_FLOAT, P_DOUBLE, P_LONG, P_SHORT, P_LONG_DOUBLE, P_INT };

#define PAIR_LAYOUT(T, mpi, kind)                     \
  do {                                                \
    struct pair_of {                                  \
      T value;                                        \
      int index;                                      \
    };                                                \
    layout l = {#mpi,                                 \
                mpi,                                  \
                sizeof(struct pair_of),               \
                2,                                    \
                {0, offsetof(struct pair_of, index)}, \
                {sizeof(T), sizeof(int)},             \
                kind,                                 \
                0};                                   \
    types[ntypes++] = l;                              \
  } while (0)

static layout types[16];
static int ntypes;

static void make_types(void) {
  PAIR_LAYOUT(float, MPI_FLOAT_INT, P_FLOAT);
  PAIR_LAYOUT(double, MPI_DOUBLE_INT, P_DOUBLE);
  PAIR_LAYOUT(long, MPI_LONG_INT, P_LONG);
  PAIR_LAYOUT(short, MPI_SHORT_INT, P_SHORT);
  PAIR_LAYOUT(long double, MPI_LONG_DOUBLE_INT, P_LONG_DOUBLE);
  PAIR_LAYOUT(int, MPI_2INT, P_INT);

  /* An int every 12 bytes (extent > size, no hole inside the data). */
  MPI_Datatype resized;
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 12, &resized));
  CHECK_MPI(MPI_Type_commit(&resized));
  layout r = {"resized int, extent 12", resized, 12, 1, {0}, {4}, NOT_PAIR, 1};
  types[ntypes++] = r;

  /* struct { char c; double d; int i; } with holes after c and after i: extent 24, size 13. */
  struct holes {
    char c;
    double d;
    int i;
  };
  int lengths[3] = {1, 1, 1};
  MPI_Aint displs[3] = {offsetof(struct holes, c), offsetof(struct holes, d),
                        offsetof(struct holes, i)};
  MPI_Datatype members[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Datatype padded;
  CHECK_MPI(MPI_Type_create_struct(3, lengths, displs, members, &padded));
  CHECK_MPI(MPI_Type_commit(&padded));
  layout s = {"struct {char, double, int}",
              padded,
              sizeof(struct holes),
              3,
              {displs[0], displs[1], displs[2]},
              {1, sizeof(double), sizeof(int)},
              NOT_PAIR,
              0};
  types[ntypes++] = s;

  /* Two ints 8 bytes apart (a vector), resized to 20 bytes: holes inside and after the data. */
  MPI_Datatype vector, spaced;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vector));
  CHECK_MPI(MPI_Type_create_resized(vector, 0, 20, &spaced));
  CHECK_MPI(MPI_Type_free(&vector));
  CHECK_MPI(MPI_Type_commit(&spaced));
  layout v = {"vector(2, 1, 2, int) resized to 20", spaced, 20, 2, {0, 8}, {4, 4}, NOT_PAIR, 0};
  types[ntypes++] = v;
}

static const unsigned char FILL = 0xA5; /* the receiver's holes */

/* The data byte `byte` of element `element` of a block tagged `seed`. */
static unsigned char pattern(long seed, long element, long byte) {
  return (unsigned char)((seed * 131 + element * 31 + byte * 7 + 1) & 0xff);
}

/* Which bytes of one element are data. */
static int is_data(const layout* t, MPI_Aint byte) {
  for (int k = 0; k < t->runs; ++k) {
    if (byte >= t->offset[k] && byte < t->offset[k] + t->length[k]) return 1;
  }
  return 0;
}

/* A buffer of `n` elements, all FILL. */
static unsigned char* buffer(const layout* t, long n) {
  size_t bytes = (size_t)(n > 0 ? n : 1) * (size_t)t->extent;
  unsigned char* b = malloc(bytes);
  CHECK(b != NULL, "out of memory for %zu bytes", bytes);
  memset(b, FILL, bytes);
  return b;
}

/* Writes the data of `n` elements at `at`, tagged `seed` (holes untouched). */
static void put(const layout* t, unsigned char* at, long n, long seed) {
  for (long e = 0; e < n; ++e) {
    for (MPI_Aint b = 0; b < t->extent; ++b) {
      if (is_data(t, b)) at[e * t->extent + b] = pattern(seed, e, b);
    }
  }
}

/* The `n` elements at `at` hold the data tagged `seed`, and their holes FILL. */
static void expect(const layout* t, const unsigned char* at, long n, long seed, const char* what,
                   int count) {
  for (long e = 0; e < n; ++e) {
    for (MPI_Aint b = 0; b < t->extent; ++b) {
      const unsigned char want = is_data(t, b) ? pattern(seed, e, b) : FILL;
      const unsigned char got = at[e * t->extent + b];
      CHECK(got == want,
            "%s of %d x %s (%d ranks): element %ld byte %ld is 0x%02x, expected 0x%02x "
            "(%s, from block %ld)",
            what, count, t->name, size, e, (long)b, got, want,
            is_data(t, b) ? "data" : "a hole that must stay untouched", seed);
    }
  }
}

/* The `n` elements at `at` are all FILL (nothing was written there). */
static void untouched(const layout* t, const unsigned char* at, long n, const char* what,
                      int count) {
  for (long i = 0; i < n * t->extent; ++i) {
    CHECK(at[i] == FILL, "%s of %d x %s (%d ranks): byte %ld outside every block was written", what,
          count, t->name, size, i);
  }
}

static void done(MPI_Request* r) {
  if (*r != MPI_REQUEST_NULL) CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
}

/* ---- data movement: every element's data must arrive, holes must not change ---- */

static void bcast(const layout* t, int n, int nb) {
  const int root = n % size;
  unsigned char* b = buffer(t, n);
  if (rank == root) put(t, b, n, root);
  MPI_Request r = MPI_REQUEST_NULL;
  if (nb)
    CHECK_MPI(MPI_Ibcast(b, n, t->type, root, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Bcast(b, n, t->type, root, MPI_COMM_WORLD));
  done(&r);
  expect(t, b, n, root, nb ? "MPI_Ibcast" : "MPI_Bcast", n);
  free(b);
}

static void gather(const layout* t, int n, int nb, int all) {
  const int root = (n + 1) % size;
  unsigned char* s = buffer(t, n);
  unsigned char* g = buffer(t, (long)n * size);
  put(t, s, n, rank);
  MPI_Request r = MPI_REQUEST_NULL;
  const char* what =
      all ? (nb ? "MPI_Iallgather" : "MPI_Allgather") : (nb ? "MPI_Igather" : "MPI_Gather");
  if (all && nb)
    CHECK_MPI(MPI_Iallgather(s, n, t->type, g, n, t->type, MPI_COMM_WORLD, &r));
  else if (all)
    CHECK_MPI(MPI_Allgather(s, n, t->type, g, n, t->type, MPI_COMM_WORLD));
  else if (nb)
    CHECK_MPI(MPI_Igather(s, n, t->type, g, n, t->type, root, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Gather(s, n, t->type, g, n, t->type, root, MPI_COMM_WORLD));
  done(&r);
  if (all || rank == root) {
    for (int q = 0; q < size; ++q) expect(t, g + (size_t)q * n * t->extent, n, q, what, n);
  } else {
    untouched(t, g, (long)n * size, what, n);
  }
  expect(t, s, n, rank, what, n); /* the send buffer is not changed */
  free(s);
  free(g);
}

/* MPI_Allgather with MPI_IN_PLACE: each rank's block already sits in the receive buffer. */
static void allgather_in_place(const layout* t, int n, int nb) {
  unsigned char* g = buffer(t, (long)n * size);
  put(t, g + (size_t)rank * n * t->extent, n, rank);
  MPI_Request r = MPI_REQUEST_NULL;
  if (nb)
    CHECK_MPI(
        MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, n, t->type, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, n, t->type, MPI_COMM_WORLD));
  done(&r);
  for (int q = 0; q < size; ++q) {
    expect(t, g + (size_t)q * n * t->extent, n, q, "MPI_Allgather in place", n);
  }
  free(g);
}

/* Rank q's block of a v-collective: n + q elements, the blocks in reverse rank order with one
 * element's gap between them (displacements in elements). */
static int vcount(int n, int q) {
  return n + q;
}
static long vtotal(int n) {
  long total = 0;
  for (int q = 0; q < size; ++q) total += vcount(n, q) + 1;
  return total;
}
static void vlayout(int n, int* counts, int* displs) {
  int at = 1;
  for (int q = size - 1; q >= 0; --q) {
    counts[q] = vcount(n, q);
    displs[q] = at;
    at += counts[q] + 1;
  }
}

static void gatherv(const layout* t, int n, int nb, int all) {
  const int root = (n + 2) % size;
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  vlayout(n, counts, displs);
  const int mine = vcount(n, rank);
  unsigned char* s = buffer(t, mine);
  unsigned char* g = buffer(t, vtotal(n));
  put(t, s, mine, rank);
  MPI_Request r = MPI_REQUEST_NULL;
  const char* what =
      all ? (nb ? "MPI_Iallgatherv" : "MPI_Allgatherv") : (nb ? "MPI_Igatherv" : "MPI_Gatherv");
  if (all && nb)
    CHECK_MPI(MPI_Iallgatherv(s, mine, t->type, g, counts, displs, t->type, MPI_COMM_WORLD, &r));
  else if (all)
    CHECK_MPI(MPI_Allgatherv(s, mine, t->type, g, counts, displs, t->type, MPI_COMM_WORLD));
  else if (nb)
    CHECK_MPI(MPI_Igatherv(s, mine, t->type, g, counts, displs, t->type, root, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Gatherv(s, mine, t->type, g, counts, displs, t->type, root, MPI_COMM_WORLD));
  done(&r);
  if (all || rank == root) {
    for (int q = 0; q < size; ++q) {
      expect(t, g + (size_t)displs[q] * t->extent, counts[q], q, what, n);
      untouched(t, g + (size_t)(displs[q] - 1) * t->extent, 1, what, n); /* the gaps */
    }
  } else {
    untouched(t, g, vtotal(n), what, n);
  }
  free(s);
  free(g);
  free(counts);
  free(displs);
}

static void scatter(const layout* t, int n, int nb, int varying) {
  const int root = (n + 3) % size;
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  vlayout(n, counts, displs);
  const long total = varying ? vtotal(n) : (long)n * size;
  unsigned char* s = buffer(t, total);
  if (rank == root) {
    for (int q = 0; q < size; ++q) {
      const long at = varying ? displs[q] : (long)q * n;
      put(t, s + (size_t)at * t->extent, varying ? counts[q] : n, q);
    }
  }
  const int mine = varying ? counts[rank] : n;
  unsigned char* d = buffer(t, mine);
  MPI_Request r = MPI_REQUEST_NULL;
  const char* what =
      varying ? (nb ? "MPI_Iscatterv" : "MPI_Scatterv") : (nb ? "MPI_Iscatter" : "MPI_Scatter");
  if (varying && nb)
    CHECK_MPI(
        MPI_Iscatterv(s, counts, displs, t->type, d, mine, t->type, root, MPI_COMM_WORLD, &r));
  else if (varying)
    CHECK_MPI(MPI_Scatterv(s, counts, displs, t->type, d, mine, t->type, root, MPI_COMM_WORLD));
  else if (nb)
    CHECK_MPI(MPI_Iscatter(s, n, t->type, d, n, t->type, root, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Scatter(s, n, t->type, d, n, t->type, root, MPI_COMM_WORLD));
  done(&r);
  expect(t, d, mine, rank, what, n);
  free(s);
  free(d);
  free(counts);
  free(displs);
}

/* The block rank `from` sends rank `to` in the all-to-alls. */
static long a2a_seed(int from, int to) {
  return (long)from * size + to + 7;
}

static void alltoall(const layout* t, int n, int nb) {
  unsigned char* s = buffer(t, (long)n * size);
  unsigned char* d = buffer(t, (long)n * size);
  for (int q = 0; q < size; ++q) put(t, s + (size_t)q * n * t->extent, n, a2a_seed(rank, q));
  MPI_Request r = MPI_REQUEST_NULL;
  if (nb)
    CHECK_MPI(MPI_Ialltoall(s, n, t->type, d, n, t->type, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Alltoall(s, n, t->type, d, n, t->type, MPI_COMM_WORLD));
  done(&r);
  for (int q = 0; q < size; ++q) {
    expect(t, d + (size_t)q * n * t->extent, n, a2a_seed(q, rank),
           nb ? "MPI_Ialltoall" : "MPI_Alltoall", n);
  }
  free(s);
  free(d);
}

/* Elements rank `from` sends rank `to` in the v and w forms. */
static int a2a_count(int n, int from, int to) {
  return n + (from + 2 * to) % 3;
}

/* MPI_Alltoallv (w = 0) and MPI_Alltoallw (w = 1, byte displacements): blocks in reverse rank
 * order with one element's gap before each. */
static void alltoallv(const layout* t, int n, int nb, int w) {
  int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
  int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
  MPI_Datatype* ts = malloc(sizeof(MPI_Datatype) * (size_t)size);
  int sat = 1, rat = 1;
  for (int q = size - 1; q >= 0; --q) {
    sc[q] = a2a_count(n, rank, q);
    rc[q] = a2a_count(n, q, rank);
    sd[q] = sat;
    rd[q] = rat;
    sat += sc[q] + 1;
    rat += rc[q] + 1;
    ts[q] = t->type;
  }
  unsigned char* s = buffer(t, sat);
  unsigned char* d = buffer(t, rat);
  for (int q = 0; q < size; ++q) put(t, s + (size_t)sd[q] * t->extent, sc[q], a2a_seed(rank, q));
  MPI_Request r = MPI_REQUEST_NULL;
  const char* what =
      w ? (nb ? "MPI_Ialltoallw" : "MPI_Alltoallw") : (nb ? "MPI_Ialltoallv" : "MPI_Alltoallv");
  if (w) {
    /* Byte displacements. */
    for (int q = 0; q < size; ++q) {
      sd[q] *= (int)t->extent;
      rd[q] *= (int)t->extent;
    }
    if (nb)
      CHECK_MPI(MPI_Ialltoallw(s, sc, sd, ts, d, rc, rd, ts, MPI_COMM_WORLD, &r));
    else
      CHECK_MPI(MPI_Alltoallw(s, sc, sd, ts, d, rc, rd, ts, MPI_COMM_WORLD));
    for (int q = 0; q < size; ++q) rd[q] /= (int)t->extent;
  } else if (nb) {
    CHECK_MPI(MPI_Ialltoallv(s, sc, sd, t->type, d, rc, rd, t->type, MPI_COMM_WORLD, &r));
  } else {
    CHECK_MPI(MPI_Alltoallv(s, sc, sd, t->type, d, rc, rd, t->type, MPI_COMM_WORLD));
  }
  done(&r);
  for (int q = 0; q < size; ++q) {
    expect(t, d + (size_t)rd[q] * t->extent, rc[q], a2a_seed(q, rank), what, n);
    untouched(t, d + (size_t)(rd[q] - 1) * t->extent, 1, what, n);
  }
  free(s);
  free(d);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(ts);
}

/* Point-to-point to the next rank, from the previous one: blocking send and receive, and the
 * nonblocking forms, each checked with MPI_Get_count. */
static void ring(const layout* t, int n, int nb) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  unsigned char* s = buffer(t, n);
  unsigned char* d = buffer(t, n);
  put(t, s, n, rank + 1000);
  MPI_Status st;
  MPI_Request rq[2];
  const char* what;
  if (nb) {
    what = "MPI_Irecv + MPI_Isend";
    CHECK_MPI(MPI_Irecv(d, n, t->type, prev, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(s, n, t->type, next, 5, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  } else if (n % 2) {
    what = "MPI_Irecv + MPI_Send";
    CHECK_MPI(MPI_Irecv(d, n, t->type, prev, 6, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Send(s, n, t->type, next, 6, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
  } else {
    what = "MPI_Isend + MPI_Recv";
    CHECK_MPI(MPI_Isend(s, n, t->type, next, 7, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Recv(d, n, t->type, prev, 7, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  }
  int got = -1;
  CHECK_MPI(MPI_Get_count(&st, t->type, &got));
  CHECK(got == n, "%s of %d x %s: MPI_Get_count says %d", what, n, t->name, got);
  expect(t, d, n, prev + 1000, what, n);
  free(s);
  free(d);
}

/* ---- reductions: MINLOC / MAXLOC on the pairs, MPI_SUM on the ints ---- */

/* The value rank q contributes at element i (small integers: exact in every value type, with
 * ties, which MINLOC and MAXLOC break by the lower index). */
static long value_of(int q, long i) {
  return (q * 5 + i * 3) % 7 + (i % 3);
}
static int index_of(int q, long i) {
  return q * 3 + (int)(i % 2);
}

static void store(const layout* t, unsigned char* at, long i, long v, int index) {
  unsigned char* e = at + i * t->extent;
  switch (t->pair) {
    case P_FLOAT: {
      float x = (float)v;
      memcpy(e, &x, sizeof x);
      break;
    }
    case P_DOUBLE: {
      double x = (double)v;
      memcpy(e, &x, sizeof x);
      break;
    }
    case P_LONG: {
      long x = v;
      memcpy(e, &x, sizeof x);
      break;
    }
    case P_SHORT: {
      short x = (short)v;
      memcpy(e, &x, sizeof x);
      break;
    }
    case P_LONG_DOUBLE: {
      long double x = (long double)v;
      memcpy(e, &x, sizeof x);
      break;
    }
    default: {
      int x = (int)v;
      memcpy(e, &x, sizeof x);
      break;
    }
  }
  if (t->pair != NOT_PAIR) memcpy(e + t->offset[1], &index, sizeof index);
}

static long load_value(const layout* t, const unsigned char* at, long i) {
  const unsigned char* e = at + i * t->extent;
  switch (t->pair) {
    case P_FLOAT: {
      float x;
      memcpy(&x, e, sizeof x);
      return (long)x;
    }
    case P_DOUBLE: {
      double x;
      memcpy(&x, e, sizeof x);
      return (long)x;
    }
    case P_LONG: {
      long x;
      memcpy(&x, e, sizeof x);
      return x;
    }
    case P_SHORT: {
      short x;
      memcpy(&x, e, sizeof x);
      return x;
    }
    case P_LONG_DOUBLE: {
      long double x;
      memcpy(&x, e, sizeof x);
      return (long)x;
    }
    default: {
      int x;
      memcpy(&x, e, sizeof x);
      return x;
    }
  }
}

static int load_index(const layout* t, const unsigned char* at, long i) {
  int x = 0;
  memcpy(&x, at + i * t->extent + t->offset[1], sizeof x);
  return x;
}

/* Fills `n` elements with rank q's operands, starting at element `first`. */
static void operands(const layout* t, unsigned char* at, long n, int q, long first) {
  for (long i = 0; i < n; ++i) store(t, at, i, value_of(q, first + i), index_of(q, first + i));
}

/* The reduction of ranks lo..hi-1 at element i: op is MPI_MINLOC, MPI_MAXLOC or MPI_SUM. */
static void reference(MPI_Op op, int lo, int hi, long i, long* value, int* index) {
  long v = 0;
  int x = 0;
  for (int q = lo; q < hi; ++q) {
    const long vq = value_of(q, i);
    const int xq = index_of(q, i);
    if (op == MPI_SUM) {
      v += vq;
    } else if (q == lo || (op == MPI_MINLOC ? vq < v : vq > v) || (vq == v && xq < x)) {
      v = vq;
      x = xq;
    }
  }
  *value = v;
  *index = x;
}

/* The `n` elements at `at` (element `first` on) hold the reduction of ranks lo..hi-1, holes FILL.
 */
static void expect_reduced(const layout* t, MPI_Op op, const unsigned char* at, long n, long first,
                           int lo, int hi, const char* what, int count) {
  for (long i = 0; i < n; ++i) {
    long v;
    int x;
    reference(op, lo, hi, first + i, &v, &x);
    const long got = load_value(t, at, i);
    CHECK(got == v, "%s of %d x %s (%d ranks): element %ld's value is %ld, expected %ld", what,
          count, t->name, size, first + i, got, v);
    if (t->pair != NOT_PAIR) {
      const int gx = load_index(t, at, i);
      CHECK(gx == x, "%s of %d x %s (%d ranks): element %ld's index is %d, expected %d", what,
            count, t->name, size, first + i, gx, x);
    }
    for (MPI_Aint b = 0; b < t->extent; ++b) {
      if (is_data(t, b)) continue;
      CHECK(at[i * t->extent + b] == FILL,
            "%s of %d x %s (%d ranks): element %ld's hole byte %ld was written", what, count,
            t->name, size, first + i, (long)b);
    }
  }
}

enum { REDUCE, ALLREDUCE, ALLREDUCE_IN_PLACE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, SCAN, EXSCAN };
static const char* reduction_names[][2] = {
    {"MPI_Reduce", "MPI_Ireduce"},
    {"MPI_Allreduce", "MPI_Iallreduce"},
    {"MPI_Allreduce in place", "MPI_Iallreduce in place"},
    {"MPI_Reduce_scatter", "MPI_Ireduce_scatter"},
    {"MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block"},
    {"MPI_Scan", "MPI_Iscan"},
    {"MPI_Exscan", "MPI_Iexscan"},
};

static void reduction(const layout* t, MPI_Op op, int kind, int n, int nb) {
  const int root = (n + 4) % size;
  int* counts = malloc(sizeof(int) * (size_t)size);
  long total = 0, first = 0;
  for (int q = 0; q < size; ++q) {
    counts[q] = kind == REDUCE_SCATTER ? n + q % 2 : n;
    if (q < rank) first += counts[q];
    total += counts[q];
  }
  const long in_count = kind == REDUCE_SCATTER || kind == REDUCE_SCATTER_BLOCK ? total : n;
  const long out_count = kind == REDUCE_SCATTER || kind == REDUCE_SCATTER_BLOCK ? counts[rank] : n;
  unsigned char* s = buffer(t, in_count);
  unsigned char* d = buffer(t, out_count);
  operands(t, kind == ALLREDUCE_IN_PLACE ? d : s, in_count, rank, 0);
  const char* what = reduction_names[kind][nb];
  const int c = (int)n;
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Request* rp = nb ? &r : NULL;
  MPI_Comm w = MPI_COMM_WORLD;
  switch (kind) {
    case REDUCE:
      CHECK_MPI(rp ? MPI_Ireduce(s, d, c, t->type, op, root, w, rp)
                   : MPI_Reduce(s, d, c, t->type, op, root, w));
      break;
    case ALLREDUCE:
      CHECK_MPI(rp ? MPI_Iallreduce(s, d, c, t->type, op, w, rp)
                   : MPI_Allreduce(s, d, c, t->type, op, w));
      break;
    case ALLREDUCE_IN_PLACE:
      CHECK_MPI(rp ? MPI_Iallreduce(MPI_IN_PLACE, d, c, t->type, op, w, rp)
                   : MPI_Allreduce(MPI_IN_PLACE, d, c, t->type, op, w));
      break;
    case REDUCE_SCATTER:
      CHECK_MPI(rp ? MPI_Ireduce_scatter(s, d, counts, t->type, op, w, rp)
                   : MPI_Reduce_scatter(s, d, counts, t->type, op, w));
      break;
    case REDUCE_SCATTER_BLOCK:
      CHECK_MPI(rp ? MPI_Ireduce_scatter_block(s, d, c, t->type, op, w, rp)
                   : MPI_Reduce_scatter_block(s, d, c, t->type, op, w));
      break;
    case SCAN:
      CHECK_MPI(rp ? MPI_Iscan(s, d, c, t->type, op, w, rp) : MPI_Scan(s, d, c, t->type, op, w));
      break;
    default:
      CHECK_MPI(rp ? MPI_Iexscan(s, d, c, t->type, op, w, rp)
                   : MPI_Exscan(s, d, c, t->type, op, w));
      break;
  }
  done(&r);
  switch (kind) {
    case REDUCE:
      if (rank == root)
        expect_reduced(t, op, d, n, 0, 0, size, what, c);
      else
        untouched(t, d, n, what, c);
      break;
    case REDUCE_SCATTER:
    case REDUCE_SCATTER_BLOCK:
      /* Every rank's operand is the same function of the element index: element `first + i` of
       * the whole vector lands at i. */
      expect_reduced(t, op, d, out_count, first, 0, size, what, c);
      break;
    case SCAN:
      expect_reduced(t, op, d, n, 0, 0, rank + 1, what, c);
      break;
    case EXSCAN:
      if (rank > 0) expect_reduced(t, op, d, n, 0, 0, rank, what, c);
      break;
    default:
      expect_reduced(t, op, d, n, 0, 0, size, what, c);
      break;
  }
  free(s);
  free(d);
  free(counts);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  make_types();
  /* 1 and 2 elements (the short paths), then sizes past the thresholds that switch algorithms:
   * 512 B and 2 KiB, 16 and 64 KiB, and 256 KiB and more per block. */
  static const int counts[] = {1, 2, 3, 45, 700, 5000, 17000};
  const int ncounts = (int)(sizeof counts / sizeof counts[0]);
  for (int k = 0; k < ntypes; ++k) {
    const layout* t = &types[k];
    for (int c = 0; c < ncounts; ++c) {
      const int n = counts[c];
      for (int nb = 0; nb < 2; ++nb) {
        bcast(t, n, nb);
        gather(t, n, nb, 0);
        gather(t, n, nb, 1);
        allgather_in_place(t, n, nb);
        gatherv(t, n, nb, 0);
        gatherv(t, n, nb, 1);
        scatter(t, n, nb, 0);
        scatter(t, n, nb, 1);
        alltoall(t, n, nb);
        alltoallv(t, n, nb, 0);
        alltoallv(t, n, nb, 1);
        ring(t, n, nb);
        if (t->pair != NOT_PAIR || t->sum) {
          const MPI_Op ops[2] = {t->sum ? MPI_SUM : MPI_MINLOC, MPI_MAXLOC};
          for (int o = 0; o < (t->sum ? 1 : 2); ++o) {
            for (int kind = REDUCE; kind <= EXSCAN; ++kind) reduction(t, ops[o], kind, n, nb);
          }
        }
      }
    }
  }
  for (int k = 0; k < ntypes; ++k) {
    if (!types[k].pair) CHECK_MPI(MPI_Type_free(&types[k].type));
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
