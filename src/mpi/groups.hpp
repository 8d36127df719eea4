// What the other chapters need of groups (groups.cpp): a handle for a group they computed.
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// A new group handle holding `members` (MPI_GROUP_EMPTY when there are none, as MPI's group
/// constructors return it).
MPI_Group make_group(rmpl::group members);

/// MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL: a relation as MPI's comparisons report it
/// (MPI_Group_compare and MPI_Comm_compare).
int mpi_relation(relation r) noexcept;

}  // namespace rmpl::mpi
