/* Non-contiguous datatypes on the wire (MPI-3.1 4.1): vector, indexed, struct, subarray and resized
 * types sent and received at inline, eager (< 16 KiB), rendezvous and assisted (> 512 KiB) sizes,
 * to the next rank and to itself, typed on both sides or contiguous on one, any source, truncation,
 * a short message's count and elements, nonblocking operations whose types are freed before they
 * complete, sendrecv and sendrecv_replace. The layer hands such data to the kernel as segments
 * (single copy) or packs it (RMPL_SINGLE_COPY=0, short blocks): the same checks hold on both.
 *
 * What must arrive is computed independently of the transfer: MPI_Pack of the sender's data and
 * MPI_Unpack into a copy of the receive buffer's initial contents (gaps keep their fill bytes). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Fills `bytes` bytes with a pattern that depends on `seed` (so data from the wrong rank or the
 * wrong case shows). */
static void fill(void* buf, size_t bytes, unsigned seed) {
  unsigned char* p = buf;
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < bytes; ++i) {
    x = x * 1103515245u + 12345u;
    p[i] = (unsigned char)(x >> 16);
  }
}

/* The receive buffer `expected` of `rcount` `rtype` should hold after receiving `scount` `stype`
 * from `sbuf` (at most `limit` bytes of data: a truncated receive fills what fits). */
static void expect(const void* sbuf, int scount, MPI_Datatype stype, void* expected, int rcount,
                   MPI_Datatype rtype) {
  int bytes = 0, position = 0;
  CHECK_MPI(MPI_Pack_size(scount, stype, MPI_COMM_WORLD, &bytes));
  char* packed = malloc((size_t)bytes + 1);
  CHECK_MPI(MPI_Pack(sbuf, scount, stype, packed, bytes, &position, MPI_COMM_WORLD));
  int rsize = 0;
  MPI_Type_size(rtype, &rsize);
  /* Whole receive elements first, then the basic elements of a partial one (as a receive does). */
  int whole = rsize > 0 ? bytes / rsize : 0;
  if (whole > rcount) whole = rcount;
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, bytes, &position, expected, whole, rtype, MPI_COMM_WORLD));
  CHECK(bytes == whole * rsize, "test bug: the cases send whole receive elements (%d, %d)", bytes,
        rsize);
  free(packed);
}

/* Extent-sized buffer for `count` elements of `type` (from its true lower bound 0 on). */
static size_t span_of(int count, MPI_Datatype type) {
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &true_lb, &true_extent);
  CHECK(lb >= 0 && true_lb >= 0, "test bug: negative bounds");
  return (size_t)(count > 0 ? (count - 1) * extent + true_lb + true_extent : 0) + 1;
}

/* Every rank sends `scount` `stype` to the next rank and receives `rcount` `rtype` from the
 * previous one (to itself on one rank), with Isend + Recv, and checks every byte of the receive
 * buffer. `label` names the case in failures. */
static void ring(const char* label, int scount, MPI_Datatype stype, int rcount,
                 MPI_Datatype rtype) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const size_t sspan = span_of(scount, stype), rspan = span_of(rcount, rtype);
  char* sbuf = malloc(sspan);
  char* rbuf = malloc(rspan);
  char* want = malloc(rspan);
  char* theirs = malloc(sspan);
  fill(sbuf, sspan, (unsigned)rank);
  fill(theirs, sspan, (unsigned)prev);
  memset(rbuf, 0xA5, rspan);
  memset(want, 0xA5, rspan);
  expect(theirs, scount, stype, want, rcount, rtype);
  MPI_Request request;
  MPI_Status status;
  CHECK_MPI(MPI_Isend(sbuf, scount, stype, next, 7, MPI_COMM_WORLD, &request));
  CHECK_MPI(MPI_Recv(rbuf, rcount, rtype, prev, 7, MPI_COMM_WORLD, &status));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  CHECK(status.MPI_SOURCE == prev, "%s: source %d, expected %d", label, status.MPI_SOURCE, prev);
  int ssize = 0, count = -1;
  MPI_Type_size(stype, &ssize);
  CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
  CHECK(count == scount * ssize, "%s: %d bytes arrived, %d sent", label, count, scount * ssize);
  for (size_t i = 0; i < rspan; ++i) {
    CHECK(rbuf[i] == want[i], "%s: byte %zu of %zu is %d, expected %d", label, i, rspan,
          (unsigned char)rbuf[i], (unsigned char)want[i]);
  }
  free(sbuf);
  free(rbuf);
  free(want);
  free(theirs);
}

