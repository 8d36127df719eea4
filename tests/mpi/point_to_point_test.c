/* Point-to-point conformance: every send mode, blocking and nonblocking receives, any-source and
 * any-tag matching, order, probes and matched probes, sendrecv(_replace), MPI_PROC_NULL, status
 * counts, and the error classes of bad arguments. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

static int value(int from, int to, int i) {
  return from * 1000003 + to * 1009 + i;
}

static void fill(int* v, int n, int from, int to) {
  for (int i = 0; i < n; ++i) v[i] = value(from, to, i);
}
static void expect(const int* v, int n, int from, int to, const char* what) {
  for (int i = 0; i < n; ++i) {
    CHECK(v[i] == value(from, to, i), "%s: element %d of %d from rank %d is %d, expected %d", what,
          i, n, from, v[i], value(from, to, i));
  }
}

/* A ring of blocking sends in every mode and size: even ranks send first, odd ranks receive first
 * (so synchronous sends cannot deadlock), sizes cover inline, eager and rendezvous messages. */
static void ring_modes(void) {
  static const int counts[] = {0, 1, 7, 1000, 5000, 300000};
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int* out = malloc(sizeof(int) * 300000);
  int* in = malloc(sizeof(int) * 300000);
  int attached_bytes = 2 * (300000 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  void* attached = malloc((size_t)attached_bytes);
  CHECK_MPI(MPI_Buffer_attach(attached, attached_bytes));
  for (int mode = 0; mode < 3; ++mode) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
      const int n = counts[k];
      fill(out, n, rank, next);
      memset(in, 0xff, sizeof(int) * (size_t)(n + 1 < 300000 ? n + 1 : n));
      MPI_Status st;
      MPI_Request self_recv = MPI_REQUEST_NULL;
      /* Even ranks send first, odd ones receive first; a rank alone posts its receive first. */
      const int send_first = rank % 2 == 0;
      if (size == 1)
        CHECK_MPI(MPI_Irecv(in, n, MPI_INT, prev, 10 + mode, MPI_COMM_WORLD, &self_recv));
      for (int phase = 0; phase < 2; ++phase) {
        if ((phase == 0) == send_first) {
          if (mode == 0) CHECK_MPI(MPI_Send(out, n, MPI_INT, next, 10 + mode, MPI_COMM_WORLD));
          if (mode == 1 && size > 1)
            CHECK_MPI(MPI_Ssend(out, n, MPI_INT, next, 10 + mode, MPI_COMM_WORLD));
          if (mode == 1 && size == 1)
            CHECK_MPI(MPI_Send(out, n, MPI_INT, next, 10 + mode, MPI_COMM_WORLD));
          if (mode == 2) CHECK_MPI(MPI_Bsend(out, n, MPI_INT, next, 10 + mode, MPI_COMM_WORLD));
        } else {
          if (size == 1) {
            CHECK_MPI(MPI_Wait(&self_recv, &st));
          } else {
            CHECK_MPI(MPI_Recv(in, n, MPI_INT, prev, 10 + mode, MPI_COMM_WORLD, &st));
          }
          int got = -1;
          CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
          CHECK(got == n, "mode %d: count %d, expected %d", mode, got, n);
          CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 10 + mode, "source %d tag %d", st.MPI_SOURCE,
                st.MPI_TAG);
          expect(in, n, prev, rank, "ring");
        }
      }
    }
  }
  void* detached = NULL;
  int detached_size = 0;
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
  CHECK(detached == attached && detached_size == attached_bytes, "detach returned %p/%d", detached,
        detached_size);
  free(attached);
  free(out);
  free(in);
}

