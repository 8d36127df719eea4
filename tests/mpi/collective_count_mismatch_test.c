/* Collectives whose counts disagree across ranks (an erroneous program: MPI requires matching type
 * signatures), in the default mode, with MPI_ERRORS_RETURN: every rank must return (a hang shows
 * as the harness's timeout), and the ranks that receive data of a size other than they expect must
 * get an error (MPI_ERR_TRUNCATE when more arrives than they posted, MPI_ERR_COUNT when less does;
 * MPI_ERR_OTHER is also accepted from a rank that only learns of a disagreement further up).
 * Ranks that cannot see the disagreement (a broadcast's root, which receives nothing) may return
 * MPI_SUCCESS. Each case runs on a fresh duplicate of MPI_COMM_WORLD: after a disagreement the
 * communicator is not used again (docs/reliability.md), only freed.
 *
 * The cases, for each collective, blocking and nonblocking, with short and longer blocks: the root
 * (rank 0) passes a larger count than the others, or a smaller one, or the last rank a larger one.
 * For debugging: RMPL_MISMATCH_ONLY=<collective name>, RMPL_MISMATCH_CASE=<0-2> and
 * RMPL_MISMATCH_BASE=<4 or 1024> run those alone; RMPL_MISMATCH_VERBOSE=1 names each case as it
 * starts. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

enum coll {
  BCAST,
  GATHER,
  SCATTER,
  ALLGATHER,
  REDUCE,
  ALLREDUCE,
  ALLTOALL,
  REDUCE_SCATTER_BLOCK,
  REDUCE_SCATTER,
  SCAN,
  EXSCAN,
  GATHERV,
  SCATTERV,
  ALLGATHERV,
  ALLTOALLV,
  COLLS
};
static const char* const names[COLLS] = {
    "bcast",          "gather",     "scatter",  "allgather",
    "reduce",         "allreduce",  "alltoall", "reduce_scatter_block",
    "reduce_scatter", "scan",       "exscan",   "gatherv",
    "scatterv",       "allgatherv", "alltoallv"};

enum kase { ROOT_BIGGER, ROOT_SMALLER, LAST_BIGGER, CASES };
static const char* const case_names[CASES] = {"the root passes a larger count",
                                              "the root passes a smaller count",
                                              "the last rank passes a larger count"};

/* The count rank r passes in case k, `base` for the others; the odd one passes base +- base / 6.
 * Near enough that every rank picks the same algorithm: counts on either side of a size at which
 * the automatic choice changes algorithm can still make ranks wait (docs/reliability.md). */
static int count_of(enum kase k, int r, int base) {
  switch (k) {
    case ROOT_BIGGER:
      return r == 0 ? base + base / 6 : base;
    case ROOT_SMALLER:
      return r == 0 ? base - base / 6 : base;
    default:
      return r == size - 1 ? base + base / 6 : base;
  }
}

/* Whether this rank must see the disagreement (receive a size it does not expect, directly or
 * from a rank that saw it before and passed it on). */
static int must_fail(enum coll c, enum kase k) {
  const int odd = k == LAST_BIGGER ? size - 1 : 0; /* the rank whose count differs */
  switch (c) {
    case BCAST:
    case SCATTER:
      /* Every rank whose count is not the root's receives a block of the wrong size. */
      return count_of(k, rank, 4) != count_of(k, 0, 4);
    case SCATTERV:
      /* The root's counts say `base` for everyone; the odd rank's receive count differs. */
      return rank == odd && rank != 0;
    case GATHER:
    case GATHERV:
    case REDUCE:
      return rank == 0;
    case SCAN:
    case EXSCAN:
      /* Only ranks above the odd one receive from it (exscan's rank 0 receives nothing). */
      return rank > odd || (rank == odd && rank > 0);
    default:
      /* Everyone receives from everyone (directly or through the steps). */
      return 1;
  }
}

static int allowed_class(int cls) {
  return cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_COUNT ||
         cls == MPI_ERR_OTHER || cls == MPI_ERR_ARG;
}

