// Communicators (MPI-3.1 6.4 and 6.8): size, rank, group and comparison, the constructors (dup,
// split, create, create_group) over the kernel's own (rmpl::detail), freeing, names and hints.
// Intercommunicators (MPI-3.1 6.6): create, merge, dup, idup, split, create, free, sizes, groups,
// comparison (objects.hpp says how one is represented; collectives.cpp and intercomm.cpp run the
// collectives on one), split_type (an intracommunicator of the local group's split); topologies
// and create_group on one fail with MPI_ERR_COMM.
//
// A new communicator inherits its parent's error handler; a duplicate also gets its topology and
// the attributes its keyvals' copy callbacks copy. Hints are accepted and none is used, so
// MPI_Comm_get_info reports none.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>

#include "api/runtime.hpp"
#include "mpi/attributes.hpp"
#include "mpi/call.hpp"
#include "mpi/communicators.hpp"
#include "mpi/groups.hpp"
#include "mpi/info.hpp"
#include "mpi/pool.hpp"
#include "mpi/requests.hpp"

namespace rmpl::mpi {
namespace {

pool<rmpl_mpi_comm>& comms() {
  static pool<rmpl_mpi_comm> p;
  return p;
}

MPI_Comm* checked_out(MPI_Comm* newcomm) {
  if (newcomm == nullptr) fail(MPI_ERR_ARG, "the new communicator's handle pointer is null");
  return newcomm;
}

/// Checks that every member of `g` belongs to `parent` (what create and create_group need): to
/// its local group if it is an intercommunicator.
void check_subgroup(const rmpl_mpi_comm& parent, const rmpl_mpi_group& g) {
  const detail::comm_impl& members = parent.inter ? *parent.local_group : *parent.impl;
  for (int r = 0; r < g.members.size(); ++r) {
    const int w = g.members.world_rank(r);
    if (members.kernel.from_world(w) == undefined) {
      fail(MPI_ERR_GROUP,
           "rank {} of the group (process {} of MPI_COMM_WORLD) is not a member "
           "of the communicator's {}group (size {})",
           r, w, parent.inter ? "local " : "", members.kernel.size);
    }
  }
}

/// The groups of an intercommunicator's sides compared (MPI_Comm_compare): congruent when both
/// groups are identical, similar when both hold the same processes.
int compare_inter(const rmpl_mpi_comm& a, const rmpl_mpi_comm& b) {
  const relation local = compare(detail::members(*a.local_group), detail::members(*b.local_group));
  const relation remote = compare(detail::members(*a.impl), detail::members(*b.impl));
  if (local == relation::unequal || remote == relation::unequal) return MPI_UNEQUAL;
  return local == relation::identical && remote == relation::identical ? MPI_CONGRUENT
                                                                       : MPI_SIMILAR;
}

MPI_Comm make_intercomm(detail::comm_ptr impl, detail::comm_ptr local_group,
                        const rmpl_mpi_comm& parent) {
  MPI_Comm made = make_comm(std::move(impl), parent);
  if (made == MPI_COMM_NULL) return made;
  made->inter = true;
  made->local_group = std::move(local_group);
  return made;
}

rmpl_mpi_comm& intercomm(MPI_Comm c) {
  rmpl_mpi_comm& checked = comm(c);
  if (!checked.inter) {
    fail(MPI_ERR_COMM, "{} is an intracommunicator, not an intercommunicator",
         checked.name.empty() ? "the communicator" : checked.name);
  }
  return checked;
}

/// MPI_Comm_split and MPI_Comm_create on an intercommunicator (MPI-3.1 6.4.2): an
/// intercommunicator of the local and remote members of this color, MPI_COMM_NULL where either
/// side has none.
MPI_Comm split_inter(const rmpl_mpi_comm& parent, int color, int key) {
  detail::intercomm_parts made =
      detail::intercomm_split(*parent.impl, *parent.local_group, color, key);
  return make_intercomm(std::move(made.inter), std::move(made.local_group), parent);
}

/// Gives `copy` what a duplicate of `c` inherits besides its kernel communicator: the error
/// handler, the topology and the attributes the copy callbacks copy. Discards `copy` if a copy
/// callback fails.
MPI_Comm inherit(MPI_Comm c, MPI_Comm copy) {
  const rmpl_mpi_comm& old = comm(c);
  copy->errhandler = old.errhandler;
  if (old.topology) copy->topology = std::make_unique<cartesian>(*old.topology);
  if (old.graph_topology) copy->graph_topology = std::make_unique<graph>(*old.graph_topology);
  if (old.dist_graph_topology) {
    copy->dist_graph_topology = std::make_unique<dist_graph>(*old.dist_graph_topology);
  }
  try {
    copy_attributes(c, copy);
  } catch (...) {
    discard_comm(copy);
    throw;
  }
  return copy;
}

/// A duplicate of `c`: its topology and the attributes its copy callbacks copy (MPI_Comm_dup).
MPI_Comm duplicate(MPI_Comm c) {
  rmpl_mpi_comm& old = comm(c);
  MPI_Comm copy = MPI_COMM_NULL;
  if (old.inter) {
    detail::comm_ptr local_group = detail::dup(*old.local_group);
    copy = make_intercomm(detail::intercomm_dup(*old.impl, *old.local_group),
                          std::move(local_group), old);
  } else {
    copy = make_comm(detail::dup(*old.impl), old);
  }
  return inherit(c, copy);
}

}  // namespace

MPI_Comm make_comm(detail::comm_ptr impl, const rmpl_mpi_comm& parent) {
  if (!impl) return MPI_COMM_NULL;
  rmpl_mpi_comm* c = comms().make();
  c->impl = std::move(impl);
  c->errhandler = parent.errhandler;
  return c;
}

void discard_comm(MPI_Comm c) noexcept {
  if (c != MPI_COMM_NULL && !c->predefined) comms().recycle(c);
}

namespace {

/// A tag for the agreements of MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups:
/// the string tag's FNV-1a hash folded into [0, MPI_TAG_UB] (two creations in flight at once
/// with different string tags whose hashes collide would meet; the processes of each agree on
/// their string tag, so equal hashes of one creation always meet).
int tag_of(const char* stringtag) {
  if (stringtag == nullptr) fail(MPI_ERR_ARG, "stringtag is null");
  std::uint32_t hash = 2166136261u;
  for (const char* c = stringtag; *c != '\0'; ++c) {
    hash = (hash ^ static_cast<unsigned char>(*c)) * 16777619u;
  }
  return static_cast<int>(hash % (static_cast<std::uint32_t>(rmpl::tag_ub) + 1));
}

/// A communicator made from a process set's group draws on its session's buffer.
void draw_on_session_buffer(MPI_Comm c, const rmpl_mpi_group& from) {
  if (c == MPI_COMM_NULL || !from.session_buffer) return;
  c->session_buffer = from.session_buffer;
  rmpl::api::kernel().use_buffer(c->impl->kernel.context, c->session_buffer);
}

/// The new communicator's error handler, as given (MPI_ERRHANDLER_NULL: MPI_ERRORS_ARE_FATAL).
void give_errhandler(MPI_Comm c, MPI_Errhandler e) {
  if (c != MPI_COMM_NULL && e != MPI_ERRHANDLER_NULL) c->errhandler = e;
}

}  // namespace

MPI_Comm comm_from_group(const rmpl_mpi_group& members, const char* stringtag,
                         MPI_Errhandler errhandler) {
  if (errhandler != MPI_ERRHANDLER_NULL) rmpl::mpi::errhandler(errhandler);
  const int tag = tag_of(stringtag);
  if (members.members.rank() == undefined) {
    fail(MPI_ERR_GROUP, "this process (rank {} of MPI_COMM_WORLD) is not a member of the group",
         rmpl::api::kernel().rank());
  }
  const rmpl_mpi_comm& world = *MPI_COMM_WORLD;
  MPI_Comm made = make_comm(rmpl::detail::create_group(*world.impl, members.members, tag), world);
  made->errhandler = nullptr;
  give_errhandler(made, errhandler);
  draw_on_session_buffer(made, members);
  return made;
}

MPI_Comm intercomm_from_groups(const rmpl_mpi_group& local, int local_leader,
                               const rmpl_mpi_group& remote, int remote_leader,
                               const char* stringtag, MPI_Errhandler errhandler) {
  if (local_leader < 0 || local_leader >= local.members.size()) {
    fail(MPI_ERR_RANK, "local_leader {} is not a rank of local_group (size {})", local_leader,
         local.members.size());
  }
  if (remote_leader < 0 || remote_leader >= remote.members.size()) {
    fail(MPI_ERR_RANK, "remote_leader {} is not a rank of remote_group (size {})", remote_leader,
         remote.members.size());
  }
  const int tag = tag_of(stringtag);
  if (local.members.rank() == undefined) {
    fail(MPI_ERR_GROUP, "this process (rank {} of MPI_COMM_WORLD) is not a member of local_group",
         rmpl::api::kernel().rank());
  }
  // The local side first (a communicator of its members), then its leader and the remote one
  // agree through MPI_COMM_WORLD, as MPI_Intercomm_create would with it as peer_comm.
  const rmpl_mpi_comm& world = *MPI_COMM_WORLD;
  rmpl::detail::comm_ptr local_group = rmpl::detail::create_group(*world.impl, local.members, tag);
  rmpl::detail::comm_ptr made = rmpl::detail::intercomm_create(
      *local_group, local_leader, world.impl.get(), remote.members.world_rank(remote_leader), tag);
  MPI_Comm inter = make_intercomm(std::move(made), std::move(local_group), world);
  inter->errhandler = nullptr;
  give_errhandler(inter, errhandler);
  draw_on_session_buffer(inter, local);
  return inter;
}
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Comm_size(MPI_Comm c, int* size) {
  const rmpl_mpi_comm& target = comm(c);
  *size = target.inter ? target.local_group->kernel.size : target.size();
  return MPI_SUCCESS;
}

int Comm_rank(MPI_Comm c, int* rank) {
  *rank = comm(c).rank();
  return MPI_SUCCESS;
}

int Comm_group(MPI_Comm c, MPI_Group* g) {
  const rmpl_mpi_comm& target = comm(c);
  if (g == nullptr) fail(MPI_ERR_ARG, "the group handle pointer is null");
  *g = make_group(rmpl::detail::members(target.inter ? *target.local_group : *target.impl));
  return MPI_SUCCESS;
}

int Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const rmpl_mpi_comm& a = comm(comm1);
  const rmpl_mpi_comm& b = comm(comm2);
  if (result == nullptr) fail(MPI_ERR_ARG, "the result pointer is null");
  if (&a == &b) {
    *result = MPI_IDENT;
  } else if (a.inter != b.inter) {
    *result = MPI_UNEQUAL;
  } else {
    *result = a.inter ? compare_inter(a, b)
                      : mpi_relation(rmpl::detail::compare(a.impl.get(), b.impl.get()));
  }
  return MPI_SUCCESS;
}

