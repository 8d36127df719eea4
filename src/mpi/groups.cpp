// Groups (MPI-3.1 6.3): ordered sets of processes, local objects built without communication. A
// group handle holds an rmpl::group (job ranks in group order); the set operations are that
// class's own, this file only checks arguments and names what is wrong with them.
#include <cstdint>
#include <vector>

#include "mpi/call.hpp"
#include "mpi/groups.hpp"
#include "mpi/pool.hpp"

struct rmpl_mpi_group rmpl_mpi_group_empty {
  rmpl::mpi::magic::group, rmpl::group{}, true, nullptr
};

namespace rmpl::mpi {
namespace {

pool<rmpl_mpi_group>& groups() {
  static pool<rmpl_mpi_group> p;
  return p;
}

void check_rank(const rmpl_mpi_group& g, int rank, const char* what, int index) {
  if (rank < 0 || rank >= g.members.size()) {
    fail(MPI_ERR_RANK, "{}[{}] = {} is not a rank of the group (size {})", what, index, rank,
         g.members.size());
  }
}

/// The ranks of `g` listed in ranks[0..n): each valid and listed once.
std::vector<int> listed_ranks(const rmpl_mpi_group& g, int n, const int ranks[]) {
  if (n < 0) fail(MPI_ERR_ARG, "the number of ranks n = {} is negative", n);
  if (n > 0 && ranks == nullptr) fail(MPI_ERR_ARG, "the rank array is null with n = {}", n);
  std::vector<int> out(ranks, ranks + n);
  std::vector<bool> seen(static_cast<std::size_t>(g.members.size()), false);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    check_rank(g, r, "ranks", i);
    if (seen[static_cast<std::size_t>(r)]) {
      fail(MPI_ERR_RANK, "rank {} is listed twice (ranks[{}]) for a group of size {}", r, i,
           g.members.size());
    }
    seen[static_cast<std::size_t>(r)] = true;
  }
  return out;
}

/// The ranks of `g` that the (first, last, stride) triplets name, in order: each valid and named
/// once. A triplet whose stride leads away from `last` names no rank, as the standard's formula
/// gives.
std::vector<int> ranges_ranks(const rmpl_mpi_group& g, int n, const int ranges[][3]) {
  if (n < 0) fail(MPI_ERR_ARG, "the number of ranges n = {} is negative", n);
  if (n > 0 && ranges == nullptr) fail(MPI_ERR_ARG, "the range array is null with n = {}", n);
  std::vector<int> out;
  std::vector<bool> seen(static_cast<std::size_t>(g.members.size()), false);
  for (int i = 0; i < n; ++i) {
    const std::int64_t first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) {
      fail(MPI_ERR_ARG, "ranges[{}] = ({}, {}, {}) has a stride of 0", i, first, last, stride);
    }
    // Every rank named must be valid and new, so this loop ends after at most size + 1 steps.
    for (std::int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (r < 0 || r >= g.members.size()) {
        fail(MPI_ERR_RANK,
             "ranges[{}] = ({}, {}, {}) names rank {}, not a rank of the group "
             "(size {})",
             i, first, last, stride, r, g.members.size());
      }
      if (seen[static_cast<std::size_t>(r)]) {
        fail(MPI_ERR_RANK, "ranges[{}] = ({}, {}, {}) names rank {} a second time (group size {})",
             i, first, last, stride, r, g.members.size());
      }
      seen[static_cast<std::size_t>(r)] = true;
      out.push_back(static_cast<int>(r));
    }
  }
  return out;
}

void store(MPI_Group* newgroup, rmpl::group members) {
  if (newgroup == nullptr) fail(MPI_ERR_ARG, "the new group's handle pointer is null");
  *newgroup = make_group(std::move(members));
}

}  // namespace

int mpi_relation(relation r) noexcept {
  switch (r) {
    case relation::identical:
      return MPI_IDENT;
    case relation::congruent:
      return MPI_CONGRUENT;
    case relation::similar:
      return MPI_SIMILAR;
    case relation::unequal:
      return MPI_UNEQUAL;
  }
  return MPI_UNEQUAL;
}

MPI_Group make_group(rmpl::group members) {
  if (members.size() == 0) return MPI_GROUP_EMPTY;
  rmpl_mpi_group* g = groups().make();
  g->members = std::move(members);
  return g;
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Group_size(MPI_Group g, int* size) {
  *size = group(g).members.size();
  return MPI_SUCCESS;
}

int Group_rank(MPI_Group g, int* rank) {
  const rmpl_mpi_group& checked = group(g);
  require_initialized();  // this process's job rank is the kernel's
  *rank = checked.members.rank();
  return MPI_SUCCESS;
}

int Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                          int ranks2[]) {
  const rmpl_mpi_group& from = group(group1);
  const rmpl_mpi_group& to = group(group2);
  if (n < 0) fail(MPI_ERR_ARG, "the number of ranks n = {} is negative", n);
  if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr)) {
    fail(MPI_ERR_ARG, "a rank array is null with n = {}", n);
  }
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] != MPI_PROC_NULL) check_rank(from, ranks1[i], "ranks1", i);
  }
  // Checked first, written after: the output array may be the input array.
  std::vector<int> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] =
        ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
                                   : to.members.rank_of_world(from.members.world_rank(ranks1[i]));
  }
  std::copy(out.begin(), out.end(), ranks2);
  return MPI_SUCCESS;
}

int Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  *result = mpi_relation(compare(group(group1).members, group(group2).members));
  return MPI_SUCCESS;
}

int Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  store(newgroup, set_union(group(group1).members, group(group2).members));
  return MPI_SUCCESS;
}

int Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  store(newgroup, set_intersection(group(group1).members, group(group2).members));
  return MPI_SUCCESS;
}

int Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  store(newgroup, set_difference(group(group1).members, group(group2).members));
  return MPI_SUCCESS;
}

int Group_incl(MPI_Group g, int n, const int ranks[], MPI_Group* newgroup) {
  const rmpl_mpi_group& from = group(g);
  store(newgroup, from.members.include(listed_ranks(from, n, ranks)));
  return MPI_SUCCESS;
}

int Group_excl(MPI_Group g, int n, const int ranks[], MPI_Group* newgroup) {
  const rmpl_mpi_group& from = group(g);
  store(newgroup, from.members.exclude(listed_ranks(from, n, ranks)));
  return MPI_SUCCESS;
}

int Group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group* newgroup) {
  const rmpl_mpi_group& from = group(g);
  store(newgroup, from.members.include(ranges_ranks(from, n, ranges)));
  return MPI_SUCCESS;
}

int Group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group* newgroup) {
  const rmpl_mpi_group& from = group(g);
  store(newgroup, from.members.exclude(ranges_ranks(from, n, ranges)));
  return MPI_SUCCESS;
}

int Group_free(MPI_Group* g) {
  if (g == nullptr) fail(MPI_ERR_ARG, "the group handle pointer is null");
  rmpl_mpi_group& freed = group(*g);
  // MPI_GROUP_EMPTY may be freed (every group constructor can return it) but stays valid.
  if (!freed.predefined) groups().recycle(&freed);
  *g = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/groups.inc"  // the MPI_ and PMPI_ functions (generated)
