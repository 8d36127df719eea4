/* Info objects: set/get/delete in insertion order, overwriting, truncated reads, dup independence,
 * the key and value length limits, MPI_INFO_ENV, and the error classes of bad arguments. */
#include <string.h>

#include "check.h"

static void expect_value(MPI_Info info, const char* key, const char* expected) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = -1, len = -1;
  CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
  if (expected == NULL) {
    CHECK(flag == 0, "key \"%s\" is present", key);
    CHECK_MPI(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag == 0, "valuelen found key \"%s\"", key);
    return;
  }
  CHECK(flag == 1 && strcmp(value, expected) == 0,
        "key \"%s\": flag %d value \"%s\", expected "
        "\"%s\"",
        key, flag, flag ? value : "", expected);
  CHECK_MPI(MPI_Info_get_valuelen(info, key, &len, &flag));
  CHECK(flag == 1 && len == (int)strlen(expected), "valuelen of \"%s\": %d", key, len);
}

static void expect_keys(MPI_Info info, const char* const* keys, int n) {
  int nkeys = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == n, "%d keys, expected %d", nkeys, n);
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY + 1];
    CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
    CHECK(strcmp(key, keys[i]) == 0, "key %d is \"%s\", expected \"%s\"", i, key, keys[i]);
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int size = 0;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  MPI_Info info, copy;
  CHECK_MPI(MPI_Info_create(&info));
  expect_keys(info, NULL, 0);
  CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
  CHECK_MPI(MPI_Info_set(info, "beta", "two"));
  CHECK_MPI(MPI_Info_set(info, "gamma", "three three"));
  const char* const three[] = {"alpha", "beta", "gamma"};
  expect_keys(info, three, 3);
  expect_value(info, "beta", "two");
  expect_value(info, "Beta", NULL);           /* keys are case-sensitive */
  CHECK_MPI(MPI_Info_set(info, "beta", "2")); /* overwriting keeps the key's place */
  expect_keys(info, three, 3);
  expect_value(info, "beta", "2");

  /* a read shorter than the value is truncated and terminated */
  {
    char value[8];
    int flag = 0;
    memset(value, 'x', sizeof value);
    CHECK_MPI(MPI_Info_get(info, "gamma", 5, value, &flag));
    CHECK(flag == 1 && strcmp(value, "three") == 0, "truncated read \"%s\"", value);
    CHECK_MPI(MPI_Info_get(info, "gamma", 0, value, &flag));
    CHECK(flag == 1 && value[0] == '\0', "zero-length read \"%s\"", value);
  }

  /* dup is a separate object */
  CHECK_MPI(MPI_Info_dup(info, &copy));
  CHECK_MPI(MPI_Info_delete(info, "alpha"));
  const char* const two[] = {"beta", "gamma"};
  expect_keys(info, two, 2);
  expect_keys(copy, three, 3);
  expect_value(copy, "alpha", "1");
  expect_value(info, "alpha", NULL);
  CHECK_MPI(MPI_Info_set(copy, "delta", "4"));
  const char* const four[] = {"alpha", "beta", "gamma", "delta"};
  expect_keys(copy, four, 4);
  expect_keys(info, two, 2);

  /* limits: a key of MPI_MAX_INFO_KEY characters and a value of MPI_MAX_INFO_VAL are fine */
  {
    char key[MPI_MAX_INFO_KEY + 2], value[MPI_MAX_INFO_VAL + 2];
    memset(key, 'k', sizeof key);
    memset(value, 'v', sizeof value);
    key[MPI_MAX_INFO_KEY] = '\0';
    value[MPI_MAX_INFO_VAL] = '\0';
    CHECK_MPI(MPI_Info_set(info, key, value));
    expect_value(info, key, value);
    key[MPI_MAX_INFO_KEY] = 'k';
    key[MPI_MAX_INFO_KEY + 1] = '\0';
    CHECK_ERR(MPI_Info_set(info, key, "1"), MPI_ERR_INFO_KEY);
    value[MPI_MAX_INFO_VAL] = 'v';
    value[MPI_MAX_INFO_VAL + 1] = '\0';
    CHECK_ERR(MPI_Info_set(info, "long", value), MPI_ERR_INFO_VALUE);
    CHECK_ERR(MPI_Info_set(info, "", "1"), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_set(info, "empty", ""), MPI_ERR_INFO_VALUE);
    int flag;
    CHECK_ERR(MPI_Info_get(info, key, 10, value, &flag), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_get(info, "beta", -1, value, &flag), MPI_ERR_ARG);
  }

  /* other errors */
  {
    char key[MPI_MAX_INFO_KEY + 1];
    int n = 0;
    CHECK_ERR(MPI_Info_delete(info, "no such key"), MPI_ERR_INFO_NOKEY);
    CHECK_ERR(MPI_Info_get_nthkey(info, 3, key), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    MPI_Info stale = copy;
    CHECK_MPI(MPI_Info_free(&copy));
    CHECK(copy == MPI_INFO_NULL, "free did not set MPI_INFO_NULL");
    CHECK_ERR(MPI_Info_get_nkeys(stale, &n), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_free(&stale), MPI_ERR_INFO);
    MPI_Info env = MPI_INFO_ENV;
    CHECK_ERR(MPI_Info_set(env, "a", "b"), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_free(&env), MPI_ERR_INFO);
  }

  /* MPI_INFO_ENV: readable, copyable; here it names the command and the job's size */
  {
    int nkeys = -1;
    CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    CHECK(nkeys >= 0, "MPI_INFO_ENV has %d keys", nkeys);
    char value[MPI_MAX_INFO_VAL + 1], maxprocs[16];
    int flag = 0;
    CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strstr(value, "info_test") != NULL, "command \"%s\"", flag ? value : "");
    snprintf(maxprocs, sizeof maxprocs, "%d", size);
    expect_value(MPI_INFO_ENV, "maxprocs", maxprocs);
    MPI_Info env_copy;
    CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &env_copy));
    CHECK_MPI(MPI_Info_set(env_copy, "mine", "yes"));
    int copied = -1;
    CHECK_MPI(MPI_Info_get_nkeys(env_copy, &copied));
    CHECK(copied == nkeys + 1, "env copy has %d keys, expected %d", copied, nkeys + 1);
    CHECK_MPI(MPI_Info_free(&env_copy));
  }

  CHECK_MPI(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL, "free did not set MPI_INFO_NULL");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
