/* The blocking collectives' fast path (src/mpi/collectives.cpp): MPI_Barrier, MPI_Bcast,
 * MPI_Reduce, MPI_Allreduce, MPI_Allgather and MPI_Alltoall with plain buffers and a predefined
 * operator go straight to the kernel once the operator has been planned on the type. Here: every
 * predefined operator on MPI_INT and MPI_DOUBLE, called repeatedly (the first call plans, the rest
 * take the fast path), in place at every root and not, on MPI_COMM_WORLD and on a split
 * communicator whose ranks are not the world's; a derived contiguous type; and, after each
 * operator/type pair has been through the fast path, the arguments it must leave to the general
 * path, which must still fail with the same classes. */
#include <string.h>

#include "check.h"
#include "predefined_ops.h"

static int rank, size;

enum { COUNT = 5 };
/* Rank r's element i: small, with zeros for the logical operators; products stay exact. */
static int input(int r, int i, int k) {
  if (k == 3) return 1 + (r + i) % 2;
  if (k >= 4 && k <= 6) return (r + i) % 3 == 0 ? 0 : r + i;
  return (r * 13 + i * 7) % 29 - 9;
}
/* The reduction of element i over ranks 0..n-1 (world ranks `first`, `first + 2`, ... on a split
 * communicator of every other rank: see on_comm). */
static long expected(int k, int i, int first, int stride, int n) {
  long v = input(first, i, k);
  for (int r = 1; r < n; ++r) v = apply_op(k, v, input(first + r * stride, i, k));
  return v;
}

/* Allreduce (in place and not) and Reduce at every root (in place at the root and not), three
 * times each, for every operator on `type` (MPI_INT or MPI_DOUBLE) over `comm`, whose rank r is
 * world rank first + r * stride. */
static void reductions(MPI_Comm comm, MPI_Datatype type, int first, int stride) {
  int me, n;
  CHECK_MPI(MPI_Comm_rank(comm, &me));
  CHECK_MPI(MPI_Comm_size(comm, &n));
  const int is_int = type == MPI_INT;
  for (int k = 0; k < (is_int ? N_OPS : 4); ++k) {
    int ii[COUNT], io[COUNT];
    double di[COUNT], dout[COUNT];
    for (int i = 0; i < COUNT; ++i) {
      ii[i] = input(rank, i, k);
      di[i] = ii[i];
    }
    void* in = is_int ? (void*)ii : (void*)di;
    void* out = is_int ? (void*)io : (void*)dout;
    const size_t bytes = is_int ? sizeof ii : sizeof di;
    for (int form = 0; form < 2 + 2 * n; ++form) {
      const int all = form < 2, place = all ? form == 1 : form % 2 == 1;
      const int root = all ? -1 : (form - 2) / 2;
      for (int repeat = 0; repeat < 3; ++repeat) {
        memset(out, 0x5a, bytes);
        const int in_place = place && (all || me == root);
        if (in_place) memcpy(out, in, bytes);
        if (all) {
          CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, COUNT, type, op_at(k), comm));
        } else {
          CHECK_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : in, me == root ? out : NULL, COUNT, type,
                               op_at(k), root, comm));
        }
        if (!all && me != root) continue;
        for (int i = 0; i < COUNT; ++i) {
          const long want = expected(k, i, first, stride, n);
          const double got = is_int ? io[i] : dout[i];
          CHECK(got == (double)want, "%s MPI_%s %s%s root %d (call %d): element %d is %g, not %ld",
                is_int ? "MPI_INT" : "MPI_DOUBLE", op_names[k], all ? "allreduce" : "reduce",
                place ? " in place" : "", root, repeat, i, got, want);
        }
      }
    }
  }
}

/* Broadcast from every root, allgather and alltoall of plain ints over `comm`, and a barrier. */
static void movers(MPI_Comm comm) {
  int me, n;
  CHECK_MPI(MPI_Comm_rank(comm, &me));
  CHECK_MPI(MPI_Comm_size(comm, &n));
  for (int root = 0; root < n; ++root) {
    int v[3] = {me == root ? 100 + root : -1, me == root ? 7 : -1, me == root ? root : -1};
    CHECK_MPI(MPI_Bcast(v, 3, MPI_INT, root, comm));
    CHECK(v[0] == 100 + root && v[1] == 7 && v[2] == root, "bcast from %d gave %d %d %d", root,
          v[0], v[1], v[2]);
  }
  int sent[2 * 8], got[2 * 8];
  for (int r = 0; r < n; ++r) {
    sent[2 * r] = me * 100 + r;
    sent[2 * r + 1] = -(me * 100 + r);
  }
  memset(got, 0, sizeof got);
  CHECK_MPI(MPI_Allgather(sent, 2, MPI_INT, got, 2, MPI_INT, comm));
  for (int r = 0; r < n; ++r) {
    CHECK(got[2 * r] == r * 100 && got[2 * r + 1] == -(r * 100), "allgather block %d: %d %d", r,
          got[2 * r], got[2 * r + 1]);
  }
  memset(got, 0, sizeof got);
  CHECK_MPI(MPI_Alltoall(sent, 2, MPI_INT, got, 2, MPI_INT, comm));
  for (int r = 0; r < n; ++r) {
    CHECK(got[2 * r] == r * 100 + me && got[2 * r + 1] == -(r * 100 + me),
          "alltoall block from %d: %d %d", r, got[2 * r], got[2 * r + 1]);
  }
  CHECK_MPI(MPI_Barrier(comm));
}

