/* A handle that names no object of the library (an unmapped address, a small integer, freed or
 * unrelated heap memory even when it looks like one of the library's objects, an object of
 * another kind) is an error of the handle's class under MPI_ERRORS_RETURN, never a crash: the
 * library checks that a handle is one of its objects before it reads anything there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

enum { wilds = 6 };
static void* wild[wilds];
static const char* wild_name[wilds] = {"an unmapped page",
                                       "the small integer 0x1234",
                                       "the integer 1",
                                       "an address near the top",
                                       "heap memory that copies a live object",
                                       "freed heap memory"};

/* Heap memory made to look like a live object of the library: its first bytes copied from
 * `model` (an object of the kind tested: its magic number and first fields), the rest pointers to
 * the copy itself. */
static void* lookalike(const void* model) {
  const size_t bytes = 4096;
  unsigned char* p = malloc(bytes);
  CHECK(p != NULL, "malloc");
  memcpy(p, model, 16);
  for (size_t i = 16; i + sizeof(void*) <= bytes; i += sizeof(void*)) {
    void* self = p;
    memcpy(p + i, &self, sizeof self);
  }
  return p;
}

/* The wild handles of a kind whose live objects look like `model`. */
static void make_wild(const void* model) {
  free(wild[4]);
  const long page = sysconf(_SC_PAGESIZE);
  void* unmapped = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(unmapped != MAP_FAILED, "mmap");
  CHECK(munmap(unmapped, (size_t)page) == 0, "munmap");
  wild[0] = unmapped;
  wild[1] = (void*)(uintptr_t)0x1234;
  wild[2] = (void*)(uintptr_t)1;
  wild[3] = (void*)(uintptr_t)0x7ffffffff000ull;
  wild[4] = lookalike(model);
  wild[5] = lookalike(model);
  free(wild[5]); /* the handle now points at freed heap memory */
}

