// Where the layer's objects come from: a pool per kind that never returns memory to the heap while
// the process runs. A freed object is reset and marked dead (so a stale handle is recognised) and
// becomes the next object of its kind.
#pragma once

#include <memory>
#include <vector>

#include "mpi/objects.hpp"

namespace rmpl::mpi {

template <class T>
class pool {
 public:
  /// A fresh, live object.
  T* make() {
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>());
      return all_.back().get();
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
  std::vector<std::unique_ptr<T>> all_;
  std::vector<T*> free_;
};

}  // namespace rmpl::mpi
