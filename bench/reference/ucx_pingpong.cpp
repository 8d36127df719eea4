// UCX reference: what UCX alone delivers between two processes, with no library above it: the bar
// that rmpl's UCX provider is measured against, as raw_put.cpp is for shared memory. Plain C++ over
// UCP (no rmpl, no MPI, no sockets of our own), so it builds on its own:
//   g++ -std=c++20 -O2 bench/reference/ucx_pingpong.cpp $(pkg-config --cflags --libs ucx)
//
// Two processes started separately, possibly on different hosts (scripts/hosts makes them on one
// machine), meet through a directory both can see: each writes its UCP worker address to
// DIR/<role>.addr (under a temporary name first, then renamed, so a reader never sees half a file)
// and waits for the other's. The reader removes the peer's file once it has it, and each side
// removes its own at exit, error exits included, if still there, so a file present in DIR is one
// nobody has read yet; only a process killed before its peer read its file leaves a stale one, and
// the connection to it fails with an error that says so (a fresh directory per run avoids that).
//
// One UCP context (active messages only), one worker per process (single-threaded), one endpoint to
// the peer's worker address with peer error handling, so that a peer that dies ends this process
// with an error at once rather than a hang (a cut link, with the per-wait timeout). UCX 1.13 has no
// peer failure handler in its shared-memory transports (posix, sysv, self), so with it two
// processes on one machine talk TCP over loopback whatever UCX_TLS allows; --error-handling none
// lets UCX take shared memory. Namespace hosts (scripts/hosts) share one kernel, /dev/shm and the
// process space, so UCX takes them for one machine: set UCX_TLS=tcp to measure their link.
// Everything travels as active messages
// (ucp_am_send_nbx): data messages carry the payload and no header; control messages (the client's
// plan for each phase, the server's acknowledgements) carry a small header and no payload. A data
// message arrives either eagerly, its bytes in the callback, which copies them into the receive
// buffer (a receive must deliver into the user's memory: that copy is part of what a library pays),
// or as a rendezvous (UCP_AM_RECV_ATTR_FLAG_RNDV), which the callback starts with
// ucp_am_recv_data_nbx straight into the same buffer; the message counts as arrived when its bytes
// are there. Every wait busy-polls ucp_worker_progress, as a latency benchmark should, and gives up
// with an error naming what it waited for after --timeout seconds without it.
//
// The client drives: for each size it tells the server what comes (so the server needs no options
// but its role and directory), then
//   latency    --warmup + --iterations round trips: the client sends size bytes, the server sends
//              the bytes it received back; latency_us = round trip / 2, over the timed ones. Above
//              64 KiB the counts shrink in proportion to the size (at least 10 timed, 2 warm-up),
//              so a large size costs about as many bytes as 64 KiB does;
//   bandwidth  windows of 64 sends of size bytes posted at once (all from one buffer, all into one
//              receive buffer, as OSU's osu_bw does); the server acknowledges each whole window
//              with a control message and the client posts the next window once it has the
//              acknowledgement and all its sends are complete. --windows timed windows (default 20)
//              at 64 KiB and above, more below it (64 KiB / size times as many, from 1 KiB down),
//              after a tenth as many warm-up windows; bandwidth_MBps = payload bytes of the timed
//              windows / their time, in 10^6 bytes per second. Skipped at 0 bytes (printed as 0).
// After each phase the receiver checks the last message's bytes against the pattern the client
// sent (untimed). The client prints, on stdout:
//   # rmpl-bench-ucx-pingpong: UCX <version>, transports <UCX_TLS or default>, ...
//   # size latency_us bandwidth_MBps
//   <size> <latency_us> <bandwidth_MBps>          one line per size, ascending
// and the server prints one line, "# server: ... done", when the client said goodbye. Exit status
// 0 when everything ran and checked out, 1 on any error (message on stderr), 2 on a bad option.
//
// --transports LIST sets UCX_TLS before UCX reads its configuration (so it replaces UCX_TLS from
// the environment); other UCX settings come from the environment as usual (UCX_NET_DEVICES, ...).
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace {

constexpr const char* program = "rmpl-bench-ucx-pingpong";
constexpr std::size_t window = 64;              // sends in flight per bandwidth window
constexpr std::size_t scale_above = 64 * 1024;  // sizes above this run fewer round trips
constexpr std::size_t max_size = std::size_t{1} << 30;
// First line of an address file: tells a wrong or truncated file from a worker address.
constexpr std::string_view address_magic = "rmpl-ucx-pingpong worker address v1\n";

// Active message ids. Control messages are header only; data messages payload only.
constexpr unsigned am_data = 0;
constexpr unsigned am_control = 1;

enum class control_kind : std::uint32_t {
  hello = 1,    // client -> server: size = the largest message to come (the receive buffer's)
  hello_ack,    // server -> client: ready
  latency,      // client -> server: count round trips of size bytes follow
  bandwidth,    // client -> server: count windows of `window` messages of size bytes follow
  window_ack,   // server -> client: a whole window arrived
  goodbye,      // client -> server: nothing more follows
  goodbye_ack,  // server -> client: the server has seen everything; both close
};

struct control {
  control_kind kind;
  std::uint32_t reserved = 0;
  std::uint64_t size = 0;
  std::uint64_t count = 0;
};

const char* kind_name(control_kind k) {
  constexpr const char* names[] = {"hello",      "hello_ack", "latency",    "bandwidth",
                                   "window_ack", "goodbye",   "goodbye_ack"};
  const auto i = static_cast<std::size_t>(k) - 1;  // kinds count from 1
  return i < std::size(names) ? names[i] : "an unknown kind";
}

// Removed by die() too, so that an aborted run does not leave an address nobody will answer at.
std::string own_address_file;

[[noreturn]] void die(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", program, what.c_str());
  if (!own_address_file.empty()) std::remove(own_address_file.c_str());
  std::exit(1);
}

void check(ucs_status_t status, const char* call) {
  if (status != UCS_OK) die(std::string(call) + " failed: " + ucs_status_string(status));
}

// Byte i of a message of `size` bytes; the higher bits of i take part so that a block landing at
// the wrong offset is caught, not just a wrong byte.
inline unsigned char pattern(std::size_t size, std::size_t i) {
  return static_cast<unsigned char>(i + (i >> 8) * 3 + (i >> 16) * 5 + (i >> 24) * 7 + size * 13 +
                                    1);
}

struct options {
  std::string dir;
  std::string role;  // "server" or "client"
  std::vector<std::size_t> sizes{0, 8, 64, 512, 4096, 65536, 1048576};
  std::uint64_t iterations = 1000;
  std::uint64_t warmup = 100;
  std::uint64_t windows = 20;
  std::string transports;  // empty: UCX_TLS from the environment, or UCX's default
  double timeout_s = 60;
  bool peer_errors = true;  // UCP_ERR_HANDLING_MODE_PEER; false: NONE
  bool verbose = false;
};

[[noreturn]] void usage(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "%s: %s\n", program, problem.c_str());
  std::fprintf(
      stderr,
      "usage: %s --rendezvous DIR --role server|client [--sizes 0,8,64,...]\n"
      "       [--iterations N] [--warmup N] [--windows N] [--transports LIST]\n"
      "       [--timeout S] [--error-handling peer|none] [--verbose]\n"
      "  --rendezvous DIR   directory both processes see; each writes DIR/<role>.addr\n"
      "  --role             start one server and one client (either first)\n"
      "  --sizes            message sizes in bytes (client; default "
      "0,8,64,512,4096,65536,1048576)\n"
      "  --iterations N     timed round trips per size (client; default 1000, fewer above "
      "64 KiB)\n"
      "  --warmup N         untimed round trips first (client; default 100)\n"
      "  --windows N        timed bandwidth windows of %zu sends at 64 KiB and above, more\n"
      "                     below (client; default 20; 0: no bandwidth test)\n"
      "  --transports LIST  sets UCX_TLS (e.g. tcp, or shm,tcp) before UCX reads its "
      "configuration\n"
      "  --timeout S        give up when a wait (for the peer's address, a message, a\n"
      "                     completion) takes longer (default 60)\n"
      "  --error-handling   peer (default): a dead peer is an error, not a hang; none: "
      "also allows\n"
      "                     UCX 1.13's shared-memory transports, which cannot detect one\n"
      "  --verbose          print the endpoint's UCX configuration (lanes, transports) "
      "on stderr\n",
      program, window);
  std::exit(problem.empty() ? 0 : 2);
}

