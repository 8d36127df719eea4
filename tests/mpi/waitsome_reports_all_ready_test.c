/* MPI_Waitsome and MPI_Testsome report every request that can complete at the time of the call,
 * not only those a first look found complete: six receives to self are posted, three messages are
 * sent to them with MPI_Ssend (out of order), and then one MPI_Waitsome (or MPI_Testsome) must
 * return all three. The standard lets it return fewer, but Open MPI and MPICH return all three and
 * programs (and test suites such as mpi4py's) count on it. Sizes: eager, rendezvous (32 KiB, the
 * reported case) and a rendezvous above RMPL_ASSIST_MIN's default. Each rank works alone. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank;

static void run(int bytes, int use_test) {
  enum { posted = 6 };
  static const int sent_tags[3] = {3, 1, 2};
  const char* call = use_test ? "MPI_Testsome" : "MPI_Waitsome";
  char* in = malloc((size_t)bytes * posted);
  char* out = malloc((size_t)bytes);
  CHECK(in && out, "out of memory");
  MPI_Request rs[posted];
  for (int i = 0; i < posted; ++i) {
    CHECK_MPI(
        MPI_Irecv(in + (size_t)i * bytes, bytes, MPI_CHAR, rank, i + 1, MPI_COMM_WORLD, &rs[i]));
  }
  for (int k = 0; k < 3; ++k) {
    memset(out, sent_tags[k], (size_t)bytes);
    CHECK_MPI(MPI_Ssend(out, bytes, MPI_CHAR, rank, sent_tags[k], MPI_COMM_WORLD));
  }
  /* The barrier (on one rank, a call that returns at once) moves no message of this rank's. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int outcount = -1, indices[posted];
  MPI_Status sts[posted];
  if (use_test) {
    CHECK_MPI(MPI_Testsome(posted, rs, &outcount, indices, sts));
  } else {
    CHECK_MPI(MPI_Waitsome(posted, rs, &outcount, indices, sts));
  }
  CHECK(outcount == 3,
        "%s on rank %d with %d-byte messages: %d requests reported, but all 3 matched receives "
        "are ready (their MPI_Ssend returned)",
        call, rank, bytes, outcount);
  int seen = 0;
  for (int j = 0; j < outcount; ++j) {
    const int i = indices[j];
    CHECK(i >= 0 && i < 3, "%s reported index %d, a receive nothing was sent to", call, i);
    CHECK(sts[j].MPI_TAG == i + 1, "%s: index %d has tag %d", call, i, sts[j].MPI_TAG);
    CHECK(in[(size_t)i * bytes] == i + 1 && in[(size_t)i * bytes + bytes - 1] == i + 1,
          "%s: receive %d holds %d", call, i, in[(size_t)i * bytes]);
    seen |= 1 << i;
  }
  CHECK(seen == 7, "%s: indices reported: mask %x", call, seen);
  for (int i = 3; i < posted; ++i) {
    CHECK_MPI(MPI_Cancel(&rs[i]));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rs[i], &st));
    int cancelled = 0;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "receive %d (tag %d, nothing sent) was not cancelled", i, i + 1);
  }
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  static const int sizes[] = {1024, 32 * 1024, 600 * 1024};
  /* Each case several times in a row: the first round can differ from the next ones (what the
   * previous round left behind: cancelled receives, acknowledgements of synchronous sends). */
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    for (int use_test = 0; use_test < 2; ++use_test) {
      for (int rep = 0; rep < 10; ++rep) run(sizes[s], use_test);
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
