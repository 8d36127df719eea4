/* MPI_Comm_idup of an intercommunicator does not block either: a rank that has started one goes on
 * with point-to-point to ranks (of its own group or the other) that have not called it yet, idups
 * of intercommunicators and of intracommunicators may be in flight together with blocking dups and
 * merges, and each copy is a working intercommunicator once its request completes: the same remote
 * group, its own message space, its collectives (which also use its local group's communicator)
 * right, and it merges. With one rank there is no intercommunicator: the program checks nothing. */
#include "check.h"

static int rank_, size_;

/* Ranks [0, size/2) against [size/2, size): the lower group holds rank 0, the upper rank size/2. */
static MPI_Comm halves(int* low) {
  const int half = size_ / 2;
  *low = rank_ < half;
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, *low, rank_, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, *low ? half : 0, 9, &inter));
  CHECK_MPI(MPI_Comm_free(&local));
  return inter;
}

/* Checks that `c` is a working copy of the intercommunicator `parent`. */
static void check_copy(MPI_Comm c, MPI_Comm parent, int low, const char* what) {
  int relation = -1, remote = -1, parent_remote = -1, local = -1, me = -1;
  CHECK_MPI(MPI_Comm_compare(c, parent, &relation));
  CHECK(relation == MPI_CONGRUENT, "%s: compare with its parent gave %d", what, relation);
  CHECK_MPI(MPI_Comm_remote_size(c, &remote));
  CHECK_MPI(MPI_Comm_remote_size(parent, &parent_remote));
  CHECK(remote == parent_remote, "%s: remote size %d, the parent's %d", what, remote,
        parent_remote);
  CHECK_MPI(MPI_Comm_size(c, &local));
  CHECK_MPI(MPI_Comm_rank(c, &me));
  /* An allreduce over an intercommunicator gives each group the other's result. */
  const int lower = size_ / 2;
  int mine = rank_ + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
  const int expected =
      low ? (size_ * (size_ + 1) - lower * (lower + 1)) / 2 : lower * (lower + 1) / 2;
  CHECK(sum == expected, "%s: allreduce gave %d, expected %d", what, sum, expected);
  /* Rank i of one group with rank i % remote of the other: sent on the copy first, a receive on the
   * parent must still take the parent's message. */
  const int peer = me % remote;
  int on_parent = -1, on_copy = -1, a = 100 + rank_, b = 200 + rank_, n = 0;
  MPI_Request rs[4 * 8];
  /* Everyone sends to `peer`; receives come from every remote rank r with r % local == me. */
  CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, peer, 5, c, &rs[n++]));
  CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, peer, 5, parent, &rs[n++]));
  int got_parent[8], got_copy[8], senders = 0;
  for (int r = 0; r < remote && senders < 8; ++r) {
    if (r % local != me) continue;
    CHECK_MPI(MPI_Irecv(&got_parent[senders], 1, MPI_INT, r, 5, parent, &rs[n++]));
    CHECK_MPI(MPI_Irecv(&got_copy[senders], 1, MPI_INT, r, 5, c, &rs[n++]));
    ++senders;
  }
  CHECK_MPI(MPI_Waitall(n, rs, MPI_STATUSES_IGNORE));
  for (int i = 0, r = 0; r < remote && i < senders; ++r) {
    if (r % local != me) continue;
    const int world = low ? lower + r : r;
    on_parent = got_parent[i];
    on_copy = got_copy[i];
    CHECK(on_parent == 100 + world && on_copy == 200 + world,
          "%s: from remote rank %d got %d on the parent and %d on the copy", what, r, on_parent,
          on_copy);
    ++i;
  }
  /* The copy merges into an intracommunicator of everyone, lower group first. */
  MPI_Comm merged;
  int merged_rank = -1;
  CHECK_MPI(MPI_Intercomm_merge(c, !low, &merged));
  CHECK_MPI(MPI_Comm_rank(merged, &merged_rank));
  CHECK(merged_rank == rank_, "%s: merged rank %d, world rank %d", what, merged_rank, rank_);
  int total = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == size_ * (size_ + 1) / 2, "%s: merged allreduce gave %d", what, total);
  CHECK_MPI(MPI_Comm_free(&merged));
}

/* World rank 0 (lower group) starts its idup, then sends to the upper group's leader, which calls
 * idup only after receiving, and to rank 1 of its own group likewise. A blocking idup hangs here.
 */
static void idup_then_point_to_point(MPI_Comm inter, int low) {
  const int upper_leader = size_ / 2;
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Request r;
  int token = 7, got = 0;
  const int waits_first = rank_ == upper_leader || (rank_ == 1 && upper_leader != 1);
  if (waits_first) {
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 7, "rank %d got %d", rank_, got);
    CHECK_MPI(MPI_Comm_idup(inter, &copy, &r));
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Comm_idup(inter, &copy, &r));
    if (rank_ == 0) {
      const int first[2] = {upper_leader, 1};
      const int count = upper_leader != 1 && size_ > 2 ? 2 : 1;
      for (int i = 0; i < count; ++i) {
        CHECK_MPI(MPI_Send(&token, 1, MPI_INT, first[i], 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, first[i], 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == 7, "rank 0 got %d from rank %d", got, first[i]);
      }
    }
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(copy != MPI_COMM_NULL, "the idup completed without a communicator");
  int is_inter = 0;
  CHECK_MPI(MPI_Comm_test_inter(copy, &is_inter));
  CHECK(is_inter, "the idup of an intercommunicator is no intercommunicator");
  check_copy(copy, inter, low, "idup of an intercommunicator");
  CHECK_MPI(MPI_Comm_free(&copy));
}

/* idups of the intercommunicator and of the world in flight together, with blocking dups of
 * another intracommunicator between them and merges of the intercommunicator, completed in
 * reverse order: every context must be the same on all members of both groups. */
static void many_in_flight(MPI_Comm inter, int low) {
  enum { n = 6 };
  MPI_Comm copies[n], blocking[n], merged[n], other;
  MPI_Request rs[n];
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &other));
  for (int i = 0; i < n; ++i) {
    CHECK_MPI(MPI_Comm_idup(i % 2 ? MPI_COMM_WORLD : inter, &copies[i], &rs[i]));
    CHECK_MPI(MPI_Comm_dup(other, &blocking[i]));
    CHECK_MPI(MPI_Intercomm_merge(inter, !low, &merged[i]));
  }
  for (int i = n - 1; i >= 0; --i) CHECK_MPI(MPI_Wait(&rs[i], MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0) check_copy(copies[i], inter, low, "one of several idups in flight");
    int sum = 0, mine = 1;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, i % 2 ? copies[i] : blocking[i]));
    CHECK(sum == size_, "allreduce %d gave %d", i, sum);
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, merged[i]));
    CHECK(sum == size_, "allreduce on merge %d gave %d", i, sum);
    CHECK_MPI(MPI_Comm_free(&copies[i]));
    CHECK_MPI(MPI_Comm_free(&blocking[i]));
    CHECK_MPI(MPI_Comm_free(&merged[i]));
  }
  CHECK_MPI(MPI_Comm_free(&other));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ >= 2) {
    int low = 0;
    MPI_Comm inter = halves(&low);
    idup_then_point_to_point(inter, low);
    many_in_flight(inter, low);
    CHECK_MPI(MPI_Comm_free(&inter));
  }
  MPI_Finalize();
  return 0;
}
