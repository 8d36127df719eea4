// Validation of handles and common arguments: each returns the object a handle names, or throws an
// mpi::error naming the argument, its value and what is wrong with it.
#include "mpi/call.hpp"

namespace rmpl::mpi {

namespace {
/// A handle's value as the error texts show it.
const void* value(const void* handle) {
  return handle;
}
}  // namespace

rmpl_mpi_comm& checked_comm(MPI_Comm c) {
  if (live_object(c, magic::comm)) return *c;
  require_initialized();
  if (c == MPI_COMM_NULL) fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  if (!owned(c)) fail(MPI_ERR_COMM, "communicator {} is no object of the library", value(c));
  if (c->tag == magic::dead) fail(MPI_ERR_COMM, "communicator {} was freed", value(c));
  if (c->tag == magic::inactive) {
    fail(MPI_ERR_COMM, "communicator {} is not usable yet (its MPI_Comm_idup is pending)",
         value(c));
  }
  fail(MPI_ERR_COMM, "{} is not a communicator", value(c));
}

rmpl_mpi_datatype& checked_datatype(MPI_Datatype t, bool committed) {
  if (live_object(t, magic::datatype) && (t->committed || !committed)) return *t;
  if (t == MPI_DATATYPE_NULL) fail(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
  if (!owned(t)) fail(MPI_ERR_TYPE, "datatype {} is no object of the library", value(t));
  if (t->tag == magic::dead) fail(MPI_ERR_TYPE, "datatype {} was freed", value(t));
  if (t->tag != magic::datatype) fail(MPI_ERR_TYPE, "{} is not a datatype", value(t));
  if (committed && !t->committed) {
    fail(MPI_ERR_TYPE, "datatype {} is not committed (call MPI_Type_commit first)",
         t->name.empty() ? fmt::format("{}", static_cast<const void*>(t)) : t->name);
  }
  fail(MPI_ERR_INTERN, "datatype check failed for a valid datatype");
}

rmpl_mpi_group& group(MPI_Group g) {
  if (g == MPI_GROUP_NULL) fail(MPI_ERR_GROUP, "the group is MPI_GROUP_NULL");
  if (!owned(g)) fail(MPI_ERR_GROUP, "group {} is no object of the library", value(g));
  if (g->tag == magic::dead) fail(MPI_ERR_GROUP, "group {} was freed", value(g));
  if (g->tag != magic::group) fail(MPI_ERR_GROUP, "{} is not a group", value(g));
  return *g;
}

rmpl_mpi_op& op(MPI_Op o) {
  if (o == MPI_OP_NULL) fail(MPI_ERR_OP, "the operator is MPI_OP_NULL");
  if (!owned(o)) fail(MPI_ERR_OP, "operator {} is no object of the library", value(o));
  if (o->tag == magic::dead) fail(MPI_ERR_OP, "operator {} was freed", value(o));
  if (o->tag != magic::op) fail(MPI_ERR_OP, "{} is not an operator", value(o));
  return *o;
}

rmpl_mpi_info& info(MPI_Info i) {
  if (i == MPI_INFO_NULL) fail(MPI_ERR_INFO, "the info object is MPI_INFO_NULL");
  if (!owned(i)) fail(MPI_ERR_INFO, "info object {} is no object of the library", value(i));
  if (i->tag == magic::dead) fail(MPI_ERR_INFO, "info object {} was freed", value(i));
  if (i->tag != magic::info) fail(MPI_ERR_INFO, "{} is not an info object", value(i));
  return *i;
}

void count(MPI_Count n, const char* what) {
  if (n < 0) fail(MPI_ERR_COUNT, "{} {} is negative", what, n);
}

void buffer(const void* buf, MPI_Count n, const rmpl_mpi_datatype& t, const char* what) {
  if (buf == nullptr && n > 0 && t.size > 0 && t.true_lb == 0 && t.contiguous) {
    fail(MPI_ERR_BUFFER, "{} is null with a count of {}", what, n);
  }
}

}  // namespace rmpl::mpi
