// Posting a nonblocking receive allocates amortized O(1) memory (issue 22, item 24): a rank posts
// thousands of MPI_Irecv that nothing matches, and the library's heap allocations for them (counted
// by replacing the global operator new, which libmpi's C++ code uses) must stay a small constant
// per receive. Growing a pool by one element at a time (a vector reserved to its exact new size at
// every request) made each post allocate and free a block as large as all the requests so far:
// the bytes grew with the square of the receives outstanding, and the time went to brk and page
// faults. Reposting as many after they completed reuses the pool and allocates nothing.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "check.h"

namespace {
std::size_t calls = 0, bytes = 0;
bool counting = false;
}  // namespace

void* operator new(std::size_t n) {
  if (counting) {
    ++calls;
    bytes += n;
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  return operator new(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace {

constexpr int posted = 8000;
constexpr int unmatched_tag = 4242;  // no rank sends it

// Posts `posted` receives from any source, counting what the posts allocate, then cancels them.
void post_and_cancel(std::vector<MPI_Request>& rs, std::vector<int>& in, std::size_t& n_calls,
                     std::size_t& n_bytes) {
  calls = bytes = 0;
  counting = true;
  for (int i = 0; i < posted; ++i) {
    CHECK_MPI(MPI_Irecv(&in[static_cast<std::size_t>(i)], 1, MPI_INT, MPI_ANY_SOURCE, unmatched_tag,
                        MPI_COMM_WORLD, &rs[static_cast<std::size_t>(i)]));
  }
  counting = false;
  n_calls = calls;
  n_bytes = bytes;
  for (auto& r : rs) CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Waitall(posted, rs.data(), MPI_STATUSES_IGNORE));
}

}  // namespace

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  std::vector<MPI_Request> rs(posted);
  std::vector<int> in(posted);
  std::size_t first_calls = 0, first_bytes = 0, again_calls = 0, again_bytes = 0;
  post_and_cancel(rs, in, first_calls, first_bytes);
  // A request of the MPI layer and one of the kernel take a few hundred bytes together; 1 KiB per
  // receive and one allocation per receive leave room for the pools' geometric growth.
  CHECK(first_bytes <= std::size_t{1024} * posted && first_calls <= std::size_t{posted},
        "posting %d receives allocated %zu bytes in %zu calls (%.1f bytes and %.2f calls per "
        "receive; at most 1024 and 1 expected)",
        posted, first_bytes, first_calls, double(first_bytes) / posted,
        double(first_calls) / posted);
  post_and_cancel(rs, in, again_calls, again_bytes);
  CHECK(again_calls <= 16,
        "posting %d receives again after the first %d completed allocated %zu bytes in %zu calls; "
        "the pools should have reused the first ones' requests",
        posted, posted, again_bytes, again_calls);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
