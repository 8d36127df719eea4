/* Nonblocking collectives: many in flight at once (every kind, counts 0, 1, odd and a few MiB),
 * overlapped with computation and with point-to-point traffic on the same communicator and the
 * same tags, completed in a different order than started with MPI_Waitall, MPI_Test loops and
 * MPI_Waitany; a datatype freed while the collective that unpacks into it is still pending; and
 * the same collectives on a split communicator interleaved with MPI_COMM_WORLD's. Every result is
 * compared with what the test computes itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

#define EMPTY (-1)
#define HOLE (-77)

static int value(int from, int to, int i) {
  return from * 1000003 + to * 1009 + i;
}

static int* ints(size_t n, int fill) {
  int* v = malloc(sizeof(int) * (n ? n : 1));
  CHECK(v != NULL, "out of memory");
  for (size_t i = 0; i < n; ++i) v[i] = fill;
  return v;
}

static void expect(const int* v, int n, int step, int from, int to, const char* what) {
  for (int i = 0; i < n; ++i)
    CHECK(v[i * step] == value(from, to, i), "%s: element %d from rank %d is %d, expected %d", what,
          i, from, v[i * step], value(from, to, i));
}

/* Busy work between starting and completing, so the operations progress (or not) meanwhile. */
static double compute(int rounds) {
  double x = 1.0;
  for (int i = 0; i < rounds * 1000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

/* Point-to-point around the ring with tags 0..3 while the collectives are pending. */
enum { P2P = 4, P2P_N = 33 };
static void ring_start(int (*out)[P2P_N], int (*in)[P2P_N], MPI_Request* reqs, MPI_Comm comm) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  for (int t = 0; t < P2P; ++t) {
    for (int i = 0; i < P2P_N; ++i) out[t][i] = value(me, t, i);
    memset(in[t], 0xff, sizeof in[t]);
    CHECK_MPI(MPI_Irecv(in[t], P2P_N, MPI_INT, prev, t, comm, &reqs[2 * t]));
    CHECK_MPI(MPI_Isend(out[t], P2P_N, MPI_INT, next, t, comm, &reqs[2 * t + 1]));
  }
}
static void ring_check(int (*in)[P2P_N], MPI_Comm comm) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const int prev = (me + n - 1) % n;
  for (int t = 0; t < P2P; ++t)
    expect(in[t], P2P_N, 1, prev, t, "point-to-point beside collectives");
}

