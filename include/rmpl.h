/* rmpl's C API, in the style of the seeds' ACLMPL (itself after CMMD): synchronous send and
 * receive, send_and_receive, asynchronous send, asynchronous receive (returns at once when nothing
 * matches), blocking asynchronous receive and completion tests. Every call returns a status code;
 * rmpl_error_string turns a code into text. Codes equal the C++ API's rmpl::errc values. */
#ifndef RMPL_H
#define RMPL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  RMPL_SUCCESS = 0,
  RMPL_ERR_ARGUMENT = 1,
  RMPL_ERR_RANK = 2,
  RMPL_ERR_TAG = 3,
  RMPL_ERR_TRUNCATE = 4,
  RMPL_ERR_REQUEST = 5,
  RMPL_ERR_PENDING = 6,
  RMPL_NO_MESSAGE = 7, /* rmpl_receive_async found nothing to receive: not a failure */
  RMPL_ERR_BUFFER = 8,
  RMPL_ERR_DEAD_RANK = 9,
  RMPL_ERR_NOT_INITIALIZED = 10,
  RMPL_ERR_SYSTEM = 11,
  RMPL_ERR_INTERNAL = 12
};

#define RMPL_ANY_SOURCE (-1)
#define RMPL_ANY_TAG (-1)
#define RMPL_TAG_UB ((1 << 30) - 1)

typedef struct rmpl_status {
  int source;
  int tag;
  size_t bytes;
  int error;
} rmpl_status;

/* A nonblocking operation; 0 is the empty handle. Completing it (test or wait) resets it to 0. */
typedef uint64_t rmpl_handle;

int rmpl_init(int* argc, char*** argv);
int rmpl_finalize(void);
int rmpl_self_address(int* rank);
int rmpl_partition_size(int* size);

/* Synchronous (zero-copy, receiver-initiated for large messages): returns once the receiver has it.
 */
int rmpl_send(const void* buf, size_t bytes, int dest, int tag);
int rmpl_receive(void* buf, size_t capacity, int source, int tag, rmpl_status* status);
int rmpl_send_and_receive(const void* sbuf, size_t sbytes, int dest, int stag, void* rbuf,
                          size_t capacity, int source, int rtag, rmpl_status* status);

/* Asynchronous: the send returns at once with a handle (the buffer stays borrowed until done). */
int rmpl_send_async(const void* buf, size_t bytes, int dest, int tag, rmpl_handle* handle);
/* Receives a message that has already arrived, or returns RMPL_NO_MESSAGE at once. */
int rmpl_receive_async(void* buf, size_t capacity, int source, int tag, rmpl_status* status);
/* Blocks until a matching message arrives and receives it. */
int rmpl_receive_async_block(void* buf, size_t capacity, int source, int tag, rmpl_status* status);
/* Posts a receive that completes later (test or wait its handle). */
int rmpl_receive_post(void* buf, size_t capacity, int source, int tag, rmpl_handle* handle);

/* *done = 1 (and the handle reset to 0) once the operation has completed. */
int rmpl_test(rmpl_handle* handle, int* done, rmpl_status* status);
int rmpl_wait(rmpl_handle* handle, rmpl_status* status);
int rmpl_wait_all(rmpl_handle* handles, size_t count);

/* Text for a code; never NULL. */
const char* rmpl_error_string(int code);
/* The message of the last failed call on this process (names ranks, tag and sizes). */
const char* rmpl_last_error(void);

double rmpl_wtime(void);

#ifdef __cplusplus
}
#endif
#endif /* RMPL_H */
