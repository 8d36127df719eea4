/* The tool information interface (MPI_T): initialised before MPI_Init and nested; rmpl's settings
 * as control variables (found by name, read while MPI runs, never written); its queues and
 * counters as performance variables in sessions (the receives-posted counter counts a receive
 * posted before its message); categories holding them; no enumerations, events or sources; every
 * misuse answered by its MPI_T_ERR_* code. */
#include <string.h>

#include "check.h"

#define CHECK_T(call, want)                                                            \
  do {                                                                                 \
    const int got_ = (call);                                                           \
    CHECK(got_ == (want), "%s returned %d, want %s (%d)", #call, got_, #want, (want)); \
  } while (0)

static int rank, size;

static unsigned long long read_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  unsigned long long value = 0;
  CHECK_MPI(MPI_T_pvar_read(session, handle, &value));
  return value;
}

/* Before MPI_Init: MPI_T works, variables are listed, but a setting is read only while MPI runs. */
static MPI_T_cvar_handle before_init(void) {
  int n = -1, provided = -1;
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK(provided == MPI_THREAD_SINGLE, "MPI_T_init_thread provided %d", provided);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided)); /* nested */
  CHECK_MPI(MPI_T_cvar_get_num(&n));
  CHECK(n >= 9, "%d control variables, want the 9 RMPL_* settings at least", n);
  int eager = -1;
  CHECK_MPI(MPI_T_cvar_get_index("RMPL_EAGER_MAX", &eager));
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  CHECK_MPI(MPI_T_cvar_handle_alloc(eager, NULL, &handle, &count));
  CHECK(count == 1 && handle != MPI_T_CVAR_HANDLE_NULL, "cvar handle: count %d", count);
  unsigned long long value = 0;
  CHECK_T(MPI_T_cvar_read(handle, &value), MPI_T_ERR_NOT_ACCESSIBLE);
  return handle;
}

