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
  RMPL_ERR_INTERNAL = 12,
  RMPL_ERR_EXHAUSTED = 13 /* a bounded resource (communicator contexts) ran out */
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

/* A nonblocking operation; 0 is the empty handle (waiting on it or testing it succeeds at once).
 * Completing it (test or wait) resets it to 0; a copy of a completed handle is stale and
 * RMPL_ERR_REQUEST (each handle carries a generation, so it never names a later operation). */
typedef uint64_t rmpl_handle;

int rmpl_init(int* argc, char*** argv);
/* rmpl_init, after which any thread may call any function at any time (MPI_THREAD_MULTIPLE): one
 * library lock, which waits in several threads let go between progress passes, so they progress
 * each other's operations. rmpl_init's calls are for one thread at a time. */
int rmpl_init_threads(int* argc, char*** argv);
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

/* ---- Global operations (on every rank of the job, called by all in the same order) ----
 * Sizes are in bytes, except for reductions, which count elements of the operation's type. The
 * i-forms start the operation and return a handle to test or wait like any other. */

/* Element types of the built-in reduction operators. RMPL_FLOAT_INT and friends are
 * {value; int index} pairs for RMPL_MINLOC / RMPL_MAXLOC. */
/* The enumerators in rows (clang-format would put one a line). */
/* clang-format off */
typedef enum rmpl_type {
  RMPL_TYPE_NONE = 0,
  RMPL_INT8, RMPL_INT16, RMPL_INT32, RMPL_INT64,
  RMPL_UINT8, RMPL_UINT16, RMPL_UINT32, RMPL_UINT64,
  RMPL_FLOAT, RMPL_DOUBLE, RMPL_LONG_DOUBLE, RMPL_BOOL,
  RMPL_SHORT_INT, RMPL_INT_INT, RMPL_LONG_INT, RMPL_FLOAT_INT, RMPL_DOUBLE_INT,
  RMPL_LONG_DOUBLE_INT
} rmpl_type;

/* Reduction operators: the built-ins, or one made by rmpl_op_create. */
typedef int rmpl_op;
enum {
  RMPL_SUM = 1, RMPL_PROD, RMPL_MIN, RMPL_MAX, RMPL_LAND, RMPL_LOR, RMPL_LXOR, RMPL_BAND,
  RMPL_BOR, RMPL_BXOR, RMPL_MINLOC, RMPL_MAXLOC
};
/* clang-format on */

/* A user reduction (as ACLMPL allowed): inout[i] = in[i] op inout[i] for i < count, where `in`
 * holds the operand of the lower ranks. It must be associative; a non-commutative one is applied
 * in rank order. `context` is passed back unchanged. */
typedef void (*rmpl_user_function)(const void* in, void* inout, size_t count, void* context);
/* Makes an operator of `fn` over elements of `element_size` bytes. With a user operator, the
 * reductions' `type` argument is ignored (pass RMPL_TYPE_NONE). */
int rmpl_op_create(rmpl_user_function fn, size_t element_size, int commutative, void* context,
                   rmpl_op* op);
int rmpl_op_free(rmpl_op* op);

int rmpl_barrier(void);
int rmpl_broadcast(void* buf, size_t bytes, int root);
/* out (on root) = in_0 op in_1 op ... ; in == out reduces in place. */
int rmpl_reduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op, int root);
int rmpl_allreduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op);
int rmpl_scan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op);
int rmpl_exscan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op);
/* in holds size * count elements; rank r receives block r of the reduction (count elements). */
int rmpl_reduce_scatter_block(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op);
/* Rank r receives counts[r] elements of the reduction of in (sum of counts elements). */
int rmpl_reduce_scatter(const void* in, void* out, const size_t* counts, rmpl_type type,
                        rmpl_op op);
int rmpl_gather(const void* in, size_t bytes, void* out, int root);
int rmpl_gatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                 const size_t* displs, int root);
int rmpl_scatter(const void* in, void* out, size_t bytes, int root);
int rmpl_scatterv(const void* in, const size_t* counts, const size_t* displs, void* out,
                  size_t bytes, int root);
int rmpl_allgather(const void* in, size_t bytes, void* out);
int rmpl_allgatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                    const size_t* displs);
/* Block j (block_bytes) of rank i's in goes to block i of rank j's out. */
int rmpl_alltoall(const void* in, void* out, size_t block_bytes);
int rmpl_alltoallv(const void* in, const size_t* send_counts, const size_t* send_displs, void* out,
                   const size_t* recv_counts, const size_t* recv_displs);
/* displs may be NULL: blocks packed in rank order. */

int rmpl_ibarrier(rmpl_handle* handle);
int rmpl_ibroadcast(void* buf, size_t bytes, int root, rmpl_handle* handle);
int rmpl_ireduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op, int root,
                 rmpl_handle* handle);
int rmpl_iallreduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
                    rmpl_handle* handle);
int rmpl_iscan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
               rmpl_handle* handle);
int rmpl_iexscan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
                 rmpl_handle* handle);
int rmpl_ireduce_scatter_block(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
                               rmpl_handle* handle);
int rmpl_ireduce_scatter(const void* in, void* out, const size_t* counts, rmpl_type type,
                         rmpl_op op, rmpl_handle* handle);
int rmpl_igather(const void* in, size_t bytes, void* out, int root, rmpl_handle* handle);
int rmpl_igatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                  const size_t* displs, int root, rmpl_handle* handle);
int rmpl_iscatter(const void* in, void* out, size_t bytes, int root, rmpl_handle* handle);
int rmpl_iscatterv(const void* in, const size_t* counts, const size_t* displs, void* out,
                   size_t bytes, int root, rmpl_handle* handle);
int rmpl_iallgather(const void* in, size_t bytes, void* out, rmpl_handle* handle);
int rmpl_iallgatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                     const size_t* displs, rmpl_handle* handle);
int rmpl_ialltoall(const void* in, void* out, size_t block_bytes, rmpl_handle* handle);
int rmpl_ialltoallv(const void* in, const size_t* send_counts, const size_t* send_displs, void* out,
                    const size_t* recv_counts, const size_t* recv_displs, rmpl_handle* handle);

/* ---- Errors ----
 * Every call checks its arguments (ranks and roots against the job's size, tags against
 * [0, RMPL_TAG_UB], NULL buffers with a non-zero size, NULL output arguments, byte counts above
 * PTRDIFF_MAX, which is what a negative count passed as size_t becomes, and handles that are not
 * live: already completed, forged or stale copies) and returns a code; rmpl_last_error() says
 * what was wrong. rmpl_set_errors(RMPL_ERRORS_ARE_FATAL) makes any failure print that message,
 * naming the rank, and end the job (rmplrun reports the rank), as MPI's MPI_ERRORS_ARE_FATAL;
 * RMPL_ERRORS_RETURN (the default) returns codes. The setting is the world communicator's, so it
 * also applies to C++ calls that follow the world's policy (rmpl::on_error in rmpl/types.hpp). */
enum { RMPL_ERRORS_RETURN = 0, RMPL_ERRORS_ARE_FATAL = 1 };
int rmpl_set_errors(int mode);
int rmpl_get_errors(int* mode);

/* Text for a code; never NULL. */
const char* rmpl_error_string(int code);
/* The message of the last failed call on this process (names ranks, tag and sizes). */
const char* rmpl_last_error(void);

double rmpl_wtime(void);

#ifdef __cplusplus
}
#endif
#endif /* RMPL_H */
