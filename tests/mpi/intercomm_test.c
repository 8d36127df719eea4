/* Intercommunicators: the world split two ways (first half / second half, uneven for odd sizes,
 * and even / odd ranks), MPI_Intercomm_create with the leaders talking over MPI_COMM_WORLD, local
 * and remote sizes and groups, point-to-point across (ranks and statuses are remote ranks), a
 * duplicate whose traffic never meets the original's, MPI_Intercomm_merge in every order, freeing
 * (many creations in a row, more than there are contexts unless freeing returns them); every
 * collective, blocking and nonblocking, with the root in either group (MPI_ROOT, MPI_PROC_NULL,
 * remote rank), against serial references; MPI_Comm_split, MPI_Comm_create and MPI_Comm_idup of an
 * intercommunicator; and the errors: Scan / Exscan, MPI_IN_PLACE and bad roots on an
 * intercommunicator, topologies on one, the remote calls on an intracommunicator, bad leaders and
 * ranks. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int size, me;
static MPI_Group world_group;
/* host_of[w]: the lowest world rank on world rank w's host (the job may span hosts, pretended or
 * real: MPI_COMM_TYPE_SHARED groups only the processes of one host). */
static int host_of[64];

/* The world ranks of group `color` (0 or 1) of a layout, in rank order; returns their number. */
static int members_of(int interleaved, int color, int* out) {
  int n = 0;
  for (int w = 0; w < size; ++w) {
    const int c = interleaved ? w % 2 : (w < size / 2 ? 0 : 1);
    if (c == color) out[n++] = w;
  }
  return n;
}

/* g's members as world ranks, compared with expected[0..n). */
static void expect_group(MPI_Group g, const int* expected, int n, const char* what) {
  int got = -1;
  CHECK_MPI(MPI_Group_size(g, &got));
  CHECK(got == n, "%s: group size %d, expected %d", what, got, n);
  int* ranks = malloc(sizeof(int) * (size_t)n);
  int* world = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world_group, world));
  for (int i = 0; i < n; ++i) {
    CHECK(world[i] == expected[i], "%s: rank %d is world rank %d, expected %d", what, i, world[i],
          expected[i]);
  }
  free(ranks);
  free(world);
}

/* Every local rank i sends its world rank plus `mark` to remote rank i % remote_size; each receives
 * from any source what the remote ranks j with j % local_size == its rank sent, and checks the
 * status names the remote rank. On `other` (another intercommunicator of the same groups, or
 * MPI_COMM_NULL) the same is sent with the same tag and another mark first, which must not be
 * received here. Each call's tag is its own: a remote rank may already be in the next call. */
static void traffic(MPI_Comm inter, MPI_Comm other, const int* remote, int rsize, int lrank,
                    int lsize, int mark) {
  const int tag = mark / 1000;
  int out = me + mark, out_other = me + 2 * mark;
  MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (other != MPI_COMM_NULL) {
    CHECK_MPI(MPI_Isend(&out_other, 1, MPI_INT, lrank % rsize, tag, other, &sends[1]));
  }
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, lrank % rsize, tag, inter, &sends[0]));
  int expected = 0;
  for (int j = 0; j < rsize; ++j) expected += j % lsize == lrank;
  int* seen = calloc((size_t)size, sizeof(int));
  for (int k = 0; k < expected; ++k) {
    int in = -1;
    MPI_Status s;
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &s));
    CHECK(s.MPI_SOURCE >= 0 && s.MPI_SOURCE < rsize, "source %d is not a remote rank (%d)",
          s.MPI_SOURCE, rsize);
    CHECK(s.MPI_SOURCE % lsize == lrank, "remote rank %d sent to local rank %d, expected %d",
          s.MPI_SOURCE, lrank, s.MPI_SOURCE % lsize);
    CHECK(s.MPI_TAG == tag, "tag %d, expected %d", s.MPI_TAG, tag);
    CHECK(in == remote[s.MPI_SOURCE] + mark, "from remote rank %d: %d, expected %d", s.MPI_SOURCE,
          in, remote[s.MPI_SOURCE] + mark);
    CHECK(!seen[s.MPI_SOURCE], "remote rank %d sent twice", s.MPI_SOURCE);
    seen[s.MPI_SOURCE] = 1;
  }
  if (other != MPI_COMM_NULL) {
    for (int j = 0; j < rsize; ++j) {
      if (j % lsize != lrank) continue;
      int in = -1;
      CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, j, tag, other, MPI_STATUS_IGNORE));
      CHECK(in == remote[j] + 2 * mark, "on the other communicator from %d: %d, expected %d", j, in,
            remote[j] + 2 * mark);
    }
  }
  CHECK_MPI(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE));
  free(seen);
}

/* ---- collectives on an intercommunicator (MPI-3.1 5.2.2), each against a serial reference ---- */

/* What the collective tests know of an intercommunicator: the world ranks of both groups in rank
 * order, this process's rank and which group (0 or 1) it is in. A rooted collective is run with
 * its root in each group in turn (ranks 0 and last), the other group receiving or sending. */
typedef struct {
  MPI_Comm comm;
  int color;
  int lrank, lsize, rsize;
  const int* local;
  const int* remote;
} ic_t;

static MPI_Datatype interval_type;
static MPI_Op interval_op;

/* Element i of world rank w's data. */
static int value(int w, int i) {
  return w * 1000 + i;
}

/* The sum over the remote group of value(w, i). */
static int remote_sum(const ic_t* ic, int i) {
  int sum = 0;
  for (int r = 0; r < ic->rsize; ++r) sum += value(ic->remote[r], i);
  return sum;
}

/* Intervals of ranks {lo, hi, ok}: combined in rank order, lower ranks' first, they join into
 * {0, n - 1, 1} only if the reduction kept that order (the operator is not commutative). */
static void join_intervals(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i, a += 3, b += 3) {
    b[2] = a[2] && b[2] && a[1] + 1 == b[0];
    b[0] = a[0];
  }
}

static int group_size(const ic_t* ic, int side) {
  return side == ic->color ? ic->lsize : ic->rsize;
}

