// Handle conversion between C and Fortran (MPI-3.1 17.2.4): MPI_<Kind>_c2f / _f2c and
// MPI_Status_c2f / _f2c. A C handle is a pointer, a Fortran handle an MPI_Fint, so each kind keeps
// a table: the Fortran value is the handle's index in it. 0 is the null handle; the predefined
// handles are registered first, in a fixed order, so their values are the same in every process
// and every run; other handles get the next index when first converted (a pool reuses a freed
// object's memory for the next object of its kind, so the table grows only with the pool).
//
// MPI_<Kind>_f2c of a value that names no live handle (never issued, or its object was freed)
// gives the null handle, as MPICH does; MPI_<Kind>_c2f of the null handle gives 0, of anything that
// is not a live handle of its kind 0 as well (such a handle has no Fortran counterpart).
#include <cstdint>
#include <initializer_list>
#include <unordered_map>
#include <vector>

#include "mpi/call.hpp"

namespace rmpl::mpi {
namespace {

template <class Handle>
class handle_table {
 public:
  // The predefined handles are numbered whatever their state (MPI_COMM_WORLD is inactive before
  // MPI_Init), and always convert.
  handle_table(magic kind, std::initializer_list<Handle> predefined)
      : kind_(kind), predefined_(predefined.size()) {
    by_index_.push_back(nullptr);
    for (Handle h : predefined) {
      index_of_.emplace(h, static_cast<MPI_Fint>(by_index_.size()));
      by_index_.push_back(h);
    }
  }

  MPI_Fint to_fortran(Handle h) {
    // Looked up by address first (no access to *h): only a new handle must be a live object.
    if (auto it = index_of_.find(h); it != index_of_.end()) {
      return static_cast<std::size_t>(it->second) <= predefined_ || h->tag == kind_ ? it->second
                                                                                    : 0;
    }
    if (!live_object(h, kind_)) return 0;
    index_of_.emplace(h, static_cast<MPI_Fint>(by_index_.size()));
    by_index_.push_back(h);
    return static_cast<MPI_Fint>(by_index_.size() - 1);
  }

  Handle to_c(MPI_Fint f) const {
    if (f <= 0 || static_cast<std::size_t>(f) >= by_index_.size()) return nullptr;
    Handle h = by_index_[static_cast<std::size_t>(f)];
    if (static_cast<std::size_t>(f) <= predefined_) return h;
    return h->tag == kind_ ? h : nullptr;  // freed since: no handle
  }

 private:
  magic kind_;
  std::size_t predefined_;  ///< indices 1 .. predefined_ are the predefined handles
  std::vector<Handle> by_index_;
  std::unordered_map<Handle, MPI_Fint> index_of_;
};

handle_table<MPI_Comm>& comms() {
  static handle_table<MPI_Comm> t(magic::comm, {MPI_COMM_WORLD, MPI_COMM_SELF});
  return t;
}
handle_table<MPI_Datatype>& datatypes() {
  static handle_table<MPI_Datatype> t(magic::datatype, {MPI_CHAR,
                                                        MPI_SIGNED_CHAR,
                                                        MPI_UNSIGNED_CHAR,
                                                        MPI_BYTE,
                                                        MPI_WCHAR,
                                                        MPI_SHORT,
                                                        MPI_UNSIGNED_SHORT,
                                                        MPI_INT,
                                                        MPI_UNSIGNED,
                                                        MPI_LONG,
                                                        MPI_UNSIGNED_LONG,
                                                        MPI_LONG_LONG_INT,
                                                        MPI_UNSIGNED_LONG_LONG,
                                                        MPI_FLOAT,
                                                        MPI_DOUBLE,
                                                        MPI_LONG_DOUBLE,
                                                        MPI_INT8_T,
                                                        MPI_INT16_T,
                                                        MPI_INT32_T,
                                                        MPI_INT64_T,
                                                        MPI_UINT8_T,
                                                        MPI_UINT16_T,
                                                        MPI_UINT32_T,
                                                        MPI_UINT64_T,
                                                        MPI_C_BOOL,
                                                        MPI_AINT,
                                                        MPI_OFFSET,
                                                        MPI_COUNT,
                                                        MPI_PACKED,
                                                        MPI_FLOAT_INT,
                                                        MPI_DOUBLE_INT,
                                                        MPI_LONG_INT,
                                                        MPI_2INT,
                                                        MPI_SHORT_INT,
                                                        MPI_LONG_DOUBLE_INT,
                                                        MPI_C_FLOAT_COMPLEX,
                                                        MPI_C_DOUBLE_COMPLEX,
                                                        MPI_C_LONG_DOUBLE_COMPLEX,
                                                        MPI_CXX_BOOL,
                                                        MPI_LB,
                                                        MPI_UB});
  return t;
}
handle_table<MPI_Group>& groups() {
  static handle_table<MPI_Group> t(magic::group, {MPI_GROUP_EMPTY});
  return t;
}
handle_table<MPI_Request>& requests() {
  static handle_table<MPI_Request> t(magic::request, {});
  return t;
}
handle_table<MPI_Op>& ops() {
  static handle_table<MPI_Op> t(
      magic::op, {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP});
  return t;
}
handle_table<MPI_Info>& infos() {
  static handle_table<MPI_Info> t(magic::info, {MPI_INFO_ENV});
  return t;
}
handle_table<MPI_Errhandler>& errhandlers() {
  static handle_table<MPI_Errhandler> t(
      magic::errhandler, {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT});
  return t;
}
handle_table<MPI_Message>& messages() {
  static handle_table<MPI_Message> t(magic::message, {MPI_MESSAGE_NO_PROC});
  return t;
}
handle_table<MPI_Session>& sessions() {
  static handle_table<MPI_Session> t(magic::session, {});
  return t;
}

/// The MPI_Fint words of a status (MPI_F_STATUS_SIZE of them): source, tag, error, cancelled,
/// then the received byte count's low and high 32 bits.
static_assert(MPI_F_STATUS_SIZE == 6);

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

// MPI_<Kind>_c2f and MPI_<Kind>_f2c: the handle's number in its table, and the handle a number
// names (the null handle when none is live). They cannot fail: no error handler is involved.
#define RMPL_MPI_CONVERSIONS(Kind, Handle, table) \
  MPI_Fint Kind##_c2f(Handle h) {                 \
    return table().to_fortran(h);                 \
  }                                               \
  Handle Kind##_f2c(MPI_Fint f) {                 \
    return table().to_c(f);                       \
  }

