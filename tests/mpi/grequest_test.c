/* Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): query_fn fills the status in
 * the Wait/Test that completes the request (even when the program ignores the status) and in
 * MPI_Request_get_status, free_fn runs after it, or in MPI_Request_free, or in
 * MPI_Grequest_complete when the request was freed first; cancel_fn runs in MPI_Cancel with
 * whether the request is complete. Generalized requests mixed with point-to-point ones in Waitall,
 * Waitany, Testall and Testsome; callback errors as results (MPI_ERR_IN_STATUS in the multiple
 * completions); MPI_Grequest_complete twice or on another request; and completion from another
 * thread while the program's thread waits (MPI_Wait, and MPI_Waitall beside a receive). */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int rank, size;

/* What a request's callbacks saw. */
struct work {
  int id;          /* the status's tag */
  int query_calls; /* how many times each callback ran */
  int free_calls;
  int cancel_calls;
  int cancel_complete; /* the `complete` argument of the last cancel_fn */
  int query_error;     /* what query_fn and free_fn return */
  int free_error;
  int cancelled; /* query_fn marks the status cancelled */
};

static int query_fn(void* extra, MPI_Status* status) {
  struct work* w = extra;
  ++w->query_calls;
  CHECK(status != MPI_STATUS_IGNORE, "query_fn of request %d got no status to fill", w->id);
  status->MPI_SOURCE = rank;
  status->MPI_TAG = w->id;
  MPI_Status_set_elements(status, MPI_INT, w->id + 1);
  MPI_Status_set_cancelled(status, w->cancelled);
  return w->query_error;
}

static int free_fn(void* extra) {
  struct work* w = extra;
  CHECK(w->free_calls == 0, "free_fn of request %d ran twice", w->id);
  ++w->free_calls;
  return w->free_error;
}

static int cancel_fn(void* extra, int complete) {
  struct work* w = extra;
  ++w->cancel_calls;
  w->cancel_complete = complete;
  return MPI_SUCCESS;
}

static MPI_Request start(struct work* w, int id) {
  memset(w, 0, sizeof *w);
  w->id = id;
  MPI_Request r = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, w, &r));
  CHECK(r != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
  return r;
}

/* The status query_fn filled for request `w`. */
static void check_status(int line, const MPI_Status* s, const struct work* w) {
  int count = -1;
  CHECK_MPI(MPI_Get_count(s, MPI_INT, &count));
  CHECK(s->MPI_SOURCE == rank && s->MPI_TAG == w->id && count == w->id + 1,
        "line %d: status of request %d: source %d tag %d count %d", line, w->id, s->MPI_SOURCE,
        s->MPI_TAG, count);
}

static void wait_and_test(void) {
  struct work w;
  MPI_Request r = start(&w, 1);
  MPI_Status s;
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK(w.query_calls == 0 && w.free_calls == 0, "callbacks ran at completion: query %d free %d",
        w.query_calls, w.free_calls);
  CHECK_MPI(MPI_Wait(&r, &s));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the request");
  CHECK(w.query_calls == 1 && w.free_calls == 1, "MPI_Wait: query %d free %d", w.query_calls,
        w.free_calls);
  check_status(__LINE__, &s, &w);

  /* Test: not complete, no callbacks; complete; then query and free with the status ignored. */
  r = start(&w, 2);
  int flag = -1;
  CHECK_MPI(MPI_Test(&r, &flag, &s));
  CHECK(flag == 0 && w.query_calls == 0 && r != MPI_REQUEST_NULL, "MPI_Test of a pending one: %d",
        flag);
  CHECK_MPI(MPI_Request_get_status(r, &flag, &s));
  CHECK(flag == 0 && w.query_calls == 0, "MPI_Request_get_status of a pending one: %d", flag);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Request_get_status(r, &flag, &s));
  CHECK(flag == 1 && w.query_calls == 1 && w.free_calls == 0 && r != MPI_REQUEST_NULL,
        "MPI_Request_get_status of a complete one: flag %d query %d free %d", flag, w.query_calls,
        w.free_calls);
  check_status(__LINE__, &s, &w);
  CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && r == MPI_REQUEST_NULL && w.query_calls == 2 && w.free_calls == 1,
        "MPI_Test: flag %d query %d free %d", flag, w.query_calls, w.free_calls);
}

