// The interface of a message provider: what the kernel sees of a transport that reaches peers it
// shares no memory with (another host). It is at the level of active messages plus a fetch of data
// left at the sender (UCT's and Open MPI's BTL's level), not cells and shared words: the kernel
// hands it a header (core/envelope.hpp, opaque here) and a payload for a peer; arrivals come back
// through `events` with the header, and either the payload's bytes or a handle for a payload
// still in the sender's memory, which the kernel fetches straight into the receive buffer once a
// receive matches it (the seeds' receiver-initiated rendezvous). Matching, ordering and
// completion stay in the kernel (core/engine.hpp), one matcher for every provider.
//
// It also carries one-sided operations on memory a rank exposes (put, get, atomics: the seeds'
// one-sided layer made explicit, UCX's RMA and atomics), for user-level one-sided communication
// (MPI windows) to be built on.
//
// The shm provider (fabric/shm) is not behind this interface yet: it is the kernel's devirtualised
// fast path. A provider here is a folder (fabric/ucx) and one line in the engine's wire-up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rmpl::fabric {

/// A message that arrived: `header` and the payload are valid during the call only, except a
/// deferred payload, which stays at the sender until fetch() or drop() with `deferred`. Every
/// header begins with the sender's job rank (an int32): the provider checks it is a rank of the job
/// and reports it as `source`.
struct arrival {
  int source = -1;
  std::span<const std::byte> header;
  const std::byte* data = nullptr;  ///< the payload, or nullptr when deferred
  std::size_t bytes = 0;            ///< the payload's size (deferred or not)
  void* deferred = nullptr;         ///< the handle of a payload left at the sender
};

/// An atomic operation on a peer's exposed memory: on 4 or 8 bytes (an unsigned integer of the
/// target's byte order, which is this host's: the job's hosts share one architecture).
enum class atomic_op : std::uint8_t {
  add,           ///< target += operand
  bitwise_and,   ///< target &= operand
  bitwise_or,    ///< target |= operand
  bitwise_xor,   ///< target ^= operand
  swap,          ///< target = operand
  compare_swap,  ///< if target == compare: target = operand
};

/// Memory this rank exposed to its peers: `handle` for unexpose(), and the `key` a peer needs to
/// reach it (opaque bytes, to be sent to the peer by any means: a message, a card).
struct exposure {
  void* handle = nullptr;
  std::vector<std::byte> key;
};

/// What the kernel answers to its provider's events. Called from inside progress() only, often from
/// inside the provider's own library: they throw nothing.
class events {
 public:
  /// A message arrived.
  virtual void arrived(const arrival& a) noexcept = 0;
  /// A send (or flush) to `peer` ended: its payload is out of the caller's buffer (it may be
  /// reused). `error` is empty on success.
  virtual void sent(std::uint64_t cookie, int peer, const std::string& error) noexcept = 0;
  /// A fetch ended: the payload is in the buffer given to fetch().
  virtual void fetched(std::uint64_t cookie, const std::string& error) noexcept = 0;
  /// A one-sided operation (put, get, atomic) on `peer`'s memory ended: a put's source may be
  /// reused, a get's or a fetching atomic's result is in place. `error` is empty on success.
  virtual void completed(std::uint64_t cookie, int peer, const std::string& error) noexcept = 0;
  /// The provider lost `rank` (its process or its host): nothing more will come from it.
  virtual void peer_failed(int rank, const std::string& why) noexcept = 0;

 protected:
  ~events() = default;
};

class provider {
 public:
  virtual ~provider() = default;

  /// The provider's name ("ucx") and what rmpl-info prints of it: (name, value) lines.
  virtual std::string name() const = 0;
  virtual std::vector<std::pair<std::string, std::string>> describe() const = 0;
  /// This rank's address, for the runtime to publish to the job (peers connect to it on first use).
  virtual std::vector<std::byte> address() const = 0;