/* Runs collective c in case k on `comm` with counts around `base` ints; returns the error code. */
static int run(enum coll c, enum kase k, int base, int nonblocking, MPI_Comm comm) {
  const int mine = count_of(k, rank, base);
  const int root_count = count_of(k, 0, base);
  const int odd = k == LAST_BIGGER ? size - 1 : 0;
  const size_t room = (size_t)(2 * base + 8) * (size_t)size; /* ints: room for any count */
  int* in = calloc(room, sizeof(int));
  int* out = calloc(room, sizeof(int));
  int* counts = calloc((size_t)size, sizeof(int));
  int* displs = calloc((size_t)size, sizeof(int));
  int* scounts = calloc((size_t)size, sizeof(int));
  int* sdispls = calloc((size_t)size, sizeof(int));
  CHECK(in && out && counts && displs && scounts && sdispls, "out of memory");
  for (size_t i = 0; i < room; ++i) in[i] = rank * 1000 + (int)i;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Request* r = nonblocking ? &req : NULL;
  int err = MPI_SUCCESS;
  switch (c) {
    case BCAST:
      err = r ? MPI_Ibcast(in, mine, MPI_INT, 0, comm, r) : MPI_Bcast(in, mine, MPI_INT, 0, comm);
      break;
    case GATHER:
      err = r ? MPI_Igather(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm, r)
              : MPI_Gather(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm);
      break;
    case SCATTER:
      err = r ? MPI_Iscatter(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm, r)
              : MPI_Scatter(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm);
      break;
    case ALLGATHER:
      err = r ? MPI_Iallgather(in, mine, MPI_INT, out, mine, MPI_INT, comm, r)
              : MPI_Allgather(in, mine, MPI_INT, out, mine, MPI_INT, comm);
      break;
    case REDUCE:
      err = r ? MPI_Ireduce(in, out, mine, MPI_INT, MPI_SUM, 0, comm, r)
              : MPI_Reduce(in, out, mine, MPI_INT, MPI_SUM, 0, comm);
      break;
    case ALLREDUCE:
      err = r ? MPI_Iallreduce(in, out, mine, MPI_INT, MPI_SUM, comm, r)
              : MPI_Allreduce(in, out, mine, MPI_INT, MPI_SUM, comm);
      break;
    case ALLTOALL:
      err = r ? MPI_Ialltoall(in, mine, MPI_INT, out, mine, MPI_INT, comm, r)
              : MPI_Alltoall(in, mine, MPI_INT, out, mine, MPI_INT, comm);
      break;
    case REDUCE_SCATTER_BLOCK:
      err = r ? MPI_Ireduce_scatter_block(in, out, mine, MPI_INT, MPI_SUM, comm, r)
              : MPI_Reduce_scatter_block(in, out, mine, MPI_INT, MPI_SUM, comm);
      break;
    case REDUCE_SCATTER:
      /* Each rank's counts array says `mine` for every rank: the odd rank's arrays differ. */
      for (int i = 0; i < size; ++i) counts[i] = mine;
      err = r ? MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm, r)
              : MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm);
      break;
    case SCAN:
      err = r ? MPI_Iscan(in, out, mine, MPI_INT, MPI_SUM, comm, r)
              : MPI_Scan(in, out, mine, MPI_INT, MPI_SUM, comm);
      break;
    case EXSCAN:
      err = r ? MPI_Iexscan(in, out, mine, MPI_INT, MPI_SUM, comm, r)
              : MPI_Exscan(in, out, mine, MPI_INT, MPI_SUM, comm);
      break;
    case GATHERV:
      /* The root expects `root_count` from everyone; each rank sends its own count. */
      for (int i = 0; i < size; ++i) {
        counts[i] = i == 0 ? mine : root_count;
        displs[i] = i * 2 * base;
      }
      err = r ? MPI_Igatherv(in, mine, MPI_INT, out, counts, displs, MPI_INT, 0, comm, r)
              : MPI_Gatherv(in, mine, MPI_INT, out, counts, displs, MPI_INT, 0, comm);
      break;
    case SCATTERV:
      /* The root sends `root_count` to everyone; each rank expects its own count. */
      for (int i = 0; i < size; ++i) {
        counts[i] = i == 0 ? mine : root_count;
        displs[i] = i * 2 * base;
      }
      err = r ? MPI_Iscatterv(in, counts, displs, MPI_INT, out, mine, MPI_INT, 0, comm, r)
              : MPI_Scatterv(in, counts, displs, MPI_INT, out, mine, MPI_INT, 0, comm);
      break;
    case ALLGATHERV:
      /* Every rank believes everyone passes its own count: the odd rank's arrays differ. */
      for (int i = 0; i < size; ++i) {
        counts[i] = mine;
        displs[i] = i * 2 * base;
      }
      err = r ? MPI_Iallgatherv(in, mine, MPI_INT, out, counts, displs, MPI_INT, comm, r)
              : MPI_Allgatherv(in, mine, MPI_INT, out, counts, displs, MPI_INT, comm);
      break;
    case ALLTOALLV:
      for (int i = 0; i < size; ++i) {
        counts[i] = scounts[i] = mine;
        displs[i] = sdispls[i] = i * 2 * base;
      }
      err = r ? MPI_Ialltoallv(in, scounts, sdispls, MPI_INT, out, counts, displs, MPI_INT, comm, r)
              : MPI_Alltoallv(in, scounts, sdispls, MPI_INT, out, counts, displs, MPI_INT, comm);
      break;
    default:
      break;
  }
  (void)odd;
  if (nonblocking && err == MPI_SUCCESS) err = MPI_Wait(&req, MPI_STATUS_IGNORE);
  free(in);
  free(out);
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  return err;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const char* only = getenv("RMPL_MISMATCH_ONLY");
  const int verbose = getenv("RMPL_MISMATCH_VERBOSE") != NULL;
  const char* only_case = getenv("RMPL_MISMATCH_CASE");
  const char* only_base = getenv("RMPL_MISMATCH_BASE");
  /* One rank has nobody to disagree with. */
  if (size > 1) {
    /* 5-7 ints: the short protocol (alltoall's blocks in at most four lines at 8 ranks), or the
     * trees; 854-1194 ints: the shared rounds, or the linear gather and scatter. */
    static const int bases[] = {6, 1024};
    for (int c = 0; c < COLLS; ++c) {
      if (only != NULL && *only != '\0' && strcmp(only, names[c]) != 0) continue;
      for (int b = 0; b < 2; ++b) {
        if (only_base != NULL && atoi(only_base) != bases[b]) continue;
        for (int nb = 0; nb < 2; ++nb) {
          for (int k = 0; k < CASES; ++k) {
            if (only_case != NULL && atoi(only_case) != k) continue;
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
            if (verbose && rank == 0) {
              printf("%s%s of %d-int blocks, %s\n", nb ? "nonblocking " : "", names[c], bases[b],
                     case_names[k]);
              fflush(stdout);
            }
            const int err = run((enum coll)c, (enum kase)k, bases[b], nb, comm);
            int cls = -1;
            MPI_Error_class(err, &cls);
            char text[MPI_MAX_ERROR_STRING] = "";
            int len = 0;
            if (err != MPI_SUCCESS) MPI_Error_string(err, text, &len);
            CHECK(allowed_class(cls), "%s%s of %d-int blocks, %s: error class %d (%s)",
                  nb ? "nonblocking " : "", names[c], bases[b], case_names[k], cls, text);
            CHECK(!must_fail((enum coll)c, (enum kase)k) || cls != MPI_SUCCESS,
                  "%s%s of %d-int blocks, %s: this rank (count %d) returned MPI_SUCCESS",
                  nb ? "nonblocking " : "", names[c], bases[b], case_names[k],
                  count_of((enum kase)k, rank, bases[b]));
            MPI_Comm_free(&comm);
            /* The next case starts together on every rank. */
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
          }
        }
      }
    }
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
