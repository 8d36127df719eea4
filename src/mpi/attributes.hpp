// What the other chapters need of attribute caching (attributes.cpp): the copy callbacks that
// duplicating an object runs, and the delete callbacks that freeing it runs.
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// Runs the copy callback of every attribute cached on `from` (in the order they were set) and
/// caches on `to` the values they copy: what MPI_Comm_dup / MPI_Type_dup do once `to` exists. A
/// callback's failure is thrown as an mpi::error carrying the code it returned, after the copies
/// already made have been deleted again (their delete callbacks run): the caller then only
/// discards `to`.
void copy_attributes(MPI_Comm from, MPI_Comm to);
void copy_attributes(MPI_Datatype from, MPI_Datatype to);

/// Runs the delete callback of every attribute cached on `c` (most recently set first) and removes
/// them: what MPI_Comm_free / MPI_Type_free do before the object goes, and MPI_Finalize on
/// MPI_COMM_SELF. A callback's failure is thrown as an mpi::error carrying the code it returned;
/// the attributes not yet deleted then stay, and so should the object.
void delete_attributes(MPI_Comm c);
void delete_attributes(MPI_Datatype t);

}  // namespace rmpl::mpi