/* The root argument of a rooted collective whose root is rank `root` of group `side`. */
static int root_arg(const ic_t* ic, int side, int root) {
  if (side != ic->color) return root;
  return ic->lrank == root ? MPI_ROOT : MPI_PROC_NULL;
}

static int root_world(const ic_t* ic, int side, int root) {
  return side == ic->color ? ic->local[root] : ic->remote[root];
}

/* Loops over the roots tried, ranks 0 and last of each group (`side`), with the root argument
 * this process passes for each (`arg`). */
#define FOR_ROOTS(ic, side, root, arg)                                                             \
  for (int side = 0; side < 2; ++side)                                                             \
    for (int root_i_ = 0; root_i_ < 2; ++root_i_)                                                  \
      for (int root = root_i_ == 0 ? 0 : group_size(ic, side) - 1, arg = root_arg(ic, side, root), \
               once_ = 1;                                                                          \
           once_ && (root_i_ == 0 || group_size(ic, side) > 1); once_ = 0)

static void wait_or_not(int nonblocking, MPI_Request* r) {
  if (nonblocking) CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static void test_bcast(const ic_t* ic, int n, int nb) {
  int* buf = malloc(sizeof(int) * (size_t)n);
  FOR_ROOTS(ic, side, root, arg) {
    for (int i = 0; i < n; ++i) buf[i] = arg == MPI_ROOT ? value(me, i) : -1;
    MPI_Request r;
    if (nb) {
      CHECK_MPI(MPI_Ibcast(buf, n, MPI_INT, arg, ic->comm, &r));
    } else {
      CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, arg, ic->comm));
    }
    wait_or_not(nb, &r);
    const int from = root_world(ic, side, root);
    for (int i = 0; i < n; ++i) {
      const int expected = arg == MPI_PROC_NULL ? -1 : value(from, i);
      CHECK(buf[i] == expected,
            "bcast of %d from rank %d of group %d (arg %d): [%d] = %d, "
            "expected %d",
            n, root, side, arg, i, buf[i], expected);
    }
  }
  free(buf);
}

static void test_reduce(const ic_t* ic, int nb) {
  enum { n = 5 };
  FOR_ROOTS(ic, side, root, arg) {
    int send[n], recv[n], iv_send[6], iv_recv[6];
    for (int i = 0; i < n; ++i) send[i] = value(me, i), recv[i] = -1;
    for (int i = 0; i < 6; ++i) iv_send[i] = i % 3 == 2 ? 1 : ic->lrank, iv_recv[i] = -1;
    MPI_Request r[2];
    if (nb) {
      CHECK_MPI(MPI_Ireduce(send, recv, n, MPI_INT, MPI_SUM, arg, ic->comm, &r[0]));
      CHECK_MPI(MPI_Ireduce(iv_send, iv_recv, 2, interval_type, interval_op, arg, ic->comm, &r[1]));
      CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    } else {
      CHECK_MPI(MPI_Reduce(send, recv, n, MPI_INT, MPI_SUM, arg, ic->comm));
      CHECK_MPI(MPI_Reduce(iv_send, iv_recv, 2, interval_type, interval_op, arg, ic->comm));
    }
    for (int i = 0; i < n; ++i) {
      const int expected = arg == MPI_ROOT ? remote_sum(ic, i) : -1;
      CHECK(recv[i] == expected, "reduce to rank %d of group %d: [%d] = %d, expected %d", root,
            side, i, recv[i], expected);
    }
    for (int i = 0; i < 6; ++i) {
      const int expected = arg != MPI_ROOT ? -1 : i % 3 == 0 ? 0 : i % 3 == 1 ? ic->rsize - 1 : 1;
      CHECK(iv_recv[i] == expected,
            "reduce (not commutative) to rank %d of group %d: [%d] = %d, "
            "expected %d",
            root, side, i, iv_recv[i], expected);
    }
  }
}

static void test_allreduce(const ic_t* ic, int nb) {
  enum { n = 7 };
  int send[n], recv[n], iv_send[3] = {ic->lrank, ic->lrank, 1}, iv_recv[3] = {-1, -1, -1};
  for (int i = 0; i < n; ++i) send[i] = value(me, i), recv[i] = -1;
  MPI_Request r[2];
  if (nb) {
    CHECK_MPI(MPI_Iallreduce(send, recv, n, MPI_INT, MPI_SUM, ic->comm, &r[0]));
    CHECK_MPI(MPI_Iallreduce(iv_send, iv_recv, 1, interval_type, interval_op, ic->comm, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  } else {
    CHECK_MPI(MPI_Allreduce(send, recv, n, MPI_INT, MPI_SUM, ic->comm));
    CHECK_MPI(MPI_Allreduce(iv_send, iv_recv, 1, interval_type, interval_op, ic->comm));
  }
  for (int i = 0; i < n; ++i) {
    CHECK(recv[i] == remote_sum(ic, i), "allreduce: [%d] = %d, expected %d", i, recv[i],
          remote_sum(ic, i));
  }
  CHECK(iv_recv[0] == 0 && iv_recv[1] == ic->rsize - 1 && iv_recv[2] == 1,
        "allreduce (not commutative): {%d, %d, %d}, expected {0, %d, 1}", iv_recv[0], iv_recv[1],
        iv_recv[2], ic->rsize - 1);
  /* Nothing to reduce: still a collective, and nothing written. */
  recv[0] = -1;
  CHECK_MPI(MPI_Allreduce(send, recv, 0, MPI_INT, MPI_SUM, ic->comm));
  CHECK(recv[0] == -1, "allreduce of 0 elements wrote %d", recv[0]);
}

/* Both groups reduce vectors of the same length: 12 elements shared out over the local ranks
 * (reduce_scatter), and 2 * remote size per local rank (reduce_scatter_block, whose total
 * local size * remote size * 2 is the same on both sides). */
static void test_reduce_scatter(const ic_t* ic, int nb) {
  enum { total = 12 };
  int counts[16], send[total], recv[total];
  int displ = 0;
  for (int i = 0; i < ic->lsize; ++i) counts[i] = total / ic->lsize + (i < total % ic->lsize);
  for (int i = 0; i < ic->lrank; ++i) displ += counts[i];
  for (int e = 0; e < total; ++e) send[e] = value(me, e), recv[e] = -1;
  MPI_Request r;
  if (nb) {
    CHECK_MPI(MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, ic->comm, &r));
  } else {
    CHECK_MPI(MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, ic->comm));
  }
  wait_or_not(nb, &r);
  for (int k = 0; k < total; ++k) {
    const int expected = k < counts[ic->lrank] ? remote_sum(ic, displ + k) : -1;
    CHECK(recv[k] == expected, "reduce_scatter: [%d] = %d, expected %d", k, recv[k], expected);
  }

  const int block = 2 * ic->rsize, all = block * ic->lsize;
  int* bsend = malloc(sizeof(int) * (size_t)all);
  int* brecv = malloc(sizeof(int) * (size_t)block);
  for (int e = 0; e < all; ++e) bsend[e] = value(me, e);
  for (int k = 0; k < block; ++k) brecv[k] = -1;
  if (nb) {
    CHECK_MPI(MPI_Ireduce_scatter_block(bsend, brecv, block, MPI_INT, MPI_SUM, ic->comm, &r));
  } else {
    CHECK_MPI(MPI_Reduce_scatter_block(bsend, brecv, block, MPI_INT, MPI_SUM, ic->comm));
  }
  wait_or_not(nb, &r);
  for (int k = 0; k < block; ++k) {
    const int expected = remote_sum(ic, ic->lrank * block + k);
    CHECK(brecv[k] == expected, "reduce_scatter_block: [%d] = %d, expected %d", k, brecv[k],
          expected);
  }
  free(bsend);
  free(brecv);
}