/* Everybody sends to rank 0, which takes the messages with MPI_ANY_SOURCE and MPI_ANY_TAG. */
static void any_source(void) {
  const int per_rank = 20;
  if (rank != 0) {
    for (int i = 0; i < per_rank; ++i) {
      int v[3] = {rank, i, value(rank, 0, i)};
      CHECK_MPI(MPI_Send(v, 3, MPI_INT, 0, 100 + i, MPI_COMM_WORLD));
    }
    return;
  }
  int next_from[8] = {0};
  for (int k = 0; k < per_rank * (size - 1); ++k) {
    int v[3];
    MPI_Status st;
    CHECK_MPI(MPI_Recv(v, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == v[0], "source %d, message says %d", st.MPI_SOURCE, v[0]);
    /* Messages from one source arrive in the order sent. */
    CHECK(v[1] == next_from[v[0]], "from %d: message %d arrived before %d", v[0], v[1],
          next_from[v[0]]);
    CHECK(st.MPI_TAG == 100 + v[1] && v[2] == value(v[0], 0, v[1]), "tag %d payload %d", st.MPI_TAG,
          v[2]);
    ++next_from[v[0]];
  }
}

/* Receives posted with MPI_ANY_SOURCE and MPI_ANY_TAG, each with room for exactly the message
 * meant for it: messages from one sender match such receives in the order the receives were
 * posted, so the k-th message lands in the k-th receive whatever its tag and size, and completing
 * them with MPI_Waitany / MPI_Testany / MPI_Waitsome in any order must find each one full. Every
 * rank does this with its partner (rank ^ 1, or itself when it has none), once with the receives
 * posted before the messages leave and once with the messages sent before the receives exist.
 * Sizes cover inline, eager and rendezvous messages, and zero bytes. */
static int wildcard_count(int k) {
  static const int counts[] = {40000, 1, 3000, 0, 17, 9000, 64, 20000, 5, 1500, 2, 300};
  return counts[k];
}
static void wildcard_receives_in_order(void) {
  enum { K = 12 };
  const int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
  int* in[K];
  int* out[K];
  MPI_Request recvs[K], sends[K];
  for (int posted_first = 1; posted_first >= 0; --posted_first) {
    for (int k = 0; k < K; ++k) {
      in[k] = malloc(sizeof(int) * (size_t)(wildcard_count(k) + 1));
      out[k] = malloc(sizeof(int) * (size_t)(wildcard_count(k) + 1));
      for (int i = 0; i <= wildcard_count(k); ++i) in[k][i] = -1;
      fill(out[k], wildcard_count(k), rank, k);
    }
    /* The tags are not in posting order: matching must not depend on them. */
    for (int phase = 0; phase < 2; ++phase) {
      if ((phase == 0) == posted_first) {
        for (int k = 0; k < K; ++k)
          CHECK_MPI(MPI_Irecv(in[k], wildcard_count(k), MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &recvs[k]));
      } else {
        for (int k = 0; k < K; ++k)
          CHECK_MPI(MPI_Isend(out[k], wildcard_count(k), MPI_INT, partner, (k * 5) % K + 60,
                              MPI_COMM_WORLD, &sends[k]));
      }
      /* Everyone's first phase is done before anyone's second starts. */
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int done = 0; done < K; ++done) {
      int k = -1;
      MPI_Status st;
      if (done % 3 == 0) {
        CHECK_MPI(MPI_Waitany(K, recvs, &k, &st));
      } else if (done % 3 == 1) {
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Testany(K, recvs, &k, &flag, &st));
      } else {
        int outcount = 0, indices[K];
        MPI_Status sts[K];
        CHECK_MPI(MPI_Waitsome(K, recvs, &outcount, indices, sts));
        CHECK(outcount >= 1, "waitsome completed %d", outcount);
        /* Check all but the first here; the first goes through the common check below. */
        for (int j = 1; j < outcount; ++j) {
          const int kj = indices[j];
          int n = -1;
          CHECK_MPI(MPI_Get_count(&sts[j], MPI_INT, &n));
          CHECK(n == wildcard_count(kj) && sts[j].MPI_SOURCE == partner &&
                    sts[j].MPI_TAG == (kj * 5) % K + 60,
                "posted %s: receive %d got %d ints with tag %d from %d, expected %d with tag %d "
                "from %d",
                posted_first ? "first" : "last", kj, n, sts[j].MPI_TAG, sts[j].MPI_SOURCE,
                wildcard_count(kj), (kj * 5) % K + 60, partner);
          expect(in[kj], n, partner, kj, "wildcard receive");
          CHECK(in[kj][n] == -1, "receive %d wrote beyond its %d ints", kj, n);
        }
        done += outcount - 1;
        k = indices[0];
        st = sts[0];
      }
      CHECK(k >= 0 && k < K && recvs[k] == MPI_REQUEST_NULL, "completion index %d", k);
      int n = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
      CHECK(n == wildcard_count(k) && st.MPI_SOURCE == partner && st.MPI_TAG == (k * 5) % K + 60,
            "posted %s: receive %d got %d ints with tag %d from %d, expected %d with tag %d from "
            "%d",
            posted_first ? "first" : "last", k, n, st.MPI_TAG, st.MPI_SOURCE, wildcard_count(k),
            (k * 5) % K + 60, partner);
      expect(in[k], n, partner, k, "wildcard receive");
      CHECK(in[k][n] == -1, "receive %d wrote beyond its %d ints", k, n);
    }
    CHECK_MPI(MPI_Waitall(K, sends, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; ++k) {
      free(in[k]);
      free(out[k]);
    }
  }
}

/* A token travels the ring three times, each rank taking it with MPI_ANY_SOURCE and blocking
 * receives: the source must be the previous rank, and the token must have been through every rank
 * once per lap (its hop count and the sum of the ranks it visited). */
static void token_ring(void) {
  enum { LAPS = 3 };
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long token[2] = {0, 0}; /* hops, sum of the ranks visited */
  for (int lap = 0; lap < LAPS; ++lap) {
    if (rank == 0) {
      token[0] += 1;
      CHECK_MPI(MPI_Send(token, 2, MPI_LONG, next, 90, MPI_COMM_WORLD));
    }
    MPI_Status st;
    CHECK_MPI(MPI_Recv(token, 2, MPI_LONG, MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == prev, "lap %d: the token came from %d, expected %d", lap, st.MPI_SOURCE,
          prev);
    const long hops = (long)lap * size + (rank == 0 ? size : rank);
    const long sum = (long)lap * size * (size - 1) / 2 +
                     (rank == 0 ? (long)size * (size - 1) / 2 : (long)rank * (rank - 1) / 2);
    CHECK(token[0] == hops && token[1] == sum,
          "lap %d: token (%ld hops, sum %ld), expected (%ld, %ld)", lap, token[0], token[1], hops,
          sum);
    if (rank != 0) {
      token[0] += 1;
      token[1] += rank;
      CHECK_MPI(MPI_Send(token, 2, MPI_LONG, next, 90, MPI_COMM_WORLD));
    }
  }
}

/* Tags select: messages taken in another order than sent; same tag keeps its order. */
static void tags_and_order(void) {
  if (size < 2 || rank > 1) return;
  if (rank == 0) {
    for (int i = 0; i < 6; ++i) {
      int v = i;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, i % 3, MPI_COMM_WORLD));
    }
  } else {
    /* tag 2 first (messages 2, 5), then tag 0 (0, 3), then tag 1 (1, 4) */
    const int tags[] = {2, 2, 0, 0, 1, 1}, expected[] = {2, 5, 0, 3, 1, 4};
    for (int i = 0; i < 6; ++i) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, tags[i], MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v == expected[i], "receive %d (tag %d) got %d, expected %d", i, tags[i], v,
            expected[i]);
    }
  }
}

