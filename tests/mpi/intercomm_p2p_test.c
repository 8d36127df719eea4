/* Point-to-point on intercommunicators made every way MPI offers: MPI_Intercomm_create (groups of
 * consecutive ranks, one of them in reverse order; interleaved groups whose last rank leads, over a
 * duplicate of the world as peer communicator), MPI_Comm_dup and MPI_Comm_idup of those,
 * MPI_Comm_split and MPI_Comm_create of an intercommunicator, and an intercommunicator made again
 * from the merge of one (one process against the rest). On each: the groups and sizes it reports,
 * every local rank sending to remote rank 0 (blocking and nonblocking sends, receives posted per
 * source), every rank sending to every remote rank at inline, eager and rendezvous sizes (received
 * with MPI_ANY_SOURCE and MPI_ANY_TAG), synchronous sends, probes, MPI_PROC_NULL and a rank beyond
 * the remote group. Ranks in statuses are remote ranks; payloads name their sender's and
 * receiver's world ranks, so a message delivered to the wrong process or read from the wrong one
 * shows. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAXP = 16 };

static int me, size;
static MPI_Group world_group;

typedef struct {
  char how[192];
  MPI_Comm comm;
  int lsize, rsize, lrank;
  int local[MAXP], remote[MAXP]; /* world ranks of each group, in the group's rank order */
} made;

static int value(int from, int to, int i) {
  return from * 1000003 + to * 1009 + i;
}

static int* ints(size_t n) {
  int* v = malloc(sizeof(int) * (n ? n : 1));
  CHECK(v != NULL, "out of memory");
  return v;
}

static void expect_group(MPI_Group g, const int* world, int n, const made* m, const char* which) {
  int got = -1;
  CHECK_MPI(MPI_Group_size(g, &got));
  CHECK(got == n, "%s: %s group has %d members, expected %d", m->how, which, got, n);
  int ranks[MAXP], in_world[MAXP];
  for (int i = 0; i < n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world_group, in_world));
  for (int i = 0; i < n; ++i)
    CHECK(in_world[i] == world[i], "%s: %s rank %d is world rank %d, expected %d", m->how, which, i,
          in_world[i], world[i]);
}

static void check_shape(const made* m) {
  int flag = 0, got = -1;
  CHECK_MPI(MPI_Comm_test_inter(m->comm, &flag));
  CHECK(flag, "%s: not an intercommunicator", m->how);
  CHECK_MPI(MPI_Comm_size(m->comm, &got));
  CHECK(got == m->lsize, "%s: size %d, expected %d", m->how, got, m->lsize);
  CHECK_MPI(MPI_Comm_remote_size(m->comm, &got));
  CHECK(got == m->rsize, "%s: remote size %d, expected %d", m->how, got, m->rsize);
  CHECK_MPI(MPI_Comm_rank(m->comm, &got));
  CHECK(got == m->lrank, "%s: rank %d, expected %d", m->how, got, m->lrank);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(m->comm, &g));
  expect_group(g, m->local, m->lsize, m, "local");
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_remote_group(m->comm, &g));
  expect_group(g, m->remote, m->rsize, m, "remote");
  CHECK_MPI(MPI_Group_free(&g));
}

/* Every local rank sends to remote rank 0, which receives from each remote rank by name. Counts
 * differ by sender; even ranks send blocking, odd ones nonblocking. */
static void fan_in(const made* m) {
  const int tag = 41, n = 5 + 97 * m->lrank;
  int* out = ints((size_t)n);
  for (int i = 0; i < n; ++i) out[i] = value(me, m->remote[0], i);
  MPI_Request send = MPI_REQUEST_NULL;
  if (m->lrank % 2 == 1) CHECK_MPI(MPI_Isend(out, n, MPI_INT, 0, tag, m->comm, &send));
  if (m->lrank == 0) {
    int** in = malloc(sizeof(int*) * (size_t)m->rsize);
    MPI_Request* rs = malloc(sizeof(MPI_Request) * (size_t)m->rsize);
    MPI_Status* st = malloc(sizeof(MPI_Status) * (size_t)m->rsize);
    for (int j = 0; j < m->rsize; ++j) {
      in[j] = ints((size_t)(5 + 97 * j));
      CHECK_MPI(MPI_Irecv(in[j], 5 + 97 * j, MPI_INT, j, tag, m->comm, &rs[j]));
    }
    /* Receives first, then its own blocking send: the two groups' rank 0 never wait on each
     * other. */
    if (m->lrank % 2 == 0) CHECK_MPI(MPI_Send(out, n, MPI_INT, 0, tag, m->comm));
    CHECK_MPI(MPI_Waitall(m->rsize, rs, st));
    for (int j = 0; j < m->rsize; ++j) {
      int count = -1;
      CHECK_MPI(MPI_Get_count(&st[j], MPI_INT, &count));
      CHECK(st[j].MPI_SOURCE == j && st[j].MPI_TAG == tag && count == 5 + 97 * j,
            "%s: fan-in from remote rank %d: status source %d tag %d count %d", m->how, j,
            st[j].MPI_SOURCE, st[j].MPI_TAG, count);
      for (int i = 0; i < count; ++i)
        CHECK(in[j][i] == value(m->remote[j], me, i),
              "%s: fan-in from remote rank %d (world %d): element %d is %d, expected %d", m->how, j,
              m->remote[j], i, in[j][i], value(m->remote[j], me, i));
      free(in[j]);
    }
    free(in);
    free(rs);
    free(st);
  } else if (m->lrank % 2 == 0) {
    CHECK_MPI(MPI_Send(out, n, MPI_INT, 0, tag, m->comm));
  }
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  free(out);
}

