// What the other chapters need of Info objects (info.cpp).
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// A new, empty Info object (what MPI_Comm_get_info returns when no hint is in use).
MPI_Info make_info();

/// Checks an Info argument that may be MPI_INFO_NULL (hints the layer does not use).
void optional_info(MPI_Info i);

}  // namespace rmpl::mpi
