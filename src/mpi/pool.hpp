// Where the layer's objects come from: a pool per kind whose objects live in the arena of
// handles.hpp, never returned while the process runs, so that any handle the layer ever issued
// still points at its memory. A freed object is reset and marked dead (so a stale handle is
// recognised) and becomes the next object of its kind.
#pragma once

#include <memory>
#include <new>
#include <vector>

#include "mpi/handles.hpp"
#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// Room for one more element in `v`, the capacity doubling (reserve(size + 1) would copy the
/// vector at every new object).
template <class V>
void make_room(V& v) {
  if (v.size() == v.capacity()) v.reserve(v.capacity() < 16 ? 16 : 2 * v.capacity());
}

template <class T>
class pool {
 public:
  pool() = default;
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;
  /// At exit: releases what the objects hold (their memory stays in the arena).
  ~pool() {
    for (T* t : all_) std::destroy_at(t);
  }

  /// A fresh, live object.
  T* make() {
    if (free_.empty()) {
      make_room(all_);  // before the object exists: nothing to undo if it throws
      T* t = new (arena_allocate(sizeof(T), alignof(T))) T{};
      all_.push_back(t);
      return t;
    }
    T* t = free_.back();
    free_.pop_back();
    *t = T{};
    return t;
  }
  /// Resets `t` (releasing what it holds), marks it dead and keeps it for reuse.
  void recycle(T* t) {
    *t = T{};
    t->tag = magic::dead;
    free_.push_back(t);
  }

 private:
  std::vector<T*> all_;
  std::vector<T*> free_;
};

}  // namespace rmpl::mpi
