/* The checks of the C API tests: one "ok" or "not ok" line per check (rank 0 prints all its lines;
 * other ranks only their failures, prefixed with their rank), TAP style. */
#ifndef RMPL_TEST_TAP_H
#define RMPL_TEST_TAP_H

#include <rmpl.h>

#include <stdio.h>
#include <stdlib.h>

static int rank = 0, size = 1;
static int checks = 0, failures = 0;

static void check(int passed, const char* what) {
  ++checks;
  if (!passed) ++failures;
  if (rank == 0) {
    printf("%s %d - %s\n", passed ? "ok" : "not ok", checks, what);
  } else if (!passed) {
    printf("[rank %d] not ok %d - %s\n", rank, checks, what);
  }
  fflush(stdout);
}

/* A call's result must be `expected`; on a surprise, say what the library said. */
static void check_code(int code, int expected, const char* what) {
  check(code == expected, what);
  if (code != expected) {
    printf("[rank %d] #   returned %d (%s), expected %d (%s); last error: %s\n", rank, code,
           rmpl_error_string(code), expected, rmpl_error_string(expected), rmpl_last_error());
  }
}

/* Initialises rmpl and the rank and size the checks print. */
static void tap_init(int* argc, char*** argv) {
  if (rmpl_init(argc, argv) != RMPL_SUCCESS) {
    fprintf(stderr, "not ok - rmpl_init: %s\n", rmpl_last_error());
    exit(1);
  }
  check_code(rmpl_self_address(&rank), RMPL_SUCCESS, "rmpl_self_address");
  check_code(rmpl_partition_size(&size), RMPL_SUCCESS, "rmpl_partition_size");
  check(size >= 1 && rank >= 0 && rank < size, "rank and size are consistent");
}

/* Finalises rmpl, prints the plan line, and gives main's exit status. */
static int tap_finish(void) {
  check_code(rmpl_finalize(), RMPL_SUCCESS, "rmpl_finalize");
  if (rank == 0) printf("1..%d\n", checks);
  if (failures > 0) printf("[rank %d] %d of %d checks failed\n", rank, failures, checks);
  return failures > 0 ? 1 : 0;
}

#endif
