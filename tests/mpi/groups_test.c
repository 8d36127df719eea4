/* Groups: every constructor and query against members computed here by hand (world ranks in group
 * order), at whatever number of ranks the job has; bad arguments under MPI_ERRORS_RETURN. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static MPI_Group world_group;
static int size, me;

/* g's members as world ranks (MPI_Group_translate_ranks into the world group), compared with
 * expected[0..n). */
static void expect_members(MPI_Group g, const int* expected, int n, const char* what) {
  int got_size = -1;
  CHECK_MPI(MPI_Group_size(g, &got_size));
  CHECK(got_size == n, "%s: size %d, expected %d", what, got_size, n);
  int* ranks = malloc(sizeof(int) * (size_t)(n + 1));
  int* world = malloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world_group, world));
  int my_rank = MPI_UNDEFINED;
  for (int i = 0; i < n; ++i) {
    CHECK(world[i] == expected[i], "%s: member %d is world rank %d, expected %d", what, i, world[i],
          expected[i]);
    if (expected[i] == me) my_rank = i;
  }
  int rank = -1;
  CHECK_MPI(MPI_Group_rank(g, &rank));
  CHECK(rank == my_rank, "%s: MPI_Group_rank gave %d, expected %d", what, rank, my_rank);
  free(ranks);
  free(world);
}