/* Gather of 2 ints per process into a strided type at the root (every other int, so the staged
 * path runs), and gatherv of rank + 1 ints per process into blocks with gaps. */
static void test_gather(const ic_t* ic, int nb) {
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  const int n = ic->rsize, gap = ic->rsize + 1;
  int* recv = malloc(sizeof(int) * (size_t)(3 * n + gap * n));
  FOR_ROOTS(ic, side, root, arg) {
    int send[2] = {value(me, 0), value(me, 1)};
    for (int i = 0; i < 3 * n; ++i) recv[i] = -1;
    MPI_Request r;
    if (nb) {
      CHECK_MPI(MPI_Igather(send, 2, MPI_INT, recv, 1, strided, arg, ic->comm, &r));
    } else {
      CHECK_MPI(MPI_Gather(send, 2, MPI_INT, recv, 1, strided, arg, ic->comm));
    }
    wait_or_not(nb, &r);
    for (int i = 0; i < 3 * n; ++i) {
      /* The vector's extent is 3 ints: rank r's block at 3r and 3r + 2, nothing at 3r + 1. */
      const int expected =
          arg != MPI_ROOT || i % 3 == 1 ? -1 : value(ic->remote[i / 3], (i % 3) / 2);
      CHECK(recv[i] == expected, "gather to rank %d of group %d: [%d] = %d, expected %d", root,
            side, i, recv[i], expected);
    }

    int counts[16], displs[16], vsend[16];
    for (int r2 = 0; r2 < n; ++r2) counts[r2] = r2 + 1, displs[r2] = r2 * gap;
    for (int k = 0; k <= ic->lrank; ++k) vsend[k] = value(me, k);
    for (int i = 0; i < gap * n; ++i) recv[i] = -1;
    if (nb) {
      CHECK_MPI(MPI_Igatherv(vsend, ic->lrank + 1, MPI_INT, recv, counts, displs, MPI_INT, arg,
                             ic->comm, &r));
    } else {
      CHECK_MPI(
          MPI_Gatherv(vsend, ic->lrank + 1, MPI_INT, recv, counts, displs, MPI_INT, arg, ic->comm));
    }
    wait_or_not(nb, &r);
    for (int i = 0; i < gap * n; ++i) {
      const int from = i / gap, k = i % gap;
      const int expected = arg == MPI_ROOT && k <= from ? value(ic->remote[from], k) : -1;
      CHECK(recv[i] == expected, "gatherv to rank %d of group %d: [%d] = %d, expected %d", root,
            side, i, recv[i], expected);
    }
  }
  free(recv);
  CHECK_MPI(MPI_Type_free(&strided));
}

/* Scatter of 2 ints per process and scatterv of rank + 1 ints from blocks with gaps. */
static void test_scatter(const ic_t* ic, int nb) {
  const int n = ic->rsize, gap = ic->rsize + 1;
  int* send = malloc(sizeof(int) * (size_t)(gap * n));
  FOR_ROOTS(ic, side, root, arg) {
    const int from = root_world(ic, side, root);
    for (int i = 0; i < gap * n; ++i) send[i] = arg == MPI_ROOT ? value(me, i) : -7;
    int recv[16];
    for (int k = 0; k < 16; ++k) recv[k] = -1;
    MPI_Request r;
    if (nb) {
      CHECK_MPI(MPI_Iscatter(send, 2, MPI_INT, recv, 2, MPI_INT, arg, ic->comm, &r));
    } else {
      CHECK_MPI(MPI_Scatter(send, 2, MPI_INT, recv, 2, MPI_INT, arg, ic->comm));
    }
    wait_or_not(nb, &r);
    for (int k = 0; k < 2; ++k) {
      const int expected = side == ic->color ? -1 : value(from, 2 * ic->lrank + k);
      CHECK(recv[k] == expected, "scatter from rank %d of group %d: [%d] = %d, expected %d", root,
            side, k, recv[k], expected);
    }

    int counts[16], displs[16];
    for (int r2 = 0; r2 < n; ++r2) counts[r2] = r2 + 1, displs[r2] = r2 * gap;
    for (int k = 0; k < 16; ++k) recv[k] = -1;
    if (nb) {
      CHECK_MPI(MPI_Iscatterv(send, counts, displs, MPI_INT, recv, ic->lrank + 1, MPI_INT, arg,
                              ic->comm, &r));
    } else {
      CHECK_MPI(
          MPI_Scatterv(send, counts, displs, MPI_INT, recv, ic->lrank + 1, MPI_INT, arg, ic->comm));
    }
    wait_or_not(nb, &r);
    /* The root spaced the blocks by its remote size (this group's) + 1. */
    const int root_gap = ic->lsize + 1;
    for (int k = 0; k < 16; ++k) {
      const int expected =
          side == ic->color || k > ic->lrank ? -1 : value(from, ic->lrank * root_gap + k);
      CHECK(recv[k] == expected, "scatterv from rank %d of group %d: [%d] = %d, expected %d", root,
            side, k, recv[k], expected);
    }
  }
  free(send);
}

