// The objects behind the MPI handles of include/mpi.h. A handle is a pointer to one of these; the
// predefined handles point at objects defined in the library (environment.cpp, datatypes.cpp,
// operators.cpp). Every object starts with a magic word, so a handle that is not one (garbage,
// the wrong kind, or an object already freed) is reported by name instead of dereferenced further.
//
// Objects are never returned to the heap while the process runs (freed ones are marked dead and
// reused by the next object of their kind), so a use after free reads a dead marker, not freed
// memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/communicator.hpp"
#include "core/buffer_account.hpp"
#include "mpi.h"
#include "rmpl/operators.hpp"
#include "rmpl/rmpl.hpp"

namespace rmpl::mpi {

/// Marks a live object of each kind; `dead` marks a freed one.
enum class magic : std::uint32_t {
  dead = 0xdeadbeef,
  comm = 0x636f6d6d,
  group = 0x67727570,
  datatype = 0x74797065,
  op = 0x6f702020,
  request = 0x72657175,
  message = 0x6d657367,
  errhandler = 0x65727268,
  info = 0x696e666f,
  session = 0x73657373,
  /// A communicator that is not usable yet or any more: MPI_COMM_WORLD and MPI_COMM_SELF before
  /// MPI_Init and after MPI_Finalize, MPI_Comm_idup's until its request completes. So a live
  /// communicator always has its kernel communicator, and the fast paths test the tag alone.
  inactive = 0x696e6163,
};

struct cartesian {
  std::vector<int> dims;
  std::vector<int> periods;  ///< 0 or 1 per dimension
};

/// A graph topology (MPI_Graph_create): the whole graph, as given, of which every member knows
/// every node's neighbours. Node i's neighbours are edges[index[i - 1] .. index[i]).
struct graph {
  std::vector<int> index;
  std::vector<int> edges;
};

/// A distributed graph topology (MPI_Dist_graph_create*): this process's own edges only.
struct dist_graph {
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;
};

/// The attribute values cached on an object (attributes.cpp): keyval and value, in the order they
/// were set, which is the reverse of the order they are deleted in when the object goes.
using attribute_map = std::vector<std::pair<int, void*>>;

}  // namespace rmpl::mpi

struct rmpl_mpi_errhandler {
  rmpl::mpi::magic tag = rmpl::mpi::magic::errhandler;
  /// Null for the predefined MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN and MPI_ERRORS_ABORT.
  MPI_Comm_errhandler_function* function = nullptr;
  bool predefined = false;
  /// A session's handler (MPI_Session_create_errhandler), instead of `function`.
  MPI_Session_errhandler_function* session_function = nullptr;
};

/// A session (MPI_Session_init): its error handler and the thread level it was given.
struct rmpl_mpi_session {
  rmpl::mpi::magic tag = rmpl::mpi::magic::session;
  MPI_Errhandler errhandler = nullptr;  ///< null means MPI_ERRORS_ARE_FATAL
  int thread_level = MPI_THREAD_SINGLE;
  /// Its buffer for buffered sends (MPI_Session_attach_buffer; `attached` false while none is)
  /// and that buffer's address.
  std::shared_ptr<rmpl::core::buffer_account> buffer;
  void* buffer_address = nullptr;
};

struct rmpl_mpi_comm {
  rmpl::mpi::magic tag = rmpl::mpi::magic::comm;
  /// The kernel's communicator (null only while the tag is magic::inactive).
  rmpl::detail::comm_ptr impl;
  MPI_Errhandler errhandler = nullptr;  ///< null means MPI_ERRORS_ARE_FATAL
  std::string name;
  rmpl::mpi::attribute_map attributes;
  std::unique_ptr<rmpl::mpi::cartesian> topology;
  std::unique_ptr<rmpl::mpi::graph> graph_topology;            ///< MPI_GRAPH
  std::unique_ptr<rmpl::mpi::dist_graph> dist_graph_topology;  ///< MPI_DIST_GRAPH
  bool predefined = false;
  /// An intercommunicator (MPI-3.1 6.6): `impl` then names the remote group (its ranks and size,
  /// which point-to-point uses, are the remote group's; its rank is this process's in the local
  /// group) and `local_group` is an intracommunicator of the local group, which gives the local
  /// size and group and runs the agreements of new communicators made from this one.
  bool inter = false;
  rmpl::detail::comm_ptr local_group;
  /// The buffer for buffered sends attached to this communicator (MPI_Comm_attach_buffer) and its
  /// address, and the one of the session it was made from (MPI_Comm_create_from_group), which it
  /// draws on when it has none of its own (buffers.cpp).
  std::shared_ptr<rmpl::core::buffer_account> buffer;
  void* buffer_address = nullptr;
  std::shared_ptr<rmpl::core::buffer_account> session_buffer;

