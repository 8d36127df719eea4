/* Communicators: dup, split (several colors and keys), split_type, create, create_group on part of
 * the job while the rest works on its own, comparisons, names, hints, traffic on two communicators
 * with the same tags never crossing, and freeing, with the members of every new communicator
 * checked against a list computed here. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int size, me;
static MPI_Group world_group;

/* c's members as world ranks, compared with expected[0..n); and c's size and this rank's rank. */
/* Rank r's host under RMPL_PRETEND_HOSTS (a host number per rank, repeated; the test setting that
   splits a one-machine job among pretended hosts), 0 without it. */
static int host_of(int r) {
  const char* text = getenv("RMPL_PRETEND_HOSTS");
  int hosts[64], n = 0;
  while (text != NULL && *text != '\0' && n < 64) {
    char* end = NULL;
    hosts[n++] = (int)strtol(text, &end, 10);
    text = *end == ',' ? end + 1 : end;
  }
  return n == 0 ? 0 : hosts[r % n];
}

static void expect_members(MPI_Comm c, const int* expected, int n, const char* what) {
  int got = -1, rank = -1, my_rank = -1;
  CHECK_MPI(MPI_Comm_size(c, &got));
  CHECK(got == n, "%s: size %d, expected %d", what, got, n);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(c, &g));
  int* ranks = malloc(sizeof(int) * (size_t)(n + 1));
  int* world = malloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world_group, world));
  for (int i = 0; i < n; ++i) {
    CHECK(world[i] == expected[i], "%s: rank %d is world rank %d, expected %d", what, i, world[i],
          expected[i]);
    if (expected[i] == me) my_rank = i;
  }
  CHECK_MPI(MPI_Comm_rank(c, &rank));
  CHECK(rank == my_rank, "%s: rank %d, expected %d", what, rank, my_rank);
  /* The communicator works: the sum of its members' world ranks. */
  int sum = 0, expected_sum = 0;
  for (int i = 0; i < n; ++i) expected_sum += expected[i];
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == expected_sum, "%s: allreduce gave %d, expected %d", what, sum, expected_sum);
  CHECK_MPI(MPI_Group_free(&g));
  free(ranks);
  free(world);
}

static int compare(MPI_Comm a, MPI_Comm b) {
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(a, b, &result));
  return result;
}

/* The world ranks with color(r) == color(me), ordered by (key(r), r). */
static int split_reference(int (*color)(int), int (*key)(int), int* out) {
  int n = 0;
  for (int r = 0; r < size; ++r) {
    if (color(r) != color(me)) continue;
    int at = n++;
    while (at > 0 && key(out[at - 1]) > key(r)) {
      out[at] = out[at - 1];
      --at;
    }
    out[at] = r;
  }
  return n;
}
/* How two distinct communicators of these members (world ranks in rank order) compare. */
static int reference_relation(const int* a, int na, const int* b, int nb) {
  if (na != nb) return MPI_UNEQUAL;
  int same_order = 1;
  for (int i = 0; i < na; ++i) {
    if (a[i] != b[i]) same_order = 0;
    int found = 0;
    for (int j = 0; j < nb; ++j) found |= a[i] == b[j];
    if (!found) return MPI_UNEQUAL;
  }
  return same_order ? MPI_CONGRUENT : MPI_SIMILAR;
}
static int mod3(int r) {
  return r % 3;
}
static int descending(int r) {
  return -r;
}
static int halves(int r) {
  return r < (size + 1) / 2;
}
static int zero(int r) {
  return r * 0;
}

/* Point-to-point on two communicators with the same tag, the second's receives posted first (from
 * any source, any tag): each message must arrive on the communicator it was sent on. Each sends to
 * its right neighbour in either communicator. */