int Comm_dup(MPI_Comm c, MPI_Comm* newcomm) {
  *checked_out(newcomm) = duplicate(c);
  return MPI_SUCCESS;
}

int Comm_idup(MPI_Comm c, MPI_Comm* newcomm, MPI_Request* request) {
  const rmpl_mpi_comm& old = comm(c);
  checked_out(newcomm);
  if (request == nullptr) fail(MPI_ERR_ARG, "the request handle pointer is null");
  // The new handle gets what it inherits now (c may be freed before the request completes); the
  // members' agreement on its context goes on in the background, and *newcomm is written when
  // the request completes (MPI-3.1 5.12: it may not be used before). An intercommunicator's
  // agreement spans both groups, and its local group's communicator is agreed on in the same
  // request.
  MPI_Comm copy = inherit(c, comms().make());
  copy->inter = old.inter;
  copy->tag = magic::inactive;  // no kernel communicator yet
  std::shared_ptr<rmpl::detail::pending_dup> pending;
  rmpl::detail::request_id id = rmpl::detail::null_request;
  try {
    id = old.inter ? rmpl::detail::intercomm_idup(*old.impl, *old.local_group, pending)
                   : rmpl::detail::idup(*old.impl, pending);
  } catch (...) {
    discard_comm(copy);
    throw;
  }
  *request = make_request(
      c, request_kind::collective, id, [copy, newcomm, pending = std::move(pending)](MPI_Status&) {
        if (copy->inter) {
          std::tie(copy->impl, copy->local_group) = rmpl::detail::finish_intercomm_dup(*pending);
        } else {
          copy->impl = rmpl::detail::finish_dup(*pending);
        }
        copy->tag = magic::comm;
        *newcomm = copy;
      });
  return MPI_SUCCESS;
}

