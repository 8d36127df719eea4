// The ucx provider's one-sided operations between two processes (the test forks; their worker
// addresses cross through pipes, their traffic goes over UCX's network transports): rank 1
// exposes 64 KiB and sends its key in a message; rank 0 reaches it, puts, gets, and runs 8- and
// 4-byte atomics (add, fetch, compare-and-swap that hits and one that misses, and, or, xor,
// swap), and checks what it reads back; bad requests (past the end, misaligned, a swap without a
// result) are refused naming the peer; after a flush rank 0 says so and rank 1 checks its own
// memory. Exits 0 when both processes passed, 1 naming the first mismatch otherwise, 77 when UCX
// cannot be loaded here.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "fabric/ucx/make.hpp"

namespace {

using namespace rmpl;

constexpr std::size_t memory_bytes = 64 * 1024;
constexpr std::size_t put_at = 1024, put_bytes = 4096;
constexpr std::size_t counter_at = 8192;  // 8-byte atomics
constexpr std::size_t small_at = 16384;   // 4-byte atomics
constexpr int tag_key = 1, tag_done = 2, tag_verified = 3;

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL (pid %d): %s\n", static_cast<int>(::getpid()), what.c_str());
    ++failures;
  }
}

struct message {
  int tag;
  std::vector<std::byte> payload;
};

/// Keeps what the provider reports.
struct recorder final : fabric::events {
  std::vector<message> messages;
  std::set<std::uint64_t> ended;
  std::string error;
  void arrived(const fabric::arrival& a) noexcept override {
    std::int32_t head[2] = {};
    std::memcpy(head, a.header.data(), std::min(a.header.size(), sizeof head));
    messages.push_back({head[1], std::vector<std::byte>(a.data, a.data + a.bytes)});
  }
  void sent(std::uint64_t cookie, int, const std::string& e) noexcept override { end(cookie, e); }
  void fetched(std::uint64_t cookie, const std::string& e) noexcept override { end(cookie, e); }
  void completed(std::uint64_t cookie, int, const std::string& e) noexcept override {
    end(cookie, e);
  }
  void peer_failed(int rank, const std::string& why) noexcept override {
    error = "peer " + std::to_string(rank) + " failed: " + why;
  }
  void end(std::uint64_t cookie, const std::string& e) {
    if (!e.empty()) error = e;
    ended.insert(cookie);
  }
};

class rank_process {
 public:
  explicit rank_process(int rank) : rank_(rank) {}
  /// Once the addresses have crossed.
  void start(std::unique_ptr<fabric::provider> p, std::vector<std::byte> peer_address) {
    p_ = std::move(p);
    peer_address_ = std::move(peer_address);
  }
  fabric::provider& p() { return *p_; }
  recorder& events() { return events_; }

  /// Progresses until `done()` or 10 s; false (and a failure) on timeout or a provider error.
  template <class F>
  bool until(F&& done, const std::string& what) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      p_->progress();
      if (!events_.error.empty()) {
        check(false, what + ": " + events_.error);
        return false;
      }
      if (std::chrono::steady_clock::now() > limit) {
        check(false, what + ": not within 10 s");
        return false;
      }
    }
    return true;
  }
  /// Waits for operation `cookie` unless `ended` says it is over already.
  void wait(bool ended, std::uint64_t cookie, const std::string& what) {
    if (!ended) until([&] { return events_.ended.count(cookie) != 0; }, what);
  }
  void send(int dest, int tag, std::span<const std::byte> payload) {
    const std::int32_t head[2] = {rank_, tag};
    const std::uint64_t cookie = next_cookie();
    wait(p_->send(dest, {reinterpret_cast<const std::byte*>(head), sizeof head}, payload.data(),
                  payload.size(), cookie, true),
         cookie, "a send");
    const std::uint64_t flushed = next_cookie();
    wait(p_->flush(dest, flushed), flushed, "a flush after a send");
  }
  std::vector<std::byte> receive(int tag) {
    std::vector<std::byte> payload;
    until(
        [&] {
          for (auto it = events_.messages.begin(); it != events_.messages.end(); ++it) {
            if (it->tag == tag) {
              payload = std::move(it->payload);
              events_.messages.erase(it);
              return true;
            }
          }
          return false;
        },
        "a message of tag " + std::to_string(tag));
    return payload;
  }
  std::uint64_t next_cookie() { return ++cookie_; }
  const std::vector<std::byte>& peer_address() const { return peer_address_; }

 private:
  int rank_;
  std::vector<std::byte> peer_address_;
  recorder events_;
  std::unique_ptr<fabric::provider> p_;
  std::uint64_t cookie_ = 0;
};

std::uint64_t word(std::size_t i) {
  return 0x1000 + i;
}
std::byte put_pattern(std::size_t i) {
  return static_cast<std::byte>(0xa5 ^ (i * 7));
}