std::uint64_t parse_count(std::string_view option, std::string_view value, std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v > max) {
    usage(std::string(option) + " takes a whole number up to " + std::to_string(max) + ", not '" +
          std::string(value) + "'");
  }
  return v;
}

std::vector<std::size_t> parse_sizes(std::string_view value) {
  std::vector<std::size_t> sizes;
  for (;;) {
    const std::size_t len = std::min(value.find(','), value.size());
    sizes.push_back(parse_count("--sizes", value.substr(0, len), max_size));
    if (len == value.size()) break;
    value.remove_prefix(len + 1);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") usage("");
    if (arg == "--verbose") {
      o.verbose = true;
      continue;
    }
    if (i + 1 >= argc) usage(std::string(arg) + " needs a value, or is not an option");
    const std::string_view value = argv[++i];
    if (arg == "--rendezvous") {
      o.dir = value;
    } else if (arg == "--role") {
      if (value != "server" && value != "client") {
        usage("--role is server or client, not '" + std::string(value) + "'");
      }
      o.role = value;
    } else if (arg == "--sizes") {
      o.sizes = parse_sizes(value);
    } else if (arg == "--iterations") {
      o.iterations = parse_count(arg, value, 1'000'000'000);
      if (o.iterations == 0) usage("--iterations must be at least 1");
    } else if (arg == "--warmup") {
      o.warmup = parse_count(arg, value, 1'000'000'000);
    } else if (arg == "--windows") {
      o.windows = parse_count(arg, value, 1'000'000);
    } else if (arg == "--transports") {
      if (value.empty()) usage("--transports needs a list such as tcp or shm,tcp");
      o.transports = value;
    } else if (arg == "--error-handling") {
      if (value != "peer" && value != "none") {
        usage("--error-handling is peer or none, not '" + std::string(value) + "'");
      }
      o.peer_errors = value == "peer";
    } else if (arg == "--timeout") {
      o.timeout_s = parse_count(arg, value, 86400);
      if (o.timeout_s == 0) usage("--timeout must be at least 1 second");
    } else {
      usage("unknown option '" + std::string(arg) + "'");
    }
  }
  if (o.dir.empty()) usage("--rendezvous DIR is required");
  if (o.role.empty()) usage("--role server|client is required");
  return o;
}

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// ---- the address files ----

std::string address_file(const std::string& dir, const std::string& role) {
  return dir + "/" + role + ".addr";
}

void publish_address(const std::string& path, const void* address, std::size_t length) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(address_magic.data(), static_cast<std::streamsize>(address_magic.size()));
    out.write(static_cast<const char*>(address), static_cast<std::streamsize>(length));
    out.close();
    if (!out) {
      std::remove(temp.c_str());
      die("could not write the worker address to " + temp + ": " + std::strerror(errno) +
          " (does the --rendezvous directory exist, and is it writable?)");
    }
  }
  // rename replaces any stale file of an earlier run at once, and a reader sees either no file or
  // all of this one.
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    die("could not rename " + temp + " to " + path + ": " + std::strerror(err));
  }
  own_address_file = path;
}