/* Every kind of collective started back to back, then completed out of order. */
static void everything_at_once(int round) {
  const int root = round % size, n = round == 0 ? 0 : round == 1 ? 1 : 7;
  enum { K = 16 };
  MPI_Request reqs[K + 2 * P2P];
  for (int i = 0; i < K + 2 * P2P; ++i) reqs[i] = MPI_REQUEST_NULL;
  int k = 0;

  /* 0 barrier */
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[k++]));
  /* 1 bcast */
  int* bc = ints((size_t)n, EMPTY);
  if (rank == root)
    for (int i = 0; i < n; ++i) bc[i] = value(root, 0, i);
  CHECK_MPI(MPI_Ibcast(bc, n, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]));
  /* 2 reduce, 3 allreduce */
  int* rin = ints((size_t)n, 0);
  for (int i = 0; i < n; ++i) rin[i] = rank + i;
  int* rout = ints((size_t)n, EMPTY);
  int* arout = ints((size_t)n, EMPTY);
  CHECK_MPI(MPI_Ireduce(rin, rout, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &reqs[k++]));
  CHECK_MPI(MPI_Iallreduce(rin, arout, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &reqs[k++]));
  /* 4 gather, 5 scatter */
  int* gs = ints((size_t)n, 0);
  for (int i = 0; i < n; ++i) gs[i] = value(rank, root, i);
  int* gr = ints((size_t)(size * n), EMPTY);
  CHECK_MPI(MPI_Igather(gs, n, MPI_INT, gr, n, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]));
  int* ss = ints((size_t)(size * n), 0);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) ss[r * n + i] = value(root, r, i);
  int* sr = ints((size_t)n, EMPTY);
  CHECK_MPI(MPI_Iscatter(ss, n, MPI_INT, sr, n, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]));
  /* 6 allgather into a strided type that is freed before completion */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int* ag = ints((size_t)(2 * size * n), HOLE);
  CHECK_MPI(MPI_Iallgather(gs, n, MPI_INT, ag, n, strided, MPI_COMM_WORLD, &reqs[k++]));
  CHECK_MPI(MPI_Type_free(&strided));
  /* 7 alltoall */
  int* a2s = ints((size_t)(size * n), 0);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) a2s[r * n + i] = value(rank, r, i);
  int* a2r = ints((size_t)(size * n), EMPTY);
  CHECK_MPI(MPI_Ialltoall(a2s, n, MPI_INT, a2r, n, MPI_INT, MPI_COMM_WORLD, &reqs[k++]));
  /* 8 scan, 9 exscan */
  int sc = rank + 1, scr = 0, ex = rank + 1, exr = -5;
  CHECK_MPI(MPI_Iscan(&sc, &scr, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k++]));
  CHECK_MPI(MPI_Iexscan(&ex, &exr, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k++]));
  /* 10 reduce_scatter_block, 11 reduce_scatter (in place) */
  int* rsb = ints((size_t)(size * n), 0);
  for (int i = 0; i < size * n; ++i) rsb[i] = rank * i;
  int* rsbr = ints((size_t)n, EMPTY);
  CHECK_MPI(MPI_Ireduce_scatter_block(rsb, rsbr, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k++]));
  int* rcounts = ints((size_t)size, 0);
  int total = 0, before = 0;
  for (int r = 0; r < size; ++r) {
    rcounts[r] = (r + round) % 3;
    if (r < rank) before += rcounts[r];
    total += rcounts[r];
  }
  int* rs = ints((size_t)total, 0);
  for (int i = 0; i < total; ++i) rs[i] = rank + 2 * i;
  CHECK_MPI(
      MPI_Ireduce_scatter(MPI_IN_PLACE, rs, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k++]));
  /* 12 gatherv, 13 allgatherv (in place), 14 scatterv, 15 alltoallv: counts r % 3 */
  int* vc = ints((size_t)size, 0);
  int* vd = ints((size_t)size, 0);
  int vt = 0;
  for (int r = 0; r < size; ++r) {
    vc[r] = (r + round) % 3;
    vd[r] = vt;
    vt += vc[r];
  }
  const int mine = vc[rank];
  int* gvs = ints((size_t)mine, 0);
  for (int i = 0; i < mine; ++i) gvs[i] = value(rank, 9, i);
  int* gvr = ints((size_t)vt, EMPTY);
  CHECK_MPI(
      MPI_Igatherv(gvs, mine, MPI_INT, gvr, vc, vd, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]));
  int* agv = ints((size_t)vt, EMPTY);
  for (int i = 0; i < mine; ++i) agv[vd[rank] + i] = value(rank, 9, i);
  CHECK_MPI(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, agv, vc, vd, MPI_INT,
                            MPI_COMM_WORLD, &reqs[k++]));
  int* svs = ints((size_t)vt, 0);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < vc[r]; ++i) svs[vd[r] + i] = value(root, r, i);
  int* svr = ints((size_t)mine, EMPTY);
  CHECK_MPI(
      MPI_Iscatterv(svs, vc, vd, MPI_INT, svr, mine, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]));
  /* alltoallv: rank me sends (me + r) % 2 + n ints to r */
  int* asc = ints((size_t)size, 0);
  int* asd = ints((size_t)size, 0);
  int* arc = ints((size_t)size, 0);
  int* ard = ints((size_t)size, 0);
  int st = 0, rt = 0;
  for (int r = 0; r < size; ++r) {
    asc[r] = (rank + r) % 2 + n;
    asd[r] = st;
    st += asc[r];
    arc[r] = (r + rank) % 2 + n;
    ard[r] = rt;
    rt += arc[r];
  }
  int* avs = ints((size_t)st, 0);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < asc[r]; ++i) avs[asd[r] + i] = value(rank, r, i);
  int* avr = ints((size_t)rt, EMPTY);
  CHECK_MPI(
      MPI_Ialltoallv(avs, asc, asd, MPI_INT, avr, arc, ard, MPI_INT, MPI_COMM_WORLD, &reqs[k++]));
  CHECK(k == K, "started %d collectives", k);

  /* point-to-point on the same tags meanwhile, and some computation */
  int out[P2P][P2P_N], in[P2P][P2P_N];
  ring_start(out, in, reqs + K, MPI_COMM_WORLD);
  volatile double sink = compute(50);
  (void)sink;

  /* Complete the second half with a Test loop first, then the rest with Waitall. */
  int flag = 0;
  while (!flag) {
    CHECK_MPI(MPI_Testall(K / 2, reqs + K / 2, &flag, MPI_STATUSES_IGNORE));
    if (!flag) sink = compute(1);
  }
  CHECK_MPI(MPI_Waitall(K + 2 * P2P, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < K + 2 * P2P; ++i)
    CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not released", i);

  ring_check(in, MPI_COMM_WORLD);
  expect(bc, n, 1, root, 0, "ibcast");
  if (rank == root)
    for (int i = 0; i < n; ++i)
      CHECK(rout[i] == size * (size - 1) / 2 + size * i, "ireduce %d: %d", i, rout[i]);
  for (int i = 0; i < n; ++i) CHECK(arout[i] == size - 1 + i, "iallreduce %d: %d", i, arout[i]);
  if (rank == root)
    for (int r = 0; r < size; ++r) expect(gr + r * n, n, 1, r, root, "igather");
  expect(sr, n, 1, root, rank, "iscatter");
  for (int r = 0; r < size; ++r) {
    expect(ag + 2 * r * n, n, 2, r, root, "iallgather into a freed strided type");
    for (int i = 0; i < n; ++i) CHECK(ag[2 * (r * n + i) + 1] == HOLE, "iallgather wrote a hole");
  }
  for (int r = 0; r < size; ++r) expect(a2r + r * n, n, 1, r, rank, "ialltoall");
  CHECK(scr == (rank + 1) * (rank + 2) / 2, "iscan %d", scr);
  CHECK(rank == 0 ? exr == -5 : exr == rank * (rank + 1) / 2, "iexscan %d", exr);
  for (int i = 0; i < n; ++i) {
    const int want = size * (size - 1) / 2 * (rank * n + i);
    CHECK(rsbr[i] == want, "ireduce_scatter_block %d: %d, expected %d", i, rsbr[i], want);
  }
  for (int i = 0; i < rcounts[rank]; ++i) {
    const int want = size * (size - 1) / 2 + size * 2 * (before + i);
    CHECK(rs[i] == want, "ireduce_scatter in place %d: %d, expected %d", i, rs[i], want);
  }
  if (rank == root)
    for (int r = 0; r < size; ++r) expect(gvr + vd[r], vc[r], 1, r, 9, "igatherv");
  for (int r = 0; r < size; ++r) expect(agv + vd[r], vc[r], 1, r, 9, "iallgatherv in place");
  expect(svr, mine, 1, root, rank, "iscatterv");
  for (int r = 0; r < size; ++r) expect(avr + ard[r], arc[r], 1, r, rank, "ialltoallv");

  free(bc), free(rin), free(rout), free(arout), free(gs), free(gr), free(ss), free(sr), free(ag);
  free(a2s), free(a2r), free(rsb), free(rsbr), free(rcounts), free(rs), free(vc), free(vd);
  free(gvs), free(gvr), free(agv), free(svs), free(svr), free(asc), free(asd), free(arc);
  free(ard), free(avs), free(avr);
}