#define EACH_WILD(i) for (int i = 0; i < wilds; ++i)
#define EXPECT(call, expected, i)                                                                 \
  do {                                                                                            \
    int code_ = (call), class_ = -1;                                                              \
    MPI_Error_class(code_, &class_);                                                              \
    CHECK(class_ == (expected), "%s with %s returned class %d, expected %s", #call, wild_name[i], \
          class_, #expected);                                                                     \
  } while (0)

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  int x = 1, y = 0, n = 0;

  make_wild((const void*)MPI_COMM_WORLD);
  EACH_WILD(i) { /* communicators: on the fast paths and off them */
    MPI_Comm c = (MPI_Comm)wild[i];
    EXPECT(MPI_Comm_rank(c, &n), MPI_ERR_COMM, i);
    EXPECT(MPI_Send(&x, 1, MPI_INT, 0, 0, c), MPI_ERR_COMM, i);
    EXPECT(MPI_Recv(&y, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE), MPI_ERR_COMM, i);
    EXPECT(MPI_Barrier(c), MPI_ERR_COMM, i);
    EXPECT(MPI_Bcast(&x, 1, MPI_INT, 0, c), MPI_ERR_COMM, i);
    EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c), MPI_ERR_COMM, i);
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(c, &dup), MPI_ERR_COMM, i);
    MPI_Comm freed = c;
    EXPECT(MPI_Comm_free(&freed), MPI_ERR_COMM, i);
    EXPECT(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), MPI_ERR_COMM, i);
    CHECK(MPI_Comm_c2f(c) == 0, "MPI_Comm_c2f of %s is not 0", wild_name[i]);
  }
  make_wild((const void*)MPI_INT);
  EACH_WILD(i) { /* datatypes */
    MPI_Datatype t = (MPI_Datatype)wild[i];
    EXPECT(MPI_Send(&x, 1, t, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, i);
    EXPECT(MPI_Recv(&y, 1, t, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE, i);
    EXPECT(MPI_Bcast(&x, 1, t, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, i);
    EXPECT(MPI_Allreduce(&x, &y, 1, t, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, i);
    EXPECT(MPI_Type_size(t, &n), MPI_ERR_TYPE, i);
    MPI_Datatype made, freed = t;
    EXPECT(MPI_Type_contiguous(2, t, &made), MPI_ERR_TYPE, i);
    EXPECT(MPI_Type_commit(&freed), MPI_ERR_TYPE, i);
    EXPECT(MPI_Type_free(&freed), MPI_ERR_TYPE, i);
    CHECK(MPI_Type_c2f(t) == 0, "MPI_Type_c2f of %s is not 0", wild_name[i]);
  }
  make_wild((const void*)MPI_GROUP_EMPTY);
  EACH_WILD(i) { /* groups */
    MPI_Group g = (MPI_Group)wild[i], freed = g, made;
    EXPECT(MPI_Group_size(g, &n), MPI_ERR_GROUP, i);
    EXPECT(MPI_Group_incl(g, 0, NULL, &made), MPI_ERR_GROUP, i);
    EXPECT(MPI_Group_free(&freed), MPI_ERR_GROUP, i);
  }
  make_wild((const void*)MPI_SUM);
  EACH_WILD(i) { /* operators */
    MPI_Op o = (MPI_Op)wild[i], freed = o;
    EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, o, MPI_COMM_WORLD), MPI_ERR_OP, i);
    EXPECT(MPI_Reduce(&x, &y, 1, MPI_INT, o, 0, MPI_COMM_WORLD), MPI_ERR_OP, i);
    EXPECT(MPI_Reduce_local(&x, &y, 1, MPI_INT, o), MPI_ERR_OP, i);
    EXPECT(MPI_Op_free(&freed), MPI_ERR_OP, i);
  }
  make_wild((const void*)MPI_INFO_ENV);
  EACH_WILD(i) { /* info objects */
    MPI_Info info = (MPI_Info)wild[i], freed = info, made;
    EXPECT(MPI_Info_get_nkeys(info, &n), MPI_ERR_INFO, i);
    EXPECT(MPI_Info_set(info, "key", "value"), MPI_ERR_INFO, i);
    EXPECT(MPI_Info_dup(info, &made), MPI_ERR_INFO, i);
    EXPECT(MPI_Info_free(&freed), MPI_ERR_INFO, i);
  }
  make_wild((const void*)MPI_ERRORS_RETURN);
  EACH_WILD(i) { /* error handlers */
    MPI_Errhandler e = (MPI_Errhandler)wild[i], freed = e;
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, e), MPI_ERR_ARG, i);
    EXPECT(MPI_Errhandler_free(&freed), MPI_ERR_ARG, i);
  }
  MPI_Request model_request;
  CHECK_MPI(MPI_Send_init(&x, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &model_request));
  make_wild((const void*)model_request);
  CHECK_MPI(MPI_Request_free(&model_request));
  EACH_WILD(i) { /* requests */
    MPI_Request r = (MPI_Request)wild[i];
    int flag = 0, index = -1;
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Waitany(1, &r, &index, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Waitsome(1, &r, &n, &index, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST, i);
    r = (MPI_Request)wild[i];
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST, i);
  }
  make_wild((const void*)MPI_MESSAGE_NO_PROC);
  EACH_WILD(i) { /* messages (of MPI_Mprobe) */
    MPI_Message m = (MPI_Message)wild[i];
    EXPECT(MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, i);
  }

  /* Live objects of another kind: each handle names an object, but not of the kind asked for. */
  {
    EXPECT(MPI_Comm_rank((MPI_Comm)MPI_INT, &n), MPI_ERR_COMM, 0);
    EXPECT(MPI_Send(&x, 1, (MPI_Datatype)MPI_COMM_WORLD, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, 0);
    EXPECT(MPI_Group_size((MPI_Group)MPI_SUM, &n), MPI_ERR_GROUP, 0);
    EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, (MPI_Op)MPI_INT, MPI_COMM_WORLD), MPI_ERR_OP, 0);
    EXPECT(MPI_Info_get_nkeys((MPI_Info)MPI_GROUP_EMPTY, &n), MPI_ERR_INFO, 0);
    MPI_Request r = (MPI_Request)MPI_COMM_WORLD;
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, 0);
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    EXPECT(MPI_Type_size((MPI_Datatype)dup, &n), MPI_ERR_TYPE, 0);
    /* a freed communicator */
    MPI_Comm stale = dup;
    CHECK_MPI(MPI_Comm_free(&dup));
    EXPECT(MPI_Comm_rank(stale, &n), MPI_ERR_COMM, 0);
    EXPECT(MPI_Send(&x, 1, MPI_INT, rank, 0, stale), MPI_ERR_COMM, 0);
  }

  /* The error text names the function, the argument and its value. */
  {
    int code = MPI_Type_size((MPI_Datatype)wild[1], &n), len = 0;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(strstr(text, "MPI_Type_size") != NULL && strstr(text, "0x1234") != NULL,
          "the error text names neither MPI_Type_size nor 0x1234: %s", text);
  }

  /* Everything still works. */
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  int size = 0;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(sum == size, "allreduce after the wild handles: %d, expected %d", sum, size);
  free(wild[4]);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