/* The same message typed on both sides, then contiguous on either side. */
static void both_ways(const char* label, int count, MPI_Datatype type) {
  int bytes = 0;
  MPI_Type_size(type, &bytes);
  const int doubles = count * bytes / (int)sizeof(double);
  ring(label, count, type, count, type);
  ring(label, count, type, doubles, MPI_DOUBLE);
  ring(label, doubles, MPI_DOUBLE, count, type);
}

/* Vectors of 8 KiB, 1 KiB blocks and single doubles at each protocol's sizes (segments at eager
 * sizes; above, packed unless the blocks are long or RMPL_SEGMENT_MIN is low). */
static void vectors(void) {
  MPI_Datatype wide, narrow;
  MPI_Type_vector(4, 128, 256, MPI_DOUBLE, &wide); /* 4 KiB of data in 8 KiB */
  MPI_Type_vector(8, 1, 3, MPI_DOUBLE, &narrow);   /* 64 B */
  MPI_Type_commit(&wide);
  MPI_Type_commit(&narrow);
  const int wide_counts[] = {1, 3, 16, 160}; /* 4 KiB, 12 KiB, 64 KiB, 640 KiB */
  for (int i = 0; i < 4; ++i) both_ways("vector of 1 KiB blocks", wide_counts[i], wide);
  /* 8 KiB blocks: segments at every size with the default RMPL_SEGMENT_MIN too. */
  MPI_Datatype large;
  MPI_Type_vector(2, 1024, 1536, MPI_DOUBLE, &large); /* 16 KiB of data */
  MPI_Type_commit(&large);
  const int large_counts[] = {1, 5, 40}; /* 16 KiB, 80 KiB, 640 KiB */
  for (int i = 0; i < 3; ++i) both_ways("vector of 8 KiB blocks", large_counts[i], large);
  MPI_Type_free(&large);
  const int narrow_counts[] = {0, 1, 100, 300}; /* 0, 64 B, 6.4 KiB, 19.2 KiB */
  for (int i = 0; i < 4; ++i) both_ways("vector of doubles", narrow_counts[i], narrow);
  MPI_Type_free(&wide);
  MPI_Type_free(&narrow);
}

static void indexed(void) {
  int lengths[] = {40, 100, 3, 77, 256};
  int displacements[] = {300, 0, 150, 600, 1000}; /* out of order, gaps between */
  MPI_Datatype type;
  MPI_Type_indexed(5, lengths, displacements, MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  both_ways("indexed", 1, type);  /* 3.8 KiB */
  both_ways("indexed", 40, type); /* 150 KiB */
  MPI_Type_free(&type);
}

struct record {
  int id[64];
  char gap[40];
  double values[96];
};

static void structs(void) {
  int lengths[] = {64, 96};
  MPI_Aint displacements[] = {offsetof(struct record, id), offsetof(struct record, values)};
  MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE}, type;
  MPI_Type_create_struct(2, lengths, displacements, types, &type);
  MPI_Type_commit(&type);
  /* Struct data is ints and doubles: the contiguous side receives bytes. */
  int bytes = 0;
  MPI_Type_size(type, &bytes);
  const int counts[] = {1, 20, 700}; /* 1 KiB, 20 KiB, 700 KiB */
  for (int i = 0; i < 3; ++i) {
    ring("struct", counts[i], type, counts[i], type);
    ring("struct", counts[i], type, counts[i] * bytes, MPI_BYTE);
    ring("struct", counts[i] * bytes, MPI_BYTE, counts[i], type);
  }
  MPI_Type_free(&type);
}

static void subarrays(void) {
  int sizes[] = {512, 512}, sub[] = {300, 300}, starts[] = {100, 64};
  MPI_Datatype type;
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  both_ways("subarray", 1, type); /* 703 KiB in 2 MiB, rows of 2.3 KiB */
  MPI_Type_free(&type);
}