/* Counts by pair: inline (3 ints), eager (1500) and rendezvous (20000, 80 KB). */
static int pair_count(int from_lrank, int to_rrank) {
  static const int counts[] = {3, 1500, 20000};
  return counts[(from_lrank + 2 * to_rrank) % 3];
}

/* Every local rank sends to every remote rank (tag = 300 + its local rank) and takes what the
 * remote ranks send it with MPI_ANY_SOURCE / MPI_ANY_TAG. */
static void all_pairs(const made* m) {
  MPI_Request* sends = malloc(sizeof(MPI_Request) * (size_t)m->rsize);
  int** out = malloc(sizeof(int*) * (size_t)m->rsize);
  for (int j = 0; j < m->rsize; ++j) {
    const int n = pair_count(m->lrank, j);
    out[j] = ints((size_t)n);
    for (int i = 0; i < n; ++i) out[j][i] = value(me, m->remote[j], i);
    CHECK_MPI(MPI_Isend(out[j], n, MPI_INT, j, 300 + m->lrank, m->comm, &sends[j]));
  }
  int* in = ints(20000);
  int* seen = calloc((size_t)m->rsize, sizeof(int));
  for (int k = 0; k < m->rsize; ++k) {
    MPI_Status st;
    CHECK_MPI(MPI_Recv(in, 20000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &st));
    const int j = st.MPI_SOURCE;
    CHECK(j >= 0 && j < m->rsize, "%s: any-source receive: source %d is no remote rank (%d)",
          m->how, j, m->rsize);
    CHECK(!seen[j], "%s: remote rank %d sent twice", m->how, j);
    seen[j] = 1;
    CHECK(st.MPI_TAG == 300 + j, "%s: from remote rank %d: tag %d, expected %d", m->how, j,
          st.MPI_TAG, 300 + j);
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == pair_count(j, m->lrank), "%s: from remote rank %d: %d ints, expected %d", m->how,
          j, count, pair_count(j, m->lrank));
    for (int i = 0; i < count; ++i)
      CHECK(in[i] == value(m->remote[j], me, i),
            "%s: from remote rank %d (world %d): element %d of %d is %d, expected %d", m->how, j,
            m->remote[j], i, count, in[i], value(m->remote[j], me, i));
  }
  CHECK_MPI(MPI_Waitall(m->rsize, sends, MPI_STATUSES_IGNORE));
  /* A remote rank done here must not send what comes next before this rank's wildcard receives
   * are over: they would take it. */
  CHECK_MPI(MPI_Barrier(m->comm));
  for (int j = 0; j < m->rsize; ++j) free(out[j]);
  free(out);
  free(sends);
  free(in);
  free(seen);
}

/* Synchronous sends, a probe before each receive, MPI_PROC_NULL, and a rank the remote group does
 * not have. Local rank i sends to remote rank i % rsize; remote rank j takes one message from
 * each local rank i with i % its remote size == j. */