/// Expects `f` to throw rmpl::error whose text has `text`.
template <class F>
void refused(F&& f, const std::string& text, const std::string& what) {
  try {
    f();
    check(false, what + ": was not refused");
  } catch (const rmpl::error& e) {
    check(std::string(e.what()).find(text) != std::string::npos,
          what + ": refused, but the message lacks '" + text + "': " + e.what());
  }
}

void run_target(rank_process& me) {
  std::vector<std::uint64_t> memory(memory_bytes / 8);
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = word(i);
  std::memset(reinterpret_cast<std::byte*>(memory.data()) + small_at, 0, 8);
  fabric::exposure e = me.p().expose(memory.data(), memory_bytes);
  me.send(0, tag_key, e.key);
  me.receive(tag_done);
  const auto* bytes = reinterpret_cast<const std::byte*>(memory.data());
  for (std::size_t i = 0; i < put_bytes; ++i) {
    if (bytes[put_at + i] != put_pattern(i)) {
      check(false, "target: byte " + std::to_string(put_at + i) + " is not what was put");
      break;
    }
  }
  check(memory[counter_at / 8] == 777,
        "target: the 8-byte counter is " + std::to_string(memory[counter_at / 8]) + ", not 777");
  std::uint32_t small = 0;
  std::memcpy(&small, bytes + small_at, 4);
  check(small == (((50u & 0xf0u) | 0x3u) ^ 0x10u),
        "target: the 4-byte word is " + std::to_string(small));
  check(memory[0] == word(0) && memory.back() == word(memory.size() - 1),
        "target: memory outside what was written changed");
  const std::byte verdict{static_cast<unsigned char>(failures == 0 ? 1 : 0)};
  me.send(0, tag_verified, {&verdict, 1});
  me.p().unexpose(e.handle);
}

void run_origin(rank_process& me) {
  const std::vector<std::byte> key = me.receive(tag_key);
  void* remote = me.p().reach(1, key);
  // put, flush (it is then in the target's memory), get it back with what surrounds it
  std::vector<std::byte> out(put_bytes);
  for (std::size_t i = 0; i < put_bytes; ++i) out[i] = put_pattern(i);
  std::uint64_t c = me.next_cookie();
  me.wait(me.p().put(1, remote, put_at, out.data(), put_bytes, c), c, "the put");
  c = me.next_cookie();
  me.wait(me.p().flush(1, c), c, "the flush after the put");
  std::vector<std::uint64_t> in(8192 / 8);
  c = me.next_cookie();
  me.wait(me.p().get(1, remote, 0, in.data(), 8192, c), c, "the get");
  const auto* got = reinterpret_cast<const std::byte*>(in.data());
  for (std::size_t i = 0; i < put_bytes; ++i) {
    if (got[put_at + i] != put_pattern(i)) {
      check(false, "origin: the get read byte " + std::to_string(put_at + i) + " wrong");
      break;
    }
  }
  for (std::size_t i : {std::size_t{0}, put_at / 8 - 1, (put_at + put_bytes) / 8, in.size() - 1}) {
    check(in[i] == word(i), "origin: the get read word " + std::to_string(i) + " as " +
                                std::to_string(in[i]) + ", not " + std::to_string(word(i)));
  }

  // 8-byte atomics: 100 adds in flight at once, then a fetch, a compare-and-swap that hits and
  // one that misses
  std::vector<std::uint64_t> cookies;
  for (int i = 0; i < 100; ++i) {
    c = me.next_cookie();
    if (!me.p().atomic(1, remote, counter_at, fabric::atomic_op::add, 8, 1, 0, nullptr, c))
      cookies.push_back(c);
  }
  me.until(
      [&] {
        for (std::uint64_t k : cookies) {
          if (me.events().ended.count(k) == 0) return false;
        }
        return true;
      },
      "100 atomic adds");
  std::uint64_t before = 0;
  c = me.next_cookie();
  me.wait(me.p().atomic(1, remote, counter_at, fabric::atomic_op::add, 8, 0, 0, &before, c), c,
          "a fetching add");
  const std::uint64_t expected = word(counter_at / 8) + 100;
  check(before == expected, "origin: after 100 adds the counter is " + std::to_string(before) +
                                ", not " + std::to_string(expected));
  c = me.next_cookie();
  me.wait(me.p().atomic(1, remote, counter_at, fabric::atomic_op::compare_swap, 8, 777, expected,
                        &before, c),
          c, "a compare-and-swap");
  check(before == expected, "origin: the compare-and-swap read " + std::to_string(before));
  c = me.next_cookie();
  me.wait(
      me.p().atomic(1, remote, counter_at, fabric::atomic_op::compare_swap, 8, 5, 1, &before, c), c,
      "a compare-and-swap that misses");
  check(before == 777, "origin: the missing compare-and-swap read " + std::to_string(before));

  // 4-byte atomics: 10 adds of 5, and, or, xor, then a swap that leaves it as it was
  for (int i = 0; i < 10; ++i) {
    c = me.next_cookie();
    me.wait(me.p().atomic(1, remote, small_at, fabric::atomic_op::add, 4, 5, 0, nullptr, c), c,
            "a 4-byte add");
  }
  std::uint32_t small = 0;
  const std::pair<fabric::atomic_op, std::uint64_t> steps[] = {
      {fabric::atomic_op::bitwise_and, 0xf0},
      {fabric::atomic_op::bitwise_or, 0x3},
      {fabric::atomic_op::bitwise_xor, 0x10}};
  for (auto [op, operand] : steps) {
    c = me.next_cookie();
    me.wait(me.p().atomic(1, remote, small_at, op, 4, operand, 0, &small, c), c,
            "a 4-byte bitwise atomic");
  }
  check(small == ((50u & 0xf0u) | 0x3u),
        "origin: before the xor the word was " + std::to_string(small));
  const std::uint32_t now = ((50u & 0xf0u) | 0x3u) ^ 0x10u;
  c = me.next_cookie();
  me.wait(me.p().atomic(1, remote, small_at, fabric::atomic_op::swap, 4, now, 0, &small, c), c,
          "a 4-byte swap");
  check(small == now, "origin: the swap read " + std::to_string(small));

  // bad requests, each named
  refused([&] { me.p().put(1, remote, memory_bytes - 8, out.data(), 16, me.next_cookie()); },
          "runs past its end", "a put past the end");
  refused([&] { me.p().get(1, remote, memory_bytes + 1, in.data(), 1, me.next_cookie()); },
          "runs past its end", "a get past the end");
  refused(
      [&] {
        me.p().atomic(1, remote, 4, fabric::atomic_op::add, 8, 1, 0, nullptr, me.next_cookie());
      },
      "aligned to their size", "a misaligned atomic");
  refused(
      [&] {
        me.p().atomic(1, remote, 0, fabric::atomic_op::swap, 8, 1, 0, nullptr, me.next_cookie());
      },
      "needs a result buffer", "a swap without a result");
  refused([&] { me.p().reach(1, std::span<const std::byte>(key.data(), 4)); },
          "is not a memory key", "a key too short");

  c = me.next_cookie();
  me.wait(me.p().flush(1, c), c, "the last flush");
  me.send(1, tag_done, {});
  const std::vector<std::byte> verdict = me.receive(tag_verified);
  check(verdict.size() == 1 && verdict[0] == std::byte{1}, "the target found its memory wrong");
  me.p().forget(remote);
}