static void resized(void) {
  /* 512 doubles, then a 512-double hole: the resized extent spaces the elements. */
  MPI_Datatype inner, type;
  MPI_Type_contiguous(64, MPI_DOUBLE, &inner);
  MPI_Type_create_resized(inner, 0, 1024 * (MPI_Aint)sizeof(double), &type);
  MPI_Type_commit(&type);
  both_ways("resized", 2, type);  /* 1 KiB */
  both_ways("resized", 50, type); /* 25 KiB */
  MPI_Type_free(&inner);
  MPI_Type_free(&type);
}

/* Rank 0 receives one typed message from every other rank with MPI_ANY_SOURCE. */
static void any_source(void) {
  MPI_Datatype type;
  MPI_Type_vector(64, 128, 200, MPI_DOUBLE, &type); /* 64 KiB: rendezvous */
  MPI_Type_commit(&type);
  const size_t span = span_of(1, type);
  char* buf = malloc(span);
  if (rank != 0) {
    fill(buf, span, 100u + (unsigned)rank);
    CHECK_MPI(MPI_Send(buf, 1, type, 0, 9, MPI_COMM_WORLD));
  } else {
    char* want = malloc(span);
    char* theirs = malloc(span);
    int seen = 0;
    for (int i = 1; i < size; ++i) {
      MPI_Status status;
      memset(buf, 0, span);
      CHECK_MPI(MPI_Recv(buf, 1, type, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &status));
      const int from = status.MPI_SOURCE;
      CHECK(from > 0 && from < size && !(seen & (1 << from)), "source %d", from);
      seen |= 1 << from;
      fill(theirs, span, 100u + (unsigned)from);
      memset(want, 0, span);
      expect(theirs, 1, type, want, 1, type);
      CHECK(memcmp(buf, want, span) == 0, "the message from rank %d differs", from);
    }
    free(want);
    free(theirs);
  }
  free(buf);
  MPI_Type_free(&type);
}

/* A message longer than the typed buffer is an MPI_ERR_TRUNCATE. A shorter one reports its count
 * (undefined in whole vectors) and its elements, and fills the first blocks only. */