static void ssend_probe_and_errors(const made* m) {
  const int tag = 57, target = m->lrank % m->rsize;
  int out[2] = {value(me, m->remote[target], 0), value(me, m->remote[target], 1)};
  MPI_Request r;
  CHECK_MPI(MPI_Issend(out, 2, MPI_INT, target, tag, m->comm, &r));
  int expected = 0;
  for (int i = 0; i < m->rsize; ++i) expected += i % m->lsize == m->lrank;
  for (int k = 0; k < expected; ++k) {
    MPI_Status st;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, tag, m->comm, &st));
    const int j = st.MPI_SOURCE;
    CHECK(j >= 0 && j < m->rsize && j % m->lsize == m->lrank,
          "%s: probe found a message from remote rank %d, which sends to %d", m->how, j,
          j % m->lsize);
    int in[2] = {-1, -1};
    CHECK_MPI(MPI_Recv(in, 2, MPI_INT, j, tag, m->comm, &st));
    CHECK(in[0] == value(m->remote[j], me, 0) && in[1] == value(m->remote[j], me, 1),
          "%s: synchronous message from remote rank %d: %d %d", m->how, j, in[0], in[1]);
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

  CHECK_MPI(MPI_Send(out, 2, MPI_INT, MPI_PROC_NULL, tag, m->comm));
  MPI_Status st;
  CHECK_MPI(MPI_Recv(out, 2, MPI_INT, MPI_PROC_NULL, tag, m->comm, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "%s: receive from MPI_PROC_NULL: source %d", m->how,
        st.MPI_SOURCE);
  CHECK_MPI(MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN));
  /* The remote group's size is the bound, whatever the local group's. */
  CHECK_ERR(MPI_Send(out, 1, MPI_INT, m->rsize, tag, m->comm), MPI_ERR_RANK);
  CHECK_ERR(MPI_Recv(out, 1, MPI_INT, m->rsize, tag, m->comm, MPI_STATUS_IGNORE), MPI_ERR_RANK);
}

static int exercised; /* intercommunicators this rank tried */

static void exercise(made* m) {
  ++exercised;
  check_shape(m);
  fan_in(m);
  all_pairs(m);
  ssend_probe_and_errors(m);
}

/* ---- the ways of making them ---- */

/* The intercommunicator of two groups given as world-rank lists: `color` is this process's group,
 * `leader` the local rank that leads each group. peer is the communicator the leaders talk over
 * (world ranks = its ranks). */
static void create(made* m, const char* how, const int* const groups[2], const int n[2], int color,
                   int leader, MPI_Comm peer, int tag) {
  strncpy(m->how, how, sizeof m->how - 1);
  m->how[sizeof m->how - 1] = '\0';
  m->lsize = n[color];
  m->rsize = n[1 - color];
  m->lrank = -1;
  for (int i = 0; i < m->lsize; ++i) {
    m->local[i] = groups[color][i];
    if (m->local[i] == me) m->lrank = i;
  }
  for (int i = 0; i < m->rsize; ++i) m->remote[i] = groups[1 - color][i];
  /* The local communicator, ranked in the list's order. */
  MPI_Comm local;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, m->lrank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, leader, peer, groups[1 - color][leader % n[1 - color]], tag,
                                 &m->comm));
  CHECK_MPI(MPI_Comm_free(&local));
}

/* The first half against the second (larger for odd sizes), the second in reverse rank order. */
static void halves(made* m) {
  int first[MAXP], second[MAXP];
  const int n[2] = {size / 2, size - size / 2};
  for (int i = 0; i < n[0]; ++i) first[i] = i;
  for (int i = 0; i < n[1]; ++i) second[i] = size - 1 - i;
  const int* const groups[2] = {first, second};
  create(m, "Intercomm_create of halves, one reversed", groups, n, me < size / 2 ? 0 : 1, 0,
         MPI_COMM_WORLD, 71);
}

/* Even ranks against odd ones, over a duplicate of the world; the leaders are not rank 0: local
 * rank n1 - 1 on both sides (the last odd rank, and the even rank before it). */
static void interleaved(made* m, MPI_Comm world_dup) {
  int even[MAXP], odd[MAXP];
  const int n[2] = {(size + 1) / 2, size / 2};
  for (int i = 0; i < n[0]; ++i) even[i] = 2 * i;
  for (int i = 0; i < n[1]; ++i) odd[i] = 2 * i + 1;
  const int* const groups[2] = {even, odd};
  create(m, "Intercomm_create of even and odd ranks, leaders not rank 0, peer a dup", groups, n,
         me % 2, n[1] - 1, world_dup, 72);
}

