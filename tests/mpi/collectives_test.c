/* Data-movement collectives: barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v,w),
 * on MPI_COMM_WORLD and on a split communicator (ranks reversed), with every root, counts 0, 1,
 * odd and uneven (zero blocks included), MPI_IN_PLACE wherever MPI allows it, a non-contiguous
 * datatype on one side against MPI_INT on the other, a large bcast and allgather, and the error
 * classes of bad arguments. Every result is compared with what the test computes itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size; /* in the communicator under test */
static const char* where = "";
/* MPI_INT with an extent of two ints: element i of a buffer is at index 2 * i, and the ints
 * between stay untouched. */
static MPI_Datatype strided;

#define HOLE (-77)
#define EMPTY (-1)

static int value(int from, int to, int i) {
  return from * 1000003 + to * 1009 + i;
}

static int* ints(size_t n, int fill) {
  int* v = malloc(sizeof(int) * (n ? n : 1));
  CHECK(v != NULL, "out of memory");
  for (size_t i = 0; i < n; ++i) v[i] = fill;
  return v;
}

static void expect_block(const int* v, int n, int step, int from, int to, const char* what,
                         int root, int count) {
  for (int i = 0; i < n; ++i) {
    CHECK(v[i * step] == value(from, to, i),
          "%s %s root %d count %d: element %d from rank %d is %d, expected %d", where, what, root,
          count, i, from, v[i * step], value(from, to, i));
    if (step == 2) {
      CHECK(v[i * step + 1] == HOLE,
            "%s %s root %d count %d: the hole after element %d was written", where, what, root,
            count, i);
    }
  }
}

/* ---- bcast ---- */

static void bcast(void) {
  static const int counts[] = {0, 1, 7, 1000};
  for (int root = 0; root < size; ++root) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
      const int n = counts[k];
      int* v = ints((size_t)n, EMPTY);
      if (rank == root)
        for (int i = 0; i < n; ++i) v[i] = value(root, 0, i);
      CHECK_MPI(MPI_Bcast(v, n, MPI_INT, root, MPI_COMM_WORLD));
      expect_block(v, n, 1, root, 0, "bcast", root, n);
      free(v);
    }
  }
  /* The root sends a strided type, the others receive ints; then the other way round. */
  for (int way = 0; way < 2; ++way) {
    const int root = way == 0 ? size - 1 : 0, n = 13;
    const int strided_side = way == 0 ? rank == root : rank != root;
    int* v = ints((size_t)(2 * n), strided_side ? HOLE : EMPTY);
    if (rank == root)
      for (int i = 0; i < n; ++i) v[strided_side ? 2 * i : i] = value(root, 0, i);
    CHECK_MPI(MPI_Bcast(v, n, strided_side ? strided : MPI_INT, root, MPI_COMM_WORLD));
    expect_block(v, n, strided_side ? 2 : 1, root, 0, "bcast strided", root, n);
    free(v);
  }
}

/* The same on any communicator. */
static void bcast_on(MPI_Comm comm) {
  static const int counts[] = {0, 1, 7};
  for (int root = 0; root < size; ++root) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
      const int n = counts[k];
      int* v = ints((size_t)n, EMPTY);
      if (rank == root)
        for (int i = 0; i < n; ++i) v[i] = value(root, 1, i);
      CHECK_MPI(MPI_Bcast(v, n, MPI_INT, root, comm));
      expect_block(v, n, 1, root, 1, "bcast", root, n);
      free(v);
    }
  }
}

static void bcast_large(MPI_Comm comm) {
  const int n = 1 << 20; /* 4 MiB */
  int* v = ints((size_t)n, EMPTY);
  for (int pass = 0; pass < 2; ++pass) {
    const int root = pass == 0 ? 0 : size - 1;
    for (int i = 0; i < n; ++i) v[i] = rank == root ? value(root, 2, i) : EMPTY;
    CHECK_MPI(MPI_Bcast(v, n, MPI_INT, root, comm));
    expect_block(v, n, 1, root, 2, "large bcast", root, n);
  }
  /* The same buffer broadcast again and again with new contents each time, at 256 KiB, 512 KiB
   * (the assisted rendezvous starts there) and one int beyond: a receiver that kept the previous
   * round's data, or took its copy before the root's new data was in place, fails. */
  static const int repeated[] = {1 << 16, 1 << 17, (1 << 17) + 1};
  for (size_t k = 0; k < sizeof repeated / sizeof repeated[0]; ++k) {
    const int m = repeated[k];
    for (int round = 0; round < 3; ++round) {
      const int root = round == 2 ? size - 1 : 0;
      for (int i = 0; i < m; ++i) v[i] = rank == root ? value(root, 3 + round, i) : -2 - round;
      CHECK_MPI(MPI_Bcast(v, m, MPI_INT, root, comm));
      expect_block(v, m, 1, root, 3 + round, "repeated bcast", root, m);
    }
  }
  free(v);
}

