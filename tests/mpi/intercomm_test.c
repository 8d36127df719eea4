/* Intercommunicators: the world split two ways (first half / second half, uneven for odd sizes,
 * and even / odd ranks), MPI_Intercomm_create with the leaders talking over MPI_COMM_WORLD, local
 * and remote sizes and groups, point-to-point across (ranks and statuses are remote ranks), a
 * duplicate whose traffic never meets the original's, MPI_Intercomm_merge in every order, freeing
 * (many creations in a row, more than there are contexts unless freeing returns them), and the
 * errors: collectives, split and topologies on an intercommunicator, the remote calls on an
 * intracommunicator, bad leaders and ranks. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int size, me;
static MPI_Group world_group;

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

  /* What an intercommunicator refuses. */
  int value = 1, result = 0;
  CHECK_ERR(MPI_Barrier(inter), MPI_ERR_COMM);
  CHECK_ERR(MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
  CHECK_ERR(MPI_Bcast(&value, 1, MPI_INT, 0, inter), MPI_ERR_COMM);
  MPI_Request r = MPI_REQUEST_NULL;
  CHECK_ERR(MPI_Ibarrier(inter, &r), MPI_ERR_COMM);
  MPI_Comm none = MPI_COMM_NULL;
  CHECK_ERR(MPI_Comm_split(inter, 0, 0, &none), MPI_ERR_COMM);
  int dims[1] = {lsize}, periods[1] = {0};
  CHECK_ERR(MPI_Cart_create(inter, 1, dims, periods, 0, &none), MPI_ERR_COMM);
  CHECK(none == MPI_COMM_NULL, "a refused constructor set the handle");
  CHECK_ERR(MPI_Send(&value, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK);
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
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&inter));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));

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

  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
