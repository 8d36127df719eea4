// What point_to_point.cpp offers the layer's other files: a nonblocking send or receive as an
// MPI_Request, with every check of MPI_Isend / MPI_Irecv (partitioned.cpp builds on them).
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// MPI_Isend's request (standard mode).
MPI_Request send_request(const void* buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm c);
/// MPI_Irecv's request.
MPI_Request recv_request(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm c);

}  // namespace rmpl::mpi