/* ---- gather / gatherv ---- */

static void gather(MPI_Comm comm) {
  static const int counts[] = {0, 1, 7};
  for (int root = 0; root < size; ++root) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
      const int n = counts[k];
      /* variant 0: ints; 1: in place; 2: strided receive; 3: strided send */
      for (int variant = 0; variant < 4; ++variant) {
        int* send = ints((size_t)(2 * n), HOLE);
        for (int i = 0; i < n; ++i) send[variant == 3 ? 2 * i : i] = value(rank, root, i);
        const int step = variant == 2 ? 2 : 1;
        int* recv = rank == root ? ints((size_t)(step * size * n), step == 2 ? HOLE : EMPTY) : NULL;
        if (variant == 2 && rank == root)
          for (int i = 0; i < size * n; ++i) recv[2 * i] = EMPTY;
        if (variant == 1 && rank == root)
          for (int i = 0; i < n; ++i) recv[root * n + i] = value(root, root, i);
        const void* sbuf = variant == 1 && rank == root ? MPI_IN_PLACE : send;
        /* The receive arguments mean nothing off the root: pass nothing there. */
        CHECK_MPI(MPI_Gather(sbuf, n, variant == 3 ? strided : MPI_INT, recv, rank == root ? n : 0,
                             rank == root ? (variant == 2 ? strided : MPI_INT) : MPI_DATATYPE_NULL,
                             root, comm));
        if (rank == root)
          for (int r = 0; r < size; ++r)
            expect_block(recv + step * r * n, n, step, r, root, "gather", root, n);
        free(send);
        free(recv);
      }
    }
  }
}

/* Uneven blocks (some empty), placed in reverse rank order with a gap of one after each. */
static int uneven(int r, int salt) {
  return (r * 3 + salt) % 5;
}
static int layout(int salt, int* counts, int* displs) {
  int at = 0;
  for (int r = size - 1; r >= 0; --r) {
    counts[r] = uneven(r, salt);
    displs[r] = at;
    at += counts[r] + 1;
  }
  return at;
}

static void gatherv(MPI_Comm comm) {
  int* counts = ints((size_t)size, 0);
  int* displs = ints((size_t)size, 0);
  for (int root = 0; root < size; ++root) {
    for (int salt = 0; salt < 3; ++salt) {
      const int total = layout(salt, counts, displs);
      const int mine = uneven(rank, salt);
      for (int variant = 0; variant < 4; ++variant) {
        const int step = variant == 2 ? 2 : 1;
        int* send = ints((size_t)(2 * mine), HOLE);
        for (int i = 0; i < mine; ++i) send[variant == 3 ? 2 * i : i] = value(rank, root, i);
        int* recv = ints((size_t)(step * total), step == 2 ? HOLE : EMPTY);
        if (variant == 2)
          for (int i = 0; i < total; ++i) recv[2 * i] = EMPTY;
        if (variant == 1 && rank == root)
          for (int i = 0; i < mine; ++i) recv[displs[root] + i] = value(root, root, i);
        const void* sbuf = variant == 1 && rank == root ? MPI_IN_PLACE : send;
        CHECK_MPI(MPI_Gatherv(sbuf, mine, variant == 3 ? strided : MPI_INT, recv, counts, displs,
                              variant == 2 ? strided : MPI_INT, root, comm));
        if (rank == root) {
          for (int r = 0; r < size; ++r) {
            expect_block(recv + step * displs[r], counts[r], step, r, root, "gatherv", root,
                         counts[r]);
            CHECK(recv[step * (displs[r] + counts[r])] == EMPTY,
                  "%s gatherv root %d: the gap after rank %d's block was written", where, root, r);
          }
        }
        free(send);
        free(recv);
      }
    }
  }
  free(counts);
  free(displs);
}

/* ---- scatter / scatterv ---- */

