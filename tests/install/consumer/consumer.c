/* The installed C API, built with pkg-config. */
#include <rmpl.h>
#include <stdio.h>

int main(void) {
  int rank = -1, size = 0, got = -1;
  if (rmpl_init(NULL, NULL) != RMPL_SUCCESS) return 1;
  rmpl_self_address(&rank);
  rmpl_partition_size(&size);
  int rc = rmpl_send_and_receive(&rank, sizeof rank, (rank + 1) % size, 3, &got, sizeof got,
                                 (rank + size - 1) % size, 3, NULL);
  if (rc != RMPL_SUCCESS || got != (rank + size - 1) % size) {
    fprintf(stderr, "rank %d: %s (got %d)\n", rank, rmpl_last_error(), got);
    return 1;
  }
  return rmpl_finalize();
}