/* Allgather of 2 ints per process, allgatherv of rank + 1 ints into blocks with gaps. */
static void test_allgather(const ic_t* ic, int nb) {
  const int n = ic->rsize, gap = ic->rsize + 1;
  int* recv = malloc(sizeof(int) * (size_t)(gap * n));
  int send[16];
  for (int k = 0; k < 16; ++k) send[k] = value(me, k);
  for (int i = 0; i < 2 * n; ++i) recv[i] = -1;
  MPI_Request r;
  if (nb) {
    CHECK_MPI(MPI_Iallgather(send, 2, MPI_INT, recv, 2, MPI_INT, ic->comm, &r));
  } else {
    CHECK_MPI(MPI_Allgather(send, 2, MPI_INT, recv, 2, MPI_INT, ic->comm));
  }
  wait_or_not(nb, &r);
  for (int i = 0; i < 2 * n; ++i) {
    CHECK(recv[i] == value(ic->remote[i / 2], i % 2), "allgather: [%d] = %d, expected %d", i,
          recv[i], value(ic->remote[i / 2], i % 2));
  }
  int counts[16], displs[16];
  for (int r2 = 0; r2 < n; ++r2) counts[r2] = r2 + 1, displs[r2] = r2 * gap;
  for (int i = 0; i < gap * n; ++i) recv[i] = -1;
  if (nb) {
    CHECK_MPI(
        MPI_Iallgatherv(send, ic->lrank + 1, MPI_INT, recv, counts, displs, MPI_INT, ic->comm, &r));
  } else {
    CHECK_MPI(
        MPI_Allgatherv(send, ic->lrank + 1, MPI_INT, recv, counts, displs, MPI_INT, ic->comm));
  }
  wait_or_not(nb, &r);
  for (int i = 0; i < gap * n; ++i) {
    const int from = i / gap, k = i % gap;
    const int expected = k <= from ? value(ic->remote[from], k) : -1;
    CHECK(recv[i] == expected, "allgatherv: [%d] = %d, expected %d", i, recv[i], expected);
  }
  free(recv);
}

/* Block r goes to remote rank r: 2 ints each (alltoall), (rank + remote rank) % 3 ints from
 * spaced blocks (alltoallv, counts of 0 included), the same with byte displacements
 * (alltoallw). */
static void test_alltoall(const ic_t* ic, int nb) {
  const int n = ic->rsize;
  int send[64], recv[64];
  for (int i = 0; i < 64; ++i) send[i] = value(me, i), recv[i] = -1;
  MPI_Request r;
  if (nb) {
    CHECK_MPI(MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, ic->comm, &r));
  } else {
    CHECK_MPI(MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, ic->comm));
  }
  wait_or_not(nb, &r);
  for (int i = 0; i < 2 * n; ++i) {
    const int expected = value(ic->remote[i / 2], 2 * ic->lrank + i % 2);
    CHECK(recv[i] == expected, "alltoall: [%d] = %d, expected %d", i, recv[i], expected);
  }

  int scounts[16], sdispls[16], rcounts[16], rdispls[16], types_done = 0;
  for (int r2 = 0; r2 < n; ++r2) {
    scounts[r2] = rcounts[r2] = (ic->lrank + r2) % 3;
    sdispls[r2] = 3 * r2;
    rdispls[r2] = 4 * r2;
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 64; ++i) recv[i] = -1;
    if (pass == 0 && nb) {
      CHECK_MPI(MPI_Ialltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT,
                               ic->comm, &r));
      wait_or_not(nb, &r);
    } else if (pass == 0) {
      CHECK_MPI(MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT,
                              ic->comm));
    } else {
      int sbytes[16], rbytes[16];
      MPI_Datatype types[16];
      for (int r2 = 0; r2 < n; ++r2) {
        sbytes[r2] = sdispls[r2] * (int)sizeof(int);
        rbytes[r2] = rdispls[r2] * (int)sizeof(int);
        types[r2] = MPI_INT;
      }
      if (nb) {
        CHECK_MPI(MPI_Ialltoallw(send, scounts, sbytes, types, recv, rcounts, rbytes, types,
                                 ic->comm, &r));
        wait_or_not(nb, &r);
      } else {
        CHECK_MPI(
            MPI_Alltoallw(send, scounts, sbytes, types, recv, rcounts, rbytes, types, ic->comm));
      }
      types_done = 1;
    }
    for (int i = 0; i < 4 * n; ++i) {
      const int from = i / 4, k = i % 4;
      const int expected =
          k < (from + ic->lrank) % 3 ? value(ic->remote[from], 3 * ic->lrank + k) : -1;
      CHECK(recv[i] == expected, "alltoall%s: [%d] = %d, expected %d", types_done ? "w" : "v", i,
            recv[i], expected);
    }
  }
}

/* MPI_Ibarrier on one group cannot complete before the other group has entered: the other group
 * enters only once told (over MPI_COMM_WORLD) that the first group's barrier is still pending on
 * every one of its processes. The leader sends that word only after each member has reported its
 * test: a member descheduled between its Ibarrier and its Test would otherwise rightly find the
 * barrier complete. */
static void test_ibarrier(const ic_t* ic) {
  for (int first = 0; first < 2; ++first) {
    int go = 0;
    if (ic->color == first) {
      MPI_Request r;
      int flag = 1;
      CHECK_MPI(MPI_Ibarrier(ic->comm, &r));
      CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
      CHECK(!flag, "ibarrier completed before the other group entered");
      if (ic->lrank != 0) {
        CHECK_MPI(MPI_Send(&go, 1, MPI_INT, ic->local[0], 98, MPI_COMM_WORLD));
      } else {
        for (int j = 1; j < ic->lsize; ++j) {
          CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, ic->local[j], 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        for (int j = 0; j < ic->rsize; ++j) {
          CHECK_MPI(MPI_Send(&go, 1, MPI_INT, ic->remote[j], 99, MPI_COMM_WORLD));
        }
      }
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, ic->remote[0], 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Barrier(ic->comm));
    }
  }
}