/* Large operations in flight together, completed one by one with MPI_Waitany. */
static void large(void) {
  const int n = 1 << 19; /* 2 MiB of ints, 4 MiB of doubles */
  int* bc = ints((size_t)n, EMPTY);
  if (rank == size - 1)
    for (int i = 0; i < n; ++i) bc[i] = value(size - 1, 0, i);
  double* ain = malloc(sizeof(double) * (size_t)n);
  double* aout = malloc(sizeof(double) * (size_t)n);
  CHECK(ain && aout, "out of memory");
  for (int i = 0; i < n; ++i) ain[i] = (double)(rank * 3 + i % 1000);
  const int per = n / size;
  int* gs = ints((size_t)per, 0);
  for (int i = 0; i < per; ++i) gs[i] = value(rank, 1, i);
  int* gr = ints((size_t)per * (size_t)size, EMPTY);
  MPI_Request reqs[3];
  CHECK_MPI(MPI_Ibcast(bc, n, MPI_INT, size - 1, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Iallreduce(ain, aout, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Iallgather(gs, per, MPI_INT, gr, per, MPI_INT, MPI_COMM_WORLD, &reqs[2]));
  int done = 0;
  for (int left = 3; left > 0; --left) {
    int index = -1;
    CHECK_MPI(MPI_Waitany(3, reqs, &index, MPI_STATUS_IGNORE));
    CHECK(index >= 0 && index < 3 && !(done & (1 << index)), "waitany gave %d", index);
    done |= 1 << index;
  }
  expect(bc, n, 1, size - 1, 0, "large ibcast");
  for (int i = 0; i < n; ++i) {
    const double want = 3.0 * size * (size - 1) / 2 + (double)size * (i % 1000);
    CHECK(aout[i] == want, "large iallreduce %d: %g, expected %g", i, aout[i], want);
  }
  for (int r = 0; r < size; ++r) expect(gr + (size_t)r * per, per, 1, r, 1, "large iallgather");
  free(bc), free(ain), free(aout), free(gs), free(gr);
}

/* Collectives on a split communicator and on MPI_COMM_WORLD pending together. */
static void two_communicators(void) {
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  int hrank, hsize;
  CHECK_MPI(MPI_Comm_rank(half, &hrank));
  CHECK_MPI(MPI_Comm_size(half, &hsize));
  int wsum = 0, hsum = 0, one = 1, hb[5], wb[5];
  for (int i = 0; i < 5; ++i) hb[i] = hrank == 0 ? value(rank % 2, 7, i) : EMPTY;
  for (int i = 0; i < 5; ++i) wb[i] = rank == 0 ? value(0, 8, i) : EMPTY;
  MPI_Request reqs[4 + 2 * P2P];
  CHECK_MPI(MPI_Iallreduce(&one, &hsum, 1, MPI_INT, MPI_SUM, half, &reqs[0]));
  CHECK_MPI(MPI_Iallreduce(&one, &wsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Ibcast(hb, 5, MPI_INT, 0, half, &reqs[2]));
  CHECK_MPI(MPI_Ibcast(wb, 5, MPI_INT, 0, MPI_COMM_WORLD, &reqs[3]));
  int out[P2P][P2P_N], in[P2P][P2P_N];
  ring_start(out, in, reqs + 4, half);
  CHECK_MPI(MPI_Waitall(4 + 2 * P2P, reqs, MPI_STATUSES_IGNORE));
  ring_check(in, half);
  CHECK(hsum == hsize && wsum == size, "sums %d %d", hsum, wsum);
  expect(hb, 5, 1, rank % 2, 7, "ibcast on the split communicator");
  expect(wb, 5, 1, 0, 8, "ibcast on MPI_COMM_WORLD");
  CHECK_MPI(MPI_Comm_free(&half));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0, y = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK_ERR(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  CHECK_ERR(MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD, &req), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_BOR, MPI_COMM_WORLD, &req), MPI_ERR_OP);
  CHECK_ERR(MPI_Igather(&x, -1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM);
  CHECK(req == MPI_REQUEST_NULL, "a failed call set the request");
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  for (int round = 0; round < 6; ++round) everything_at_once(round);
  large();
  two_communicators();
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