static int compare(MPI_Group a, MPI_Group b) {
  int result = -1;
  CHECK_MPI(MPI_Group_compare(a, b, &result));
  return result;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));

  int* all = malloc(sizeof(int) * (size_t)size);
  int* reversed = malloc(sizeof(int) * (size_t)size);
  int* evens = malloc(sizeof(int) * (size_t)size);
  int* odds = malloc(sizeof(int) * (size_t)size);
  int* scratch = malloc(sizeof(int) * (size_t)(2 * size + 2));
  int n_evens = 0, n_odds = 0;
  for (int r = 0; r < size; ++r) {
    all[r] = r;
    reversed[r] = size - 1 - r;
    if (r % 2 == 0)
      evens[n_evens++] = r;
    else
      odds[n_odds++] = r;
  }
  expect_members(world_group, all, size, "world group");

  /* incl / excl */
  MPI_Group rev, even_group, odd_group, g;
  CHECK_MPI(MPI_Group_incl(world_group, size, reversed, &rev));
  expect_members(rev, reversed, size, "incl reversed");
  CHECK(compare(rev, world_group) == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed vs world");
  CHECK(compare(world_group, world_group) == MPI_IDENT, "world vs itself");
  CHECK_MPI(MPI_Group_incl(world_group, n_evens, evens, &even_group));
  expect_members(even_group, evens, n_evens, "incl evens");
  CHECK_MPI(MPI_Group_excl(world_group, n_evens, evens, &odd_group));
  expect_members(odd_group, odds, n_odds, "excl evens");
  if (size >= 2) CHECK(compare(even_group, odd_group) == MPI_UNEQUAL, "evens vs odds");
  CHECK_MPI(MPI_Group_incl(world_group, 0, NULL, &g));
  CHECK(g == MPI_GROUP_EMPTY, "incl of no rank is MPI_GROUP_EMPTY");
  CHECK_MPI(MPI_Group_excl(world_group, size, all, &g));
  CHECK(g == MPI_GROUP_EMPTY, "excl of every rank is MPI_GROUP_EMPTY");
  CHECK_MPI(MPI_Group_excl(world_group, 0, NULL, &g));
  expect_members(g, all, size, "excl of no rank");
  CHECK(compare(g, world_group) == MPI_IDENT, "excl of nothing vs world");
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(g == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL");

  /* incl of a subgroup's ranks: members are taken by rank of the subgroup */
  if (n_odds >= 2) {
    int pick[2] = {1, 0};
    int expected[2] = {odds[1], odds[0]};
    CHECK_MPI(MPI_Group_incl(odd_group, 2, pick, &g));
    expect_members(g, expected, 2, "incl of odd group ranks 1, 0");
    CHECK_MPI(MPI_Group_free(&g));
  }

  /* set operations */
  CHECK_MPI(MPI_Group_union(even_group, odd_group, &g));
  {
    int n = 0;
    for (int i = 0; i < n_evens; ++i) scratch[n++] = evens[i];
    for (int i = 0; i < n_odds; ++i) scratch[n++] = odds[i];
    expect_members(g, scratch, n, "union evens, odds");
    CHECK(compare(g, world_group) == (size <= 2 ? MPI_IDENT : MPI_SIMILAR), "union vs world");
  }
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_union(rev, even_group, &g)); /* rev already holds everyone */
  expect_members(g, reversed, size, "union reversed, evens");
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(rev, even_group, &g)); /* in rev's order */
  {
    int n = 0;
    for (int i = 0; i < size; ++i)
      if (reversed[i] % 2 == 0) scratch[n++] = reversed[i];
    expect_members(g, scratch, n, "intersection reversed, evens");
  }
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(even_group, odd_group, &g));
  CHECK(g == MPI_GROUP_EMPTY, "evens and odds intersect in MPI_GROUP_EMPTY");
  CHECK_MPI(MPI_Group_difference(rev, odd_group, &g));
  {
    int n = 0;
    for (int i = 0; i < size; ++i)
      if (reversed[i] % 2 == 0) scratch[n++] = reversed[i];
    expect_members(g, scratch, n, "difference reversed - odds");
  }
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(even_group, world_group, &g));
  CHECK(g == MPI_GROUP_EMPTY, "evens - world is empty");
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, odd_group, &g));
  expect_members(g, odds, n_odds, "union empty, odds");
  if (n_odds > 0) CHECK_MPI(MPI_Group_free(&g));
  expect_members(MPI_GROUP_EMPTY, NULL, 0, "MPI_GROUP_EMPTY");

  /* range_incl / range_excl */
  {
    int ranges[2][3] = {{0, size - 1, 2}, {0, 0, 0}};
    CHECK_MPI(MPI_Group_range_incl(world_group, 1, ranges, &g));
    expect_members(g, evens, n_evens, "range_incl (0, n-1, 2)");
    CHECK(compare(g, even_group) == MPI_IDENT, "range evens vs incl evens");
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_range_excl(world_group, 1, ranges, &g));
    expect_members(g, odds, n_odds, "range_excl (0, n-1, 2)");
    if (n_odds > 0) CHECK_MPI(MPI_Group_free(&g));

    int down[1][3] = {{size - 1, 0, -1}};
    CHECK_MPI(MPI_Group_range_incl(world_group, 1, down, &g));
    expect_members(g, reversed, size, "range_incl (n-1, 0, -1)");
    CHECK_MPI(MPI_Group_free(&g));

    /* Two triplets of stride 3 (ranks 2 mod 3 are left out), then the complement. */
    int thirds[2][3] = {{0, size - 1, 3}, {1, size - 1, 3}};
    int n = 0, m = 0;
    for (int r = 0; r < size; r += 3) scratch[n++] = r;
    for (int r = 1; r < size; r += 3) scratch[n++] = r;
    int ntriplets = size >= 2 ? 2 : 1;
    CHECK_MPI(MPI_Group_range_incl(world_group, ntriplets, thirds, &g));
    expect_members(g, scratch, n, "range_incl two triplets of stride 3");
    CHECK_MPI(MPI_Group_free(&g));
    for (int r = 0; r < size; ++r)
      if (r % 3 == 2) scratch[m++] = r;
    CHECK_MPI(MPI_Group_range_excl(world_group, ntriplets, thirds, &g));
    expect_members(g, scratch, m, "range_excl two triplets of stride 3");
    if (m > 0) CHECK_MPI(MPI_Group_free(&g));

    /* A triplet whose stride leads away from its end names no rank. */
    if (size >= 2) {
      int away[1][3] = {{1, 0, 1}};
      CHECK_MPI(MPI_Group_range_incl(world_group, 1, away, &g));
      CHECK(g == MPI_GROUP_EMPTY, "range (1, 0, 1) is empty");
    }
  }

  /* translate_ranks: MPI_PROC_NULL stays, absent processes are MPI_UNDEFINED */
  {
    int in[3] = {0, MPI_PROC_NULL, size - 1}, out[3] = {-7, -7, -7};
    CHECK_MPI(MPI_Group_translate_ranks(world_group, 3, in, odd_group, out));
    CHECK(out[0] == MPI_UNDEFINED, "world 0 in odds: %d", out[0]);
    CHECK(out[1] == MPI_PROC_NULL, "MPI_PROC_NULL translates to %d", out[1]);
    int last_expected = (size - 1) % 2 == 1 ? (size - 1) / 2 : MPI_UNDEFINED;
    CHECK(out[2] == last_expected, "world %d in odds: %d, expected %d", size - 1, out[2],
          last_expected);
    for (int r = 0; r < size; ++r) scratch[r] = r;
    CHECK_MPI(MPI_Group_translate_ranks(world_group, size, scratch, rev, scratch)); /* in place */
    for (int r = 0; r < size; ++r)
      CHECK(scratch[r] == size - 1 - r, "world %d in reversed: %d", r, scratch[r]);
  }

  /* errors */
  {
    int bad = size, dup[2] = {0, 0}, neg = -1;
    CHECK_ERR(MPI_Group_incl(world_group, 1, &bad, &g), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_incl(world_group, 1, &neg, &g), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_incl(world_group, 2, dup, &g), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_excl(world_group, 2, dup, &g), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_excl(world_group, 1, &bad, &g), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_incl(world_group, -1, dup, &g), MPI_ERR_ARG);
    int zero_stride[1][3] = {{0, 0, 0}};
    CHECK_ERR(MPI_Group_range_incl(world_group, 1, zero_stride, &g), MPI_ERR_ARG);
    int outside[1][3] = {{0, size, 1}};
    CHECK_ERR(MPI_Group_range_incl(world_group, 1, outside, &g), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_range_excl(world_group, 1, outside, &g), MPI_ERR_RANK);
    int twice[2][3] = {{0, 0, 1}, {0, 0, 1}};
    CHECK_ERR(MPI_Group_range_incl(world_group, 2, twice, &g), MPI_ERR_RANK);
    int out = 0;
    CHECK_ERR(MPI_Group_translate_ranks(world_group, 1, &bad, rev, &out), MPI_ERR_RANK);
    CHECK_ERR(MPI_Group_translate_ranks(world_group, -2, &bad, rev, &out), MPI_ERR_ARG);
    int s = 0;
    CHECK_ERR(MPI_Group_size(MPI_GROUP_NULL, &s), MPI_ERR_GROUP);
    CHECK_ERR(MPI_Group_union(MPI_GROUP_NULL, rev, &g), MPI_ERR_GROUP);
    MPI_Group null_group = MPI_GROUP_NULL;
    CHECK_ERR(MPI_Group_free(&null_group), MPI_ERR_GROUP);
    /* use after free */
    MPI_Group stale = rev;
    CHECK_MPI(MPI_Group_free(&rev));
    CHECK(rev == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL");
    CHECK_ERR(MPI_Group_size(stale, &s), MPI_ERR_GROUP);
    CHECK_ERR(MPI_Group_free(&stale), MPI_ERR_GROUP);
    /* the error text names the rank and the group's size */
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    int code = MPI_Group_incl(world_group, 1, &bad, &g);
    MPI_Error_string(code, text, &len);
    char expected_text[64];
    snprintf(expected_text, sizeof expected_text, "size %d", size);
    CHECK(strstr(text, expected_text) != NULL, "error text \"%s\" does not name the size", text);
  }
  /* MPI_GROUP_EMPTY may be freed and stays valid */
  g = MPI_GROUP_EMPTY;
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(g == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY sets MPI_GROUP_NULL");
  expect_members(MPI_GROUP_EMPTY, NULL, 0, "MPI_GROUP_EMPTY after a free");

  CHECK_MPI(MPI_Group_free(&even_group));
  if (n_odds > 0) CHECK_MPI(MPI_Group_free(&odd_group));
  CHECK_MPI(MPI_Group_free(&world_group));
  free(all);
  free(reversed);
  free(evens);
  free(odds);
  free(scratch);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