/* Nonblocking: every rank exchanges with every other at once; completion by each family. */
static void nonblocking(void) {
  const int n = 2000;
  int* out = malloc(sizeof(int) * (size_t)n * (size_t)size);
  int* in = malloc(sizeof(int) * (size_t)n * (size_t)size);
  MPI_Request* rs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
  MPI_Status* sts = malloc(sizeof(MPI_Status) * 2 * (size_t)size);
  int* idx = malloc(sizeof(int) * 2 * (size_t)size);
  for (int family = 0; family < 4; ++family) {
    for (int p = 0; p < size; ++p) {
      fill(out + p * n, n, rank, p);
      CHECK_MPI(MPI_Irecv(in + p * n, n, MPI_INT, p, 7, MPI_COMM_WORLD, &rs[p]));
    }
    for (int p = 0; p < size; ++p) {
      if (family == 1) {
        CHECK_MPI(MPI_Issend(out + p * n, n, MPI_INT, p, 7, MPI_COMM_WORLD, &rs[size + p]));
      } else {
        CHECK_MPI(MPI_Isend(out + p * n, n, MPI_INT, p, 7, MPI_COMM_WORLD, &rs[size + p]));
      }
    }
    int done = 0;
    if (family == 0) {
      CHECK_MPI(MPI_Waitall(2 * size, rs, sts));
      done = 2 * size;
    } else if (family == 1) {
      while (done < 2 * size) {
        int i = -1;
        CHECK_MPI(MPI_Waitany(2 * size, rs, &i, &sts[0]));
        CHECK(i >= 0 && i < 2 * size && rs[i] == MPI_REQUEST_NULL, "waitany index %d", i);
        ++done;
      }
      int i = 0;
      CHECK_MPI(MPI_Waitany(2 * size, rs, &i, &sts[0]));
      CHECK(i == MPI_UNDEFINED, "waitany over null requests gave %d", i);
    } else if (family == 2) {
      while (done < 2 * size) {
        int outcount = 0;
        CHECK_MPI(MPI_Waitsome(2 * size, rs, &outcount, idx, sts));
        CHECK(outcount >= 1, "waitsome completed %d", outcount);
        done += outcount;
      }
    } else {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Testall(2 * size, rs, &flag, sts));
      done = 2 * size;
    }
    for (int i = 0; i < 2 * size; ++i) {
      CHECK(rs[i] == MPI_REQUEST_NULL, "family %d: request %d not freed", family, i);
    }
    for (int p = 0; p < size; ++p) expect(in + p * n, n, p, rank, "nonblocking");
  }
  free(out);
  free(in);
  free(rs);
  free(sts);
  free(idx);
}

