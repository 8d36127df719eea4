/* MPI_Finalize deletes MPI_COMM_SELF's attributes first (MPI-3.1 8.7.1): in the reverse order of
 * setting them (not of creating their keyvals), before anything else of the library goes, so
 * their delete callbacks may still call MPI (MPI_Finalized still says false). MPI_COMM_WORLD's
 * attributes are deleted after them. */
#include <stdint.h>

#include "check.h"

enum { keys = 5, most = 16 };

static int order[most]; /* the attribute values, in the order their delete callbacks ran */
static int deleted = 0;
static int world_rank = -1, world_size = 0;

/* Records the value and checks that MPI still works: rank and size, MPI_Finalized, a message to
 * this rank itself and a barrier of every rank (every rank deletes the same attributes in the
 * same order, so the barriers match). */
static int record(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)extra;
  (void)keyval;
  CHECK(deleted < most, "more delete callbacks than attributes");
  order[deleted++] = (int)(intptr_t)value;
  int rank = -1, size = 0, finalized = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(rank == world_rank && size == world_size, "rank %d of %d in a delete callback", rank, size);
  CHECK_MPI(MPI_Finalized(&finalized));
  CHECK(!finalized, "MPI_Finalized is true in a delete callback of attribute %d",
        (int)(intptr_t)value);
  int out = (int)(intptr_t)value, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, rank, 7, &in, 1, MPI_INT, rank, 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  CHECK(in == out, "a message to self in a delete callback carried %d, not %d", in, out);
  if (comm == MPI_COMM_SELF) {
    int self_rank = -1;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &self_rank));
    CHECK(self_rank == 0, "MPI_COMM_SELF rank %d in its own delete callback", self_rank);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &world_size));

  int key[keys];
  for (int i = 0; i < keys; ++i) {
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record, &key[i], NULL));
  }
  /* Set in an order that is neither the keyvals' nor its reverse; the value is the position. */
  const int set_order[keys] = {2, 0, 4, 1, 3};
  for (int i = 0; i < keys; ++i) {
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key[set_order[i]], (void*)(intptr_t)(i + 1)));
  }
  /* Overwriting one deletes the old value now and makes the new one the most recently set. */
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key[set_order[1]], (void*)(intptr_t)6));
  CHECK(deleted == 1 && order[0] == 2, "overwriting ran %d delete callbacks (first %d)", deleted,
        order[0]);
  /* An attribute on MPI_COMM_WORLD, set before those on MPI_COMM_SELF were. */
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key[0], (void*)(intptr_t)100));
  /* A keyval freed while MPI_COMM_SELF holds it: its attribute is still deleted in turn. */
  int freed = key[set_order[2]];
  CHECK_MPI(MPI_Comm_free_keyval(&freed));

  deleted = 0;
  CHECK_MPI(MPI_Finalize());

  /* Most recently set first: 6 (the overwrite), then 5, 4, 3, 1; MPI_COMM_WORLD's after. (CHECK
   * asks MPI for the rank, which it no longer answers: the rank was kept.) */
  const int expected[] = {6, 5, 4, 3, 1, 100};
  const int n = (int)(sizeof expected / sizeof expected[0]);
  int wrong = deleted != n;
  for (int i = 0; i < n && i < deleted; ++i) wrong |= order[i] != expected[i];
  if (wrong) {
    fprintf(stderr, "rank %d: MPI_Finalize deleted %d attributes in the order", world_rank,
            deleted);
    for (int i = 0; i < deleted; ++i) fprintf(stderr, " %d", order[i]);
    fprintf(stderr, "; expected 6 5 4 3 1 100\n");
    return 1;
  }
  return 0;
}
