/* Every error class of MPI 4.1 exists, is its own class and has a text that names it; classes and
 * codes added by the program can be removed again (MPI-4.1 MPI_Remove_error_class / _code /
 * _string), a class only once its codes are gone, and MPI_LASTUSEDCODE follows. */
#include <string.h>

#include "check.h"

#define CLASS(name) \
  { name, #name }
static const struct {
  int code;
  const char* name;
} classes[] = {
    CLASS(MPI_SUCCESS),
    CLASS(MPI_ERR_BUFFER),
    CLASS(MPI_ERR_COUNT),
    CLASS(MPI_ERR_TYPE),
    CLASS(MPI_ERR_TAG),
    CLASS(MPI_ERR_COMM),
    CLASS(MPI_ERR_RANK),
    CLASS(MPI_ERR_REQUEST),
    CLASS(MPI_ERR_ROOT),
    CLASS(MPI_ERR_GROUP),
    CLASS(MPI_ERR_OP),
    CLASS(MPI_ERR_TOPOLOGY),
    CLASS(MPI_ERR_DIMS),
    CLASS(MPI_ERR_ARG),
    CLASS(MPI_ERR_UNKNOWN),
    CLASS(MPI_ERR_TRUNCATE),
    CLASS(MPI_ERR_OTHER),
    CLASS(MPI_ERR_INTERN),
    CLASS(MPI_ERR_IN_STATUS),
    CLASS(MPI_ERR_PENDING),
    CLASS(MPI_ERR_KEYVAL),
    CLASS(MPI_ERR_NO_MEM),
    CLASS(MPI_ERR_INFO),
    CLASS(MPI_ERR_INFO_KEY),
    CLASS(MPI_ERR_INFO_VALUE),
    CLASS(MPI_ERR_INFO_NOKEY),
    CLASS(MPI_ERR_CONVERSION),
    CLASS(MPI_ERR_ACCESS),
    CLASS(MPI_ERR_AMODE),
    CLASS(MPI_ERR_ASSERT),
    CLASS(MPI_ERR_BAD_FILE),
    CLASS(MPI_ERR_BASE),
    CLASS(MPI_ERR_DISP),
    CLASS(MPI_ERR_DUP_DATAREP),
    CLASS(MPI_ERR_FILE_EXISTS),
    CLASS(MPI_ERR_FILE_IN_USE),
    CLASS(MPI_ERR_FILE),
    CLASS(MPI_ERR_IO),
    CLASS(MPI_ERR_LOCKTYPE),
    CLASS(MPI_ERR_NAME),
    CLASS(MPI_ERR_NOT_SAME),
    CLASS(MPI_ERR_NO_SPACE),
    CLASS(MPI_ERR_NO_SUCH_FILE),
    CLASS(MPI_ERR_PORT),
    CLASS(MPI_ERR_PROC_ABORTED),
    CLASS(MPI_ERR_QUOTA),
    CLASS(MPI_ERR_READ_ONLY),
    CLASS(MPI_ERR_RMA_ATTACH),
    CLASS(MPI_ERR_RMA_CONFLICT),
    CLASS(MPI_ERR_RMA_RANGE),
    CLASS(MPI_ERR_RMA_SHARED),
    CLASS(MPI_ERR_RMA_SYNC),
    CLASS(MPI_ERR_RMA_FLAVOR),
    CLASS(MPI_ERR_SERVICE),
    CLASS(MPI_ERR_SESSION),
    CLASS(MPI_ERR_SIZE),
    CLASS(MPI_ERR_SPAWN),
    CLASS(MPI_ERR_UNSUPPORTED_DATAREP),
    CLASS(MPI_ERR_UNSUPPORTED_OPERATION),
    CLASS(MPI_ERR_VALUE_TOO_LARGE),
    CLASS(MPI_ERR_WIN),
    CLASS(MPI_ERR_ERRHANDLER),
    CLASS(MPI_ERR_LASTCODE),
};

static int last_used(void) {
  int* value = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag));
  CHECK(flag, "MPI_LASTUSEDCODE is not set");
  return *value;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
    int cls = -1;
    CHECK_MPI(MPI_Error_class(classes[i].code, &cls));
    CHECK(cls == classes[i].code, "%s: class %d", classes[i].name, cls);
    CHECK_MPI(MPI_Error_string(classes[i].code, text, &len));
    CHECK(len > 0 && strstr(text, classes[i].name) != NULL, "%s: text \"%s\"", classes[i].name,
          text);
    for (size_t j = 0; j < i; ++j)
      CHECK(classes[j].code != classes[i].code, "%s and %s are both %d", classes[j].name,
            classes[i].name, classes[i].code);
  }

  const int before = last_used();
  int cls, code1, code2;
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK_MPI(MPI_Add_error_code(cls, &code1));
  CHECK_MPI(MPI_Add_error_code(cls, &code2));
  CHECK_MPI(MPI_Add_error_string(code1, "the first added code"));
  CHECK(last_used() == code2, "MPI_LASTUSEDCODE %d after adding %d", last_used(), code2);
  CHECK_MPI(MPI_Error_string(code1, text, &len));
  CHECK(strcmp(text, "the first added code") == 0, "added string \"%s\"", text);
  CHECK_MPI(MPI_Remove_error_string(code1));
  CHECK_MPI(MPI_Error_string(code1, text, &len));
  CHECK(strcmp(text, "the first added code") != 0, "the removed string is still there");

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  int got = MPI_SUCCESS;
  MPI_Error_class(MPI_Remove_error_class(cls), &got);
  CHECK(got != MPI_SUCCESS, "a class with codes was removed");
  MPI_Error_class(MPI_Remove_error_code(cls), &got);
  CHECK(got == MPI_ERR_ARG, "removing a class as a code gave %d", got);
  MPI_Error_class(MPI_Remove_error_code(MPI_ERR_ARG), &got);
  CHECK(got == MPI_ERR_ARG, "removing a predefined class as a code gave %d", got);
  CHECK_MPI(MPI_Remove_error_code(code2));
  CHECK(last_used() == code1, "MPI_LASTUSEDCODE %d after removing %d", last_used(), code2);
  CHECK_MPI(MPI_Remove_error_code(code1));
  CHECK_MPI(MPI_Remove_error_class(cls));
  CHECK(last_used() == before, "MPI_LASTUSEDCODE %d after removing all, %d before", last_used(),
        before);
  MPI_Error_class(MPI_Remove_error_class(cls), &got);
  CHECK(got == MPI_ERR_ARG, "removing a removed class gave %d", got);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