static void check_traffic_apart(MPI_Comm a, MPI_Comm b) {
  int na = 0, ra = 0, nb = 0, rb = 0;
  CHECK_MPI(MPI_Comm_size(a, &na));
  CHECK_MPI(MPI_Comm_rank(a, &ra));
  CHECK_MPI(MPI_Comm_size(b, &nb));
  CHECK_MPI(MPI_Comm_rank(b, &rb));
  int on_a = 1000 + ra, on_b = 2000 + rb, got_a = -1, got_b = -1;
  const int left_a = (ra + na - 1) % na, left_b = (rb + nb - 1) % nb;
  MPI_Request sends[2];
  MPI_Status status;
  CHECK_MPI(MPI_Isend(&on_a, 1, MPI_INT, (ra + 1) % na, 5, a, &sends[0]));
  CHECK_MPI(MPI_Isend(&on_b, 1, MPI_INT, (rb + 1) % nb, 5, b, &sends[1]));
  CHECK_MPI(MPI_Recv(&got_b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, b, &status));
  CHECK(got_b == 2000 + left_b, "on b: got %d from %d, expected %d", got_b, status.MPI_SOURCE,
        2000 + left_b);
  CHECK(status.MPI_SOURCE == left_b && status.MPI_TAG == 5, "on b: source %d tag %d",
        status.MPI_SOURCE, status.MPI_TAG);
  CHECK_MPI(MPI_Recv(&got_a, 1, MPI_INT, left_a, 5, a, &status));
  CHECK(got_a == 1000 + left_a, "on a: got %d, expected %d", got_a, 1000 + left_a);
  CHECK_MPI(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  int* expected = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) expected[r] = r;
  expect_members(MPI_COMM_WORLD, expected, size, "MPI_COMM_WORLD");
  int self_member = me;
  expect_members(MPI_COMM_SELF, &self_member, 1, "MPI_COMM_SELF");
  CHECK(compare(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "world vs world");
  CHECK(compare(MPI_COMM_WORLD, MPI_COMM_SELF) == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL),
        "world vs self");

  /* names */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name \"%s\" (%d)", name, len);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "self's name \"%s\" (%d)", name, len);

  /* dup: same members, own message space, error handler inherited */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  expect_members(dup, expected, size, "dup of world");
  CHECK(compare(dup, MPI_COMM_WORLD) == MPI_CONGRUENT, "dup vs world");
  CHECK(compare(dup, dup) == MPI_IDENT, "dup vs itself");
  MPI_Errhandler handler;
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &handler));
  CHECK(handler == MPI_ERRORS_RETURN, "dup did not inherit MPI_ERRORS_RETURN");
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a dup's name is empty, got \"%s\"", name);
  CHECK_MPI(MPI_Comm_set_name(dup, "my duplicate"));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, "my duplicate") == 0 && len == 12, "set name read back as \"%s\"", name);
  int inter = -1;
  CHECK_MPI(MPI_Comm_test_inter(dup, &inter));
  CHECK(inter == 0, "test_inter %d", inter);
  check_traffic_apart(MPI_COMM_WORLD, dup);
  check_traffic_apart(dup, MPI_COMM_WORLD);

  /* MPI_COMM_SELF can be duplicated and split like any other */
  {
    MPI_Comm self_dup, self_split;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
    CHECK(compare(self_dup, MPI_COMM_SELF) == MPI_CONGRUENT, "dup of self vs self");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_SELF, 3, 0, &self_split));
    expect_members(self_split, &self_member, 1, "split of MPI_COMM_SELF");
    check_traffic_apart(self_dup, self_split);
    check_traffic_apart(self_dup, MPI_COMM_SELF);
    CHECK_MPI(MPI_Comm_free(&self_split));
    CHECK_MPI(MPI_Comm_free(&self_dup));
  }

  /* split: three colors, keys reversing the order */
  int* members = malloc(sizeof(int) * (size_t)size);
  MPI_Comm by3, reversed, halves_comm, none;
  int n = split_reference(mod3, descending, members);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 3, -me, &by3));
  expect_members(by3, members, n, "split color r%3 key -r");
  n = split_reference(zero, descending, members);
  CHECK_MPI(MPI_Comm_split(dup, 0, -me, &reversed));
  expect_members(reversed, members, n, "split of dup, one color, key -r");
  CHECK(compare(reversed, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
        "reversed vs world");
  n = split_reference(halves, zero, members);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, halves(me), 0, &halves_comm));
  expect_members(halves_comm, members, n, "split into halves, equal keys");
  {
    int* other = malloc(sizeof(int) * (size_t)size);
    int n3 = split_reference(mod3, descending, other);
    int expected_relation = reference_relation(members, n, other, n3);
    CHECK(compare(halves_comm, by3) == expected_relation, "halves vs by3: %d, expected %d",
          compare(halves_comm, by3), expected_relation);
    free(other);
  }
  check_traffic_apart(halves_comm, by3);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? MPI_UNDEFINED : 1, me, &none));
  if (me % 2) {
    CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
  } else {
    n = 0;
    for (int r = 0; r < size; r += 2) members[n++] = r;
    expect_members(none, members, n, "split of even ranks");
    CHECK_MPI(MPI_Comm_free(&none));
  }

  /* split_type */
  MPI_Comm shared;
  CHECK_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - me, MPI_INFO_NULL, &shared));
  /* The ranks of this host (one host, unless pretended), by key: descending. */
  n = 0;
  for (int r = size - 1; r >= 0; --r)
    if (host_of(r) == host_of(me)) members[n++] = r;
  expect_members(shared, members, n, "split_type shared, key n - r");
  CHECK_MPI(MPI_Comm_free(&shared));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &shared));
  if (me == 0) {
    CHECK(shared == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
  } else {
    n = 0;
    for (int r = 1; r < size; ++r)
      if (host_of(r) == host_of(me)) members[n++] = r;
    expect_members(shared, members, n, "split_type without rank 0");
    CHECK_MPI(MPI_Comm_free(&shared));
  }

  /* create: the odd ranks in descending order */
  {
    MPI_Group odds;
    n = 0;
    for (int r = size - 1; r >= 0; --r)
      if (r % 2) members[n++] = r;
    CHECK_MPI(MPI_Group_incl(world_group, n, members, &odds));
    MPI_Comm created;
    CHECK_MPI(MPI_Comm_create(dup, odds, &created));
    if (me % 2) {
      expect_members(created, members, n, "create of odd ranks, descending");
      CHECK_MPI(MPI_Comm_free(&created));
    } else {
      CHECK(created == MPI_COMM_NULL, "a non-member got a communicator from create");
    }
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &created));
    CHECK(created == MPI_COMM_NULL, "create of MPI_GROUP_EMPTY gave a communicator");
    CHECK_MPI(MPI_Group_free(&odds));
  }

  /* create_group: each half makes a communicator of itself (reversed) while the other half does
   * the same with the same tag, and talks on MPI_COMM_WORLD in between; then the lower half again
   * with another tag, while the upper half runs collectives on its own communicator. */
  {
    const int low = (size + 1) / 2;
    const int mine_low = me < low;
    n = 0;
    if (mine_low) {
      for (int r = low - 1; r >= 0; --r) members[n++] = r;
    } else {
      for (int r = size - 1; r >= low; --r) members[n++] = r;
    }
    MPI_Group half;
    CHECK_MPI(MPI_Group_incl(world_group, n, members, &half));
    MPI_Comm made;
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, half, 7, &made));
    expect_members(made, members, n, "create_group of my half, reversed");
    check_traffic_apart(made, halves_comm);
    CHECK_MPI(MPI_Comm_free(&made));
    if (mine_low) {
      MPI_Comm again;
      CHECK_MPI(MPI_Comm_create_group(dup, half, 8, &again));
      expect_members(again, members, n, "second create_group of the lower half");
      CHECK_MPI(MPI_Comm_free(&again));
    } else {
      for (int i = 0; i < 20; ++i) {
        int one = 1, count = 0;
        CHECK_MPI(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, halves_comm));
        CHECK(count == size - low, "upper half counted %d, expected %d", count, size - low);
      }
    }
    /* every rank again, on the whole world in one group */
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 0, &made));
    expect_members(made, expected, size, "create_group of the world");
    CHECK_MPI(MPI_Comm_free(&made));
    CHECK_ERR(MPI_Comm_create_group(MPI_COMM_WORLD, half, -1, &made), MPI_ERR_TAG);
    CHECK_MPI(MPI_Group_free(&half));
    if (size > 1) {
      /* a group with a process outside the communicator */
      MPI_Group outside;
      CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &outside));
      CHECK_ERR(MPI_Comm_create_group(MPI_COMM_SELF, outside, 0, &made), MPI_ERR_GROUP);
      CHECK_ERR(MPI_Comm_create(MPI_COMM_SELF, outside, &made), MPI_ERR_GROUP);
      CHECK_MPI(MPI_Group_free(&outside));
    }
  }

  /* idup, dup_with_info, hints */
  {
    MPI_Comm idup, with_info;
    MPI_Request request;
    CHECK_MPI(MPI_Comm_idup(by3, &idup, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    CHECK(request == MPI_REQUEST_NULL, "wait left the request");
    CHECK(compare(idup, by3) == MPI_CONGRUENT, "idup vs original");
    check_traffic_apart(idup, by3);
    MPI_Info info, used;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "no_such_hint", "true"));
    CHECK_MPI(MPI_Comm_dup_with_info(idup, info, &with_info));
    CHECK(compare(with_info, idup) == MPI_CONGRUENT, "dup_with_info vs original");
    CHECK_MPI(MPI_Comm_set_info(with_info, info));
    CHECK_MPI(MPI_Comm_get_info(with_info, &used));
    int nkeys = -1;
    CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 0, "unused hints reported: %d", nkeys);
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Comm_free(&with_info));
    CHECK_MPI(MPI_Comm_free(&idup));
  }

  /* contexts are recycled: more dup/free cycles than there are contexts */
  {
    double start = MPI_Wtime();
    for (int i = 0; i < 2100; ++i) {
      MPI_Comm c;
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
      CHECK_MPI(MPI_Comm_free(&c));
    }
    if (me == 0 && MPI_Wtime() - start > 5) {
      fprintf(stderr, "note: 2100 dup/free took %.1f s\n", MPI_Wtime() - start);
    }
  }

  /* errors */
  {
    MPI_Comm out, stale = reversed, world = MPI_COMM_WORLD, self = MPI_COMM_SELF,
                  null = MPI_COMM_NULL;
    int value = 0;
    CHECK_ERR(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &out), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &out), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_size(MPI_COMM_NULL, &value), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_dup(MPI_COMM_NULL, &out), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &out), MPI_ERR_GROUP);
    CHECK_ERR(MPI_Comm_free(&world), MPI_ERR_COMM);
    CHECK(world == MPI_COMM_WORLD, "a failed free changed the handle");
    CHECK_ERR(MPI_Comm_free(&self), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_free(&null), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_free(&reversed));
    CHECK(reversed == MPI_COMM_NULL, "free did not set MPI_COMM_NULL");
    CHECK_ERR(MPI_Comm_size(stale, &value), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_rank(stale, &value), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_free(&stale), MPI_ERR_COMM);
    CHECK_ERR(MPI_Send(&value, 1, MPI_INT, 0, 0, stale), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_compare(MPI_COMM_WORLD, stale, &value), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    /* world is still usable after all that */
    expect_members(MPI_COMM_WORLD, expected, size, "MPI_COMM_WORLD at the end");
  }

  CHECK_MPI(MPI_Comm_free(&by3));
  CHECK_MPI(MPI_Comm_free(&halves_comm));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Group_free(&world_group));
  free(members);
  free(expected);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