RMPL_MPI_CONVERSIONS(Comm, MPI_Comm, comms)
RMPL_MPI_CONVERSIONS(Type, MPI_Datatype, datatypes)
RMPL_MPI_CONVERSIONS(Group, MPI_Group, groups)
RMPL_MPI_CONVERSIONS(Request, MPI_Request, requests)
RMPL_MPI_CONVERSIONS(Op, MPI_Op, ops)
RMPL_MPI_CONVERSIONS(Info, MPI_Info, infos)
RMPL_MPI_CONVERSIONS(Errhandler, MPI_Errhandler, errhandlers)
RMPL_MPI_CONVERSIONS(Message, MPI_Message, messages)
RMPL_MPI_CONVERSIONS(Session, MPI_Session, sessions)

#undef RMPL_MPI_CONVERSIONS

int Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  if (c_status == MPI_STATUS_IGNORE) {
    fail(MPI_ERR_ARG, "c_status is MPI_STATUS_IGNORE (a null pointer): there is no status");
  }
  if (f_status == nullptr) fail(MPI_ERR_ARG, "f_status is a null pointer");
  const auto bytes = static_cast<unsigned long long>(c_status->rmpl_bytes);
  f_status[0] = c_status->MPI_SOURCE;
  f_status[1] = c_status->MPI_TAG;
  f_status[2] = c_status->MPI_ERROR;
  f_status[3] = c_status->rmpl_cancelled;
  f_status[4] = static_cast<MPI_Fint>(static_cast<std::uint32_t>(bytes));
  f_status[5] = static_cast<MPI_Fint>(static_cast<std::uint32_t>(bytes >> 32));
  return MPI_SUCCESS;
}

int Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  if (f_status == nullptr) fail(MPI_ERR_ARG, "f_status is a null pointer");
  if (c_status == MPI_STATUS_IGNORE) {
    fail(MPI_ERR_ARG, "c_status is MPI_STATUS_IGNORE (a null pointer): nowhere to write");
  }
  c_status->MPI_SOURCE = f_status[0];
  c_status->MPI_TAG = f_status[1];
  c_status->MPI_ERROR = f_status[2];
  c_status->rmpl_cancelled = f_status[3];
  const auto low = static_cast<std::uint32_t>(f_status[4]);
  const auto high = static_cast<std::uint32_t>(f_status[5]);
  c_status->rmpl_bytes =
      static_cast<MPI_Count>((static_cast<unsigned long long>(high) << 32) | low);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/conversions.inc"  // the MPI_ and PMPI_ functions (generated)