/* Several nonblocking collectives in flight on one intercommunicator at once, completed in
 * reverse order. */
static void test_overlap(const ic_t* ic) {
  int big_n = 1 << 16;
  int* big = malloc(sizeof(int) * (size_t)big_n);
  int sum_in = me, sum = -1, a2a_in[16], a2a[16];
  for (int i = 0; i < big_n; ++i) big[i] = ic->color == 0 && ic->lrank == 0 ? value(me, i) : -1;
  for (int i = 0; i < 16; ++i) a2a_in[i] = value(me, i), a2a[i] = -1;
  MPI_Request r[4];
  const int arg = root_arg(ic, 0, 0);
  CHECK_MPI(MPI_Ibcast(big, big_n, MPI_INT, arg, ic->comm, &r[0]));
  CHECK_MPI(MPI_Iallreduce(&sum_in, &sum, 1, MPI_INT, MPI_SUM, ic->comm, &r[1]));
  CHECK_MPI(MPI_Ibarrier(ic->comm, &r[2]));
  CHECK_MPI(MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a, 1, MPI_INT, ic->comm, &r[3]));
  for (int i = 3; i >= 0; --i) CHECK_MPI(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
  int expected_sum = 0;
  for (int j = 0; j < ic->rsize; ++j) expected_sum += ic->remote[j];
  CHECK(sum == expected_sum, "overlapped iallreduce: %d, expected %d", sum, expected_sum);
  for (int j = 0; j < ic->rsize; ++j) {
    CHECK(a2a[j] == value(ic->remote[j], ic->lrank), "overlapped ialltoall: [%d] = %d", j, a2a[j]);
  }
  const int from = root_world(ic, 0, 0);
  for (int i = 0; i < big_n; i += 997) {
    const int expected = arg == MPI_PROC_NULL ? -1 : value(from, i);
    CHECK(big[i] == expected, "overlapped ibcast: [%d] = %d, expected %d", i, big[i], expected);
  }
  free(big);
}

/* Checks that `c` is an intercommunicator of `local` and `remote` (world ranks, in rank order) that
 * carries collectives and point-to-point. */
static void expect_intercomm(MPI_Comm c, const int* local, int nl, const int* remote, int nr,
                             const char* what) {
  int flag = 0, got = -1;
  CHECK_MPI(MPI_Comm_test_inter(c, &flag));
  CHECK(flag == 1, "%s: not an intercommunicator", what);
  CHECK_MPI(MPI_Comm_size(c, &got));
  CHECK(got == nl, "%s: local size %d, expected %d", what, got, nl);
  CHECK_MPI(MPI_Comm_remote_size(c, &got));
  CHECK(got == nr, "%s: remote size %d, expected %d", what, got, nr);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(c, &g));
  expect_group(g, local, nl, what);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_remote_group(c, &g));
  expect_group(g, remote, nr, what);
  CHECK_MPI(MPI_Group_free(&g));
  int rank = -1, sum = -1, expected = 0;
  CHECK_MPI(MPI_Comm_rank(c, &rank));
  CHECK(local[rank] == me, "%s: rank %d is world rank %d, not this process (%d)", what, rank,
        local[rank], me);
  for (int j = 0; j < nr; ++j) expected += remote[j];
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == expected, "%s: allreduce %d, expected %d", what, sum, expected);
  /* Each rank sends its world rank to remote rank (its rank % remote size). */
  MPI_Request sent;
  CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, rank % nr, 5, c, &sent));
  for (int j = rank; j < nr; j += nl) {
    int in = -1;
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, j, 5, c, MPI_STATUS_IGNORE));
    CHECK(in == remote[j], "%s: remote rank %d sent %d, expected %d", what, j, in, remote[j]);
  }
  CHECK_MPI(MPI_Wait(&sent, MPI_STATUS_IGNORE));
}