  /// Sends `header` and the `bytes` at `data` to `dest`. Returns true when the send has ended
  /// already (the payload is out of `data`; no sent() follows), false when it is in flight:
  /// sent(cookie) follows, and `header` and `data` must stay untouched until then. With `eager`
  /// the payload itself travels now, whatever its size, never a handle for the receiver to fetch
  /// (a buffered send: its sender has returned and may not call the library again for a while,
  /// and a fetch could need the sender's progress). Throws rmpl::error when the send cannot start
  /// (naming the peer).
  virtual bool send(int dest, std::span<const std::byte> header, const void* data,
                    std::size_t bytes, std::uint64_t cookie, bool eager) = 0;
  /// Waits for everything sent to `dest` so far to have arrived there (a first message waits while
  /// the endpoint is wired up). True when that is so already; otherwise sent(cookie) follows.
  virtual bool flush(int dest, std::uint64_t cookie) = 0;
  /// Fetches the deferred payload of an arrival (all its bytes) into `to`. True when it has ended
  /// already; otherwise fetched(cookie) follows. Throws rmpl::error when it cannot start.
  virtual bool fetch(void* deferred, void* to, std::size_t bytes, std::uint64_t cookie) = 0;
  /// Gives back a deferred payload that will never be fetched (its sender's send ends all the
  /// same).
  virtual void drop(void* deferred) noexcept = 0;

  /// Every endpoint the start wired up is up, at both ends (after the start's connect-all and its
  /// barrier): the provider may tidy what that made (the ucx provider marks the connections its
  /// library accepted close-on-exec).
  virtual void wired_up() noexcept = 0;
  // ---- one-sided ----
  // Each returns true when the operation has ended already (no completed() follows), false when it
  // is in flight (completed(cookie) follows, and its buffers must stay untouched until then); each
  // throws rmpl::error naming the peer when it cannot start. A put that ended has left its source;
  // it is in the target's memory once a flush() to that peer has ended after it.

  /// Exposes `bytes` at `base` to the job's peers (registers them with the network). Throws
  /// rmpl::error.
  virtual exposure expose(void* base, std::size_t bytes) = 0;
  /// Ends an exposure: peers may no longer reach it (their handles for it must be forgotten).
  virtual void unexpose(void* handle) noexcept = 0;
  /// `peer`'s exposed memory, from the key it sent: a handle for put, get and atomic, valid until
  /// forget(). Throws rmpl::error for a key that is not one.
  virtual void* reach(int peer, std::span<const std::byte> key) = 0;
  virtual void forget(void* remote) noexcept = 0;
  /// Copies `bytes` from `from` to byte `at` of `peer`'s memory `remote`.
  virtual bool put(int peer, void* remote, std::size_t at, const void* from, std::size_t bytes,
                   std::uint64_t cookie) = 0;
  /// Copies `bytes` from byte `at` of `peer`'s memory `remote` to `to`.
  virtual bool get(int peer, void* remote, std::size_t at, void* to, std::size_t bytes,
                   std::uint64_t cookie) = 0;
  /// Applies `op` with `operand` (and `compare`) to the `width` (4 or 8) bytes at byte `at` of
  /// `peer`'s memory `remote`, atomically with respect to every other atomic on them; if `result`
  /// is not null, the value before the operation is written there (compare_swap always needs it).
  virtual bool atomic(int peer, void* remote, std::size_t at, atomic_op op, std::size_t width,
                      std::uint64_t operand, std::uint64_t compare, void* result,
                      std::uint64_t cookie) = 0;

  /// Moves what is in flight; calls `events`. True if anything happened.
  virtual bool progress() = 0;
  /// Before the caller sleeps on its doorbell: arranges that the provider's next event rings it.
  /// False when events are pending already (progress instead of sleeping).
  virtual bool arm() = 0;
  /// Closes every endpoint once nothing is in flight any more (finalize, after the job's last
  /// barrier): errors from peers that leave are not failures from here on.
  virtual void close() noexcept = 0;
};

}  // namespace rmpl::fabric
