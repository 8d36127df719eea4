/* Handle conversion (MPI_<Kind>_c2f / _f2c, MPI_Status_c2f / _f2c): every kind's predefined and
 * program-made handles round-trip through their MPI_Fint, distinct handles get distinct values,
 * the predefined handles' values are the same on every rank, the null handle is 0, and f2c of a
 * value that names no live handle (never issued, negative, of a freed object) gives the null
 * handle. A status round-trips with its source, tag, error, count and cancelled flag. */
#include <string.h>

#include "check.h"

static int rank, size;

/* The value must be the same on every rank. */
static void same_everywhere(MPI_Fint f, const char* what) {
  int lo = f, hi = f;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(lo == hi, "%s: Fortran value %d here, but from %d to %d across ranks", what, f, lo, hi);
}

/* ROUND_TRIP(Kind, handle): c2f gives a non-zero value whose f2c is the handle. */
#define ROUND_TRIP(Kind, h)                                                                    \
  do {                                                                                         \
    MPI_Fint f_ = MPI_##Kind##_c2f(h);                                                         \
    CHECK(f_ != 0, "MPI_" #Kind "_c2f(%s) gave 0, the null handle's value", #h);               \
    CHECK(MPI_##Kind##_f2c(f_) == (h), "MPI_" #Kind "_f2c(%d) is not %s", (int)f_, #h);        \
    CHECK(MPI_##Kind##_c2f(h) == f_, "MPI_" #Kind "_c2f(%s) changed: %d then %d", #h, (int)f_, \
          (int)MPI_##Kind##_c2f(h));                                                           \
  } while (0)

/* NULL_AND_INVALID(Kind, null): the null handle is 0 and back; values naming nothing give null. */
#define NULL_AND_INVALID(Kind, null)                                                     \
  do {                                                                                   \
    CHECK(MPI_##Kind##_c2f(null) == 0, "MPI_" #Kind "_c2f(%s) is %d, not 0", #null,      \
          (int)MPI_##Kind##_c2f(null));                                                  \
    const MPI_Fint invalid_[] = {0, -1, -123456, 1 << 30, 0x7fffffff};                   \
    for (size_t i_ = 0; i_ < sizeof invalid_ / sizeof invalid_[0]; ++i_) {               \
      CHECK(MPI_##Kind##_f2c(invalid_[i_]) == (null), "MPI_" #Kind "_f2c(%d) is not %s", \
            (int)invalid_[i_], #null);                                                   \
    }                                                                                    \
  } while (0)

static void communicators(void) {
  NULL_AND_INVALID(Comm, MPI_COMM_NULL);
  ROUND_TRIP(Comm, MPI_COMM_WORLD);
  ROUND_TRIP(Comm, MPI_COMM_SELF);
  CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) != MPI_Comm_c2f(MPI_COMM_SELF), "world and self share %d",
        (int)MPI_Comm_c2f(MPI_COMM_WORLD));
  same_everywhere(MPI_Comm_c2f(MPI_COMM_WORLD), "MPI_COMM_WORLD");
  same_everywhere(MPI_Comm_c2f(MPI_COMM_SELF), "MPI_COMM_SELF");

  MPI_Comm a, b;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &b));
  ROUND_TRIP(Comm, a);
  ROUND_TRIP(Comm, b);
  MPI_Fint fa = MPI_Comm_c2f(a), fb = MPI_Comm_c2f(b);
  CHECK(fa != fb, "two communicators share the value %d", (int)fa);
  /* The converted handle is the communicator: usable as such. */
  int n = -1;
  CHECK_MPI(MPI_Comm_size(MPI_Comm_f2c(fa), &n));
  CHECK(n == size, "size of the f2c'd dup is %d, expected %d", n, size);
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK(MPI_Comm_f2c(fa) == MPI_COMM_NULL, "f2c of a freed communicator's value %d is not null",
        (int)fa);
  CHECK(MPI_Comm_f2c(fb) == b, "freeing another communicator changed %d", (int)fb);
  CHECK_MPI(MPI_Comm_free(&b));
}

static void datatypes(void) {
  NULL_AND_INVALID(Type, MPI_DATATYPE_NULL);
  const MPI_Datatype predefined[] = {
      MPI_CHAR,   MPI_INT,  MPI_LONG,       MPI_DOUBLE,   MPI_LONG_DOUBLE,      MPI_BYTE,
      MPI_PACKED, MPI_2INT, MPI_DOUBLE_INT, MPI_UINT64_T, MPI_C_DOUBLE_COMPLEX, MPI_AINT,
      MPI_UB};
  const int n = (int)(sizeof predefined / sizeof predefined[0]);
  for (int i = 0; i < n; ++i) {
    ROUND_TRIP(Type, predefined[i]);
    same_everywhere(MPI_Type_c2f(predefined[i]), "a predefined datatype");
    for (int j = 0; j < i; ++j) {
      CHECK(MPI_Type_c2f(predefined[i]) != MPI_Type_c2f(predefined[j]),
            "predefined types %d and %d share the value %d", i, j,
            (int)MPI_Type_c2f(predefined[i]));
    }
  }
  MPI_Datatype v, c;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
  CHECK_MPI(MPI_Type_contiguous(4, MPI_DOUBLE, &c));
  CHECK_MPI(MPI_Type_commit(&v));
  ROUND_TRIP(Type, v);
  ROUND_TRIP(Type, c); /* not committed: still a handle */
  MPI_Fint fv = MPI_Type_c2f(v);
  CHECK(fv != MPI_Type_c2f(c), "two types share %d", (int)fv);
  int bytes = -1;
  CHECK_MPI(MPI_Type_size(MPI_Type_f2c(fv), &bytes));
  CHECK(bytes == 3 * (int)sizeof(int), "size through f2c is %d", bytes);
  CHECK_MPI(MPI_Type_free(&v));
  CHECK(MPI_Type_f2c(fv) == MPI_DATATYPE_NULL, "f2c of a freed type's value %d is not null",
        (int)fv);
  CHECK_MPI(MPI_Type_free(&c));
}

static void groups_ops_infos_errhandlers(void) {
  NULL_AND_INVALID(Group, MPI_GROUP_NULL);
  ROUND_TRIP(Group, MPI_GROUP_EMPTY);
  MPI_Group world, first;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int zero = 0;
  CHECK_MPI(MPI_Group_incl(world, 1, &zero, &first));
  ROUND_TRIP(Group, world);
  ROUND_TRIP(Group, first);
  MPI_Fint ffirst = MPI_Group_c2f(first);
  int n = -1;
  CHECK_MPI(MPI_Group_size(MPI_Group_f2c(ffirst), &n));
  CHECK(n == 1, "group size through f2c is %d", n);
  CHECK_MPI(MPI_Group_free(&first));
  CHECK(MPI_Group_f2c(ffirst) == MPI_GROUP_NULL, "freed group's value %d still converts",
        (int)ffirst);
  CHECK_MPI(MPI_Group_free(&world));

  NULL_AND_INVALID(Op, MPI_OP_NULL);
  ROUND_TRIP(Op, MPI_SUM);
  ROUND_TRIP(Op, MPI_MAXLOC);
  same_everywhere(MPI_Op_c2f(MPI_SUM), "MPI_SUM");
  CHECK(MPI_Op_c2f(MPI_SUM) != MPI_Op_c2f(MPI_MAX), "MPI_SUM and MPI_MAX share a value");

  NULL_AND_INVALID(Info, MPI_INFO_NULL);
  ROUND_TRIP(Info, MPI_INFO_ENV);
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "key", "value"));
  ROUND_TRIP(Info, info);
  MPI_Fint finfo = MPI_Info_c2f(info);
  int nkeys = -1;
  CHECK_MPI(MPI_Info_get_nkeys(MPI_Info_f2c(finfo), &nkeys));
  CHECK(nkeys == 1, "info through f2c has %d keys", nkeys);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(MPI_Info_f2c(finfo) == MPI_INFO_NULL, "freed info's value %d still converts", (int)finfo);

  NULL_AND_INVALID(Errhandler, MPI_ERRHANDLER_NULL);
  ROUND_TRIP(Errhandler, MPI_ERRORS_ARE_FATAL);
  ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN);
  same_everywhere(MPI_Errhandler_c2f(MPI_ERRORS_RETURN), "MPI_ERRORS_RETURN");
  CHECK(MPI_Errhandler_c2f(MPI_ERRORS_RETURN) != MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL),
        "the two predefined error handlers share a value");
}