static void mixed(void) {
  /* Waitall over a ring exchange and two generalized requests. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in = -1, out = 100 + rank;
  struct work a, b;
  MPI_Request rs[4];
  rs[0] = start(&a, 3);
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &rs[1]));
  rs[2] = start(&b, 4);
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &rs[3]));
  CHECK_MPI(MPI_Grequest_complete(rs[2]));
  CHECK_MPI(MPI_Grequest_complete(rs[0]));
  MPI_Status st[4];
  CHECK_MPI(MPI_Waitall(4, rs, st));
  CHECK(in == 100 + left && st[1].MPI_SOURCE == left, "ring: got %d from %d", in, st[1].MPI_SOURCE);
  check_status(__LINE__, &st[0], &a);
  check_status(__LINE__, &st[2], &b);
  CHECK(a.free_calls == 1 && b.free_calls == 1, "Waitall freed %d and %d", a.free_calls,
        b.free_calls);

  /* Waitany: the receive from itself completes first; then the generalized one once complete. */
  int self_in = -1, self_out = 55;
  rs[0] = start(&a, 5);
  CHECK_MPI(MPI_Irecv(&self_in, 1, MPI_INT, 0, 8, MPI_COMM_SELF, &rs[1]));
  CHECK_MPI(MPI_Send(&self_out, 1, MPI_INT, 0, 8, MPI_COMM_SELF));
  int index = -1;
  MPI_Status s;
  CHECK_MPI(MPI_Waitany(2, rs, &index, &s));
  CHECK(index == 1 && self_in == 55 && a.query_calls == 0, "Waitany gave %d (query %d)", index,
        a.query_calls);
  CHECK_MPI(MPI_Testany(2, rs, &index, &(int){0}, &s));
  CHECK(index == MPI_UNDEFINED && rs[0] != MPI_REQUEST_NULL, "Testany of a pending one gave %d",
        index);
  CHECK_MPI(MPI_Grequest_complete(rs[0]));
  CHECK_MPI(MPI_Waitany(2, rs, &index, &s));
  CHECK(index == 0 && a.query_calls == 1 && a.free_calls == 1, "second Waitany gave %d", index);
  check_status(__LINE__, &s, &a);

  /* Testall is false while one is pending; Testsome reports exactly the complete ones. */
  struct work w[3];
  for (int i = 0; i < 3; ++i) rs[i] = start(&w[i], 10 + i);
  CHECK_MPI(MPI_Grequest_complete(rs[1]));
  int flag = -1;
  CHECK_MPI(MPI_Testall(3, rs, &flag, st));
  CHECK(flag == 0 && w[1].query_calls == 0, "Testall with two pending: %d", flag);
  int outcount = -1, indices[3];
  CHECK_MPI(MPI_Testsome(3, rs, &outcount, indices, st));
  CHECK(outcount == 1 && indices[0] == 1 && rs[1] == MPI_REQUEST_NULL, "Testsome: %d, first %d",
        outcount, indices[0]);
  check_status(__LINE__, &st[0], &w[1]);
  CHECK_MPI(MPI_Grequest_complete(rs[0]));
  CHECK_MPI(MPI_Grequest_complete(rs[2]));
  CHECK_MPI(MPI_Testall(3, rs, &flag, st));
  CHECK(flag == 1 && w[0].free_calls == 1 && w[2].free_calls == 1, "Testall: %d", flag);
  check_status(__LINE__, &st[2], &w[2]);
}

static void cancel_and_free(void) {
  struct work w;
  MPI_Request r = start(&w, 20);
  CHECK_MPI(MPI_Cancel(&r));
  CHECK(w.cancel_calls == 1 && w.cancel_complete == 0, "cancel_fn: %d calls, complete %d",
        w.cancel_calls, w.cancel_complete);
  w.cancelled = 1;
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK(w.cancel_calls == 2 && w.cancel_complete == 1, "cancel_fn after completion: complete %d",
        w.cancel_complete);
  MPI_Status s;
  CHECK_MPI(MPI_Wait(&r, &s));
  int cancelled = 0;
  CHECK_MPI(MPI_Test_cancelled(&s, &cancelled));
  CHECK(cancelled == 1, "the status of the cancelled request does not say so");

  /* Freed after completion: free_fn at once, no query. */
  r = start(&w, 21);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL && w.free_calls == 1 && w.query_calls == 0,
        "free of a complete one: free %d query %d", w.free_calls, w.query_calls);
  /* Freed first: free_fn when MPI_Grequest_complete runs. */
  r = start(&w, 22);
  MPI_Request copy = r;
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL && w.free_calls == 0, "free of a pending one ran free_fn");
  CHECK_MPI(MPI_Grequest_complete(copy));
  CHECK(w.free_calls == 1 && w.query_calls == 0, "complete of a freed one: free %d query %d",
        w.free_calls, w.query_calls);
}

