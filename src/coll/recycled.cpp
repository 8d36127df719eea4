#include "coll/recycled.hpp"

#include <array>
#include <new>

namespace rmpl::coll::recycled {
namespace {

constexpr std::size_t granule = 64;
constexpr std::size_t classes = 32;  // blocks up to 2 KiB
constexpr unsigned kept_per_class = 32;

struct free_block {
  free_block* next;
};

struct free_lists {
  std::array<free_block*, classes> head{};
  std::array<unsigned, classes> count{};
  enum : unsigned char { unarmed, armed, drained } drain = unarmed;
};

// Trivially destructible and constant-initialised, with the initial-exec model: every use is a
// direct %fs-relative access. (A thread_local with a destructor needs a guard variable, which a
// shared library reaches through __tls_get_addr on every use: 4 calls per collective in libmpi.)
[[gnu::tls_model("initial-exec")]] constinit thread_local free_lists lists;

/// Gives the thread's kept blocks back to the heap when the thread ends.
struct drain_at_exit {
  ~drain_at_exit() {
    for (free_block*& first : lists.head) {
      for (free_block* b = first; b != nullptr;) {
        free_block* next = b->next;
        ::operator delete(b);
        b = next;
      }
      first = nullptr;
    }
    lists.count = {};
    lists.drain = free_lists::drained;  // blocks freed later (at exit) go straight to the heap
  }
};

/// Registers the drain once per thread, before the thread keeps its first block.
void arm_drain() {
  thread_local drain_at_exit drain;
  static_cast<void>(drain);
  lists.drain = free_lists::armed;
}

std::size_t class_of(std::size_t bytes) noexcept {
  return (bytes + granule - 1) / granule - 1;
}

}  // namespace

void* allocate(std::size_t bytes) {
  const std::size_t c = class_of(bytes);
  if (c >= classes) return ::operator new(bytes);
  if (free_block* b = lists.head[c]) {
    lists.head[c] = b->next;
    --lists.count[c];
    return b;
  }
  return ::operator new((c + 1) * granule);
}

void release(void* block, std::size_t bytes) noexcept {
  const std::size_t c = class_of(bytes);
  if (c >= classes || lists.count[c] >= kept_per_class || lists.drain == free_lists::drained) {
    ::operator delete(block);
    return;
  }
  if (lists.drain == free_lists::unarmed) arm_drain();
  auto* b = static_cast<free_block*>(block);
  b->next = lists.head[c];
  lists.head[c] = b;
  ++lists.count[c];
}

}  // namespace rmpl::coll::recycled