int Comm_idup_with_info(MPI_Comm c, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  const int checked = call(c, "MPI_Comm_idup_with_info", [&] {
    comm(c);
    optional_info(info);
    return MPI_SUCCESS;
  });
  if (checked != MPI_SUCCESS) return checked;
  // The layer uses no hint: the duplicate is MPI_Comm_idup's.
  return PMPI_Comm_idup(c, newcomm, request);
}

int Comm_dup_with_info(MPI_Comm c, MPI_Info info, MPI_Comm* newcomm) {
  comm(c);
  optional_info(info);
  *checked_out(newcomm) = duplicate(c);
  return MPI_SUCCESS;
}

int Comm_split(MPI_Comm c, int color, int key, MPI_Comm* newcomm) {
  rmpl_mpi_comm& parent = comm(c);
  checked_out(newcomm);
  if (color < 0 && color != MPI_UNDEFINED) {
    fail(MPI_ERR_ARG, "color {} is negative (MPI_UNDEFINED joins no communicator)", color);
  }
  *newcomm = parent.inter ? split_inter(parent, color, key)
                          : make_comm(rmpl::detail::split(*parent.impl, color, key), parent);
  return MPI_SUCCESS;
}

int Comm_split_type(MPI_Comm c, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  rmpl_mpi_comm& parent = comm(c);
  checked_out(newcomm);
  optional_info(info);
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    fail(MPI_ERR_ARG, "split_type {} is neither MPI_COMM_TYPE_SHARED ({}) nor MPI_UNDEFINED",
         split_type, static_cast<int>(MPI_COMM_TYPE_SHARED));
  }
  // The ranks on this process's host share its memory: one communicator per host of all who
  // ask, by key. On an intercommunicator the processes that can share memory with this one are
  // taken from its own group, as MPICH does: an intracommunicator of the local group's split
  // (each group agrees on its own; both groups call, as for any collective on an
  // intercommunicator).
  rmpl::core::engine& kernel = rmpl::api::kernel();
  const int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : kernel.host_of(kernel.rank());
  const rmpl::detail::comm_impl& members = parent.inter ? *parent.local_group : *parent.impl;
  *newcomm = make_comm(rmpl::detail::split(members, color, key), parent);
  return MPI_SUCCESS;
}

int Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm* newcomm) {
  rmpl_mpi_comm& parent = comm(c);
  const rmpl_mpi_group& members = group(g);
  checked_out(newcomm);
  check_subgroup(parent, members);
  if (parent.inter) {
    // The group names members of the local group (MPI-3.1 6.4.2): a split by membership, in
    // the group's order.
    const int in_group = members.members.rank_of_world(rmpl::api::kernel().rank());
    *newcomm = split_inter(parent, in_group == rmpl::undefined ? MPI_UNDEFINED : 0, in_group);
  } else {
    *newcomm = make_comm(rmpl::detail::create(*parent.impl, members.members), parent);
  }
  return MPI_SUCCESS;
}

int Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* newcomm) {
  rmpl_mpi_comm& parent =
      intracomm(c,
                "MPI_Comm_create_group on an intercommunicator is not supported (create from "
                "the MPI_Intercomm_merge of it instead)");
  const rmpl_mpi_group& members = group(g);
  checked_out(newcomm);
  check_subgroup(parent, members);
  if (tag < 0 || tag > rmpl::tag_ub) {
    fail(MPI_ERR_TAG, "tag {} is outside [0, MPI_TAG_UB = {}]", tag, rmpl::tag_ub);
  }
  // Collective over the group's members only (the kernel agrees among them alone); a process
  // outside the group has nothing to agree on.
  *newcomm = make_comm(rmpl::detail::create_group(*parent.impl, members.members, tag), parent);
  return MPI_SUCCESS;
}