/* A derived contiguous type of 3 ints through the fast path; then, once it is freed, a type of
 * doubles (which may take its slot) must not inherit what was learned of it. */
static void derived(void) {
  MPI_Datatype three;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &three));
  CHECK_MPI(MPI_Type_commit(&three));
  for (int repeat = 0; repeat < 3; ++repeat) {
    int in[6] = {rank, 1, 2, 3, 4, rank}, out[6];
    CHECK_MPI(MPI_Allreduce(in, out, 2, three, MPI_BXOR, MPI_COMM_WORLD));
    int x = 0;
    for (int r = 0; r < size; ++r) x ^= r;
    CHECK(out[0] == x && out[1] == (size % 2) && out[5] == x, "3-int BXOR gave %d %d %d", out[0],
          out[1], out[5]);
  }
  CHECK_MPI(MPI_Type_free(&three));
  MPI_Datatype doubles;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &doubles));
  CHECK_MPI(MPI_Type_commit(&doubles));
  double d[3] = {1, 2, 3}, e[3];
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_ERR(MPI_Allreduce(d, e, 1, doubles, MPI_BXOR, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Allreduce(d, e, 1, doubles, MPI_SUM, MPI_COMM_WORLD));
  CHECK(e[0] == size && e[2] == 3.0 * size, "3-double SUM gave %g %g", e[0], e[2]);
  CHECK_MPI(MPI_Type_free(&doubles));
}

/* What the fast path must leave to the general path, after MPI_SUM / MPI_BAND on MPI_INT and
 * MPI_SUM on MPI_DOUBLE have been through it: each fails as before. */
static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x[8] = {1, 2}, y[8];
  double d[2] = {1, 2}, e[2];
  const int other = (rank + 1) % size;
  int code = MPI_Allreduce(d, e, 2, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
  CHECK_ERR(code, MPI_ERR_OP);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strstr(text, "MPI_BAND") && strstr(text, "MPI_DOUBLE"),
        "the error text does not name the operator and the type: %s", text);
  CHECK_ERR(MPI_Reduce(d, e, 2, MPI_DOUBLE, MPI_LXOR, 0, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Allreduce(NULL, y, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Allreduce(x, NULL, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Allreduce(x, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR(MPI_Reduce(x, y, 2, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Reduce(x, y, 2, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Reduce(x, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, rank, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Reduce(x, NULL, 2, MPI_INT, MPI_SUM, rank, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  if (size > 1) {
    CHECK_ERR(MPI_Reduce(MPI_IN_PLACE, y, 2, MPI_INT, MPI_SUM, other, MPI_COMM_WORLD),
              MPI_ERR_BUFFER);
  }
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_ERR(MPI_Allreduce(x, y, 1, uncommitted, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Bcast(x, 1, uncommitted, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&uncommitted));
  CHECK_ERR(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Bcast(x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  /* one rank's blocks must agree in size (more sent: truncation; fewer: a count mismatch) */
  CHECK_ERR(MPI_Allgather(x, 2, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_ERR(MPI_Allgather(x, 1, MPI_INT, y, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Alltoall(x, 2, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_ERR(MPI_Alltoall(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Allgather(x, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  /* nothing above started a collective: the next ones still match up */
  x[0] = rank;
  CHECK_MPI(MPI_Allreduce(x, y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(y[0] == size - 1, "allreduce after the errors gave %d", y[0]);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 8, "at most 8 ranks (the blocks' buffers), not %d", size);
  reductions(MPI_COMM_WORLD, MPI_INT, 0, 1);
  reductions(MPI_COMM_WORLD, MPI_DOUBLE, 0, 1);
  movers(MPI_COMM_WORLD);
  /* every other rank, in reverse order: ranks there are not world ranks */
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  int n;
  CHECK_MPI(MPI_Comm_size(half, &n));
  const int last = rank % 2 + 2 * (n - 1); /* the highest world rank of this half: its rank 0 */
  reductions(half, MPI_INT, last, -2);
  reductions(half, MPI_DOUBLE, last, -2);
  movers(half);
  CHECK_MPI(MPI_Comm_free(&half));
  derived();
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
