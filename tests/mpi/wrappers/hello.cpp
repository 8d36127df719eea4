// A C++ MPI program, built by wrappers_test.sh with rmpl's mpicxx: rank 0 collects every rank's
// greeting with MPI_Recv (from any source) and prints them in rank order.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int largest = -1;
  MPI_Allreduce(&rank, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const std::string greeting =
      "hello++ from rank " + std::to_string(rank) + " of " + std::to_string(size);
  if (rank != 0) {
    MPI_Send(greeting.data(), static_cast<int>(greeting.size()), MPI_CHAR, 0, 3, MPI_COMM_WORLD);
  } else {
    std::vector<std::string> greetings(static_cast<std::size_t>(size));
    greetings[0] = greeting;
    for (int i = 1; i < size; ++i) {
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &status);
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      std::string text(static_cast<std::size_t>(length), '\0');
      MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, 3, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      greetings[static_cast<std::size_t>(status.MPI_SOURCE)] = text;
    }
    for (const std::string& g : greetings) std::printf("%s, largest rank %d\n", g.c_str(), largest);
  }
  MPI_Finalize();
  return largest == size - 1 ? 0 : 1;
}
