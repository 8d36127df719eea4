/* MPI's matching order among many pending receives that mix named sources, MPI_ANY_SOURCE,
 * named tags and MPI_ANY_TAG (MPI-3.1 3.5): a message is taken by the earliest-posted receive that
 * accepts it, and a receive takes the earliest-arrived message it accepts. Each rank posts a long,
 * interleaved list of receives (from its left neighbour, from any source, from a third rank, and on
 * a second communicator), its left neighbour sends a batch before the receives are posted (they
 * wait unexpected) and a batch after, and every receive must end with exactly the message a
 * simulation of the standard's rule assigns it; those it assigns none must still be pending (they
 * are cancelled, and the cancel must succeed), and the messages it assigns no receive must come
 * out, unexpected, in the order they were sent. The lists are long (hundreds) so that a structure
 * that loses order between its parts (per-source lists, wildcard lists, tag buckets) shows it. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { ntags = 4, fence_tag = 99, max_recvs = 600, max_msgs = 600 };

static int rank, size;

/* A receive as posted: source is MPI_ANY_SOURCE, the left neighbour or the third rank; comm 0 is
 * MPI_COMM_WORLD, 1 its duplicate. */
typedef struct {
  int source, tag, comm;
} posting;

/* A message from the left neighbour (or the third rank): its tag, its communicator and the batch
 * (0: before the receives are posted, 1: after). */
typedef struct {
  int tag, comm, batch;
} message;

static unsigned next_random(unsigned* state) {
  *state = *state * 1103515245u + 12345u;
  return (*state >> 8) & 0xffffu;
}

static int left_of(int r) {
  return (r + size - 1) % size;
}
/* The third rank whose named receives must be skipped by the left neighbour's messages (none below
 * 3 ranks: every other rank is the left one). */
static int third_of(int r) {
  return size >= 3 ? (r + size / 2) % size : -1;
}

/* The receives rank `r` posts in round `round` (the same on the rank that sends to it). */
static int make_postings(int r, int round, int n, posting* p) {
  unsigned state = 7919u * (unsigned)(r + 1) + 104729u * (unsigned)round;
  for (int i = 0; i < n; ++i) {
    const unsigned x = next_random(&state);
    const int third = third_of(r);
    p[i].comm = x % 7 == 0;
    if (p[i].comm)
      p[i].source = left_of(r);
    else if (x % 5 == 1)
      p[i].source = MPI_ANY_SOURCE;
    else if (x % 5 == 2 && third >= 0)
      p[i].source = third;
    else
      p[i].source = left_of(r);
    p[i].tag = (x >> 4) % 5 == 0 ? MPI_ANY_TAG : (int)((x >> 7) % ntags);
  }
  return n;
}

/* The left neighbour's messages to rank `r` in round `round`: `before` then `after`. */
static void make_messages(int r, int round, int before, int after, message* m) {
  unsigned state = 15485863u * (unsigned)(r + 1) + 32452843u * (unsigned)round;
  for (int i = 0; i < before + after; ++i) {
    const unsigned x = next_random(&state);
    m[i].batch = i >= before;
    m[i].comm = m[i].batch && x % 6 == 0; /* the duplicate's messages all follow the posts */
    m[i].tag = (int)((x >> 5) % ntags);
  }
}

static int accepts(const posting* p, int source, const message* m) {
  return p->comm == m->comm && (p->source == MPI_ANY_SOURCE || p->source == source) &&
         (p->tag == MPI_ANY_TAG || p->tag == m->tag);
}

/* The standard's assignment: got[i] = the message receive i takes (-1: none); taken[k] = whether
 * message k is taken. Batch 0 waits unexpected when the receives are posted (each, in posting
 * order, takes the earliest-arrived it accepts); batch 1 arrives after (each, in sending order,
 * goes to the earliest-posted receive still pending that accepts it). */
static void simulate(int left, const posting* p, int np, const message* m, int nm, int* got,
                     int* taken) {
  for (int i = 0; i < np; ++i) got[i] = -1;
  for (int k = 0; k < nm; ++k) taken[k] = 0;
  for (int i = 0; i < np; ++i)
    for (int k = 0; k < nm && m[k].batch == 0; ++k)
      if (!taken[k] && accepts(&p[i], left, &m[k])) {
        got[i] = k;
        taken[k] = 1;
        break;
      }
  for (int k = 0; k < nm; ++k) {
    if (m[k].batch == 0) continue;
    for (int i = 0; i < np; ++i)
      if (got[i] < 0 && accepts(&p[i], left, &m[k])) {
        got[i] = k;
        taken[k] = 1;
        break;
      }
  }
}

