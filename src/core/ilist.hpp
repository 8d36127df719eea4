// An intrusive doubly-linked list: queues of requests and unexpected messages link their own
// elements, so posting, matching and cancelling never allocate.
#pragma once

namespace rmpl::core {

template <class T>
class ilist {
 public:
  bool empty() const noexcept { return head_ == nullptr; }
  T* front() const noexcept { return head_; }
  void push_back(T* t) noexcept {
    t->next = nullptr;
    t->prev = tail_;
    if (tail_)
      tail_->next = t;
    else
      head_ = t;
    tail_ = t;
  }
  void erase(T* t) noexcept {
    if (t->prev)
      t->prev->next = t->next;
    else
      head_ = t->next;
    if (t->next)
      t->next->prev = t->prev;
    else
      tail_ = t->prev;
    t->next = t->prev = nullptr;
  }
  template <class F>
  T* find(F&& pred) const {
    for (T* t = head_; t; t = t->next)
      if (pred(*t)) return t;
    return nullptr;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
};

}  // namespace rmpl::core