static void errors(void) {
  struct work w;
  MPI_Request r = start(&w, 30);
  w.query_error = MPI_ERR_OTHER;
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_ERR(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
  MPI_Status s;
  CHECK_ERR(MPI_Wait(&r, &s), MPI_ERR_OTHER);
  CHECK(r == MPI_REQUEST_NULL && w.free_calls == 1, "a failing query_fn left the request");

  /* In Waitall: MPI_ERR_IN_STATUS, the callback's code in that status, success in the other. */
  struct work ok;
  MPI_Request rs[2] = {start(&ok, 31), start(&w, 32)};
  w.free_error = MPI_ERR_ARG;
  CHECK_MPI(MPI_Grequest_complete(rs[0]));
  CHECK_MPI(MPI_Grequest_complete(rs[1]));
  MPI_Status st[2];
  CHECK_ERR(MPI_Waitall(2, rs, st), MPI_ERR_IN_STATUS);
  CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_ARG,
        "statuses' errors %d and %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
  CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL, "Waitall left requests");

  /* Not generalized requests. */
  CHECK_ERR(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
  int x = 0;
  MPI_Request p;
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &p));
  CHECK_ERR(MPI_Grequest_complete(p), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
  CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
  CHECK_ERR(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &w, NULL), MPI_ERR_ARG);
}

/* ---- completion from another thread ---- */

struct completer {
  MPI_Request request;
  int delay_ms;
  int result;
};

static void* complete_later(void* arg) {
  struct completer* c = arg;
  struct timespec t = {0, c->delay_ms * 1000000L};
  nanosleep(&t, NULL);
  c->result = MPI_Grequest_complete(c->request);
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void from_a_thread(void) {
  /* MPI_Wait while a thread completes the request 20 ms later. */
  struct work w;
  struct completer c = {start(&w, 40), 20, -1};
  MPI_Request r = c.request;
  pthread_t thread;
  const double begin = now();
  CHECK(pthread_create(&thread, NULL, complete_later, &c) == 0, "pthread_create failed");
  MPI_Status s;
  CHECK_MPI(MPI_Wait(&r, &s));
  const double waited = now() - begin;
  CHECK(pthread_join(thread, NULL) == 0, "pthread_join failed");
  CHECK(c.result == MPI_SUCCESS, "MPI_Grequest_complete in the thread returned %d", c.result);
  CHECK(w.query_calls == 1 && w.free_calls == 1, "query %d free %d", w.query_calls, w.free_calls);
  check_status(__LINE__, &s, &w);
  /* Generous: the wait must end when the thread completes it, not hang. */
  CHECK(waited < 10.0, "MPI_Wait took %.3f s for a request completed after 20 ms", waited);

  /* MPI_Waitall over a ring exchange and a request a thread completes. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in = -1, out = 200 + rank;
  MPI_Request rs[3];
  c = (struct completer){start(&w, 41), 5, -1};
  rs[0] = c.request;
  CHECK(pthread_create(&thread, NULL, complete_later, &c) == 0, "pthread_create failed");
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &rs[1]));
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &rs[2]));
  MPI_Status st[3];
  CHECK_MPI(MPI_Waitall(3, rs, st));
  CHECK(pthread_join(thread, NULL) == 0, "pthread_join failed");
  CHECK(c.result == MPI_SUCCESS && in == 200 + left, "thread result %d, received %d", c.result, in);
  check_status(__LINE__, &st[0], &w);

  /* Freed before a thread completes it: free_fn runs in that thread's MPI_Grequest_complete. */
  c = (struct completer){start(&w, 42), 1, -1};
  r = c.request;
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(pthread_create(&thread, NULL, complete_later, &c) == 0, "pthread_create failed");
  CHECK(pthread_join(thread, NULL) == 0, "pthread_join failed");
  CHECK(c.result == MPI_SUCCESS && w.free_calls == 1 && w.query_calls == 0,
        "thread result %d, free %d", c.result, w.free_calls);
  /* The released request's memory is reused by the next one. */
  struct work next;
  r = start(&next, 43);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char** argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* A request's errors go to its communicator's handler: errors() uses one on MPI_COMM_SELF. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  wait_and_test();
  mixed();
  cancel_and_free();
  errors();
  from_a_thread();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