static void user_sum(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

static void user_handler(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
}

static void user_objects(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &op));
  ROUND_TRIP(Op, op);
  MPI_Fint fop = MPI_Op_c2f(op);
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_Op_f2c(fop), MPI_COMM_WORLD));
  CHECK(sum == size, "allreduce with the f2c'd operator gave %d", sum);
  CHECK_MPI(MPI_Op_free(&op));
  CHECK(MPI_Op_f2c(fop) == MPI_OP_NULL, "freed operator's value %d still converts", (int)fop);

  MPI_Errhandler h;
  CHECK_MPI(MPI_Comm_create_errhandler(user_handler, &h));
  ROUND_TRIP(Errhandler, h);
  MPI_Fint fh = MPI_Errhandler_c2f(h);
  CHECK_MPI(MPI_Errhandler_free(&h));
  CHECK(MPI_Errhandler_f2c(fh) == MPI_ERRHANDLER_NULL, "freed handler's value %d converts",
        (int)fh);
}

static void requests_messages_statuses(void) {
  NULL_AND_INVALID(Request, MPI_REQUEST_NULL);
  NULL_AND_INVALID(Message, MPI_MESSAGE_NULL);
  ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);

  /* A ring: receive from the left, send to the right, through converted request handles. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in = -1, out = rank * 10 + 3;
  MPI_Request r[2];
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]));
  ROUND_TRIP(Request, r[0]);
  ROUND_TRIP(Request, r[1]);
  MPI_Fint f0 = MPI_Request_c2f(r[0]), f1 = MPI_Request_c2f(r[1]);
  CHECK(f0 != f1, "two live requests share %d", (int)f0);
  MPI_Request back[2] = {MPI_Request_f2c(f0), MPI_Request_f2c(f1)};
  MPI_Status st[2];
  CHECK_MPI(MPI_Waitall(2, back, st));
  CHECK(in == left * 10 + 3, "received %d from %d", in, left);
  CHECK(MPI_Request_f2c(f0) == MPI_REQUEST_NULL, "a completed request's value %d converts",
        (int)f0);

  /* A status through its Fortran form and back. */
  MPI_Fint fst[MPI_F_STATUS_SIZE];
  CHECK_MPI(MPI_Status_c2f(&st[0], fst));
  CHECK(fst[MPI_F_SOURCE] == left && fst[MPI_F_TAG] == 5, "Fortran status source %d tag %d",
        (int)fst[MPI_F_SOURCE], (int)fst[MPI_F_TAG]);
  MPI_Status c;
  memset(&c, 0xff, sizeof c);
  CHECK_MPI(MPI_Status_f2c(fst, &c));
  int count = -1, cancelled = -1;
  CHECK_MPI(MPI_Get_count(&c, MPI_INT, &count));
  CHECK_MPI(MPI_Test_cancelled(&c, &cancelled));
  CHECK(c.MPI_SOURCE == left && c.MPI_TAG == 5 && c.MPI_ERROR == st[0].MPI_ERROR && count == 1 &&
            cancelled == 0,
        "status after the round trip: source %d tag %d error %d count %d cancelled %d",
        c.MPI_SOURCE, c.MPI_TAG, c.MPI_ERROR, count, cancelled);
  /* A large count and the cancelled flag survive too. */
  MPI_Status big;
  memset(&big, 0, sizeof big);
  CHECK_MPI(MPI_Status_set_elements(&big, MPI_BYTE, 0x7ffffff0));
  CHECK_MPI(MPI_Status_set_cancelled(&big, 1));
  CHECK_MPI(MPI_Status_c2f(&big, fst));
  CHECK_MPI(MPI_Status_f2c(fst, &c));
  CHECK_MPI(MPI_Get_count(&c, MPI_BYTE, &count));
  CHECK_MPI(MPI_Test_cancelled(&c, &cancelled));
  CHECK(count == 0x7ffffff0 && cancelled == 1, "count %d cancelled %d", count, cancelled);

  /* A matched message: MPI_Mprobe's handle converts until MPI_Mrecv takes it. */
  int self_out = 42 + rank, self_in = 0;
  MPI_Request s;
  CHECK_MPI(MPI_Isend(&self_out, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &s));
  MPI_Message m;
  CHECK_MPI(MPI_Mprobe(0, 9, MPI_COMM_SELF, &m, MPI_STATUS_IGNORE));
  ROUND_TRIP(Message, m);
  MPI_Fint fm = MPI_Message_c2f(m);
  MPI_Message m2 = MPI_Message_f2c(fm);
  CHECK_MPI(MPI_Mrecv(&self_in, 1, MPI_INT, &m2, MPI_STATUS_IGNORE));
  CHECK(self_in == 42 + rank, "Mrecv through the f2c'd message gave %d", self_in);
  CHECK(MPI_Message_f2c(fm) == MPI_MESSAGE_NULL, "a received message's value %d converts", (int)fm);
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));

  /* Statuses that are not there. */
  CHECK_ERR(MPI_Status_c2f(MPI_STATUS_IGNORE, fst), MPI_ERR_ARG);
  CHECK_ERR(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c), MPI_ERR_ARG);
  CHECK_ERR(MPI_Status_f2c(fst, MPI_STATUS_IGNORE), MPI_ERR_ARG);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  communicators();
  datatypes();
  groups_ops_infos_errhandlers();
  user_objects();
  requests_messages_statuses();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