/// Writes a length-prefixed blob to a pipe, or reads one.
void put_blob(int fd, const std::vector<std::byte>& b) {
  const std::uint32_t n = static_cast<std::uint32_t>(b.size());
  if (::write(fd, &n, sizeof n) != sizeof n ||
      ::write(fd, b.data(), b.size()) != static_cast<ssize_t>(b.size())) {
    std::perror("write");
    std::exit(1);
  }
}
std::vector<std::byte> get_blob(int fd) {
  std::uint32_t n = 0;
  if (::read(fd, &n, sizeof n) != sizeof n) return {};
  std::vector<std::byte> b(n);
  std::size_t have = 0;
  while (have < n) {
    const ssize_t r = ::read(fd, b.data() + have, n - have);
    if (r <= 0) return {};
    have += static_cast<std::size_t>(r);
  }
  return b;
}

int run(int rank, int to_peer, int from_peer) {
  try {
    rank_process me(rank);
    // The provider asks for the peer's address only when it first reaches it, after start().
    std::unique_ptr<fabric::provider> made = fabric::ucx::make_provider(
        rank, 2, me.events(), [&](int) { return std::span<const std::byte>(me.peer_address()); },
        [] {}, [](int r) { return "rank " + std::to_string(r); });
    put_blob(to_peer, made->address());
    std::vector<std::byte> peer_address = get_blob(from_peer);
    if (peer_address.empty()) {
      check(false, "no address from the peer");
      return 1;
    }
    me.start(std::move(made), std::move(peer_address));
    if (rank == 0)
      run_origin(me);
    else
      run_target(me);
    me.p().close();
  } catch (const rmpl::error& e) {
    if (std::string(e.what()).find("cannot be loaded") != std::string::npos) {
      std::printf("SKIPPED: %s\n", e.what());
      return 77;
    }
    check(false, std::string("rmpl::error: ") + e.what());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main() {
  int down[2], up[2];
  if (::pipe(down) != 0 || ::pipe(up) != 0) return 1;
  std::fflush(stdout);
  const pid_t child = ::fork();
  if (child < 0) return 1;
  if (child == 0) std::_Exit(run(1, up[1], down[0]));
  const int mine = run(0, down[1], up[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  const int theirs = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (mine == 77 || theirs == 77) return 77;
  if (mine != 0 || theirs != 0) {
    std::printf("ucx_one_sided_test: failed (origin %d, target %d)\n", mine, theirs);
    return 1;
  }
  std::printf("ucx_one_sided_test: put, get and atomics passed\n");
  return 0;
}