static void scatter(MPI_Comm comm) {
  static const int counts[] = {0, 1, 7};
  for (int root = 0; root < size; ++root) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
      const int n = counts[k];
      /* variant 0: ints; 1: in place; 2: strided send; 3: strided receive */
      for (int variant = 0; variant < 4; ++variant) {
        const int step = variant == 2 ? 2 : 1;
        int* send = NULL;
        if (rank == root) {
          send = ints((size_t)(step * size * n), HOLE);
          for (int r = 0; r < size; ++r)
            for (int i = 0; i < n; ++i) send[step * (r * n + i)] = value(root, r, i);
        }
        int* recv = ints((size_t)(2 * n), variant == 3 ? HOLE : EMPTY);
        if (variant == 3)
          for (int i = 0; i < n; ++i) recv[2 * i] = EMPTY;
        void* rbuf = variant == 1 && rank == root ? MPI_IN_PLACE : recv;
        CHECK_MPI(MPI_Scatter(send, rank == root ? n : 0,
                              rank == root ? (variant == 2 ? strided : MPI_INT) : MPI_DATATYPE_NULL,
                              rbuf, n, variant == 3 ? strided : MPI_INT, root, comm));
        if (variant == 1 && rank == root) {
          for (int r = 0; r < size; ++r)
            expect_block(send + r * n, n, 1, root, r, "scatter in place", root, n);
          CHECK(recv[0] == EMPTY || n == 0, "%s scatter in place wrote the receive buffer", where);
        } else {
          expect_block(recv, n, variant == 3 ? 2 : 1, root, rank, "scatter", root, n);
        }
        free(send);
        free(recv);
      }
    }
  }
}

static void scatterv(MPI_Comm comm) {
  int* counts = ints((size_t)size, 0);
  int* displs = ints((size_t)size, 0);
  for (int root = 0; root < size; ++root) {
    for (int salt = 0; salt < 3; ++salt) {
      const int total = layout(salt, counts, displs);
      const int mine = uneven(rank, salt);
      for (int variant = 0; variant < 4; ++variant) {
        const int step = variant == 2 ? 2 : 1;
        int* send = ints((size_t)(step * total), HOLE);
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < counts[r]; ++i) send[step * (displs[r] + i)] = value(root, r, i);
        int* recv = ints((size_t)(2 * mine), variant == 3 ? HOLE : EMPTY);
        if (variant == 3)
          for (int i = 0; i < mine; ++i) recv[2 * i] = EMPTY;
        void* rbuf = variant == 1 && rank == root ? MPI_IN_PLACE : recv;
        CHECK_MPI(MPI_Scatterv(send, counts, displs, variant == 2 ? strided : MPI_INT, rbuf, mine,
                               variant == 3 ? strided : MPI_INT, root, comm));
        if (!(variant == 1 && rank == root))
          expect_block(recv, mine, variant == 3 ? 2 : 1, root, rank, "scatterv", root, mine);
        free(send);
        free(recv);
      }
    }
  }
  free(counts);
  free(displs);
}

/* ---- allgather / allgatherv ---- */

static void allgather(MPI_Comm comm) {
  static const int counts[] = {0, 1, 7, 300};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    const int n = counts[k];
    for (int variant = 0; variant < 4; ++variant) {
      const int step = variant == 2 ? 2 : 1;
      int* send = ints((size_t)(2 * n), HOLE);
      for (int i = 0; i < n; ++i) send[variant == 3 ? 2 * i : i] = value(rank, 3, i);
      int* recv = ints((size_t)(step * size * n), step == 2 ? HOLE : EMPTY);
      if (variant == 2)
        for (int i = 0; i < size * n; ++i) recv[2 * i] = EMPTY;
      if (variant == 1)
        for (int i = 0; i < n; ++i) recv[rank * n + i] = value(rank, 3, i);
      CHECK_MPI(MPI_Allgather(variant == 1 ? MPI_IN_PLACE : send, n,
                              variant == 3 ? strided : MPI_INT, recv, n,
                              variant == 2 ? strided : MPI_INT, comm));
      for (int r = 0; r < size; ++r)
        expect_block(recv + step * r * n, n, step, r, 3, "allgather", -1, n);
      free(send);
      free(recv);
    }
  }
}

static void allgather_large(MPI_Comm comm) {
  const int n = (1 << 20) / size; /* 4 MiB gathered */
  int* send = ints((size_t)n, 0);
  int* recv = ints((size_t)n * (size_t)size, EMPTY);
  for (int i = 0; i < n; ++i) send[i] = value(rank, 4, i);
  CHECK_MPI(MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, comm));
  for (int r = 0; r < size; ++r)
    expect_block(recv + (size_t)r * n, n, 1, r, 4, "large allgather", -1, n);
  free(send);
  free(recv);
}