static void copy_lists(made* to, const made* from, const char* how) {
  *to = *from;
  snprintf(to->how, sizeof to->how, "%.40s of (%.140s)", how, from->how);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  CHECK(size <= MAXP, "at most %d ranks, not %d", MAXP, size);
  if (size < 2) {
    /* No second group to be had. */
    CHECK_MPI(MPI_Group_free(&world_group));
    CHECK_MPI(MPI_Finalize());
    return 0;
  }

  MPI_Comm world_dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &world_dup));

  made a, b;
  halves(&a);
  exercise(&a);
  interleaved(&b, world_dup);
  exercise(&b);

  /* Duplicates: the same groups, traffic of their own. */
  made d;
  copy_lists(&d, &a, "Comm_dup");
  CHECK_MPI(MPI_Comm_dup(a.comm, &d.comm));
  exercise(&d);
  CHECK_MPI(MPI_Comm_free(&d.comm));
  MPI_Request r;
  copy_lists(&d, &b, "Comm_idup");
  CHECK_MPI(MPI_Comm_idup(b.comm, &d.comm, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  exercise(&d);
  CHECK_MPI(MPI_Comm_free(&d.comm));

  /* Split by the parity of the local rank, keys descending: each side's ranks of that parity from
   * the highest down; no communicator where the remote side has none of the parity. */
  {
    made s;
    copy_lists(&s, &a, "Comm_split by parity");
    const int parity = a.lrank % 2;
    CHECK_MPI(MPI_Comm_split(a.comm, parity, -a.lrank, &s.comm));
    s.lsize = s.rsize = 0;
    for (int i = a.lsize - 1; i >= 0; --i)
      if (i % 2 == parity) {
        if (i == a.lrank) s.lrank = s.lsize;
        s.local[s.lsize++] = a.local[i];
      }
    for (int i = a.rsize - 1; i >= 0; --i)
      if (i % 2 == parity) s.remote[s.rsize++] = a.remote[i];
    if (s.rsize == 0) {
      CHECK(s.comm == MPI_COMM_NULL,
            "%s: the remote side has no rank of parity %d, yet a "
            "communicator came back",
            s.how, parity);
    } else {
      CHECK(s.comm != MPI_COMM_NULL, "%s: no communicator", s.how);
      exercise(&s);
      CHECK_MPI(MPI_Comm_free(&s.comm));
    }
  }

  /* Comm_create with each local group but its rank 0, in reverse order. */
  {
    made c;
    copy_lists(&c, &b, "Comm_create without rank 0, reversed");
    MPI_Group g, part;
    CHECK_MPI(MPI_Comm_group(b.comm, &g));
    int ranks[MAXP];
    for (int i = 0; i < b.lsize - 1; ++i) ranks[i] = b.lsize - 1 - i;
    CHECK_MPI(MPI_Group_incl(g, b.lsize - 1, ranks, &part));
    CHECK_MPI(MPI_Comm_create(b.comm, part, &c.comm));
    c.lsize = b.lsize - 1;
    c.rsize = b.rsize - 1;
    c.lrank = b.lrank == 0 ? -1 : b.lsize - 1 - b.lrank;
    for (int i = 0; i < c.lsize; ++i) c.local[i] = b.local[b.lsize - 1 - i];
    for (int i = 0; i < c.rsize; ++i) c.remote[i] = b.remote[b.rsize - 1 - i];
    if (b.lrank == 0 || c.lsize == 0 || c.rsize == 0) {
      CHECK(c.comm == MPI_COMM_NULL, "%s: a communicator came back", c.how);
    } else {
      exercise(&c);
      CHECK_MPI(MPI_Comm_free(&c.comm));
    }
    CHECK_MPI(MPI_Group_free(&part));
    CHECK_MPI(MPI_Group_free(&g));
  }

  /* Merged back: the merge of the even/odd intercommunicator (odd ranks first: they say high = 0),
   * then an intercommunicator over it of its last rank against all the others. */
  {
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(b.comm, me % 2 == 0, &merged));
    int order[MAXP], n = 0;
    for (int i = 1; i < size; i += 2) order[n++] = i;
    for (int i = 0; i < size; i += 2) order[n++] = i;
    int mrank = -1;
    CHECK_MPI(MPI_Comm_rank(merged, &mrank));
    CHECK(order[mrank] == me, "merge: rank %d, expected the place of world rank %d", mrank, me);
    made g;
    snprintf(g.how, sizeof g.how, "Intercomm_create over the merge of (%.140s), last alone", b.how);
    const int alone = mrank == size - 1;
    g.lsize = alone ? 1 : size - 1;
    g.rsize = alone ? size - 1 : 1;
    g.lrank = alone ? 0 : mrank;
    for (int i = 0; i < size - 1; ++i) (alone ? g.remote : g.local)[i] = order[i];
    (alone ? g.local : g.remote)[0] = order[size - 1];
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(merged, alone, mrank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, merged, alone ? 0 : size - 1, 73, &g.comm));
    exercise(&g);
    CHECK_MPI(MPI_Comm_free(&g.comm));
    CHECK_MPI(MPI_Comm_free(&local));
    CHECK_MPI(MPI_Comm_free(&merged));
  }

  /* Four to seven, by the size: the split and the create leave some ranks out at small sizes. */
  CHECK(exercised >= 4 && exercised <= 7, "%d intercommunicators tried", exercised);
  if (me == 0) printf("rank 0 tried point-to-point on %d intercommunicators\n", exercised);
  CHECK_MPI(MPI_Comm_free(&a.comm));
  CHECK_MPI(MPI_Comm_free(&b.comm));
  CHECK_MPI(MPI_Comm_free(&world_dup));
  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
