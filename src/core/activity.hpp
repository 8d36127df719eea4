// Work the progress engine moves on besides messages: a collective operation in flight. The coll
// layer implements it (an algorithm written as a coroutine over point-to-point requests); the
// engine only advances it after each pass over the rings, and completes its request when it is
// done, so collectives are waited, tested and mixed with point-to-point requests like any other.
#pragma once

#include <string>

#include "rmpl/types.hpp"

namespace rmpl::core {

class activity {
 public:
  virtual ~activity() = default;
  /// Moves the work on as far as it can without blocking; true once it has ended (well or not).
  virtual bool advance() = 0;
  /// Throws the error that ended the work, if one did.
  virtual void rethrow_failure() = 0;
  /// What its request reports once it has ended well (after rethrow_failure): nothing for a
  /// collective, a receive's status for a pair of requests (core/request_pair.hpp).
  virtual status result() const { return {}; }
  /// "allreduce (ring) of 800 bytes on a communicator of 4": names the work in error messages.
  virtual std::string describe() const = 0;
};

}  // namespace rmpl::core