/* MPI_Comm_split and MPI_Comm_create on an intercommunicator (MPI-3.1 6.4.2). */
static void test_split_create(const ic_t* ic) {
  int local[16], remote[16], nl = 0, nr = 0;
  MPI_Comm sub;

  /* By the parity of the rank, keys reversed: the ranks of one parity from the highest down on
   * both sides; a parity the remote group lacks gives MPI_COMM_NULL. */
  const int parity = ic->lrank % 2;
  CHECK_MPI(MPI_Comm_split(ic->comm, parity, -ic->lrank, &sub));
  for (int r = ic->lsize - 1; r >= 0; --r) {
    if (r % 2 == parity) local[nl++] = ic->local[r];
  }
  for (int r = ic->rsize - 1; r >= 0; --r) {
    if (r % 2 == parity) remote[nr++] = ic->remote[r];
  }
  if (nr == 0) {
    CHECK(sub == MPI_COMM_NULL,
          "split by parity %d: the remote group has none, yet a "
          "communicator came back",
          parity);
  } else {
    expect_intercomm(sub, local, nl, remote, nr, "split by parity");
    CHECK_MPI(MPI_Comm_free(&sub));
  }

  /* Group 1's rank 0 stays out (MPI_UNDEFINED); everyone else in one color, by rank. */
  const int out = ic->color == 1 && ic->lrank == 0;
  CHECK_MPI(MPI_Comm_split(ic->comm, out ? MPI_UNDEFINED : 3, 0, &sub));
  const int first_local = ic->color == 1, first_remote = ic->color == 0;
  nl = ic->lsize - first_local;
  nr = ic->rsize - first_remote;
  if (out || nl == 0 || nr == 0) {
    CHECK(sub == MPI_COMM_NULL, "split with MPI_UNDEFINED: a communicator came back");
  } else {
    expect_intercomm(sub, ic->local + first_local, nl, ic->remote + first_remote, nr,
                     "split without group 1's rank 0");
    CHECK_MPI(MPI_Comm_free(&sub));
  }

  /* MPI_Comm_create with each group in reverse order, without its rank 0 (MPICH's mtest.c does
   * the same in order). */
  MPI_Group g, part;
  CHECK_MPI(MPI_Comm_group(ic->comm, &g));
  int ranks[16];
  for (int i = 0; i < ic->lsize - 1; ++i) ranks[i] = ic->lsize - 1 - i;
  CHECK_MPI(MPI_Group_incl(g, ic->lsize - 1, ranks, &part));
  CHECK_MPI(MPI_Comm_create(ic->comm, part, &sub));
  nl = nr = 0;
  for (int r = ic->lsize - 1; r >= 1; --r) local[nl++] = ic->local[r];
  for (int r = ic->rsize - 1; r >= 1; --r) remote[nr++] = ic->remote[r];
  if (ic->lrank == 0 || nr == 0) {
    CHECK(sub == MPI_COMM_NULL, "create without rank 0: a communicator came back");
  } else {
    expect_intercomm(sub, local, nl, remote, nr, "create without rank 0, reversed");
    CHECK_MPI(MPI_Comm_free(&sub));
  }
  CHECK_MPI(MPI_Group_free(&part));

  /* Group 1 passes the empty group: nobody gets a communicator. */
  CHECK_MPI(MPI_Comm_create(ic->comm, ic->color == 1 ? MPI_GROUP_EMPTY : g, &sub));
  CHECK(sub == MPI_COMM_NULL, "create with an empty remote group: a communicator came back");
  /* The whole local group: the same groups as the intercommunicator. */
  CHECK_MPI(MPI_Comm_create(ic->comm, g, &sub));
  expect_intercomm(sub, ic->local, ic->lsize, ic->remote, ic->rsize, "create of all");
  CHECK_MPI(MPI_Comm_free(&sub));

  /* A group naming a process outside the local group. */
  MPI_Group remote_group;
  CHECK_MPI(MPI_Comm_remote_group(ic->comm, &remote_group));
  CHECK_ERR(MPI_Comm_create(ic->comm, remote_group, &sub), MPI_ERR_GROUP);
  CHECK_MPI(MPI_Group_free(&remote_group));
  CHECK_MPI(MPI_Group_free(&g));

  /* MPI_Comm_idup of an intercommunicator, used at once. */
  MPI_Request r;
  CHECK_MPI(MPI_Comm_idup(ic->comm, &sub, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  expect_intercomm(sub, ic->local, ic->lsize, ic->remote, ic->rsize, "idup");
  CHECK_MPI(MPI_Comm_free(&sub));
}

/* What collectives on an intercommunicator refuse. */
static void test_refusals(const ic_t* ic) {
  int value_in = 1, result = 0;
  MPI_Request r = MPI_REQUEST_NULL;
  CHECK_ERR(MPI_Scan(&value_in, &result, 1, MPI_INT, MPI_SUM, ic->comm), MPI_ERR_COMM);
  CHECK_ERR(MPI_Exscan(&value_in, &result, 1, MPI_INT, MPI_SUM, ic->comm), MPI_ERR_COMM);
  CHECK_ERR(MPI_Iscan(&value_in, &result, 1, MPI_INT, MPI_SUM, ic->comm, &r), MPI_ERR_COMM);
  CHECK_ERR(MPI_Iexscan(&value_in, &result, 1, MPI_INT, MPI_SUM, ic->comm, &r), MPI_ERR_COMM);
  CHECK_ERR(MPI_Bcast(&value_in, 1, MPI_INT, ic->rsize, ic->comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Reduce(&value_in, &result, 1, MPI_INT, MPI_SUM, -7, ic->comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_SUM, ic->comm), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, &result, 1, MPI_INT, ic->comm), MPI_ERR_BUFFER);
  MPI_Comm none = MPI_COMM_NULL;
  CHECK_ERR(MPI_Comm_split_type(ic->comm, 12345, 0, MPI_INFO_NULL, &none), MPI_ERR_ARG);
  CHECK(none == MPI_COMM_NULL, "a refused split_type set the handle");
}

/* MPI_Comm_split_type on an intercommunicator splits the local group (as MPICH does): each process
 * gets an intracommunicator of the processes of its own group that share its memory (those of its
 * host, but those that pass MPI_UNDEFINED), ordered by key, then by rank in the group. */
static void test_split_type(const ic_t* ic) {
  MPI_Comm shared = MPI_COMM_NULL;
  /* Keys reversed: the local group's members on this host, from its highest rank down. */
  CHECK_MPI(
      MPI_Comm_split_type(ic->comm, MPI_COMM_TYPE_SHARED, -ic->lrank, MPI_INFO_NULL, &shared));
  CHECK(shared != MPI_COMM_NULL, "split_type shared of an intercommunicator gave MPI_COMM_NULL");
  int flag = 1, got = -1;
  CHECK_MPI(MPI_Comm_test_inter(shared, &flag));
  CHECK(flag == 0, "split_type of an intercommunicator gave an intercommunicator");
  int expected[64], n = 0, my_position = -1, want = 0;
  for (int r = ic->lsize - 1; r >= 0; --r) {
    if (host_of[ic->local[r]] != host_of[me]) continue;
    if (r == ic->lrank) my_position = n;
    want += ic->local[r];
    expected[n++] = ic->local[r];
  }
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(shared, &g));
  expect_group(g, expected, n, "split_type shared of an intercommunicator, keys reversed");
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_rank(shared, &got));
  CHECK(got == my_position, "split_type: rank %d, expected %d", got, my_position);
  /* A working communicator: the sum of its members' world ranks. */
  int sum = -1;
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, shared));
  CHECK(sum == want, "allreduce on the split_type of an intercommunicator: %d, expected %d", sum,
        want);
  CHECK_MPI(MPI_Comm_free(&shared));

  /* The local group's rank 0 stays out (MPI_UNDEFINED) on either side. */
  const int out = ic->lrank == 0;
  CHECK_MPI(MPI_Comm_split_type(ic->comm, out ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &shared));
  if (out) {
    CHECK(shared == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
  } else {
    n = 0;
    for (int r = 1; r < ic->lsize; ++r) {
      if (host_of[ic->local[r]] == host_of[me]) expected[n++] = ic->local[r];
    }
    CHECK_MPI(MPI_Comm_group(shared, &g));
    expect_group(g, expected, n, "split_type without the local rank 0");
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Comm_free(&shared));
  }
}

