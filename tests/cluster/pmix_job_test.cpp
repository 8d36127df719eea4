// runtime::pmix::job under a PMIx server (Open MPI's mpirun in the tests: tests/CMakeLists.txt):
// rank and size as the launcher gave them, every rank's host, this host's ranks, a key-value
// exchange where each rank reads every other rank's value, and a barrier. Prints what failed and
// exits 1; exits 77 (skipped) when no PMIx server started it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/pmix/job.hpp"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "pmix_job_test: %s\n", what.c_str());
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

std::string value_of(int rank) {
  // Sizes differ by rank (and one is empty), so that a value read from the wrong rank shows.
  return rank == 1 ? std::string() : "rank " + std::to_string(rank) + std::string(rank * 7, '*');
}

}  // namespace

int main() {
  if (!rmpl::runtime::pmix::started_by_server()) {
    std::fprintf(stderr, "pmix_job_test: SKIPPED: not started by a PMIx server\n");
    return 77;
  }
  try {
    rmpl::runtime::pmix::job job;
    const int rank = job.rank(), size = job.size();
    // Open MPI's mpirun also says who the process is in its own variables: they must agree.
    check(rank == env_int("OMPI_COMM_WORLD_RANK", rank),
          "rank " + std::to_string(rank) + " but OMPI_COMM_WORLD_RANK says otherwise");
    check(size == env_int("OMPI_COMM_WORLD_SIZE", size),
          "size " + std::to_string(size) + " but OMPI_COMM_WORLD_SIZE says otherwise");
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string mine = job.hosts()[static_cast<std::size_t>(job.host_of(rank))];
    check(mine == host, "rank " + std::to_string(rank) + " is on '" + mine + "', not on '" + host +
                            "' where it runs");
    // Every rank on this host is listed as local, and only those.
    std::vector<int> expected;
    for (int r = 0; r < size; ++r) {
      if (job.host_of(r) == job.host_of(rank)) expected.push_back(r);
    }
    check(job.local_ranks() == expected,
          "the local ranks disagree with the hosts of the ranks on rank " + std::to_string(rank));

    const std::string v = value_of(rank);
    job.put("rmpl.test.value", std::as_bytes(std::span(v.data(), v.size())));
    job.fence();
    for (int r = 0; r < size; ++r) {
      const std::vector<std::byte> got = job.get(r, "rmpl.test.value");
      const std::string want = value_of(r);
      check(got.size() == want.size() && std::memcmp(got.data(), want.data(), want.size()) == 0,
            "rank " + std::to_string(rank) + " read the wrong value of rank " + std::to_string(r));
    }
    // A key nobody put is an error that names the rank and the key.
    try {
      (void)job.get((rank + 1) % size, "rmpl.test.absent");
      check(false, "a missing key was found");
    } catch (const std::exception& e) {
      check(std::strstr(e.what(), "rmpl.test.absent") != nullptr,
            std::string("the missing key's error does not name it: ") + e.what());
    }
    job.barrier();
    if (rank == 0 && failures == 0) {
      std::printf("pmix_job_test: %d ranks on %zu host(s) (%s), %zu on this one; exchange ok\n",
                  size, job.hosts().size(), job.name().c_str(), job.local_ranks().size());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pmix_job_test: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
