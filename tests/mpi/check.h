/* What the MPI conformance tests share: checks that name the rank, the line and the values, and end
 * the job with a non-zero status on the first failure. */
#ifndef RMPL_TESTS_MPI_CHECK_H
#define RMPL_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static inline int check_rank(void) {
  int up = 0, rank = -1;
  MPI_Initialized(&up);
  if (up) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/* CHECK(condition, "format", args...): on failure prints the rank, file, line, condition and the
 * formatted explanation, then exits 1 (rmplrun ends the job). */
#define CHECK(cond, ...)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed: ", check_rank(), __FILE__, __LINE__, \
              #cond);                                                                         \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fprintf(stderr, "\n");                                                                  \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

/* CHECK_MPI(call): the call must return MPI_SUCCESS. */
#define CHECK_MPI(call)                                                                         \
  do {                                                                                          \
    int check_code_ = (call);                                                                   \
    if (check_code_ != MPI_SUCCESS) {                                                           \
      char check_text_[MPI_MAX_ERROR_STRING];                                                   \
      int check_len_ = 0;                                                                       \
      MPI_Error_string(check_code_, check_text_, &check_len_);                                  \
      fprintf(stderr, "rank %d: %s:%d: %s returned %d: %s\n", check_rank(), __FILE__, __LINE__, \
              #call, check_code_, check_text_);                                                 \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

/* CHECK_ERR(call, class): the call must fail with this error class (under MPI_ERRORS_RETURN). */
#define CHECK_ERR(call, expected)                                                      \
  do {                                                                                 \
    int check_code_ = (call), check_class_ = -1;                                       \
    MPI_Error_class(check_code_, &check_class_);                                       \
    CHECK(check_class_ == (expected), "%s returned class %d, expected %s (%d)", #call, \
          check_class_, #expected, (expected));                                        \
  } while (0)

#endif
