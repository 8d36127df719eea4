/* MPI_Comm_idup does not block: a rank that has started one goes on with point-to-point to ranks
 * that have not called it yet, several idups (and blocking dups of other communicators) may be in
 * flight at once, and every new communicator is a working duplicate once its request completes:
 * congruent with its parent, its own message space, its collectives right, its attributes copied.
 */
#include <string.h>

#include "check.h"

static int rank_, size_;

/* Checks that `c` is a working duplicate of `parent`: congruent, a sum over it right, and a message
 * on it not taken by a receive on the parent. */
static void check_duplicate(MPI_Comm c, MPI_Comm parent, const char* what) {
  int relation = -1;
  CHECK_MPI(MPI_Comm_compare(c, parent, &relation));
  CHECK(relation == MPI_CONGRUENT, "%s: compare with its parent gave %d", what, relation);
  int sum = 0, mine = rank_ + 1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == size_ * (size_ + 1) / 2, "%s: allreduce gave %d", what, sum);
  int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  int on_parent = -1, on_copy = -1, a = 100 + rank_, b = 200 + rank_;
  MPI_Request rs[4];
  /* Sent on the copy first: a receive on the parent must still take the parent's message. */
  CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, next, 5, c, &rs[0]));
  CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, next, 5, parent, &rs[1]));
  CHECK_MPI(MPI_Irecv(&on_parent, 1, MPI_INT, prev, 5, parent, &rs[2]));
  CHECK_MPI(MPI_Irecv(&on_copy, 1, MPI_INT, prev, 5, c, &rs[3]));
  CHECK_MPI(MPI_Waitall(4, rs, MPI_STATUSES_IGNORE));
  CHECK(on_parent == 100 + prev && on_copy == 200 + prev,
        "%s: got %d on the parent and %d on the copy from rank %d", what, on_parent, on_copy, prev);
}

/* Rank 0 starts an idup, then sends to rank 1 and waits for its reply; rank 1 receives first and
 * calls idup only afterwards. A blocking idup hangs here. */
static void idup_then_point_to_point(void) {
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Request r;
  int token = 7, got = 0;
  if (rank_ == 1) {
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 7, "rank 1 got %d", got);
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &copy, &r));
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &copy, &r));
    if (rank_ == 0 && size_ > 1) {
      CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(got == 7, "rank 0 got %d", got);
    }
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(copy != MPI_COMM_NULL, "the idup completed without a communicator");
  check_duplicate(copy, MPI_COMM_WORLD, "idup of the world");
  CHECK_MPI(MPI_Comm_free(&copy));
}

/* Every rank starts its idup only after a ring of messages that the idups of earlier ranks must not
 * hold up: rank r receives from r-1, starts its idup, then sends to r+1. */
static void idups_started_in_a_chain(void) {
  MPI_Comm copy;
  MPI_Request r;
  int token = 0;
  if (rank_ > 0)
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, rank_ - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(token == rank_, "rank %d got token %d", rank_, token);
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &copy, &r));
  token = rank_ + 1;
  if (rank_ + 1 < size_) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, rank_ + 1, 3, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  check_duplicate(copy, MPI_COMM_WORLD, "chained idup");
  CHECK_MPI(MPI_Comm_free(&copy));
}

/* Many idups in flight at once, of the world and of a split, with blocking dups of a third
 * communicator between them and requests completed in reverse: every context agreed must be the
 * same on all members (messages on each copy stay on it). */
static void many_in_flight(void) {
  enum { n = 8 };
  MPI_Comm half, other, copies[n], blocking[n];
  MPI_Request rs[n];
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &other));
  for (int i = 0; i < n; ++i) {
    CHECK_MPI(MPI_Comm_idup(i % 2 ? half : MPI_COMM_WORLD, &copies[i], &rs[i]));
    CHECK_MPI(MPI_Comm_dup(other, &blocking[i]));
  }
  for (int i = n - 1; i >= 0; --i) CHECK_MPI(MPI_Wait(&rs[i], MPI_STATUS_IGNORE));
  int half_size = 0;
  CHECK_MPI(MPI_Comm_size(half, &half_size));
  for (int i = 0; i < n; ++i) {
    char what[64];
    snprintf(what, sizeof what, "idup %d of %s", i, i % 2 ? "a split" : "the world");
    int saved = size_, saved_rank = rank_;
    if (i % 2) {
      size_ = half_size;
      CHECK_MPI(MPI_Comm_rank(half, &rank_));
    }
    check_duplicate(copies[i], i % 2 ? half : MPI_COMM_WORLD, what);
    size_ = saved;
    rank_ = saved_rank;
    snprintf(what, sizeof what, "blocking dup %d", i);
    check_duplicate(blocking[i], other, what);
  }
  for (int i = 0; i < n; ++i) {
    CHECK_MPI(MPI_Comm_free(&copies[i]));
    CHECK_MPI(MPI_Comm_free(&blocking[i]));
  }
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Comm_free(&other));
}

/* The idup of a communicator made by MPI_Comm_create_group, and of one freed before the idup's
 * request completes; attributes with a copy callback reach the copy, the error handler too. */
static int copies_made;
static int count_copy(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag) {
  (void)c, (void)key, (void)extra;
  ++copies_made;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void idup_of_made_communicators(void) {
  MPI_Group world_group;
  MPI_Comm made, copy;
  MPI_Request r;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 9, &made));
  CHECK_MPI(MPI_Group_free(&world_group));
  int key = MPI_KEYVAL_INVALID;
  static int value = 42;
  CHECK_MPI(MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(made, key, &value));
  CHECK_MPI(MPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN));
  copies_made = 0;
  CHECK_MPI(MPI_Comm_idup(made, &copy, &r));
  CHECK_MPI(MPI_Comm_free(&made)); /* allowed while the idup is pending */
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(copies_made == 1, "the copy callback ran %d times", copies_made);
  int* got = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(copy, key, &got, &flag));
  CHECK(flag && got == &value, "the attribute was not copied (flag %d)", flag);
  MPI_Errhandler handler;
  CHECK_MPI(MPI_Comm_get_errhandler(copy, &handler));
  CHECK(handler == MPI_ERRORS_RETURN, "the error handler was not inherited");
  CHECK_MPI(MPI_Errhandler_free(&handler));
  check_duplicate(copy, MPI_COMM_WORLD, "idup of a created group");
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
}

/* MPI_Comm_idup_with_info (MPI-4.0): the same duplicate, with hints the library may ignore; a
 * freed info object is refused. */
static void idup_with_info(void) {
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
  MPI_Comm copy;
  MPI_Request r;
  CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, hints, &copy, &r));
  const MPI_Info stale = hints; /* MPI_Info_free sets `hints` to MPI_INFO_NULL */
  CHECK_MPI(MPI_Info_free(&hints));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  check_duplicate(copy, MPI_COMM_WORLD, "idup_with_info");
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Comm_idup_with_info(MPI_COMM_WORLD, stale, &copy, &r), &cls);
  CHECK(cls == MPI_ERR_INFO || cls == MPI_ERR_ARG, "a freed info object gave class %d", cls);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  idup_then_point_to_point();
  idups_started_in_a_chain();
  many_in_flight();
  idup_of_made_communicators();
  idup_with_info();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
