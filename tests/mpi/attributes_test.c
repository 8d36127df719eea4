/* Attribute caching: callbacks counted on dup, free, delete and overwrite; copy callbacks that
 * decline, copy or fail; keyvals freed while in use; the MPI-1 names; datatype attributes; the
 * predefined attributes' values; bad keyvals. */
#include <stdint.h>
#include <string.h>

#include "check.h"

struct counts {
  int copies, deletes;
  void* last_deleted;
  int fail_copy, fail_delete; /* return MPI_ERR_OTHER instead */
};

/* Copies the value plus one (values are small integers in pointers). */
static int copy_plus_one(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  struct counts* c = extra;
  ++c->copies;
  if (c->fail_copy) return MPI_ERR_OTHER;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  struct counts* c = extra;
  ++c->deletes;
  c->last_deleted = value;
  return c->fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static int type_copy_plus_one(MPI_Datatype old, int keyval, void* extra, void* in, void* out,
                              int* flag) {
  (void)old;
  (void)keyval;
  struct counts* c = extra;
  ++c->copies;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int type_count_delete(MPI_Datatype t, int keyval, void* value, void* extra) {
  (void)t;
  (void)keyval;
  struct counts* c = extra;
  ++c->deletes;
  c->last_deleted = value;
  return MPI_SUCCESS;
}

static intptr_t get(MPI_Comm comm, int keyval, int* flag) {
  void* value = (void*)-1;
  CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &value, flag));
  return (intptr_t)value;
}
static int predefined(int keyval) {
  int* value = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &flag));
  CHECK(flag == 1 && value != NULL, "predefined attribute %x is missing", keyval);
  return *value;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int size = 0, me = 0, flag = -1;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));

  /* predefined attributes */
  CHECK(predefined(MPI_TAG_UB) == (1 << 30) - 1, "MPI_TAG_UB %d", predefined(MPI_TAG_UB));
  CHECK(predefined(MPI_HOST) == MPI_PROC_NULL, "MPI_HOST %d", predefined(MPI_HOST));
  CHECK(predefined(MPI_IO) == MPI_ANY_SOURCE, "MPI_IO %d", predefined(MPI_IO));
  CHECK(predefined(MPI_WTIME_IS_GLOBAL) == 1, "MPI_WTIME_IS_GLOBAL %d",
        predefined(MPI_WTIME_IS_GLOBAL));
  CHECK(predefined(MPI_UNIVERSE_SIZE) == size, "MPI_UNIVERSE_SIZE %d",
        predefined(MPI_UNIVERSE_SIZE));
  CHECK(predefined(MPI_APPNUM) == 0, "MPI_APPNUM %d", predefined(MPI_APPNUM));
  /* MPI-3.1 8.5: MPI_ERR_LASTCODE is a valid (last) error class, and MPI_LASTUSEDCODE, the largest
   * code in use, is never below it; codes added later are above it and raise it. */
  const int first_used = predefined(MPI_LASTUSEDCODE);
  CHECK(first_used >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d, below MPI_ERR_LASTCODE %d",
        first_used, MPI_ERR_LASTCODE);
  {
    int cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Error_class(MPI_ERR_LASTCODE, &cls));
    CHECK(cls == MPI_ERR_LASTCODE, "MPI_Error_class(MPI_ERR_LASTCODE) is %d", cls);
    CHECK_MPI(MPI_Error_string(MPI_ERR_LASTCODE, text, &len));
    CHECK(len > 0, "MPI_Error_string(MPI_ERR_LASTCODE) is empty");
  }
  int added_class = 0;
  CHECK_MPI(MPI_Add_error_class(&added_class));
  CHECK(added_class > first_used && added_class > MPI_ERR_LASTCODE,
        "MPI_Add_error_class gave %d: not above MPI_LASTUSEDCODE %d and MPI_ERR_LASTCODE %d",
        added_class, first_used, MPI_ERR_LASTCODE);
  CHECK(predefined(MPI_LASTUSEDCODE) == added_class, "MPI_LASTUSEDCODE %d after adding class %d",
        predefined(MPI_LASTUSEDCODE), added_class);
  int added_code = 0;
  CHECK_MPI(MPI_Add_error_code(added_class, &added_code));
  CHECK(added_code > added_class, "MPI_Add_error_code gave %d after class %d", added_code,
        added_class);
  CHECK(predefined(MPI_LASTUSEDCODE) == added_code, "MPI_LASTUSEDCODE %d after adding code %d",
        predefined(MPI_LASTUSEDCODE), added_code);
  {
    int* tag_ub = NULL;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag)); /* MPI-1 name */
    CHECK(flag && *tag_ub == (1 << 30) - 1, "MPI_Attr_get(MPI_TAG_UB)");
    /* answered on other communicators too */
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub == (1 << 30) - 1, "MPI_TAG_UB on MPI_COMM_SELF");
  }

  /* copy on dup, delete on free */
  struct counts plus = {0, 0, NULL, 0, 0}, declined = {0, 0, NULL, 0, 0}, same = {0, 0, NULL, 0, 0};
  int plus_key = MPI_KEYVAL_INVALID, declined_key, same_key;
  CHECK_MPI(MPI_Comm_create_keyval(copy_plus_one, count_delete, &plus_key, &plus));
  CHECK(plus_key != MPI_KEYVAL_INVALID, "no keyval");
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &declined_key, &declined));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &same_key, &same));
  CHECK(plus_key != declined_key && declined_key != same_key, "keyvals collide");

  MPI_Comm a, b, c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK(get(a, plus_key, &flag) == -1 && flag == 0, "a fresh communicator has the attribute");
  CHECK_MPI(MPI_Comm_set_attr(a, plus_key, (void*)10));
  CHECK_MPI(MPI_Comm_set_attr(a, declined_key, (void*)20));
  CHECK_MPI(MPI_Comm_set_attr(a, same_key, (void*)30));
  CHECK(get(a, plus_key, &flag) == 10 && flag, "read back");
  CHECK(get(a, same_key, &flag) == 30 && flag, "read back");
  /* the same key on another communicator is another attribute */
  CHECK(get(MPI_COMM_WORLD, plus_key, &flag) == -1 && flag == 0, "world has a's attribute");

  CHECK_MPI(MPI_Comm_dup(a, &b));
  CHECK(plus.copies == 1 && declined.copies == 0 && same.copies == 0, "copy counts %d",
        plus.copies);
  CHECK(get(b, plus_key, &flag) == 11 && flag, "copied value %ld", (long)get(b, plus_key, &flag));
  get(b, declined_key, &flag);
  CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN copied");
  CHECK(get(b, same_key, &flag) == 30 && flag, "MPI_COMM_DUP_FN value");
  CHECK(get(a, plus_key, &flag) == 10 && flag, "the original changed");
  CHECK(plus.deletes == 0 && declined.deletes == 0 && same.deletes == 0, "deleted during a dup");

  /* overwrite deletes the old value; delete_attr deletes; deleting what is not there is quiet */
  CHECK_MPI(MPI_Comm_set_attr(b, plus_key, (void*)50));
  CHECK(plus.deletes == 1 && plus.last_deleted == (void*)11, "overwrite: %d deletes", plus.deletes);
  CHECK_MPI(MPI_Comm_delete_attr(b, plus_key));
  CHECK(plus.deletes == 2 && plus.last_deleted == (void*)50, "delete_attr: %d", plus.deletes);
  get(b, plus_key, &flag);
  CHECK(flag == 0, "deleted attribute still there");
  CHECK_MPI(MPI_Comm_delete_attr(b, plus_key));
  CHECK(plus.deletes == 2, "deleting an absent attribute ran the callback");

  /* free runs each delete once */
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK(same.deletes == 1 && same.last_deleted == (void*)30, "free of b: %d", same.deletes);
  CHECK(plus.deletes == 2 && declined.deletes == 0, "free of b ran other callbacks");

  /* a keyval freed while in use: its attributes stay readable under its number and its
   * callbacks still run, but nothing new is attached under it (freed_keyval_attributes_test) */
  int freed_key = plus_key;
  CHECK_MPI(MPI_Comm_free_keyval(&plus_key));
  CHECK(plus_key == MPI_KEYVAL_INVALID, "free_keyval left %d", plus_key);
  CHECK(get(a, freed_key, &flag) == 10 && flag, "a freed keyval's attribute is gone");
  CHECK_ERR(MPI_Comm_set_attr(a, freed_key, NULL), MPI_ERR_KEYVAL);
  CHECK_MPI(MPI_Comm_dup(a, &c));
  CHECK(plus.copies == 2, "the freed keyval's copy callback did not run on dup");
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK(plus.deletes == 3 && plus.last_deleted == (void*)11, "freed keyval, free of c: %d",
        plus.deletes);
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK(plus.deletes == 4 && plus.last_deleted == (void*)10, "free of a: %d", plus.deletes);
  /* same_key's value went to b and c (MPI_COMM_DUP_FN), declined_key's to neither */
  CHECK(declined.deletes == 1 && same.deletes == 3, "free of a: %d %d", declined.deletes,
        same.deletes);

  /* a failing copy callback fails the dup; what was already copied is deleted again */
  {
    struct counts failing = {0, 0, NULL, 1, 0};
    int failing_key;
    CHECK_MPI(MPI_Comm_create_keyval(copy_plus_one, count_delete, &failing_key, &failing));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_set_attr(a, same_key, (void*)7));
    CHECK_MPI(MPI_Comm_set_attr(a, failing_key, (void*)8));
    const int same_deletes = same.deletes;
    CHECK_ERR(MPI_Comm_dup(a, &b), MPI_ERR_OTHER);
    CHECK(failing.copies == 1, "failing copy ran %d times", failing.copies);
    CHECK(same.deletes == same_deletes + 1 && same.last_deleted == (void*)7,
          "the copy made before the failure was not deleted");
    /* a failing delete callback fails the delete and keeps the attribute */
    failing.fail_delete = 1;
    CHECK_ERR(MPI_Comm_delete_attr(a, failing_key), MPI_ERR_OTHER);
    CHECK(get(a, failing_key, &flag) == 8 && flag, "attribute gone after a failed delete");
    CHECK_ERR(MPI_Comm_free(&a), MPI_ERR_OTHER);
    CHECK(a != MPI_COMM_NULL, "a failed free released the communicator");
    failing.fail_delete = 0;
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK(failing.deletes == 3, "failing.deletes %d", failing.deletes);
    CHECK_MPI(MPI_Comm_free_keyval(&failing_key));
  }

  /* the MPI-1 names */
  {
    struct counts old = {0, 0, NULL, 0, 0};
    int key;
    CHECK_MPI(MPI_Keyval_create(copy_plus_one, count_delete, &key, &old));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Attr_put(a, key, (void*)100));
    void* value = NULL;
    CHECK_MPI(MPI_Attr_get(a, key, &value, &flag));
    CHECK(flag && value == (void*)100, "MPI_Attr_get");
    CHECK_MPI(MPI_Comm_dup(a, &b));
    CHECK_MPI(MPI_Attr_get(b, key, &value, &flag));
    CHECK(old.copies == 1 && flag && value == (void*)101, "MPI-1 copy");
    CHECK_MPI(MPI_Attr_delete(a, key));
    CHECK(old.deletes == 1 && old.last_deleted == (void*)100, "MPI_Attr_delete");
    CHECK_MPI(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "MPI_Keyval_free");
    CHECK_MPI(MPI_Comm_free(&b));
    CHECK(old.deletes == 2 && old.last_deleted == (void*)101, "MPI-1 delete on free");
    CHECK_MPI(MPI_Comm_free(&a));
  }

  /* datatype attributes */
  {
    struct counts typed = {0, 0, NULL, 0, 0};
    int key;
    MPI_Datatype pair, copy;
    CHECK_MPI(MPI_Type_create_keyval(type_copy_plus_one, type_count_delete, &key, &typed));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_set_attr(pair, key, (void*)5));
    void* value = NULL;
    CHECK_MPI(MPI_Type_get_attr(pair, key, &value, &flag));
    CHECK(flag && value == (void*)5, "MPI_Type_get_attr");
    CHECK_MPI(MPI_Type_dup(pair, &copy));
    CHECK_MPI(MPI_Type_get_attr(copy, key, &value, &flag));
    CHECK(typed.copies == 1 && flag && value == (void*)6, "Type_dup copy: %d", typed.copies);
    CHECK_MPI(MPI_Type_free(&copy));
    CHECK(typed.deletes == 1 && typed.last_deleted == (void*)6, "Type_free: %d", typed.deletes);
    CHECK_MPI(MPI_Type_delete_attr(pair, key));
    CHECK(typed.deletes == 2 && typed.last_deleted == (void*)5, "Type_delete_attr");
    /* predefined datatypes carry attributes too */
    CHECK_MPI(MPI_Type_set_attr(MPI_INT, key, (void*)9));
    CHECK_MPI(MPI_Type_get_attr(MPI_INT, key, &value, &flag));
    CHECK(flag && value == (void*)9, "attribute on MPI_INT");
    CHECK_MPI(MPI_Type_delete_attr(MPI_INT, key));
    CHECK(typed.deletes == 3, "delete on MPI_INT");
    /* keyvals of one kind are not keyvals of the other */
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_set_attr(pair, same_key, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_get_attr(pair, MPI_TAG_UB, &value, &flag), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Type_free_keyval(&key));
    CHECK_ERR(MPI_Type_free_keyval(&key), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Type_free(&pair));
  }

  /* bad keyvals and handles */
  {
    void* value;
    int bogus = 987654;
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, bogus, &value, &flag), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, bogus, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_delete_attr(MPI_COMM_WORLD, bogus), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_free_keyval(&bogus), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    int predefined_key = MPI_TAG_UB;
    CHECK_ERR(MPI_Comm_free_keyval(&predefined_key), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_NULL, same_key, &value, &flag), MPI_ERR_COMM);
  }

  /* attributes on MPI_COMM_WORLD stay until removed */
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, same_key, (void*)77));
  CHECK(get(MPI_COMM_WORLD, same_key, &flag) == 77 && flag, "world attribute");
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, same_key));
  CHECK_MPI(MPI_Comm_free_keyval(&declined_key));
  CHECK_MPI(MPI_Comm_free_keyval(&same_key));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
