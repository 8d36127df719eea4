// Two point-to-point requests waited for as one (MPI_Isendrecv): an activity of the engine that
// ends once both have completed, and whose result is the receive's status. Either may be null
// (an operation with MPI_PROC_NULL needs no kernel request); a null receive reports `no_receive`.
#pragma once

#include <exception>
#include <string>

#include "core/activity.hpp"
#include "core/engine.hpp"

namespace rmpl::core {

class request_pair final : public activity {
 public:
  request_pair(engine& e, request* send, request* recv, const status& no_receive) noexcept
      : engine_(e), send_(send), recv_(recv), result_(no_receive) {}
  request_pair(const request_pair&) = delete;
  request_pair& operator=(const request_pair&) = delete;

  bool advance() override {
    if (send_ != nullptr && !send_->done()) return false;
    if (recv_ == nullptr) return true;
    if (!recv_->done()) return false;
    // Both done: the receive's status, as its finish will give it (MPI_Request_get_status reads
    // it before the request is finished).
    result_ = recv_->result;
    if (recv_->source_ranks && result_.source >= 0)
      result_.source = (*recv_->source_ranks)[static_cast<std::size_t>(result_.source)];
    return true;
  }
  /// Takes both results (the engine frees both requests); rethrows the first failure.
  void rethrow_failure() override {
    std::exception_ptr first;
    for (request** r : {&send_, &recv_}) {
      if (*r == nullptr) continue;
      try {
        const status s = engine_.finish(*r);
        if (r == &recv_) result_ = s;
      } catch (...) {
        if (!first) first = std::current_exception();
      }
      *r = nullptr;
    }
    if (first) std::rethrow_exception(first);
  }
  status result() const override { return result_; }
  std::string describe() const override { return "send and receive"; }

 private:
  engine& engine_;
  request* send_;
  request* recv_;
  status result_;
};

}  // namespace rmpl::core