static void collectives(const ic_t* ic) {
  for (int nb = 0; nb < 2; ++nb) {
    test_bcast(ic, 5, nb);
    test_bcast(ic, 40000, nb); /* beyond the eager limit */
    test_reduce(ic, nb);
    test_allreduce(ic, nb);
    test_reduce_scatter(ic, nb);
    test_gather(ic, nb);
    test_scatter(ic, nb);
    test_allgather(ic, nb);
    test_alltoall(ic, nb);
    if (nb) {
      MPI_Request r;
      CHECK_MPI(MPI_Ibarrier(ic->comm, &r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Barrier(ic->comm));
    }
  }
  test_ibarrier(ic);
  test_overlap(ic);
  test_refusals(ic);
  test_split_create(ic);
  test_split_type(ic);
}

/* The merge of `inter` is an intracommunicator of `first` then `second` (world ranks). */
static void expect_merged(MPI_Comm merged, const int* first, int n1, const int* second, int n2,
                          const char* what) {
  int flag = 1, got = -1, rank = -1;
  CHECK_MPI(MPI_Comm_test_inter(merged, &flag));
  CHECK(flag == 0, "%s: the merge is an intercommunicator", what);
  CHECK_MPI(MPI_Comm_size(merged, &got));
  CHECK(got == n1 + n2, "%s: size %d, expected %d", what, got, n1 + n2);
  int* order = malloc(sizeof(int) * (size_t)(n1 + n2));
  memcpy(order, first, sizeof(int) * (size_t)n1);
  memcpy(order + n1, second, sizeof(int) * (size_t)n2);
  int my_rank = -1;
  for (int i = 0; i < n1 + n2; ++i) {
    if (order[i] == me) my_rank = i;
  }
  CHECK_MPI(MPI_Comm_rank(merged, &rank));
  CHECK(rank == my_rank, "%s: rank %d, expected %d", what, rank, my_rank);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(merged, &g));
  expect_group(g, order, n1 + n2, what);
  CHECK_MPI(MPI_Group_free(&g));
  /* Collectives work on it: everyone's world rank gathered in merged rank order, and a sum. */
  int* all = malloc(sizeof(int) * (size_t)(n1 + n2));
  CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, merged));
  for (int i = 0; i < n1 + n2; ++i) {
    CHECK(all[i] == order[i], "%s: allgather[%d] = %d, expected %d", what, i, all[i], order[i]);
  }
  int sum = -1;
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == size * (size - 1) / 2, "%s: allreduce %d, expected %d", what, sum,
        size * (size - 1) / 2);
  free(order);
  free(all);
}

static void scenario(int interleaved, int tag) {
  const int color = interleaved ? me % 2 : (me < size / 2 ? 0 : 1);
  int* mine = malloc(sizeof(int) * (size_t)size);
  int* remote = malloc(sizeof(int) * (size_t)size);
  const int lsize = members_of(interleaved, color, mine);
  const int rsize = members_of(interleaved, 1 - color, remote);
  int lrank = -1;
  for (int i = 0; i < lsize; ++i) {
    if (mine[i] == me) lrank = i;
  }

  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote[0], tag, &inter));

  int flag = 0, got = -1;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag == 1, "test_inter of an intercommunicator: %d", flag);
  CHECK_MPI(MPI_Comm_size(inter, &got));
  CHECK(got == lsize, "local size %d, expected %d", got, lsize);
  CHECK_MPI(MPI_Comm_rank(inter, &got));
  CHECK(got == lrank, "rank %d, expected %d", got, lrank);
  CHECK_MPI(MPI_Comm_remote_size(inter, &got));
  CHECK(got == rsize, "remote size %d, expected %d", got, rsize);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(inter, &g));
  expect_group(g, mine, lsize, "local group");
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_remote_group(inter, &g));
  expect_group(g, remote, rsize, "remote group");
  CHECK_MPI(MPI_Group_free(&g));

  traffic(inter, MPI_COMM_NULL, remote, rsize, lrank, lsize, 1000);

  /* A duplicate: the same groups, its own messages. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(inter, &dup));
  CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
  CHECK(flag == 1, "test_inter of a duplicate: %d", flag);
  CHECK_MPI(MPI_Comm_remote_size(dup, &got));
  CHECK(got == rsize, "duplicate: remote size %d, expected %d", got, rsize);
  CHECK_MPI(MPI_Comm_compare(inter, dup, &got));
  CHECK(got == MPI_CONGRUENT, "compare(inter, dup) = %d, expected MPI_CONGRUENT", got);
  CHECK_MPI(MPI_Comm_compare(inter, inter, &got));
  CHECK(got == MPI_IDENT, "compare(inter, inter) = %d", got);
  CHECK_MPI(MPI_Comm_compare(inter, local, &got));
  CHECK(got == MPI_UNEQUAL, "compare(inter, local) = %d", got);
  traffic(inter, dup, remote, rsize, lrank, lsize, 2000);
  traffic(dup, inter, remote, rsize, lrank, lsize, 3000);

  /* Merges: the side that says high = 0 first, then the other way round; with the same high on
   * both sides, the group of the lower world rank (0) first. */
  const int* g0 = color == 0 ? mine : remote;
  const int* g1 = color == 0 ? remote : mine;
  const int n0 = color == 0 ? lsize : rsize, n1 = color == 0 ? rsize : lsize;
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, color, &merged));
  expect_merged(merged, g0, n0, g1, n1, "merge, group 0 low");
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK(merged == MPI_COMM_NULL, "free left the handle set");
  CHECK_MPI(MPI_Intercomm_merge(dup, 1 - color, &merged));
  expect_merged(merged, g1, n1, g0, n0, "merge of the duplicate, group 1 low");
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Intercomm_merge(inter, 1, &merged));
  expect_merged(merged, g0, n0, g1, n1, "merge, both high");
  /* The merged communicator and the intercommunicator work side by side. */
  traffic(inter, MPI_COMM_NULL, remote, rsize, lrank, lsize, 4000);
  CHECK_MPI(MPI_Comm_free(&merged));

  /* Collectives, split and create, on the intercommunicator and (fewer) on its duplicate. */
  const ic_t ic = {inter, color, lrank, lsize, rsize, mine, remote};
  collectives(&ic);
  const ic_t ic_dup = {dup, color, lrank, lsize, rsize, mine, remote};
  test_allreduce(&ic_dup, 1);
  test_alltoall(&ic_dup, 0);

  /* What an intercommunicator refuses. */
  int datum = 1;
  MPI_Comm none = MPI_COMM_NULL;
  int dims[1] = {lsize}, periods[1] = {0};
  CHECK_ERR(MPI_Cart_create(inter, 1, dims, periods, 0, &none), MPI_ERR_COMM);
  CHECK(none == MPI_COMM_NULL, "a refused constructor set the handle");
  CHECK_ERR(MPI_Send(&datum, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK);
  CHECK_ERR(MPI_Comm_remote_size(local, &got), MPI_ERR_COMM);
  CHECK_ERR(MPI_Comm_remote_group(local, &g), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_merge(local, 0, &none), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, remote[0], tag, &none), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, remote[0], tag, &none),
            MPI_ERR_RANK);

  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK(inter == MPI_COMM_NULL, "free left the handle set");

  /* A leader's bad peer arguments fail on the leader with their class and on the rest of its group
   * without hanging (group 0 only: the other group would wait for its partner forever). */
  if (color == 0) {
    int code = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, size, tag, &none);
    int cls = -1;
    MPI_Error_class(code, &cls);
    if (lrank == 0) {
      CHECK(cls == MPI_ERR_RANK, "bad remote leader on the leader: class %d", cls);
    } else {
      CHECK(code != MPI_SUCCESS, "bad remote leader: the leader's group succeeded");
    }
    code = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, me, tag, &none);
    CHECK(code != MPI_SUCCESS, "the leader as its own remote leader succeeded");
    code = MPI_Intercomm_create(local, 0, MPI_COMM_NULL, remote[0], tag, &none);
    MPI_Error_class(code, &cls);
    if (lrank == 0) CHECK(cls == MPI_ERR_COMM, "null peer_comm on the leader: class %d", cls);
    CHECK(none == MPI_COMM_NULL, "a failed creation set the handle");
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Comm_free(&local));
  free(mine);
  free(remote);
}