static void allgatherv(MPI_Comm comm) {
  int* counts = ints((size_t)size, 0);
  int* displs = ints((size_t)size, 0);
  for (int salt = 0; salt < 4; ++salt) {
    const int total = layout(salt, counts, displs);
    const int mine = uneven(rank, salt);
    for (int variant = 0; variant < 4; ++variant) {
      const int step = variant == 2 ? 2 : 1;
      int* send = ints((size_t)(2 * mine), HOLE);
      for (int i = 0; i < mine; ++i) send[variant == 3 ? 2 * i : i] = value(rank, 5, i);
      int* recv = ints((size_t)(step * total), step == 2 ? HOLE : EMPTY);
      if (variant == 2)
        for (int i = 0; i < total; ++i) recv[2 * i] = EMPTY;
      if (variant == 1)
        for (int i = 0; i < mine; ++i) recv[displs[rank] + i] = value(rank, 5, i);
      CHECK_MPI(MPI_Allgatherv(variant == 1 ? MPI_IN_PLACE : send, mine,
                               variant == 3 ? strided : MPI_INT, recv, counts, displs,
                               variant == 2 ? strided : MPI_INT, comm));
      for (int r = 0; r < size; ++r) {
        expect_block(recv + step * displs[r], counts[r], step, r, 5, "allgatherv", -1, counts[r]);
        CHECK(recv[step * (displs[r] + counts[r])] == EMPTY,
              "%s allgatherv: the gap after rank %d's block was written", where, r);
      }
      free(send);
      free(recv);
    }
  }
  free(counts);
  free(displs);
}

/* ---- alltoall / alltoallv / alltoallw ---- */

static void alltoall(MPI_Comm comm) {
  static const int counts[] = {0, 1, 7, 100};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    const int n = counts[k];
    for (int variant = 0; variant < 4; ++variant) {
      const int sstep = variant == 3 ? 2 : 1, rstep = variant == 2 ? 2 : 1;
      int* send = ints((size_t)(sstep * size * n), HOLE);
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i) send[sstep * (r * n + i)] = value(rank, r, i);
      int* recv = ints((size_t)(rstep * size * n), rstep == 2 ? HOLE : EMPTY);
      if (variant == 2)
        for (int i = 0; i < size * n; ++i) recv[2 * i] = EMPTY;
      if (variant == 1) memcpy(recv, send, sizeof(int) * (size_t)(size * n));
      CHECK_MPI(MPI_Alltoall(variant == 1 ? MPI_IN_PLACE : send, n,
                             variant == 3 ? strided : MPI_INT, recv, n,
                             variant == 2 ? strided : MPI_INT, comm));
      for (int r = 0; r < size; ++r)
        expect_block(recv + rstep * r * n, n, rstep, r, rank, "alltoall", -1, n);
      free(send);
      free(recv);
    }
  }
}

/* How many ints rank `from` sends rank `to` in the v and w forms. */
static int pair_count(int from, int to, int salt) {
  return (from + 2 * to + salt) % 4;
}

