// Memory for what every collective allocates and frees once: its coroutine frames and its
// operation. A free list per 64-byte size class (up to 2 KiB, a few dozen blocks each) keeps
// malloc and free out of a collective's fixed cost; larger or surplus blocks go to the heap.
// Per thread, so that threads of one process never share a list.
#pragma once

#include <cstddef>

namespace rmpl::coll::recycled {

void* allocate(std::size_t bytes);
void release(void* block, std::size_t bytes) noexcept;

}  // namespace rmpl::coll::recycled