static void probes(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int v[50];
  fill(v, 50, rank, next);
  MPI_Request r;
  CHECK_MPI(MPI_Isend(v, 50, MPI_INT, next, 33, MPI_COMM_WORLD, &r));
  MPI_Status st;
  CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 33, MPI_COMM_WORLD, &st));
  int n = 0;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(st.MPI_SOURCE == prev && n == 50, "probe: source %d count %d", st.MPI_SOURCE, n);
  int flag = 0;
  CHECK_MPI(MPI_Iprobe(prev, 33, MPI_COMM_WORLD, &flag, &st));
  CHECK(flag, "iprobe after probe found nothing");
  CHECK_MPI(MPI_Iprobe(prev, 34, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "iprobe found a message with a tag nobody sent");
  MPI_Message m;
  CHECK_MPI(MPI_Mprobe(prev, 33, MPI_COMM_WORLD, &m, &st));
  /* The matched message is no longer visible to probes. */
  CHECK_MPI(MPI_Iprobe(prev, 33, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK(!flag, "a matched message is still visible to MPI_Iprobe");
  int in[50] = {0};
  CHECK_MPI(MPI_Mrecv(in, 50, MPI_INT, &m, &st));
  CHECK(m == MPI_MESSAGE_NULL, "MPI_Mrecv did not reset the message handle");
  expect(in, 50, prev, rank, "mrecv");
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

  /* Improbe + Imrecv */
  CHECK_MPI(MPI_Isend(v, 50, MPI_INT, next, 35, MPI_COMM_WORLD, &r));
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Improbe(prev, 35, MPI_COMM_WORLD, &flag, &m, &st));
  MPI_Request rr;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Imrecv(in, 50, MPI_INT, &m, &rr));
  CHECK_MPI(MPI_Wait(&rr, &st));
  CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 35, "imrecv status %d/%d", st.MPI_SOURCE,
        st.MPI_TAG);
  expect(in, 50, prev, rank, "imrecv");
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

static void proc_null(void) {
  int v = 5;
  MPI_Status st;
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  int n = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0 && v == 5,
        "recv from MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, n);
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "irecv from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "probe of MPI_PROC_NULL: source %d", st.MPI_SOURCE);
}

