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
  ~free_lists() {
    for (free_block* b : head) {
      while (b != nullptr) {
        free_block* next = b->next;
        ::operator delete(b);
        b = next;
      }
    }
  }
};

// initial-exec: a direct %fs-relative access instead of a call to __tls_get_addr per use.
[[gnu::tls_model("initial-exec")]] thread_local free_lists lists;

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
  if (c >= classes || lists.count[c] >= kept_per_class) {
    ::operator delete(block);
    return;
  }
  auto* b = static_cast<free_block*>(block);
  b->next = lists.head[c];
  lists.head[c] = b;
  ++lists.count[c];
}

}  // namespace rmpl::coll::recycled