  /// This process's rank (in the local group of an intercommunicator).
  int rank() const noexcept { return impl->kernel.rank; }
  /// The ranks a destination or source may name (the remote group's size on an
  /// intercommunicator).
  int size() const noexcept { return impl->kernel.size; }
};

struct rmpl_mpi_group {
  rmpl::mpi::magic tag = rmpl::mpi::magic::group;
  rmpl::group members;  ///< job ranks in group order
  bool predefined = false;
  /// A process set's group (MPI_Group_from_session_pset): its session's buffer, which the
  /// communicators made from the group draw on.
  std::shared_ptr<rmpl::core::buffer_account> session_buffer;
};

namespace rmpl::mpi {
/// One contiguous run of bytes of a datatype's element: at `offset` from the element's start.
struct block {
  MPI_Aint offset;
  MPI_Aint length;
};
}  // namespace rmpl::mpi

struct rmpl_mpi_datatype {
  rmpl::mpi::magic tag = rmpl::mpi::magic::datatype;
  bool predefined = false;
  bool committed = false;
  MPI_Count size = 0;  ///< bytes of data in one element
  MPI_Aint lb = 0;     ///< extent = ub - lb: the stride between consecutive elements
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;  ///< where the data really begins and ends (ignoring MPI_LB/UB, resize)
  MPI_Aint true_extent = 0;
  /// True when `count` elements at buf are the `count * size` bytes from buf + true_lb, packed: the
  /// layer sends and receives them without packing.
  bool contiguous = false;
  /// Committed, contiguous and small enough that no count makes count * size overflow: the one
  /// test the point-to-point and collective fast paths make of a type. Set with `committed`
  /// (datatypes.cpp).
  bool plain = false;
  /// The data of one element, in type-map order, adjacent runs merged: `blocks` repeated
  /// `repeats` times, `repeat_stride` bytes apart (a vector of very many blocks keeps the runs of
  /// one block rather than all of them, so that its description does not grow with its count).
  std::vector<rmpl::mpi::block> blocks;
  MPI_Count repeats = 1;
  MPI_Aint repeat_stride = 0;
  /// The one basic type all the element's data is made of (for the built-in reduction operators),
  /// and how many of it one element holds; scalar::none when mixed or not reducible.
  rmpl::detail::scalar basic = rmpl::detail::scalar::none;
  MPI_Count basic_count = 0;
  MPI_Count basic_size = 0;  ///< bytes of one basic element (MPI_Get_elements counts these)
  /// The predefined operators (bit 1 << builtin_op) the kernel applies to this type's data as it
  /// lies, as elements of `basic` of `basic_size` bytes: the collectives' fast path test of an
  /// operator (mpi/operators.hpp direct_reduction). plan_reduction sets a bit the first time it
  /// plans that operator on this type; a type's layout never changes after its construction.
  std::uint16_t direct_ops = 0;
  /// How the constructors compose bounds (datatypes.cpp): the alignment of the most-aligned basic
  /// member (a struct's extent is padded to a multiple of it, as C pads structs), and whether lb
  /// / ub were set explicitly (MPI_LB / MPI_UB markers, MPI_Type_create_resized), which then
  /// override the bounds of the data in every type built from this one.
  MPI_Aint alignment = 1;
  bool explicit_lb = false;
  bool explicit_ub = false;
  /// How many derived types name this one in their contents (`types`): a type the program frees
  /// while it is named there stays (marked dead) until the last of them goes.
  int references = 0;
  /// What MPI_Type_get_envelope / get_contents report.
  int combiner = MPI_COMBINER_NAMED;
  /// The constructor's integer arguments, widened: a type made by a large-count constructor
  /// (MPI_Type_vector_c..., `large`) keeps them in the layout of its int twin, and
  /// MPI_Type_get_contents_c splits them into integers and large counts as the standard says.
  std::vector<MPI_Count> integers;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
  bool large = false;
  /// A type of MPI_Type_create_f90_* (f90_types.cpp): the predefined type it is a copy of, which
  /// the operators apply to (its contents name no type).
  const rmpl_mpi_datatype* selected_from = nullptr;
  std::string name;
  rmpl::mpi::attribute_map attributes;
};