static void alltoallv(MPI_Comm comm) {
  int* scounts = ints((size_t)size, 0);
  int* sdispls = ints((size_t)size, 0);
  int* rcounts = ints((size_t)size, 0);
  int* rdispls = ints((size_t)size, 0);
  for (int salt = 0; salt < 3; ++salt) {
    /* Send blocks packed in rank order; receive blocks in reverse order with gaps. */
    int stotal = 0, rtotal = 0;
    for (int r = 0; r < size; ++r) {
      scounts[r] = pair_count(rank, r, salt);
      sdispls[r] = stotal;
      stotal += scounts[r];
    }
    for (int r = size - 1; r >= 0; --r) {
      rcounts[r] = pair_count(r, rank, salt);
      rdispls[r] = rtotal;
      rtotal += rcounts[r] + 1;
    }
    for (int variant = 0; variant < 4; ++variant) {
      const int sstep = variant == 3 ? 2 : 1, rstep = variant == 2 ? 2 : 1;
      int* send = ints((size_t)(sstep * stotal), HOLE);
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < scounts[r]; ++i) send[sstep * (sdispls[r] + i)] = value(rank, r, i);
      int* recv = ints((size_t)(rstep * rtotal), rstep == 2 ? HOLE : EMPTY);
      if (variant == 2)
        for (int i = 0; i < rtotal; ++i) recv[2 * i] = EMPTY;
      if (variant == 1) {
        /* MPI_IN_PLACE needs sendcount(me -> r) == recvcount(r -> me): use a symmetric layout. */
        int* sym = ints((size_t)size, 0);
        int* symd = ints((size_t)size, 0);
        int at = 0;
        for (int r = size - 1; r >= 0; --r) {
          sym[r] = (rank + r + salt) % 3;
          symd[r] = at;
          at += sym[r] + 1;
        }
        int* buf = ints((size_t)at, EMPTY);
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < sym[r]; ++i) buf[symd[r] + i] = value(rank, r, i);
        CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, sym, symd,
                                MPI_INT, comm));
        for (int r = 0; r < size; ++r) {
          expect_block(buf + symd[r], sym[r], 1, r, rank, "alltoallv in place", -1, sym[r]);
          CHECK(buf[symd[r] + sym[r]] == EMPTY, "%s alltoallv in place: gap after %d written",
                where, r);
        }
        free(sym);
        free(symd);
        free(buf);
      } else {
        CHECK_MPI(MPI_Alltoallv(send, scounts, sdispls, variant == 3 ? strided : MPI_INT, recv,
                                rcounts, rdispls, variant == 2 ? strided : MPI_INT, comm));
        for (int r = 0; r < size; ++r) {
          expect_block(recv + rstep * rdispls[r], rcounts[r], rstep, r, rank, "alltoallv", -1,
                       rcounts[r]);
          CHECK(recv[rstep * (rdispls[r] + rcounts[r])] == EMPTY,
                "%s alltoallv: the gap after rank %d's block was written", where, r);
        }
      }
      free(send);
      free(recv);
    }
  }
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
}

/* Alltoallw: odd peers get strided data, even peers ints; displacements in bytes. */
static void alltoallw(MPI_Comm comm) {
  int* scounts = ints((size_t)size, 0);
  int* sdispls = ints((size_t)size, 0);
  int* rcounts = ints((size_t)size, 0);
  int* rdispls = ints((size_t)size, 0);
  MPI_Datatype* stypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
  MPI_Datatype* rtypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
  int stotal = 0, rtotal = 0;
  for (int r = 0; r < size; ++r) {
    scounts[r] = pair_count(rank, r, 1);
    stypes[r] = r % 2 ? strided : MPI_INT;
    sdispls[r] = stotal * (int)sizeof(int);
    stotal += scounts[r] * (r % 2 ? 2 : 1);
    rcounts[r] = pair_count(r, rank, 1);
    rtypes[r] = rank % 2 ? MPI_INT : strided; /* whatever the sender used */
    rdispls[r] = rtotal * (int)sizeof(int);
    rtotal += rcounts[r] * (rank % 2 ? 1 : 2) + 1;
  }
  int* send = ints((size_t)stotal, HOLE);
  int* recv = ints((size_t)rtotal, HOLE);
  for (int r = 0; r < size; ++r) {
    int* block = send + sdispls[r] / (int)sizeof(int);
    for (int i = 0; i < scounts[r]; ++i) block[(r % 2 ? 2 : 1) * i] = value(rank, r, i);
  }
  for (int r = 0; r < size; ++r) {
    int* block = recv + rdispls[r] / (int)sizeof(int);
    for (int i = 0; i < rcounts[r]; ++i) block[(rank % 2 ? 1 : 2) * i] = EMPTY;
  }
  for (int nb = 0; nb < 2; ++nb) {
    for (int r = 0; r < size; ++r) {
      int* block = recv + rdispls[r] / (int)sizeof(int);
      for (int i = 0; i < rcounts[r]; ++i) block[(rank % 2 ? 1 : 2) * i] = EMPTY;
    }
    if (nb) {
      /* The nonblocking form, with the types of the receive freed before it completes. */
      MPI_Request req;
      MPI_Datatype mine;
      CHECK_MPI(MPI_Type_dup(strided, &mine));
      MPI_Datatype* rdup = malloc(sizeof(MPI_Datatype) * (size_t)size);
      for (int r = 0; r < size; ++r) rdup[r] = rank % 2 ? MPI_INT : mine;
      CHECK_MPI(
          MPI_Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rdup, comm, &req));
      CHECK_MPI(MPI_Type_free(&mine));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      free(rdup); /* the arrays, unlike the types, must last until the operation completes */
    } else {
      CHECK_MPI(
          MPI_Alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm));
    }
    for (int r = 0; r < size; ++r) {
      const int* block = recv + rdispls[r] / (int)sizeof(int);
      expect_block(block, rcounts[r], rank % 2 ? 1 : 2, r, rank, nb ? "ialltoallw" : "alltoallw",
                   -1, rcounts[r]);
    }
  }
  /* In place, all ints. */
  int at = 0;
  for (int r = 0; r < size; ++r) {
    rcounts[r] = (rank + r) % 3;
    rtypes[r] = MPI_INT;
    rdispls[r] = at * (int)sizeof(int);
    at += rcounts[r];
  }
  int* buf = ints((size_t)at, EMPTY);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < rcounts[r]; ++i) buf[rdispls[r] / (int)sizeof(int) + i] = value(rank, r, i);
  CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, rcounts, rdispls, rtypes, comm));
  for (int r = 0; r < size; ++r)
    expect_block(buf + rdispls[r] / (int)sizeof(int), rcounts[r], 1, r, rank, "alltoallw in place",
                 -1, rcounts[r]);
  free(buf);
  free(send);
  free(recv);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
  free(stypes);
  free(rtypes);
}

