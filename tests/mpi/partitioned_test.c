/* Partitioned point-to-point (MPI-4.0 chapter 4): a ring where every rank sends 4 partitions to
 * the right and receives 4 from the left, three rounds on the same requests, the partitions
 * marked ready in another order each round (MPI_Pready, MPI_Pready_range, MPI_Pready_list), the
 * receiver polling MPI_Parrived; a strided datatype; MPI_PROC_NULL; the errors (a partition out
 * of range or marked twice, a request not started, a wildcard source, the wrong direction). */
#include <string.h>

#include "check.h"

#define PARTS 4
#define EACH 16

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  static int out[PARTS * EACH], in[PARTS * EACH];
  MPI_Request send, recv;
  CHECK_MPI(
      MPI_Psend_init(out, PARTS, EACH, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
  CHECK_MPI(
      MPI_Precv_init(in, PARTS, EACH, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
  for (int round = 0; round < 3; ++round) {
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Start(&recv));
    CHECK_MPI(MPI_Start(&send));
    for (int p = PARTS - 1; p >= 0; --p) {
      for (int i = 0; i < EACH; ++i) out[p * EACH + i] = rank * 10000 + round * 1000 + p * 100 + i;
      if (round == 0) CHECK_MPI(MPI_Pready(p, send));
    }
    if (round == 1) CHECK_MPI(MPI_Pready_range(0, PARTS - 1, send));
    if (round == 2) {
      const int order[PARTS] = {2, 0, 3, 1};
      CHECK_MPI(MPI_Pready_list(PARTS, order, send));
    }
    for (int arrived = 0; !arrived;) CHECK_MPI(MPI_Parrived(recv, PARTS - 1, &arrived));
    for (int i = 0; i < EACH; ++i) {
      const int want = left * 10000 + round * 1000 + (PARTS - 1) * 100 + i;
      CHECK(in[(PARTS - 1) * EACH + i] == want, "round %d: an arrived partition holds %d", round,
            in[(PARTS - 1) * EACH + i]);
    }
    MPI_Request both[2] = {send, recv};
    CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    CHECK(both[0] == send && both[1] == recv, "the wait freed a partitioned request");
    for (int p = 0; p < PARTS; ++p)
      for (int i = 0; i < EACH; ++i) {
        const int want = left * 10000 + round * 1000 + p * 100 + i;
        CHECK(in[p * EACH + i] == want, "round %d partition %d [%d] is %d, not %d", round, p, i,
              in[p * EACH + i], want);
      }
  }
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));

  /* A strided type: each partition is 2 elements of every-other-int (4 ints of memory). */
  MPI_Datatype pair_of_two;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &pair_of_two));
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_create_resized(pair_of_two, 0, 4 * sizeof(int), &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  CHECK_MPI(MPI_Type_free(&pair_of_two));
  int sparse_out[4 * PARTS], sparse_in[4 * PARTS];
  for (int i = 0; i < 4 * PARTS; ++i) sparse_out[i] = rank * 100 + i;
  memset(sparse_in, 0, sizeof sparse_in);
  CHECK_MPI(MPI_Psend_init(sparse_out, PARTS, 1, strided, right, 6, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &send));
  CHECK_MPI(
      MPI_Precv_init(sparse_in, PARTS, 1, strided, left, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
  CHECK_MPI(MPI_Type_free(&strided)); /* the requests keep their copies */
  CHECK_MPI(MPI_Start(&recv));
  CHECK_MPI(MPI_Start(&send));
  CHECK_MPI(MPI_Pready_range(0, PARTS - 1, send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4 * PARTS; ++i) {
    const int want = i % 4 == 0 || i % 4 == 2 ? left * 100 + i : 0;
    CHECK(sparse_in[i] == want, "strided [%d] is %d, not %d", i, sparse_in[i], want);
  }
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));

  /* MPI_PROC_NULL: both complete at once. */
  CHECK_MPI(MPI_Psend_init(out, PARTS, EACH, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &send));
  CHECK_MPI(MPI_Precv_init(in, PARTS, EACH, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &recv));
  CHECK_MPI(MPI_Start(&send));
  CHECK_MPI(MPI_Start(&recv));
  CHECK_MPI(MPI_Pready_range(0, PARTS - 1, send));
  int flag = 0;
  CHECK_MPI(MPI_Parrived(recv, 0, &flag));
  CHECK(flag, "a partition from MPI_PROC_NULL has not arrived");
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));

  /* Errors. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Pready(0, send), &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Pready before MPI_Start gave class %d", cls);
  CHECK_MPI(MPI_Start(&send));
  MPI_Error_class(MPI_Pready(PARTS, send), &cls);
  CHECK(cls == MPI_ERR_ARG, "partition %d of %d gave class %d", PARTS, PARTS, cls);
  CHECK_MPI(MPI_Pready(1, send));
  MPI_Error_class(MPI_Pready(1, send), &cls);
  CHECK(cls == MPI_ERR_ARG, "a partition marked twice gave class %d", cls);
  MPI_Error_class(MPI_Parrived(send, 0, &flag), &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Parrived on a send gave class %d", cls);
  const int rest[3] = {0, 2, 3};
  CHECK_MPI(MPI_Pready_list(3, rest, send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));
  MPI_Request wild;
  MPI_Error_class(MPI_Precv_init(in, PARTS, EACH, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &wild),
                  &cls);
  CHECK(cls == MPI_ERR_ARG, "a wildcard source gave class %d", cls);
  MPI_Error_class(
      MPI_Psend_init(out, 0, EACH, MPI_INT, right, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &wild), &cls);
  CHECK(cls == MPI_ERR_ARG, "zero partitions gave class %d", cls);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
