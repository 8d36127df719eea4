/* A keyval freed while attributes still use it (MPI-3.1 6.7.2): the attributes stay, and under the
 * keyval's number the program may still read and delete them; copy callbacks run when their
 * object is duplicated and delete callbacks when it is freed. The keyval goes with the last of
 * them: its number then names nothing. Communicator and datatype keyvals alike. */
#include <stdint.h>

#include "check.h"

struct counts {
  int copies, deletes;
  intptr_t last_deleted;
};

static int comm_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  ++((struct counts*)extra)->copies;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int comm_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  struct counts* c = extra;
  ++c->deletes;
  c->last_deleted = (intptr_t)value;
  return MPI_SUCCESS;
}
static int type_copy(MPI_Datatype old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  ++((struct counts*)extra)->copies;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype t, int keyval, void* value, void* extra) {
  (void)t;
  (void)keyval;
  struct counts* c = extra;
  ++c->deletes;
  c->last_deleted = (intptr_t)value;
  return MPI_SUCCESS;
}

static void comms(void) {
  struct counts n = {0, 0, 0};
  int key = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Comm_create_keyval(comm_copy, comm_delete, &key, &n));
  const int number = key;
  MPI_Comm a, b;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_set_attr(a, key, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval left %d", key);

  /* still readable under its number */
  void* value = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(a, number, &value, &flag));
  CHECK(flag && (intptr_t)value == 10, "freed keyval %d: flag %d value %ld", number, flag,
        (long)(intptr_t)value);
  /* copied on dup */
  CHECK_MPI(MPI_Comm_dup(a, &b));
  CHECK(n.copies == 1, "freed keyval %d: %d copy callbacks on dup", number, n.copies);
  CHECK_MPI(MPI_Comm_get_attr(b, number, &value, &flag));
  CHECK(flag && (intptr_t)value == 11, "dup of a freed keyval's attribute: flag %d value %ld", flag,
        (long)(intptr_t)value);
  /* deleted by name, then by freeing the communicator */
  CHECK_MPI(MPI_Comm_delete_attr(a, number));
  CHECK(n.deletes == 1 && n.last_deleted == 10, "delete_attr: %d deletes, last %ld", n.deletes,
        (long)n.last_deleted);
  CHECK_MPI(MPI_Comm_get_attr(b, number, &value, &flag));
  CHECK(flag, "deleting a's attribute removed b's");
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK(n.deletes == 2 && n.last_deleted == 11, "free: %d deletes, last %ld", n.deletes,
        (long)n.last_deleted);
  /* the last attribute went: so did the keyval */
  CHECK_ERR(MPI_Comm_get_attr(a, number, &value, &flag), MPI_ERR_KEYVAL);
  CHECK_ERR(MPI_Comm_delete_attr(a, number), MPI_ERR_KEYVAL);
  CHECK_MPI(MPI_Comm_free(&a));
}

static void types(void) {
  struct counts n = {0, 0, 0};
  int key = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Type_create_keyval(type_copy, type_delete, &key, &n));
  const int number = key;
  MPI_Datatype a, b;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &a));
  CHECK_MPI(MPI_Type_set_attr(a, key, (void*)(intptr_t)20));
  CHECK_MPI(MPI_Type_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval left %d", key);
  void* value = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Type_get_attr(a, number, &value, &flag));
  CHECK(flag && (intptr_t)value == 20, "freed type keyval %d: flag %d value %ld", number, flag,
        (long)(intptr_t)value);
  CHECK_MPI(MPI_Type_dup(a, &b));
  CHECK(n.copies == 1, "freed type keyval: %d copy callbacks on dup", n.copies);
  CHECK_MPI(MPI_Type_get_attr(b, number, &value, &flag));
  CHECK(flag && (intptr_t)value == 21, "dup: flag %d value %ld", flag, (long)(intptr_t)value);
  CHECK_MPI(MPI_Type_delete_attr(b, number));
  CHECK(n.deletes == 1 && n.last_deleted == 21, "type delete_attr: %d, last %ld", n.deletes,
        (long)n.last_deleted);
  CHECK_MPI(MPI_Type_free(&a));
  CHECK(n.deletes == 2 && n.last_deleted == 20, "type free: %d, last %ld", n.deletes,
        (long)n.last_deleted);
  CHECK_ERR(MPI_Type_get_attr(b, number, &value, &flag), MPI_ERR_KEYVAL);
  CHECK_MPI(MPI_Type_free(&b));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  comms();
  types();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
