// An intrusive doubly-linked list: queues of requests and unexpected messages link their own
// elements, so posting, matching and cancelling never allocate. Next and Prev name the links, so
// that an element can be on two lists at once (an unexpected message is on its source's list and
// on its context's list of every source, both in arrival order).
#pragma once

namespace rmpl::core {

template <class T, T* T::*Next = &T::next, T* T::*Prev = &T::prev>
class ilist {
 public:
  bool empty() const noexcept { return head_ == nullptr; }
  T* front() const noexcept { return head_; }
  void push_back(T* t) noexcept {
    t->*Next = nullptr;
    t->*Prev = tail_;
    if (tail_)
      tail_->*Next = t;
    else
      head_ = t;
    tail_ = t;
  }
  void erase(T* t) noexcept {
    if (t->*Prev)
      (t->*Prev)->*Next = t->*Next;
    else
      head_ = t->*Next;
    if (t->*Next)
      (t->*Next)->*Prev = t->*Prev;
    else
      tail_ = t->*Prev;
    t->*Next = nullptr;
    t->*Prev = nullptr;
  }
  template <class F>
  T* find(F&& pred) const {
    for (T* t = head_; t; t = t->*Next)
      if (pred(*t)) return t;
    return nullptr;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
};

}  // namespace rmpl::core
