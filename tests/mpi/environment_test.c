/* The environment inquiries a first MPI program prints ("hello, I am rank r of n on host h, running
 * library v"): MPI_Initialized and MPI_Finalized before, during and after the library's life,
 * MPI_Get_version (callable before MPI_Init and after MPI_Finalize), MPI_Get_library_version and
 * MPI_Get_processor_name (lengths that match the strings, within their limits, the same on every
 * rank of a job on one host, the host's own name), MPI_Is_thread_main, rank and size against the
 * launcher's count, and MPI_Wtime / MPI_Wtick. */
#include <string.h>
#include <unistd.h>

#include "check.h"

static void version_anytime(const char* when) {
  int version = -1, subversion = -1;
  CHECK_MPI(MPI_Get_version(&version, &subversion));
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
        "%s: MPI_Get_version says %d.%d, mpi.h %d.%d", when, version, subversion, MPI_VERSION,
        MPI_SUBVERSION);
}

static void life_flags(int initialized, int finalized, const char* when) {
  int flag = -1;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == initialized, "%s: MPI_Initialized says %d, expected %d", when, flag, initialized);
  flag = -1;
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == finalized, "%s: MPI_Finalized says %d, expected %d", when, flag, finalized);
}

/* The string is the same on every rank: each rank compares its own with rank 0's. */
static void same_everywhere(const char* s, int len, int limit, const char* what) {
  char root[1024];
  CHECK(limit <= (int)sizeof root, "%s: limit %d", what, limit);
  memset(root, 0, sizeof root);
  memcpy(root, s, (size_t)len + 1);
  CHECK_MPI(MPI_Bcast(root, limit, MPI_CHAR, 0, MPI_COMM_WORLD));
  CHECK(strcmp(root, s) == 0, "%s differs: rank 0 has \"%s\", this rank \"%s\"", what, root, s);
}

static void strings(void) {
  char text[MPI_MAX_LIBRARY_VERSION_STRING + 16];
  memset(text, 'x', sizeof text);
  int len = -1;
  CHECK_MPI(MPI_Get_library_version(text, &len));
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING,
        "MPI_Get_library_version: length %d, limit %d", len, MPI_MAX_LIBRARY_VERSION_STRING);
  CHECK(text[len] == '\0' && (int)strlen(text) == len,
        "MPI_Get_library_version: length %d, but the string has %zu characters", len, strlen(text));
  CHECK(strncmp(text, "rmpl ", 5) == 0, "MPI_Get_library_version does not name rmpl: \"%s\"", text);
  same_everywhere(text, len, MPI_MAX_LIBRARY_VERSION_STRING, "the library version");

  char name[MPI_MAX_PROCESSOR_NAME + 16];
  memset(name, 'x', sizeof name);
  len = -1;
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "MPI_Get_processor_name: length %d, limit %d", len,
        MPI_MAX_PROCESSOR_NAME);
  CHECK(name[len] == '\0' && (int)strlen(name) == len,
        "MPI_Get_processor_name: length %d, but the name has %zu characters", len, strlen(name));
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  CHECK(gethostname(host, sizeof host - 1) == 0, "gethostname failed");
  CHECK(strcmp(name, host) == 0, "MPI_Get_processor_name gave \"%s\", the host is \"%s\"", name,
        host);
  /* Every rank of an rmpl job runs on this host. */
  same_everywhere(name, len, MPI_MAX_PROCESSOR_NAME, "the processor name");
}

static void ranks(void) {
  int rank = -1, size = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d of %d", rank, size);
  /* Every rank number is held by exactly one process. */
  int* seen = calloc((size_t)size, sizeof(int));
  CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, seen, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    CHECK(seen[r] == r, "place %d of the gathered ranks holds %d", r, seen[r]);
  free(seen);
  int self_rank = -1, self_size = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &self_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &self_size));
  CHECK(self_rank == 0 && self_size == 1, "MPI_COMM_SELF: rank %d of %d", self_rank, self_size);
  int main_thread = -1;
  CHECK_MPI(MPI_Is_thread_main(&main_thread));
  CHECK(main_thread == 1, "MPI_Is_thread_main on the thread that called MPI_Init: %d", main_thread);
}

static void clocks(void) {
  const double tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 0.01, "MPI_Wtick %g", tick);
  double last = MPI_Wtime();
  for (int i = 0; i < 1000; ++i) {
    const double t = MPI_Wtime();
    CHECK(t >= last, "MPI_Wtime went back from %.9f to %.9f", last, t);
    last = t;
  }
  const double start = MPI_Wtime();
  usleep(20000);
  const double slept = MPI_Wtime() - start;
  CHECK(slept >= 0.019 && slept < 5, "a 20 ms sleep measured %g s", slept);
}

int main(int argc, char** argv) {
  version_anytime("before MPI_Init");
  life_flags(0, 0, "before MPI_Init");
  CHECK_MPI(MPI_Init(&argc, &argv));
  life_flags(1, 0, "after MPI_Init");
  version_anytime("after MPI_Init");
  strings();
  ranks();
  clocks();
  CHECK_MPI(MPI_Finalize());
  life_flags(1, 1, "after MPI_Finalize");
  version_anytime("after MPI_Finalize");
  return 0;
}