static void truncation_and_partial(void) {
  MPI_Datatype type;
  MPI_Type_vector(8, 128, 256, MPI_DOUBLE, &type); /* 8 KiB of data, extent 1920 doubles */
  MPI_Type_commit(&type);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int vectors[] = {1, 8}; /* 8 KiB (eager), 64 KiB (rendezvous) */
  for (int k = 0; k < 2; ++k) {
    const int room = vectors[k], doubles = room * 1024;
    const size_t span = span_of(room, type);
    double* out = malloc((size_t)(doubles + 1) * sizeof(double));
    double* in = malloc(span);
    double* theirs = malloc((size_t)(doubles + 1) * sizeof(double));
    fill(out, (size_t)(doubles + 1) * sizeof(double), (unsigned)rank);
    fill(theirs, (size_t)(doubles + 1) * sizeof(double), (unsigned)prev);
    MPI_Request request;
    MPI_Status status;
    /* Too long: one double more than the typed buffer holds. */
    CHECK_MPI(MPI_Isend(out, doubles + 1, MPI_DOUBLE, next, 11, MPI_COMM_WORLD, &request));
    CHECK_ERR(MPI_Recv(in, room, type, prev, 11, MPI_COMM_WORLD, &status), MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    /* Short: all but one vector and 100 doubles more (100 doubles into one vector). */
    const int shortn = (room - 1) * 1024 + 100;
    memset(in, 0, span);
    CHECK_MPI(MPI_Isend(out, shortn, MPI_DOUBLE, next, 12, MPI_COMM_WORLD, &request));
    CHECK_MPI(MPI_Recv(in, room, type, prev, 12, MPI_COMM_WORLD, &status));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    int n = 0;
    CHECK_MPI(MPI_Get_count(&status, type, &n));
    CHECK(n == MPI_UNDEFINED, "%d doubles: count %d in vectors, expected MPI_UNDEFINED", shortn, n);
    CHECK_MPI(MPI_Get_elements(&status, type, &n));
    CHECK(n == shortn, "%d doubles: MPI_Get_elements says %d", shortn, n);
    CHECK_MPI(MPI_Get_count(&status, MPI_DOUBLE, &n));
    CHECK(n == shortn, "%d doubles: MPI_Get_count(MPI_DOUBLE) says %d", shortn, n);
    /* Double `at` of the buffer holds data double `index` of the type map, if any. */
    const double zero = 0;
    for (int at = 0; at < room * 1920; ++at) {
      const int element = at / 1920, block = at % 1920 / 256, within = at % 1920 % 256;
      const int index = (element * 8 + block) * 128 + within;
      if (within < 128 && index < shortn) {
        CHECK(memcmp(&in[at], &theirs[index], sizeof(double)) == 0,
              "%d doubles: double %d (at %d) differs", shortn, index, at);
      } else {
        CHECK(memcmp(&in[at], &zero, sizeof zero) == 0, "%d doubles: double at %d was written",
              shortn, at);
      }
    }
    free(out);
    free(in);
    free(theirs);
  }
  MPI_Type_free(&type);
}

/* Nonblocking both ways, the types freed before the operations complete (MPI allows it). */
static void freed_before_completion(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int counts[] = {2, 100}; /* 8 KiB, 400 KiB of data */
  for (int k = 0; k < 2; ++k) {
    MPI_Datatype stype, rtype;
    MPI_Type_vector(4, 128, 300, MPI_DOUBLE, &stype);
    MPI_Type_vector(8, 64, 100, MPI_DOUBLE, &rtype);
    MPI_Type_commit(&stype);
    MPI_Type_commit(&rtype);
    const int n = counts[k];
    const size_t sspan = span_of(n, stype), rspan = span_of(n, rtype);
    char* sbuf = malloc(sspan);
    char* rbuf = malloc(rspan);
    char* want = malloc(rspan);
    char* theirs = malloc(sspan);
    fill(sbuf, sspan, 50u + (unsigned)rank);
    fill(theirs, sspan, 50u + (unsigned)prev);
    memset(rbuf, 1, rspan);
    memset(want, 1, rspan);
    expect(theirs, n, stype, want, n, rtype);
    MPI_Request requests[2];
    CHECK_MPI(MPI_Irecv(rbuf, n, rtype, prev, 13, MPI_COMM_WORLD, &requests[0]));
    CHECK_MPI(MPI_Isend(sbuf, n, stype, next, 13, MPI_COMM_WORLD, &requests[1]));
    MPI_Type_free(&stype);
    MPI_Type_free(&rtype);
    CHECK_MPI(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
    CHECK(memcmp(rbuf, want, rspan) == 0, "count %d: the received data differs", n);
    free(sbuf);
    free(rbuf);
    free(want);
    free(theirs);
  }
}

/* MPI_Sendrecv with typed buffers on both sides, and MPI_Sendrecv_replace in place. */
static void exchanges(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Datatype type;
  MPI_Type_vector(32, 128, 160, MPI_DOUBLE, &type); /* 32 KiB */
  MPI_Type_commit(&type);
  const size_t span = span_of(2, type);
  char* sbuf = malloc(span);
  char* rbuf = malloc(span);
  char* want = malloc(span);
  char* theirs = malloc(span);
  fill(sbuf, span, 70u + (unsigned)rank);
  fill(theirs, span, 70u + (unsigned)prev);
  memset(rbuf, 3, span);
  memset(want, 3, span);
  expect(theirs, 2, type, want, 2, type);
  CHECK_MPI(MPI_Sendrecv(sbuf, 2, type, next, 14, rbuf, 2, type, prev, 14, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  CHECK(memcmp(rbuf, want, span) == 0, "MPI_Sendrecv: the received data differs");
  /* In place: the gaps keep this rank's own bytes, the blocks take the previous rank's. */
  memcpy(want, sbuf, span);
  expect(theirs, 2, type, want, 2, type);
  CHECK_MPI(
      MPI_Sendrecv_replace(sbuf, 2, type, next, 15, prev, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(memcmp(sbuf, want, span) == 0, "MPI_Sendrecv_replace: the buffer differs");
  free(sbuf);
  free(rbuf);
  free(want);
  free(theirs);
  MPI_Type_free(&type);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  vectors();
  indexed();
  structs();
  subarrays();
  resized();
  any_source();
  truncation_and_partial();
  freed_before_completion();
  exchanges();
  MPI_Finalize();
  return 0;
}