static void control_variables(MPI_T_cvar_handle eager) {
  unsigned long long value = 0;
  CHECK_MPI(MPI_T_cvar_read(eager, &value));
  CHECK(value > 0, "RMPL_EAGER_MAX reads %llu", value);
  CHECK_T(MPI_T_cvar_write(eager, &value), MPI_T_ERR_CVAR_SET_NEVER);
  int n = 0;
  CHECK_MPI(MPI_T_cvar_get_num(&n));
  for (int i = 0; i < n; ++i) {
    char name[64], desc[256];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = (MPI_T_enum)&n;
    CHECK_MPI(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                                  &bind, &scope));
    CHECK(name_len == (int)strlen(name) + 1, "cvar %d: name_len %d for \"%s\"", i, name_len, name);
    CHECK(strncmp(name, "RMPL_", 5) == 0 && desc_len > 1, "cvar %d: \"%s\" \"%s\"", i, name, desc);
    CHECK(type == MPI_UNSIGNED_LONG_LONG && enumtype == MPI_T_ENUM_NULL &&
              bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_CONSTANT,
          "cvar %s: its type, enumeration, binding or scope", name);
    int back = -1;
    CHECK_MPI(MPI_T_cvar_get_index(name, &back));
    CHECK(back == i, "MPI_T_cvar_get_index(%s) gives %d, want %d", name, back, i);
    /* The length a null buffer asks for. */
    int needed = 0;
    CHECK_MPI(MPI_T_cvar_get_info(i, NULL, &needed, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(needed == name_len, "cvar %s: a null name asks for %d characters", name, needed);
    MPI_T_cvar_handle h;
    int count = 0;
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK_MPI(MPI_T_cvar_read(h, &value)); /* every setting reads while MPI runs */
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "MPI_T_cvar_handle_free leaves the handle null");
  }
  /* A truncated name: at most len - 1 characters and a null. */
  char shortname[6];
  int len = sizeof shortname;
  CHECK_MPI(MPI_T_cvar_get_info(0, shortname, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(len == 6 && strlen(shortname) == 5, "truncated name \"%s\", len %d", shortname, len);
  int missing = 0;
  CHECK_T(MPI_T_cvar_get_index("RMPL_NO_SUCH_SETTING", &missing), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  MPI_T_cvar_handle bogus = (MPI_T_cvar_handle)&len;
  CHECK_T(MPI_T_cvar_read(bogus, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_MPI(MPI_T_cvar_handle_free(&eager));
}

static void performance_variables(void) {
  int n = 0;
  CHECK_MPI(MPI_T_pvar_get_num(&n));
  CHECK(n >= 4, "%d performance variables", n);
  int posted = -1;
  CHECK_MPI(MPI_T_pvar_get_index("rmpl_receives_posted", MPI_T_PVAR_CLASS_COUNTER, &posted));
  CHECK_T(MPI_T_pvar_get_index("rmpl_receives_posted", MPI_T_PVAR_CLASS_LEVEL, &posted),
          MPI_T_ERR_INVALID_NAME);
  int var_class = 0, readonly = 0, continuous = 0, atomic = 1;
  CHECK_MPI(MPI_T_pvar_get_info(posted, NULL, NULL, NULL, &var_class, NULL, NULL, NULL, NULL, NULL,
                                &readonly, &continuous, &atomic));
  CHECK(var_class == MPI_T_PVAR_CLASS_COUNTER && readonly && continuous && !atomic,
        "rmpl_receives_posted: class %d readonly %d continuous %d atomic %d", var_class, readonly,
        continuous, atomic);

  MPI_T_pvar_session session;
  CHECK_MPI(MPI_T_pvar_session_create(&session));
  MPI_T_pvar_handle handle;
  int count = 0;
  CHECK_MPI(MPI_T_pvar_handle_alloc(session, posted, NULL, &handle, &count));
  CHECK(count == 1, "pvar handle count %d", count);
  const unsigned long long before = read_pvar(session, handle);
  /* A receive posted before its message: every rank posts, then all send (after the barrier). */
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out = rank, in = -1;
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, 5, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(in == prev, "received %d", in);
  const unsigned long long after = read_pvar(session, handle);
  CHECK(after >= before + 1, "rmpl_receives_posted went from %llu to %llu over a posted receive",
        before, after);

  /* Continuous and read-only: no start, stop, write or reset of one; of all handles, nothing. */
  CHECK_T(MPI_T_pvar_start(session, handle), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_T(MPI_T_pvar_stop(session, handle), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
  CHECK_MPI(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));
  unsigned long long value = 0;
  CHECK_T(MPI_T_pvar_write(session, handle, &value), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_T(MPI_T_pvar_reset(session, handle), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_T(MPI_T_pvar_readreset(session, handle, &value), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_MPI(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES));

  /* Every variable reads while MPI runs. */
  for (int i = 0; i < n; ++i) {
    MPI_T_pvar_handle h;
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, i, NULL, &h, &count));
    read_pvar(session, h);
    CHECK_MPI(MPI_T_pvar_handle_free(session, &h));
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "MPI_T_pvar_handle_free leaves the handle null");
  }

  /* A handle of another session, and a freed session. */
  MPI_T_pvar_session other;
  CHECK_MPI(MPI_T_pvar_session_create(&other));
  CHECK_T(MPI_T_pvar_read(other, handle, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_MPI(MPI_T_pvar_session_free(&other));
  CHECK(other == MPI_T_PVAR_SESSION_NULL, "MPI_T_pvar_session_free leaves the session null");
  CHECK_T(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, handle, &value), MPI_T_ERR_INVALID_SESSION);
  CHECK_MPI(MPI_T_pvar_handle_free(session, &handle));
  CHECK_MPI(MPI_T_pvar_session_free(&session));
}

static void categories(void) {
  int n = 0, cvars = 0, pvars = 0;
  CHECK_MPI(MPI_T_category_get_num(&n));
  CHECK(n == 2, "%d categories", n);
  CHECK_MPI(MPI_T_cvar_get_num(&cvars));
  CHECK_MPI(MPI_T_pvar_get_num(&pvars));
  int settings = -1;
  CHECK_MPI(MPI_T_category_get_index("rmpl_settings", &settings));
  int in_cvars = -1, in_pvars = -1, in_categories = -1;
  char name[64];
  int name_len = sizeof name;
  CHECK_MPI(MPI_T_category_get_info(settings, name, &name_len, NULL, NULL, &in_cvars, &in_pvars,
                                    &in_categories));
  CHECK(strcmp(name, "rmpl_settings") == 0 && in_cvars == cvars && in_pvars == 0 &&
            in_categories == 0,
        "category %s: %d cvars %d pvars %d categories", name, in_cvars, in_pvars, in_categories);
  int indices[32] = {0};
  CHECK(cvars <= 32, "too many cvars for the test");
  CHECK_MPI(MPI_T_category_get_cvars(settings, cvars, indices));
  for (int i = 0; i < cvars; ++i) CHECK(indices[i] == i, "category cvar %d is %d", i, indices[i]);
  int events = -1, stamp = -1;
  CHECK_MPI(MPI_T_category_get_num_events(settings, &events));
  CHECK(events == 0, "%d events in a category", events);
  CHECK_MPI(MPI_T_category_changed(&stamp));
  CHECK_T(MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_index("no_such_category", &settings), MPI_T_ERR_INVALID_NAME);
}

/* No enumerations, event types or sources. */
static void nothing_else(void) {
  int n = -1;
  CHECK_T(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_MPI(MPI_T_event_get_num(&n));
  CHECK(n == 0, "%d event types", n);
  CHECK_T(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  MPI_T_event_registration registration;
  CHECK_T(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &registration), MPI_T_ERR_INVALID_INDEX);
  CHECK_MPI(MPI_T_source_get_num(&n));
  CHECK(n == 0, "%d event sources", n);
  MPI_Count stamp = 0;
  CHECK_T(MPI_T_source_get_timestamp(0, &stamp), MPI_T_ERR_INVALID_INDEX);
  /* The codes are error classes with their own text. */
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, text, &len));
  CHECK(strstr(text, "MPI_T_ERR_INVALID_INDEX") != NULL, "MPI_T_ERR_INVALID_INDEX's text: %s",
        text);
}

int main(int argc, char** argv) {
  MPI_T_cvar_handle eager = before_init();
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  control_variables(eager);
  performance_variables();
  categories();
  nothing_else();
  CHECK_MPI(MPI_Finalize());
  /* After MPI_Finalize the interface still answers, until its last MPI_T_finalize. */
  int n = 0;
  CHECK_MPI(MPI_T_cvar_get_num(&n));
  CHECK_MPI(MPI_T_finalize());
  CHECK_MPI(MPI_T_pvar_get_num(&n));
  CHECK_MPI(MPI_T_finalize());
  CHECK_T(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  return 0;
}