int Comm_free(MPI_Comm* c) {
  if (c == nullptr) fail(MPI_ERR_ARG, "the communicator handle pointer is null");
  rmpl_mpi_comm& target = comm(*c);
  if (target.predefined) fail(MPI_ERR_COMM, "{} cannot be freed", target.name);
  delete_attributes(*c);
  // Its buffered sends no longer draw on its own or its session's buffer (the engine keeps
  // those until their messages are delivered); its context may serve another communicator.
  if (target.buffer || target.session_buffer) {
    rmpl::api::kernel().use_buffer(target.impl->kernel.context, nullptr);
  }
  // Operations still in flight keep the kernel's communicator alive until they end.
  discard_comm(*c);
  *c = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int Comm_set_name(MPI_Comm c, const char* name) {
  rmpl_mpi_comm& target = comm(c);
  if (name == nullptr) fail(MPI_ERR_ARG, "the name is a null pointer");
  // Longer names are cut to what MPI_Comm_get_name can return.
  target.name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int Comm_get_name(MPI_Comm c, char* name, int* resultlen) {
  const rmpl_mpi_comm& target = comm(c);
  if (name == nullptr || resultlen == nullptr) {
    fail(MPI_ERR_ARG, "the name buffer or resultlen pointer is null");
  }
  std::memcpy(name, target.name.c_str(), target.name.size() + 1);
  *resultlen = static_cast<int>(target.name.size());
  return MPI_SUCCESS;
}

int Comm_test_inter(MPI_Comm c, int* flag) {
  const bool inter = comm(c).inter;
  if (flag == nullptr) fail(MPI_ERR_ARG, "the flag pointer is null");
  *flag = inter ? 1 : 0;
  return MPI_SUCCESS;
}

int Comm_set_info(MPI_Comm c, MPI_Info info) {
  comm(c);
  optional_info(info);
  return MPI_SUCCESS;
}

int Comm_get_info(MPI_Comm c, MPI_Info* info_used) {
  comm(c);
  if (info_used == nullptr) fail(MPI_ERR_ARG, "the info handle pointer is null");
  *info_used = make_info();  // no hint is in use
  return MPI_SUCCESS;
}

int Comm_remote_size(MPI_Comm c, int* size) {
  const rmpl_mpi_comm& target = intercomm(c);
  if (size == nullptr) fail(MPI_ERR_ARG, "the size pointer is null");
  *size = target.size();
  return MPI_SUCCESS;
}

int Comm_remote_group(MPI_Comm c, MPI_Group* g) {
  const rmpl_mpi_comm& target = intercomm(c);
  if (g == nullptr) fail(MPI_ERR_ARG, "the group handle pointer is null");
  *g = make_group(rmpl::detail::members(*target.impl));
  return MPI_SUCCESS;
}

int Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                     int tag, MPI_Comm* newintercomm) {
  rmpl_mpi_comm& local = intracomm(local_comm,
                                   "local_comm is an intercommunicator; "
                                   "MPI_Intercomm_create needs an intracommunicator");
  checked_out(newintercomm);
  const int local_size = local.size();
  if (local_leader < 0 || local_leader >= local_size) {
    fail(MPI_ERR_RANK, "local_leader {} is not a rank of local_comm (size {})", local_leader,
         local_size);
  }
  // peer_comm, remote_leader and tag matter at the local leader only. Its checks must not end
  // the call there before the agreement starts (the rest of its group would wait for it
  // forever): a failure is kept and the leader joins the agreement without a peer, which
  // tells its group that it failed.
  const rmpl_mpi_comm* peer = nullptr;
  std::optional<error> leader_error;
  if (local.rank() == local_leader) {
    try {
      const rmpl_mpi_comm& checked =
          intracomm(peer_comm,
                    "peer_comm is an intercommunicator; MPI_Intercomm_create needs "
                    "an intracommunicator");
      if (remote_leader < 0 || remote_leader >= checked.size()) {
        fail(MPI_ERR_RANK, "remote_leader {} is not a rank of peer_comm (size {})", remote_leader,
             checked.size());
      }
      if (checked.impl->kernel.to_world(remote_leader) == rmpl::api::kernel().rank()) {
        fail(MPI_ERR_RANK, "remote_leader {} of peer_comm is the local leader itself",
             remote_leader);
      }
      if (tag < 0 || tag > rmpl::tag_ub) {
        fail(MPI_ERR_TAG, "tag {} is outside [0, MPI_TAG_UB = {}]", tag, rmpl::tag_ub);
      }
      peer = &checked;
    } catch (const error& e) {
      leader_error = e;
    }
  }
  // The agreements run on a duplicate of local_comm, which the intercommunicator keeps as its
  // local group: nothing of the program's own traffic on local_comm can meet them.
  rmpl::detail::comm_ptr local_group = rmpl::detail::dup(*local.impl);
  rmpl::detail::comm_ptr made;
  try {
    made = rmpl::detail::intercomm_create(*local_group, local_leader,
                                          peer == nullptr ? nullptr : peer->impl.get(),
                                          remote_leader, tag);
  } catch (...) {
    if (leader_error) throw *leader_error;
    throw;
  }
  *newintercomm = make_intercomm(std::move(made), std::move(local_group), local);
  return MPI_SUCCESS;
}

int Intercomm_merge(MPI_Comm c, int high, MPI_Comm* newintracomm) {
  const rmpl_mpi_comm& inter = intercomm(c);
  checked_out(newintracomm);
  *newintracomm =
      make_comm(rmpl::detail::intercomm_merge(*inter.impl, *inter.local_group, high != 0), inter);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/communicators.inc"  // the MPI_ and PMPI_ functions (generated)