/* Creations and frees in a row, each taking two context pairs (the intercommunicator and its local
 * group's): more than there are pairs, so this fails unless freeing returns them. */
static void churn(void) {
  const int color = me < size / 2 ? 0 : 1;
  const int remote_leader = color == 0 ? size / 2 : 0;
  MPI_Comm local;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
  for (int i = 0; i < 1100; ++i) {
    MPI_Comm inter;
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 77, &inter));
    CHECK_MPI(MPI_Comm_free(&inter));
  }
  CHECK_MPI(MPI_Comm_free(&local));
}

/* Pairs of processes, each its own group (local_comm MPI_COMM_SELF): ranks 2k and 2k + 1, the last
 * one of an odd job left out; the pair's merge, an idup, and a message each way. */
static void pairs(void) {
  const int peer = me % 2 == 0 ? me + 1 : me - 1;
  if (peer >= size) return;
  MPI_Comm inter, copy, merged;
  CHECK_MPI(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, peer, 21, &inter));
  int got = -1;
  CHECK_MPI(MPI_Comm_size(inter, &got));
  CHECK(got == 1, "pair: local size %d", got);
  CHECK_MPI(MPI_Comm_remote_size(inter, &got));
  CHECK(got == 1, "pair: remote size %d", got);
  MPI_Request r;
  CHECK_MPI(MPI_Comm_idup(inter, &copy, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  int in = -1;
  MPI_Status s;
  CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, copy, &s));
  CHECK(in == peer && s.MPI_SOURCE == 0, "pair: got %d from %d, expected %d from 0", in,
        s.MPI_SOURCE, peer);
  CHECK_MPI(MPI_Intercomm_merge(copy, me > peer, &merged));
  CHECK_MPI(MPI_Comm_rank(merged, &got));
  CHECK(got == (me > peer), "pair: merged rank %d", got);
  int sum = -1;
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == me + peer, "pair: sum %d, expected %d", sum, me + peer);
  CHECK_MPI(MPI_Comm_free(&merged));
  /* Collectives between the two processes. */
  const int local[1] = {me}, remote[1] = {peer};
  CHECK_MPI(MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN));
  const ic_t ic = {copy, me > peer, 0, 1, 1, local, remote};
  collectives(&ic);
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&inter));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  CHECK(size <= 64, "this test runs at most 64 ranks, not %d", size);
  {
    MPI_Comm host;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
    int lowest = -1;
    CHECK_MPI(MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, host));
    CHECK_MPI(MPI_Allgather(&lowest, 1, MPI_INT, host_of, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_free(&host));
  }
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &interval_type));
  CHECK_MPI(MPI_Type_commit(&interval_type));
  CHECK_MPI(MPI_Op_create(join_intervals, 0, &interval_op));

  /* Intracommunicators are not intercommunicators. */
  int flag = 1, got = -1;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "test_inter(MPI_COMM_WORLD) = %d", flag);
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_SELF, &flag));
  CHECK(flag == 0, "test_inter(MPI_COMM_SELF) = %d", flag);
  CHECK_ERR(MPI_Comm_remote_size(MPI_COMM_WORLD, &got), MPI_ERR_COMM);
  CHECK_ERR(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
  MPI_Comm none = MPI_COMM_NULL;
  CHECK_ERR(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &none), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_create(MPI_COMM_WORLD, size, MPI_COMM_WORLD, 0, 0, &none), MPI_ERR_RANK);
  CHECK_ERR(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 0, &none), MPI_ERR_COMM);

  if (size >= 2) {
    scenario(0, 11);
    scenario(1, 12);
    pairs();
    churn();
  }

  CHECK_MPI(MPI_Op_free(&interval_op));
  CHECK_MPI(MPI_Type_free(&interval_type));
  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