static void round_of(int round, int nposts, int before, int after, MPI_Comm dup) {
  static posting mine[max_recvs], theirs[max_recvs];
  static message in[max_msgs], out[max_msgs];
  static int got[max_recvs], taken[max_msgs], their_got[max_recvs], their_taken[max_msgs];
  static int value[max_recvs];
  static MPI_Request rs[max_recvs];
  MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
  const int left = left_of(rank), right = (rank + 1) % size;
  const int nm = before + after;

  /* What this rank receives, and what its right neighbour receives from it. */
  make_postings(rank, round, nposts, mine);
  make_messages(rank, round, before, after, in);
  make_postings(right, round, nposts, theirs);
  make_messages(right, round, before, after, out);
  simulate(left, mine, nposts, in, nm, got, taken);
  simulate(rank, theirs, nposts, out, nm, their_got, their_taken);

  /* Batch 0, then a fence: once it is here, every earlier message of the left neighbour is. */
  int fence = 0;
  for (int k = 0; k < before; ++k) {
    const int payload = round * 100000 + k;
    CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, right, out[k].tag, comms[out[k].comm]));
  }
  if (before > 0) {
    CHECK_MPI(MPI_Send(&fence, 1, MPI_INT, right, fence_tag, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&fence, 1, MPI_INT, left, fence_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }

  for (int i = 0; i < nposts; ++i) {
    value[i] = -1;
    CHECK_MPI(
        MPI_Irecv(&value[i], 1, MPI_INT, mine[i].source, mine[i].tag, comms[mine[i].comm], &rs[i]));
  }
  /* Batch 1 leaves only once every rank has posted. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int k = before; k < nm; ++k) {
    const int payload = round * 100000 + k;
    CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, right, out[k].tag, comms[out[k].comm]));
  }

  /* Every receive the rule assigns a message gets exactly that one. */
  for (int i = 0; i < nposts; ++i) {
    if (got[i] < 0) continue;
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rs[i], &st));
    CHECK(value[i] == round * 100000 + got[i] && st.MPI_SOURCE == left &&
              st.MPI_TAG == in[got[i]].tag,
          "round %d (%d receives, %d messages before and %d after): receive %d (source %d, tag "
          "%d, comm %d) got payload %d from rank %d tag %d; MPI's order gives it message %d "
          "(tag %d, batch %d) from rank %d",
          round, nposts, before, after, i, mine[i].source, mine[i].tag, mine[i].comm, value[i],
          st.MPI_SOURCE, st.MPI_TAG, got[i], in[got[i]].tag, in[got[i]].batch, left);
  }
  /* The messages no receive takes wait unexpected, in the order they were sent. */
  for (int k = 0; k < nm; ++k) {
    if (taken[k]) continue;
    int v = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, MPI_ANY_TAG, comms[in[k].comm], &st));
    CHECK(v == round * 100000 + k && st.MPI_TAG == in[k].tag,
          "round %d: the first message from rank %d that no receive took should be %d (tag %d), "
          "got payload %d tag %d",
          round, left, k, in[k].tag, v, st.MPI_TAG);
  }
  /* The rest are pending still (none took a message): cancelling each succeeds, except the third
   * rank's, which it satisfies next. */
  const int third = third_of(rank);
  for (int i = 0; i < nposts; ++i) {
    if (got[i] >= 0 || (mine[i].source == third && third >= 0)) continue;
    int flag = 0, cancelled = 0;
    MPI_Status st;
    CHECK_MPI(MPI_Test(&rs[i], &flag, &st));
    CHECK(!flag,
          "round %d: receive %d (source %d, tag %d, comm %d) completed (payload %d from "
          "rank %d tag %d) though MPI's order leaves it no message",
          round, i, mine[i].source, mine[i].tag, mine[i].comm, value[i], st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Cancel(&rs[i]));
    CHECK_MPI(MPI_Wait(&rs[i], &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "round %d: receive %d (source %d, tag %d) was not cancelled", round, i,
          mine[i].source, mine[i].tag);
  }

  /* The third rank's receives, skipped by every message so far: each any-source receive is gone
   * now, so the third rank sends exactly one message per receive, with the receive's tag, and
   * they must arrive in posting order. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (size >= 3) {
    /* This rank is the third rank of `to`. */
    const int to = (rank - size / 2 + size) % size;
    make_postings(to, round, nposts, theirs);
    int n = 0;
    for (int i = 0; i < nposts; ++i)
      if (theirs[i].source == rank && !theirs[i].comm) {
        const int payload = -(round * 100000 + i) - 2;
        const int tag = theirs[i].tag == MPI_ANY_TAG ? n % ntags : theirs[i].tag;
        CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, to, tag, MPI_COMM_WORLD));
        ++n;
      }
    for (int i = 0; i < nposts; ++i)
      if (mine[i].source == third && got[i] < 0) {
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&rs[i], &st));
        CHECK(value[i] == -(round * 100000 + i) - 2 && st.MPI_SOURCE == third,
              "round %d: receive %d (source %d, tag %d) got payload %d from rank %d; the third "
              "rank's message for it is %d",
              round, i, third, mine[i].tag, value[i], st.MPI_SOURCE, -(round * 100000 + i) - 2);
      }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int round = 0;
  /* All posted first; all unexpected first; half and half; and long lists. */
  for (int rep = 0; rep < 4; ++rep) {
    round_of(round++, 64, 0, 48, dup);
    round_of(round++, 64, 48, 0, dup);
    round_of(round++, 64, 24, 24, dup);
  }
  round_of(round++, max_recvs, 0, 500, dup);
  round_of(round++, max_recvs, 250, 250, dup);
  round_of(round++, max_recvs, 500, 0, dup);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
