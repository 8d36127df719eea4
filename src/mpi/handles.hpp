// Whether a handle is one of the layer's objects, decided without reading the memory it points at
// (issue 22, item 18): a handle is a pointer, and a wild one (garbage, a small integer, unmapped
// or freed memory) must be an error of its class, not a crash, even under MPI_ERRORS_RETURN.
//
// Every object the layer makes comes from one arena, a range of address space the layer reserves
// and owns (pool.hpp); the predefined objects are statics at link-time addresses. A handle is
// the layer's when its address lies in the arena or next to the predefined
// objects (in the same loaded segment, so mapped): only then is its magic word read. The test is
// two subtractions and compares, inline on every call's path; what they miss (a predefined object
// that a program's copy relocation moved away from the others, a null handle) goes to an exact
// lookup out of line, on the general path only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// The address ranges the inline test accepts (handles.cpp). Written once, when the library is
/// loaded, and never again.
struct handle_ranges {
  std::uintptr_t predefined = 0;  ///< first byte of the predefined objects by MPI_COMM_WORLD
  std::uintptr_t predefined_bytes = 0;
  std::uintptr_t arena = 0;        ///< first byte of the arena of made objects
  std::uintptr_t arena_bytes = 0;  ///< all of it (readable)
};
[[gnu::visibility("hidden")]] extern handle_ranges object_ranges;

/// Whether `p` is the address of a predefined object the inline ranges do not cover.
[[gnu::cold]] bool predefined_elsewhere(const void* p) noexcept;

/// Whether `p` lies in the inline ranges: two subtractions and compares, and no call, so that a
/// fast path keeps its registers. A fast path that finds a handle outside them takes the general
/// path, whose checks (owned) also make the exact test.
inline bool in_ranges(const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a - object_ranges.predefined < object_ranges.predefined_bytes ||
         a - object_ranges.arena < object_ranges.arena_bytes;
}

/// Whether `p` lies in memory of the layer's objects, so that its magic word may be read.
inline bool owned(const void* p) noexcept {
  return in_ranges(p) || predefined_elsewhere(p);
}

/// Whether `p` is a live object with magic word `kind` (not null, not freed, not wild).
template <class T>
inline bool live_object(const T* p, magic kind) noexcept {
  return owned(p) && p->tag == kind;
}

/// live_object() for the fast paths: false also for the few live objects outside the inline
/// ranges, which the general path then accepts.
template <class T>
inline bool fast_live_object(const T* p, magic kind) noexcept {
  return in_ranges(p) && p->tag == kind;
}

/// `bytes` of arena memory for one object, aligned to `alignment` (at most 64): never returned,
/// so that a stale handle still points at the layer's memory. Throws std::bad_alloc when the
/// arena's reservation is used up.
void* arena_allocate(std::size_t bytes, std::size_t alignment);

}  // namespace rmpl::mpi
