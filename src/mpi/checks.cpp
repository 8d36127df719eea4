// Validation of handles and common arguments: each returns the object a handle names, or throws an
// mpi::error naming the argument, its value and what is wrong with it.
#include "mpi/call.hpp"

namespace rmpl::mpi {

void bad_comm(MPI_Comm c) {
  require_initialized();
  if (c == MPI_COMM_NULL) fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  if (c->tag == magic::dead) fail(MPI_ERR_COMM, "the communicator was freed");
  fail(MPI_ERR_COMM, "{} is not a communicator", static_cast<const void*>(c));
}

void bad_datatype(MPI_Datatype t, bool committed) {
  if (t == MPI_DATATYPE_NULL) fail(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
  if (t->tag == magic::dead) fail(MPI_ERR_TYPE, "the datatype was freed");
  if (t->tag != magic::datatype) {
    fail(MPI_ERR_TYPE, "{} is not a datatype", static_cast<const void*>(t));
  }
  if (committed && !t->committed) {
    fail(MPI_ERR_TYPE, "datatype {} is not committed (call MPI_Type_commit first)",
         t->name.empty() ? fmt::format("{}", static_cast<const void*>(t)) : t->name);
  }
  fail(MPI_ERR_INTERN, "datatype check failed for a valid datatype");
}

rmpl_mpi_group& group(MPI_Group g) {
  if (g == MPI_GROUP_NULL) fail(MPI_ERR_GROUP, "the group is MPI_GROUP_NULL");
  if (g->tag == magic::dead) fail(MPI_ERR_GROUP, "the group was freed");
  if (g->tag != magic::group) fail(MPI_ERR_GROUP, "{} is not a group", static_cast<const void*>(g));
  return *g;
}

rmpl_mpi_op& op(MPI_Op o) {
  if (o == MPI_OP_NULL) fail(MPI_ERR_OP, "the operator is MPI_OP_NULL");
  if (o->tag == magic::dead) fail(MPI_ERR_OP, "the operator was freed");
  if (o->tag != magic::op) fail(MPI_ERR_OP, "{} is not an operator", static_cast<const void*>(o));
  return *o;
}

rmpl_mpi_info& info(MPI_Info i) {
  if (i == MPI_INFO_NULL) fail(MPI_ERR_INFO, "the info object is MPI_INFO_NULL");
  if (i->tag == magic::dead) fail(MPI_ERR_INFO, "the info object was freed");
  if (i->tag != magic::info) {
    fail(MPI_ERR_INFO, "{} is not an info object", static_cast<const void*>(i));
  }
  return *i;
}

void count(int n, const char* what) {
  if (n < 0) fail(MPI_ERR_COUNT, "{} {} is negative", what, n);
}

void buffer(const void* buf, int n, const rmpl_mpi_datatype& t, const char* what) {
  if (buf == nullptr && n > 0 && t.size > 0 && t.true_lb == 0 && t.contiguous) {
    fail(MPI_ERR_BUFFER, "{} is null with a count of {}", what, n);
  }
}

}  // namespace rmpl::mpi