/* ---- errors (every rank makes the same mistake, so none is left waiting) ---- */

static void errors(MPI_Comm comm) {
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  /* Errors without a communicator go to MPI_COMM_WORLD's handler. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int v[4] = {0, 0, 0, 0}, w[64];
  MPI_Request req;
  CHECK_ERR(MPI_Bcast(v, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Bcast(v, 1, MPI_INT, -1, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Bcast(v, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Bcast(NULL, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Bcast(v, 1, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Ibcast(v, 1, MPI_INT, 0, comm, NULL), MPI_ERR_REQUEST);
  CHECK_ERR(MPI_Ibcast(v, 1, MPI_INT, size + 3, comm, &req), MPI_ERR_ROOT);
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_ERR(MPI_Bcast(v, 1, uncommitted, 0, comm), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&uncommitted));
  CHECK_ERR(MPI_Gather(v, 1, MPI_INT, w, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Scatterv(v, NULL, NULL, MPI_INT, w, 1, MPI_INT, -2, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Allgather(v, 2, MPI_INT, w, 1, MPI_INT, comm), MPI_ERR_TRUNCATE);
  CHECK_ERR(MPI_Allgather(v, -1, MPI_INT, w, 1, MPI_INT, comm), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Alltoall(v, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
  int* counts = ints((size_t)size, 1);
  int* displs = ints((size_t)size, 0);
  counts[size - 1] = -3;
  CHECK_ERR(MPI_Allgatherv(v, 1, MPI_INT, w, counts, displs, MPI_INT, comm), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Allgatherv(v, 1, MPI_INT, w, NULL, displs, MPI_INT, comm), MPI_ERR_ARG);
  free(counts);
  free(displs);
  CHECK_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR(MPI_Ibarrier(comm, NULL), MPI_ERR_REQUEST);
  /* Nothing above started a collective: the next ones still match up. */
  v[0] = rank == 0 ? 4242 : 0;
  CHECK_MPI(MPI_Bcast(v, 1, MPI_INT, 0, comm));
  CHECK(v[0] == 4242, "%s bcast after the errors gave %d", where, v[0]);
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void suite(MPI_Comm comm, const char* name) {
  where = name;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  CHECK_MPI(MPI_Barrier(comm));
  bcast_on(comm);
  gather(comm);
  gatherv(comm);
  scatter(comm);
  scatterv(comm);
  allgather(comm);
  allgatherv(comm);
  alltoall(comm);
  alltoallv(comm);
  alltoallw(comm);
  errors(comm);
  CHECK_MPI(MPI_Barrier(comm));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
  CHECK_MPI(MPI_Type_commit(&strided));

  where = "MPI_COMM_WORLD";
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  bcast();
  bcast_large(MPI_COMM_WORLD);
  allgather_large(MPI_COMM_WORLD);
  suite(MPI_COMM_WORLD, "MPI_COMM_WORLD");

  /* Even and odd world ranks apart, in reverse order. */
  int world_rank, world_size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank, &half));
  suite(half, "split communicator");
  CHECK(size == (world_size + 1 - world_rank % 2) / 2, "split size %d", size);
  CHECK(rank == (world_size - 1 - world_rank) / 2, "split rank %d (world rank %d of %d)", rank,
        world_rank, world_size);
  bcast_large(half);
  CHECK_MPI(MPI_Comm_free(&half));
  suite(MPI_COMM_SELF, "MPI_COMM_SELF");

  CHECK_MPI(MPI_Type_free(&strided));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