struct rmpl_mpi_op {
  rmpl::mpi::magic tag = rmpl::mpi::magic::op;
  bool predefined = false;
  rmpl::detail::builtin_op builtin = rmpl::detail::builtin_op::none;
  bool commutative = true;
  MPI_User_function* function = nullptr;          ///< user operators (MPI_Op_create)
  MPI_User_function_c* large_function = nullptr;  ///< ... and MPI_Op_create_c's
  /// MPI_REPLACE and MPI_NO_OP (one-sided only; rejected by the collectives).
  bool one_sided_only = false;
};

struct rmpl_mpi_info {
  rmpl::mpi::magic tag = rmpl::mpi::magic::info;
  bool predefined = false;
  std::vector<std::pair<std::string, std::string>> entries;  ///< in insertion order
};

namespace rmpl::core {
class engine;
}  // namespace rmpl::core

namespace rmpl::mpi {
enum class request_kind : std::uint8_t { send, recv, collective, done, generalized };

/// What a generalized request (MPI_Grequest_start, requests.cpp) holds: the program's callbacks
/// and its progress, which MPI_Grequest_complete may publish from another thread.
struct grequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  /// `completed` (MPI_Grequest_complete ran), `freed` (MPI_Request_free ran first), `released`
  /// (free_fn ran for a freed request: its object may be reused).
  enum : unsigned { completed = 1, freed = 2, released = 4 };
  std::atomic<unsigned> state{0};
  /// Whose wait MPI_Grequest_complete wakes, so that a wait asleep looks again.
  const rmpl::core::engine* kernel = nullptr;
};
}  // namespace rmpl::mpi

namespace rmpl::mpi {
struct partitioned;
}

struct rmpl_mpi_request {
  rmpl::mpi::magic tag = rmpl::mpi::magic::request;
  rmpl::mpi::request_kind kind = rmpl::mpi::request_kind::send;
  /// The kernel's request; null when the operation needed none (MPI_PROC_NULL) or, for a
  /// persistent request, while it is inactive.
  rmpl::detail::request_id id = rmpl::detail::null_request;
  MPI_Comm comm = nullptr;  ///< whose error handler reports its failures
  /// Status of an operation that completed without the kernel (MPI_PROC_NULL).
  MPI_Status immediate{};
  /// Runs once when the kernel's request completes (unpacking a staged receive, freeing a
  /// staged send's copy); may adjust the status.
  std::function<void(MPI_Status&)> on_complete;
  std::unique_ptr<std::byte[]> staging;
  /// Persistent requests: what MPI_Start starts again.
  bool persistent = false;
  bool active = true;  ///< persistent: started and not yet completed
  std::function<rmpl::detail::request_id(rmpl_mpi_request&)> start;
  /// Freed by MPI_Request_free while pending: completed and released in the background.
  bool orphaned = false;
  /// A generalized request (kind generalized, no kernel request): its callbacks and state.
  std::unique_ptr<rmpl::mpi::grequest> generalized;
  /// A partitioned send or receive (partitioned.cpp): its partitions and their state.
  std::shared_ptr<rmpl::mpi::partitioned> partitions;
};

/// A message taken by MPI_Mprobe / MPI_Improbe: received at once into `data` (so no other receive
/// can match it), handed to the program's buffer by MPI_Mrecv / MPI_Imrecv.
struct rmpl_mpi_message {
  rmpl::mpi::magic tag = rmpl::mpi::magic::message;
  std::unique_ptr<std::byte[]> data;
  MPI_Status status{};
  MPI_Comm comm = nullptr;
};