static void sendrecv(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out[100], in[100];
  fill(out, 100, rank, next);
  MPI_Status st;
  CHECK_MPI(
      MPI_Sendrecv(out, 100, MPI_INT, next, 4, in, 100, MPI_INT, prev, 4, MPI_COMM_WORLD, &st));
  expect(in, 100, prev, rank, "sendrecv");
  CHECK_MPI(MPI_Sendrecv_replace(out, 100, MPI_INT, next, 5, prev, 5, MPI_COMM_WORLD, &st));
  expect(out, 100, prev, rank, "sendrecv_replace");
}

static void persistent(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out[10], in[10];
  MPI_Request rs[2];
  CHECK_MPI(MPI_Recv_init(in, 10, MPI_INT, prev, 6, MPI_COMM_WORLD, &rs[0]));
  CHECK_MPI(MPI_Send_init(out, 10, MPI_INT, next, 6, MPI_COMM_WORLD, &rs[1]));
  for (int round = 0; round < 20; ++round) {
    fill(out, 10, rank + round, next);
    CHECK_MPI(MPI_Startall(2, rs));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_ERR(MPI_Start(&rs[0]), MPI_ERR_REQUEST); /* active already */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
    CHECK(rs[0] != MPI_REQUEST_NULL && rs[1] != MPI_REQUEST_NULL,
          "a persistent request was freed by its completion");
    expect(in, 10, prev + round, rank, "persistent");
  }
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&rs[0], &st)); /* inactive: returns at once with an empty status */
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "inactive wait status");
  CHECK_MPI(MPI_Request_free(&rs[0]));
  CHECK_MPI(MPI_Request_free(&rs[1]));
  CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL, "free did not reset handles");
}

static void cancel_and_free(void) {
  int v = 0;
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  int flag = 0;
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "a cancelled receive does not say so");
  /* A freed pending send still delivers its message. */
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out = value(rank, next, 77), in = 0;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, 77, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(in == value(prev, rank, 77), "freed send delivered %d", in);
}

/* A nonblocking receive of a derived type the program frees (and whose object a new type may
 * reuse) before the receive completes: MPI says pending operations are not affected. */
static void type_freed_while_pending(void) {
  MPI_Datatype v, w;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  int in[3] = {1, 3, 5}, out[5] = {0, 0, 0, 0, 0};
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(out, 1, v, (rank + size - 1) % size, 8, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Type_free(&v));
  CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &w));
  CHECK_MPI(MPI_Type_commit(&w));
  CHECK_MPI(MPI_Send(in, 3, MPI_INT, (rank + 1) % size, 8, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(out[0] == 1 && out[1] == 0 && out[2] == 3 && out[3] == 0 && out[4] == 5,
        "received %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
  CHECK_MPI(MPI_Type_free(&w));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int v[10] = {0};
  CHECK_ERR(MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_ERR(MPI_Send(v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_ERR(MPI_Send(v, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_ERR(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Recv(v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK);
  /* Truncation: 10 ints into room for 5, on this rank itself. */
  MPI_Request r;
  CHECK_MPI(MPI_Isend(v, 10, MPI_INT, rank, 50, MPI_COMM_WORLD, &r));
  int code = MPI_Recv(v, 5, MPI_INT, rank, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int cls = -1;
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "truncation gave class %d", cls);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strstr(text, "MPI_Recv") != NULL && strstr(text, "40") != NULL && strstr(text, "20"),
        "the truncation text does not name the call and the sizes: %s", text);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  /* Bsend without an attached buffer. */
  CHECK_ERR(MPI_Bsend(v, 1, MPI_INT, rank, 51, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  /* A request handle freed already. */
  MPI_Request stale = r;
  CHECK(stale == MPI_REQUEST_NULL, "completed request not reset");
  CHECK_ERR(MPI_Request_free(&stale), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  ring_modes();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  any_source();
  tags_and_order();
  wildcard_receives_in_order();
  token_ring();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  nonblocking();
  probes();
  proc_null();
  sendrecv();
  persistent();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  cancel_and_free();
  type_freed_while_pending();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
