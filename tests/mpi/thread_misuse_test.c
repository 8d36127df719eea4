/* Calls that break the thread level MPI_Init_thread provided are errors, through the error handler,
 * naming the call and the level (RMPL_TEST_THREAD_LEVEL picks the level asked for: single,
 * funneled (the default) or serialized):
 *   - single and funneled: a call from a thread other than the main one fails with MPI_ERR_OTHER
 *     and does nothing; the calls any thread may make (MPI_Query_thread, MPI_Is_thread_main,
 *     MPI_Initialized, MPI_Error_string...) still work there;
 *   - serialized: two threads calling MPI without excluding each other are caught (the hammering
 *     goes on until one of them sees the error), while two threads that do exclude each other
 *     (a mutex) may both call anything, and the main thread is not special. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int rank_;
static int level_;
static const char* level_name_;

/* The text MPI_Error_string gives for `code` must name the call and the level. */
static void check_text(int code, const char* call, const char* why) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strstr(text, call) != NULL && strstr(text, level_name_) != NULL && strstr(text, why),
        "the error of %s names neither the call, the level %s nor '%s': %s", call, level_name_, why,
        text);
}

static void* foreign_calls(void* arg) {
  (void)arg;
  int code, cls = -1, value = -1;
  code = MPI_Comm_rank(MPI_COMM_WORLD, &value);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_OTHER && value == -1,
        "MPI_Comm_rank from a non-main thread under %s returned class %d (value %d)", level_name_,
        cls, value);
  check_text(code, "MPI_Comm_rank", "main thread");
  const int v = 7;
  code = MPI_Send(&v, 1, MPI_INT, rank_, 5, MPI_COMM_WORLD);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_OTHER, "MPI_Send from a non-main thread under %s returned class %d",
        level_name_, cls);
  check_text(code, "MPI_Send", "main thread");
  MPI_Request r = MPI_REQUEST_NULL;
  code = MPI_Irecv(&value, 1, MPI_INT, rank_, 5, MPI_COMM_WORLD, &r);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_OTHER && r == MPI_REQUEST_NULL,
        "MPI_Irecv from a non-main thread under %s returned class %d", level_name_, cls);
  /* Allowed from any thread at any level. */
  int flag = -1;
  CHECK_MPI(MPI_Query_thread(&flag));
  CHECK(flag == level_, "MPI_Query_thread: %d, expected %d", flag, level_);
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag == 0, "MPI_Is_thread_main on another thread: %d", flag);
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 1, "MPI_Initialized: %d", flag);
  return NULL;
}

/* Serialized: two threads hammering MPI at once, until one of them has seen the error. */
static volatile int caught_;
static pthread_barrier_t start_;
static double deadline_;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void* hammer(void* arg) {
  (void)arg;
  pthread_barrier_wait(&start_);
  while (!__atomic_load_n(&caught_, __ATOMIC_RELAXED) && now() < deadline_) {
    for (int i = 0; i < 1000; ++i) {
      int size = 0;
      const int code = MPI_Type_size(MPI_DOUBLE, &size);
      if (code != MPI_SUCCESS) {
        int cls = -1;
        MPI_Error_class(code, &cls);
        CHECK(cls == MPI_ERR_OTHER, "concurrent MPI_Type_size returned class %d", cls);
        check_text(code, "MPI_Type_size", "another thread");
        __atomic_store_n(&caught_, 1, __ATOMIC_RELAXED);
        break;
      }
    }
  }
  return NULL;
}

static pthread_mutex_t serial_ = PTHREAD_MUTEX_INITIALIZER;
static void* serialized_traffic(void* arg) {
  const int me = (int)(long)arg;
  for (int i = 0; i < 200; ++i) {
    pthread_mutex_lock(&serial_);
    int out = me * 1000 + i, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, rank_, me, &in, 1, MPI_INT, rank_, me, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(in == out, "serialized thread %d: %d instead of %d", me, in, out);
    pthread_mutex_unlock(&serial_);
  }
  return NULL;
}

int main(int argc, char** argv) {
  const char* asked = getenv("RMPL_TEST_THREAD_LEVEL");
  int required = MPI_THREAD_FUNNELED;
  level_name_ = "MPI_THREAD_FUNNELED";
  if (asked != NULL && strcmp(asked, "single") == 0) {
    required = MPI_THREAD_SINGLE;
    level_name_ = "MPI_THREAD_SINGLE";
  } else if (asked != NULL && strcmp(asked, "serialized") == 0) {
    required = MPI_THREAD_SERIALIZED;
    level_name_ = "MPI_THREAD_SERIALIZED";
  }
  CHECK_MPI(MPI_Init_thread(&argc, &argv, required, &level_));
  CHECK(level_ == required, "MPI_Init_thread provided %d, asked for %s (%d)", level_, level_name_,
        required);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);

  pthread_t th[2];
  if (required != MPI_THREAD_SERIALIZED) {
    CHECK(pthread_create(&th[0], NULL, foreign_calls, NULL) == 0, "pthread_create failed");
    CHECK(pthread_join(th[0], NULL) == 0, "pthread_join failed");
    /* The refused send sent nothing: nothing waits for this rank. */
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(rank_, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "a refused MPI_Send from another thread was sent anyway");
  } else {
    for (long t = 0; t < 2; ++t) {
      CHECK(pthread_create(&th[t], NULL, serialized_traffic, (void*)t) == 0,
            "pthread_create failed");
    }
    for (int t = 0; t < 2; ++t) CHECK(pthread_join(th[t], NULL) == 0, "pthread_join failed");
    pthread_barrier_init(&start_, NULL, 2);
    deadline_ = now() + 60.0;
    for (int t = 0; t < 2; ++t) {
      CHECK(pthread_create(&th[t], NULL, hammer, NULL) == 0, "pthread_create failed");
    }
    for (int t = 0; t < 2; ++t) CHECK(pthread_join(th[t], NULL) == 0, "pthread_join failed");
    CHECK(caught_,
          "two threads calling MPI_Type_size at once for 60 s under "
          "MPI_THREAD_SERIALIZED were never reported");
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