std::vector<char> await_address(const std::string& path, const std::string& peer_role,
                                const options& o) {
  const auto t0 = clock_type::now();
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      if (bytes.size() <= address_magic.size() ||
          std::string_view(bytes.data(), address_magic.size()) != address_magic) {
        die(path + " is not a worker address written by " + program + " (" +
            std::to_string(bytes.size()) + " bytes); remove it, or use another directory");
      }
      // Read: the file has served its purpose, and leaving it would let a later run take it for a
      // live peer.
      if (std::remove(path.c_str()) != 0 && errno != ENOENT) {
        die("could not remove " + path + " after reading it: " + std::strerror(errno));
      }
      bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(address_magic.size()));
      return bytes;
    }
    if (seconds_since(t0) > o.timeout_s) {
      die("no " + peer_role + " address in " + path + " after " + std::to_string(int(o.timeout_s)) +
          " s: start the " + peer_role + " with --role " + peer_role + " --rendezvous " + o.dir +
          " (the same directory, on a file system both hosts share), or see the " + peer_role +
          "'s own error if it stopped");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// ---- the UCP side ----

struct peer {
  ucp_worker_h worker = nullptr;
  ucp_ep_h ep = nullptr;
  std::string peer_role;
  std::string peer_address_file;
  double timeout_s = 60;

  std::vector<unsigned char> recv_buffer;  // data messages land here, eager or rendezvous
  std::uint64_t data_arrived = 0;          // data messages whose bytes are in recv_buffer
  std::deque<control> controls;            // control messages not yet taken, in arrival order
  // Headers of control messages sent: UCX 1.13 reads a send's header until the send completes (it
  // has no flag to copy it at once), so each stays here, where a deque never moves it, until
  // every send is complete.
  std::deque<control> sent_headers;
  std::uint64_t sends_posted = 0;
  std::uint64_t sends_done = 0;

  // Set by callbacks (which must not die inside UCX's progress), acted on by wait().
  std::string failure;
  ucs_status_t peer_status = UCS_OK;  // from the endpoint's error handler
  bool closing = false;               // after the goodbye, the peer going away is expected

  void fail(std::string what) {
    if (failure.empty()) failure = std::move(what);
  }
};

void on_send_done(void* request, ucs_status_t status, void* user_data) {
  auto& p = *static_cast<peer*>(user_data);
  if (status != UCS_OK) {
    p.fail(std::string("a send (ucp_am_send_nbx) completed with ") + ucs_status_string(status));
  }
  ++p.sends_done;
  ucp_request_free(request);
}

void on_rendezvous_received(void* request, ucs_status_t status, std::size_t length,
                            void* user_data) {
  auto& p = *static_cast<peer*>(user_data);
  if (status != UCS_OK) {
    p.fail(std::string("a rendezvous receive (ucp_am_recv_data_nbx) completed with ") +
           ucs_status_string(status) + " (" + std::to_string(length) + " bytes)");
  } else {
    ++p.data_arrived;
  }
  ucp_request_free(request);
}

ucs_status_t on_data(void* arg, const void* /*header*/, std::size_t /*header_length*/, void* data,
                     std::size_t length, const ucp_am_recv_param_t* param) {
  auto& p = *static_cast<peer*>(arg);
  const bool rendezvous = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  if (length > p.recv_buffer.size()) {
    p.fail("a data message of " + std::to_string(length) + " bytes arrived; the receive buffer " +
           "holds " + std::to_string(p.recv_buffer.size()) + " (the client's plan said less)");
    // A rendezvous refused with an error status fails the sender's send too.
    return rendezvous ? UCS_ERR_MESSAGE_TRUNCATED : UCS_OK;
  }
  if (!rendezvous) {
    if (length > 0) std::memcpy(p.recv_buffer.data(), data, length);
    ++p.data_arrived;
    return UCS_OK;
  }
  // Only a descriptor so far: fetch the bytes straight into the receive buffer.
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.recv_am = on_rendezvous_received;
  rp.user_data = &p;
  const ucs_status_ptr_t request =
      ucp_am_recv_data_nbx(p.worker, data, p.recv_buffer.data(), length, &rp);
  if (UCS_PTR_IS_ERR(request)) {
    // UCP owns the descriptor even when the call fails (ucp.h), so there is nothing to release.
    p.fail(std::string("ucp_am_recv_data_nbx failed: ") +
           ucs_status_string(UCS_PTR_STATUS(request)));
    return UCS_OK;
  }
  if (request == nullptr) ++p.data_arrived;  // completed at once; no callback follows
  // The descriptor now belongs to the receive just started (ucp.h: "data receive is initiated by
  // ucp_am_recv_data_nbx").
  return UCS_INPROGRESS;
}

ucs_status_t on_control(void* arg, const void* header, std::size_t header_length, void* /*data*/,
                        std::size_t length, const ucp_am_recv_param_t* param) {
  auto& p = *static_cast<peer*>(arg);
  if (header_length != sizeof(control) || length != 0 ||
      (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
    p.fail("a control message with a " + std::to_string(header_length) + "-byte header and " +
           std::to_string(length) + " bytes of data arrived; expected a " +
           std::to_string(sizeof(control)) + "-byte header alone (is the peer this program?)");
    return UCS_OK;
  }
  control c;
  std::memcpy(&c, header, sizeof c);
  p.controls.push_back(c);
  return UCS_OK;
}

void on_peer_error(void* arg, ucp_ep_h /*ep*/, ucs_status_t status) {
  auto& p = *static_cast<peer*>(arg);
  if (p.peer_status == UCS_OK) p.peer_status = status;
}

[[noreturn]] void die_peer_failed(const peer& p) {
  die("the connection to the " + p.peer_role + " failed: " + ucs_status_string(p.peer_status) +
      " (the " + p.peer_role + " exited or its host is unreachable; if it never started, " +
      p.peer_address_file + " was stale, left by an earlier run: use a fresh --rendezvous " +
      "directory)");
}

/// Progresses the worker until done() holds; dies on a callback's failure, a failed peer, or
/// after timeout_s seconds, naming `what` it waited for.
template <class Done>
void wait(peer& p, const char* what, Done&& done) {
  const auto t0 = clock_type::now();
  for (unsigned polls = 0; !done(); ++polls) {
    ucp_worker_progress(p.worker);
    if (!p.failure.empty()) die(p.failure);
    if (p.peer_status != UCS_OK && !p.closing) die_peer_failed(p);
    if (polls % 64 == 63 && seconds_since(t0) > p.timeout_s) {
      die(std::string("timed out after ") + std::to_string(int(p.timeout_s)) + " s waiting for " +
          what + " from the " + p.peer_role);
    }
  }
}

void send(peer& p, unsigned id, const control* header, const void* data, std::size_t length) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.send = on_send_done;
  rp.user_data = &p;
  ++p.sends_posted;
  const ucs_status_ptr_t request =
      ucp_am_send_nbx(p.ep, id, header, header != nullptr ? sizeof(control) : 0, data, length, &rp);
  if (UCS_PTR_IS_ERR(request)) {
    if (p.peer_status != UCS_OK) die_peer_failed(p);
    die(std::string("ucp_am_send_nbx (") + (id == am_data ? "data" : "control") + ", " +
        std::to_string(length) + " bytes) failed: " + ucs_status_string(UCS_PTR_STATUS(request)));
  }
  if (request == nullptr) ++p.sends_done;  // completed at once; no callback follows
}

void send_control(peer& p, control_kind kind, std::uint64_t size = 0, std::uint64_t count = 0) {
  if (p.sends_done == p.sends_posted) p.sent_headers.clear();
  p.sent_headers.push_back(control{kind, 0, size, count});
  send(p, am_control, &p.sent_headers.back(), nullptr, 0);
}

void wait_sends(peer& p, const char* what) {
  wait(p, what, [&] { return p.sends_done == p.sends_posted; });
}

control take_control(peer& p, const char* what) {
  wait(p, what, [&] { return !p.controls.empty(); });
  const control c = p.controls.front();
  p.controls.pop_front();
  return c;
}

void expect_control(peer& p, control_kind kind) {
  const control c = take_control(p, kind_name(kind));
  if (c.kind != kind) {
    die(std::string("protocol error: expected ") + kind_name(kind) + " from the " + p.peer_role +
        ", got " + kind_name(c.kind) + " (" + std::to_string(static_cast<unsigned>(c.kind)) + ")");
  }
}

void check_pattern(const peer& p, std::size_t size, const char* phase) {
  for (std::size_t i = 0; i < size; ++i) {
    if (p.recv_buffer[i] != pattern(size, i)) {
      die(std::string(phase) + " at " + std::to_string(size) + " bytes: byte " + std::to_string(i) +
          " of the last message received is " + std::to_string(p.recv_buffer[i]) + ", expected " +
          std::to_string(pattern(size, i)));
    }
  }
}

// ---- the two roles ----

struct counts {
  std::uint64_t warmup;
  std::uint64_t timed;
};

counts latency_counts(const options& o, std::size_t size) {
  if (size <= scale_above) return {o.warmup, o.iterations};
  const double shrink = static_cast<double>(scale_above) / static_cast<double>(size);
  const auto scaled = [&](std::uint64_t n, std::uint64_t at_least) {
    const auto s = static_cast<std::uint64_t>(static_cast<double>(n) * shrink);
    return std::max(s, std::min(n, at_least));
  };
  return {scaled(o.warmup, 2), scaled(o.iterations, 10)};
}

counts bandwidth_counts(const options& o, std::size_t size) {
  const std::uint64_t grow =
      size >= scale_above ? 1 : scale_above / std::max<std::size_t>(size, 1024);
  const std::uint64_t timed = o.windows * grow;
  return {std::max<std::uint64_t>(timed / 10, timed > 0 ? 1 : 0), timed};
}

/// Half round trip in microseconds over the timed round trips of `size` bytes.
double run_latency(peer& p, const options& o, std::size_t size, const unsigned char* out,
                   std::uint64_t& consumed) {
  const counts n = latency_counts(o, size);
  send_control(p, control_kind::latency, size, n.warmup + n.timed);
  auto t0 = clock_type::now();
  for (std::uint64_t i = 0; i < n.warmup + n.timed; ++i) {
    if (i == n.warmup) t0 = clock_type::now();
    send(p, am_data, nullptr, out, size);
    ++consumed;
    wait(p, "a ping-pong reply", [&] { return p.data_arrived >= consumed; });
  }
  const double seconds = seconds_since(t0);
  wait_sends(p, "the completion of the ping-pong sends");
  check_pattern(p, size, "ping-pong reply");
  return seconds / static_cast<double>(n.timed) / 2 * 1e6;
}

/// Payload MB/s (10^6 B/s) over the timed windows of `size` bytes; 0 when there is none.
double run_bandwidth(peer& p, const options& o, std::size_t size, const unsigned char* out) {
  const counts n = bandwidth_counts(o, size);
  if (size == 0 || n.timed == 0) return 0;
  send_control(p, control_kind::bandwidth, size, n.warmup + n.timed);
  auto t0 = clock_type::now();
  for (std::uint64_t w = 0; w < n.warmup + n.timed; ++w) {
    if (w == n.warmup) t0 = clock_type::now();
    for (std::size_t k = 0; k < window; ++k) send(p, am_data, nullptr, out, size);
    expect_control(p, control_kind::window_ack);
    wait_sends(p, "the completion of a window's sends");
  }
  const double seconds = seconds_since(t0);
  return static_cast<double>(n.timed * window * size) / seconds / 1e6;
}

void run_client(peer& p, const options& o, const std::string& transports) {
  const std::size_t largest = o.sizes.empty() ? 0 : o.sizes.back();
  p.recv_buffer.assign(largest, 0);
  std::vector<unsigned char> out(largest);

  send_control(p, control_kind::hello, largest);
  expect_control(p, control_kind::hello_ack);
  if (o.verbose) ucp_ep_print_info(p.ep, stderr);

  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  std::printf(
      "# %s: UCX %s, transports %s, error handling %s, client on %s; window %zu; MB/s = 10^6 B/s\n",
      program, ucp_get_version_string(), transports.c_str(), o.peer_errors ? "peer" : "none", host,
      window);
  std::printf("# size latency_us bandwidth_MBps\n");
  std::fflush(stdout);

  std::uint64_t consumed = 0;  // data messages (replies) taken so far
  for (const std::size_t size : o.sizes) {
    for (std::size_t i = 0; i < size; ++i) out[i] = pattern(size, i);
    const double latency_us = run_latency(p, o, size, out.data(), consumed);
    const double mbps = run_bandwidth(p, o, size, out.data());
    std::printf("%zu %.2f %.1f\n", size, latency_us, mbps);
    std::fflush(stdout);
  }
  send_control(p, control_kind::goodbye);
  expect_control(p, control_kind::goodbye_ack);
  wait_sends(p, "the completion of the goodbye");
}

void run_server(peer& p) {
  const control hello = take_control(p, "the client's hello");
  if (hello.kind != control_kind::hello) {
    die(std::string("protocol error: expected hello from the client, got ") +
        kind_name(hello.kind));
  }
  if (hello.size > max_size) {
    die("the client announced " + std::to_string(hello.size) + "-byte messages, more than " +
        std::to_string(max_size));
  }
  p.recv_buffer.assign(hello.size, 0);
  send_control(p, control_kind::hello_ack);

  std::uint64_t consumed = 0;  // data messages taken so far
  std::uint64_t phases = 0;
  for (;;) {
    const control c = take_control(p, "the client's next request");
    if (c.kind == control_kind::goodbye) break;
    if (c.size > p.recv_buffer.size()) {
      die("the client asked for " + std::to_string(c.size) + "-byte messages after announcing " +
          std::to_string(p.recv_buffer.size()) + " bytes at most");
    }
    const std::size_t size = c.size;
    if (c.kind == control_kind::latency) {
      for (std::uint64_t i = 0; i < c.count; ++i) {
        ++consumed;
        wait(p, "a ping", [&] { return p.data_arrived >= consumed; });
        send(p, am_data, nullptr, p.recv_buffer.data(), size);  // the echo: what just arrived
      }
      wait_sends(p, "the completion of the ping-pong replies");
      check_pattern(p, size, "ping");
    } else if (c.kind == control_kind::bandwidth) {
      for (std::uint64_t w = 0; w < c.count; ++w) {
        consumed += window;
        wait(p, "a bandwidth window's messages", [&] { return p.data_arrived >= consumed; });
        send_control(p, control_kind::window_ack);
      }
      wait_sends(p, "the completion of the window acknowledgements");
      check_pattern(p, size, "bandwidth message");
    } else {
      die(std::string("protocol error: unexpected ") + kind_name(c.kind) + " from the client");
    }
    ++phases;
  }
  send_control(p, control_kind::goodbye_ack);
  wait_sends(p, "the completion of the goodbye acknowledgement");
  std::printf("# server: %llu phases, %llu data messages echoed or counted; done\n",
              static_cast<unsigned long long>(phases), static_cast<unsigned long long>(consumed));
  std::fflush(stdout);
}

void set_handler(ucp_worker_h worker, unsigned id, ucp_am_recv_callback_t cb, peer* p) {
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                  UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = id;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;  // an eager message in one callback, never in fragments
  hp.cb = cb;
  hp.arg = p;
  check(ucp_worker_set_am_recv_handler(worker, &hp), "ucp_worker_set_am_recv_handler");
}

/// Closes the endpoint, flushing what is outstanding. The peer closes its own at the same time;
/// with peer error handling, a flush that finds the peer already gone may report it, which after
/// the goodbye exchange is no error of the run (everything was delivered and acknowledged).
void close_endpoint(peer& p) {
  p.closing = true;
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  rp.flags = 0;  // not UCP_EP_CLOSE_FLAG_FORCE: flush first
  const ucs_status_ptr_t request = ucp_ep_close_nbx(p.ep, &rp);
  p.ep = nullptr;
  ucs_status_t status = UCS_OK;
  if (UCS_PTR_IS_ERR(request)) {
    status = UCS_PTR_STATUS(request);
  } else if (request != nullptr) {
    wait(p, "the endpoint to close",
         [&] { return (status = ucp_request_check_status(request)) != UCS_INPROGRESS; });
    ucp_request_free(request);
  }
  if (status == UCS_OK) return;
  if (status != UCS_ERR_CONNECTION_RESET && status != UCS_ERR_ENDPOINT_TIMEOUT &&
      status != UCS_ERR_UNREACHABLE) {
    die(std::string("ucp_ep_close_nbx failed: ") + ucs_status_string(status));
  }
  std::fprintf(stderr,
               "%s: note: ucp_ep_close_nbx: %s (the %s had closed first; all was delivered)\n",
               program, ucs_status_string(status), p.peer_role.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  const std::string peer_role = o.role == "server" ? "client" : "server";

  if (!o.transports.empty() && setenv("UCX_TLS", o.transports.c_str(), 1) != 0) {
    die(std::string("setenv UCX_TLS failed: ") + std::strerror(errno));
  }
  const char* tls = std::getenv("UCX_TLS");
  const std::string transports = tls != nullptr ? tls : "default";

  ucp_config_t* config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_AM;
  params.name = program;
  ucp_context_h context = nullptr;
  const ucs_status_t init_status = ucp_init(&params, config, &context);
  ucp_config_release(config);
  check(init_status, "ucp_init");

  peer p;
  p.peer_role = peer_role;
  p.timeout_s = o.timeout_s;
  p.peer_address_file = address_file(o.dir, peer_role);

  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
  check(ucp_worker_create(context, &worker_params, &p.worker), "ucp_worker_create");
  set_handler(p.worker, am_data, on_data, &p);
  set_handler(p.worker, am_control, on_control, &p);

  ucp_address_t* address = nullptr;
  std::size_t address_length = 0;
  check(ucp_worker_get_address(p.worker, &address, &address_length), "ucp_worker_get_address");
  publish_address(address_file(o.dir, o.role), address, address_length);
  ucp_worker_release_address(p.worker, address);

  const std::vector<char> peer_address = await_address(p.peer_address_file, peer_role, o);
  ucp_ep_params_t ep_params{};
  ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.address = reinterpret_cast<const ucp_address_t*>(peer_address.data());
  // Peer error handling: a peer that dies is reported (on_peer_error) instead of leaving sends
  // pending forever. In UCX 1.13 it rules out posix, sysv and self ("no peer failure
  // handler"), so on one machine it means TCP over loopback; --error-handling none lifts that.
  ep_params.err_mode = o.peer_errors ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
  if (o.peer_errors) {
    ep_params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.err_handler.cb = on_peer_error;
    ep_params.err_handler.arg = &p;
  }
  const ucs_status_t ep_status = ucp_ep_create(p.worker, &ep_params, &p.ep);
  if (ep_status != UCS_OK) {
    die(std::string("ucp_ep_create failed: ") + ucs_status_string(ep_status) + " (to the " +
        peer_role + " at the address in " + p.peer_address_file + ", transports " + transports +
        (o.peer_errors ? ", peer error handling, which UCX 1.13's shared-memory transports lack)"
                       : ")"));
  }

  if (o.role == "client") {
    run_client(p, o, transports);
  } else {
    run_server(p);
  }

  close_endpoint(p);
  ucp_worker_destroy(p.worker);
  ucp_cleanup(context);
  // Normally gone already (the peer removes what it read); still there if the peer never read it.
  if (std::remove(own_address_file.c_str()) != 0 && errno != ENOENT) {
    die("could not remove " + own_address_file + ": " + std::strerror(errno));
  }
  return 0;
}
