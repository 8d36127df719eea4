/* MPI_Info_get_string (MPI-4.0): the length the whole value needs, truncation to the buffer, a
 * zero-length buffer that only asks the length, an absent key; MPI_Info_create_env: what
 * MPI_INFO_ENV holds, from the arguments given, before and after MPI_Init. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  /* Before MPI_Init (MPI-4.0 allows it): command and argv from the arguments given. */
  char* fake[] = {"/bin/solver", "-n", "3", NULL};
  MPI_Info before;
  CHECK_MPI(MPI_Info_create_env(3, fake, &before));
  char value[64];
  int len = (int)sizeof value, flag = 0;
  CHECK_MPI(MPI_Info_get_string(before, "command", &len, value, &flag));
  CHECK(flag && strcmp(value, "/bin/solver") == 0 && len == 12, "command \"%s\" (%d)", value, len);
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(before, "argv", &len, value, &flag));
  CHECK(flag && strcmp(value, "-n 3") == 0, "argv \"%s\"", value);
  CHECK_MPI(MPI_Info_free(&before));

  CHECK_MPI(MPI_Init(&argc, &argv));
  int size;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Info env;
  CHECK_MPI(MPI_Info_create_env(argc, argv, &env));
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(env, "maxprocs", &len, value, &flag));
  CHECK(flag && atoi(value) == size, "maxprocs \"%s\", %d ranks", value, size);
  CHECK_MPI(MPI_Info_free(&env));

  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "hint", "abcdefgh"));
  len = 0; /* ask the length only: the value buffer may be null */
  CHECK_MPI(MPI_Info_get_string(info, "hint", &len, NULL, &flag));
  CHECK(flag && len == 9, "length asked: flag %d len %d", flag, len);
  len = 4; /* room for 3 characters and the null */
  memset(value, 'x', sizeof value);
  CHECK_MPI(MPI_Info_get_string(info, "hint", &len, value, &flag));
  CHECK(flag && strcmp(value, "abc") == 0 && len == 9, "truncated \"%s\" len %d", value, len);
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(info, "nothing", &len, value, &flag));
  CHECK(!flag && len == (int)sizeof value, "absent key: flag %d len %d", flag, len);

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  len = -1;
  MPI_Error_class(MPI_Info_get_string(info, "hint", &len, value, &flag), &cls);
  CHECK(cls == MPI_ERR_ARG, "a negative buflen gave class %d", cls);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
