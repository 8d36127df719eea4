// Sessions (MPI-4.1 11.3): a way into MPI without MPI_Init. A session starts the library if
// nothing has (environment.cpp keeps the count of the ways in), names the process sets rmpl
// knows, "mpi://WORLD" and "mpi://SELF", makes their groups, and communicators are made from
// groups (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups: communicators.cpp).
// A session's functions report their failures through its error handler (session_call,
// call.hpp); its error handlers are errors.cpp's.
#include <cstring>
#include <string>
#include <string_view>

#include "api/runtime.hpp"
#include "mpi/call.hpp"
#include "mpi/communicators.hpp"
#include "mpi/environment.hpp"
#include "mpi/groups.hpp"
#include "mpi/info.hpp"
#include "mpi/pool.hpp"

namespace rmpl::mpi {
namespace {

pool<rmpl_mpi_session>& sessions() {
  static pool<rmpl_mpi_session> p;
  return p;
}

/// The process sets every process of the job knows (MPI-4.1 11.3.2 requires these two).
constexpr const char* process_sets[] = {"mpi://WORLD", "mpi://SELF"};

/// The members of process set `name`, as job ranks.
rmpl::group members_of(const char* name) {
  if (name == nullptr) fail(MPI_ERR_ARG, "the process set name is null");
  core::engine& e = api::kernel();
  if (std::string_view(name) == process_sets[0]) {
    std::vector<int> all(static_cast<std::size_t>(e.size()));
    for (int r = 0; r < e.size(); ++r) all[static_cast<std::size_t>(r)] = r;
    return rmpl::group(std::move(all));
  }
  if (std::string_view(name) == process_sets[1]) return rmpl::group(std::vector<int>{e.rank()});
  fail(MPI_ERR_ARG, "\"{}\" is not a process set (rmpl knows \"mpi://WORLD\" and \"mpi://SELF\")",
       name);
}

/// The thread level an Info's "thread_level" asks for (MPI_THREAD_SINGLE when none does).
int thread_level_of(MPI_Info info) {
  if (info == MPI_INFO_NULL) return MPI_THREAD_SINGLE;
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  int length = MPI_MAX_INFO_VAL;
  if (PMPI_Info_get_string(info, "thread_level", &length, value, &flag) != MPI_SUCCESS) {
    fail(MPI_ERR_INFO, "the session's info cannot be read");
  }
  if (!flag) return MPI_THREAD_SINGLE;
  const std::string_view v(value);
  if (v == "MPI_THREAD_SINGLE") return MPI_THREAD_SINGLE;
  if (v == "MPI_THREAD_FUNNELED") return MPI_THREAD_FUNNELED;
  if (v == "MPI_THREAD_SERIALIZED") return MPI_THREAD_SERIALIZED;
  if (v == "MPI_THREAD_MULTIPLE") return MPI_THREAD_MULTIPLE;
  fail(MPI_ERR_INFO_VALUE,
       "thread_level \"{}\" is not MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE", value);
}

constexpr const char* level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                       "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

}  // namespace

rmpl_mpi_session& session(MPI_Session s) {
  if (s == MPI_SESSION_NULL) fail(MPI_ERR_SESSION, "the session is MPI_SESSION_NULL");
  if (!live_object(s, magic::session)) {
    fail(MPI_ERR_SESSION, "{} is not a session (finalized already?)", static_cast<const void*>(s));
  }
  return *s;
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  if (session == nullptr) fail(MPI_ERR_ARG, "the session's address is null");
  if (errhandler != MPI_ERRHANDLER_NULL) rmpl::mpi::errhandler(errhandler);
  const int level = open_session(thread_level_of(info));
  rmpl_mpi_session* s = sessions().make();
  s->errhandler = errhandler;
  s->thread_level = level;
  s->buffer = std::make_shared<core::buffer_account>();
  *session = s;
  return MPI_SUCCESS;
}

int Session_finalize(MPI_Session* session) {
  if (session == nullptr) fail(MPI_ERR_ARG, "the session's address is null");
  rmpl_mpi_session& s = rmpl::mpi::session(*session);
  // Its buffered sends are delivered first (MPI-4.1 11.3.1: as a detach of its buffer would).
  core::engine& e = api::kernel();
  e.wait_until([&] { return s.buffer->used == 0; });
  s.buffer->attached = false;
  sessions().recycle(&s);
  *session = MPI_SESSION_NULL;
  return close_session();
}

int Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  rmpl::mpi::session(session);
  optional_info(info);
  if (npset_names == nullptr) fail(MPI_ERR_ARG, "npset_names is null");
  *npset_names = static_cast<int>(std::size(process_sets));
  return MPI_SUCCESS;
}

int Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                         char* pset_name) {
  rmpl::mpi::session(session);
  optional_info(info);
  if (n < 0 || n >= static_cast<int>(std::size(process_sets))) {
    fail(MPI_ERR_ARG, "n = {} is not in 0..{} (the session has {} process sets)", n,
         std::size(process_sets) - 1, std::size(process_sets));
  }
  if (pset_len == nullptr) fail(MPI_ERR_ARG, "pset_len is null");
  const char* name = process_sets[n];
  const int needed = static_cast<int>(std::strlen(name)) + 1;
  // A length of 0 asks for the length (with the null); else at most *pset_len - 1 characters.
  if (*pset_len == 0) {
    *pset_len = needed;
    return MPI_SUCCESS;
  }
  if (pset_name == nullptr) fail(MPI_ERR_ARG, "pset_name is null with pset_len {}", *pset_len);
  const int written = std::min(needed, *pset_len);
  std::memcpy(pset_name, name, static_cast<std::size_t>(written - 1));
  pset_name[written - 1] = '\0';
  *pset_len = needed;
  return MPI_SUCCESS;
}

int Session_get_info(MPI_Session session, MPI_Info* info_used) {
  const rmpl_mpi_session& s = rmpl::mpi::session(session);
  if (info_used == nullptr) fail(MPI_ERR_ARG, "info_used is null");
  MPI_Info made = make_info();
  made->entries.emplace_back("thread_level", level_names[s.thread_level]);
  *info_used = made;
  return MPI_SUCCESS;
}

int Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  rmpl::mpi::session(session);
  if (info == nullptr) fail(MPI_ERR_ARG, "info is null");
  const rmpl::group members = members_of(pset_name);
  MPI_Info made = make_info();
  made->entries.emplace_back("mpi_size", std::to_string(members.size()));
  *info = made;
  return MPI_SUCCESS;
}

int Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  const rmpl_mpi_session& s = rmpl::mpi::session(session);
  if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is null");
  MPI_Group made = make_group(members_of(pset_name));
  // (MPI_GROUP_EMPTY is shared: it carries no session.)
  if (made != MPI_GROUP_EMPTY) made->session_buffer = s.buffer;
  *newgroup = made;
  return MPI_SUCCESS;
}

int Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  const rmpl_mpi_group& members = rmpl::mpi::group(group);
  optional_info(info);
  if (newcomm == nullptr) fail(MPI_ERR_ARG, "newcomm is null");
  require_initialized();
  *newcomm = comm_from_group(members, stringtag, errhandler);
  return MPI_SUCCESS;
}

int Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                 int remote_leader, const char* stringtag, MPI_Info info,
                                 MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  const rmpl_mpi_group& local = rmpl::mpi::group(local_group);
  const rmpl_mpi_group& remote = rmpl::mpi::group(remote_group);
  optional_info(info);
  if (newintercomm == nullptr) fail(MPI_ERR_ARG, "newintercomm is null");
  require_initialized();
  *newintercomm =
      intercomm_from_groups(local, local_leader, remote, remote_leader, stringtag, errhandler);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/sessions.inc"  // the MPI_ and PMPI_ functions (generated)
