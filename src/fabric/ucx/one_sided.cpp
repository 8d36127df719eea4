// The ucx provider's one-sided operations: memory exposed with ucp_mem_map, its key the remote
// key UCX packs (after the exposed range's address and size, so that a peer can check bounds
// itself), put and get with ucp_put_nbx / ucp_get_nbx, atomics with ucp_atomic_op_nbx. Completion
// comes through the same operation pool and callback as sends (events::completed).
#include <cstring>

#include "base/error.hpp"
#include "fabric/ucx/provider.hpp"

namespace rmpl::fabric::ucx {
namespace {

/// What a key holds before UCX's packed remote key.
struct key_head {
  std::uint64_t base;
  std::uint64_t bytes;
};

ucp_atomic_op_t ucx_op(atomic_op op) {
  switch (op) {
    case atomic_op::add:
      return UCP_ATOMIC_OP_ADD;
    case atomic_op::bitwise_and:
      return UCP_ATOMIC_OP_AND;
    case atomic_op::bitwise_or:
      return UCP_ATOMIC_OP_OR;
    case atomic_op::bitwise_xor:
      return UCP_ATOMIC_OP_XOR;
    case atomic_op::swap:
      return UCP_ATOMIC_OP_SWAP;
    case atomic_op::compare_swap:
      return UCP_ATOMIC_OP_CSWAP;
  }
  return UCP_ATOMIC_OP_LAST;
}

}  // namespace

exposure provider::expose(void* base, std::size_t bytes) {
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = base;
  mp.length = bytes;
  ucp_mem_h memory = nullptr;
  if (ucs_status_t s = ucx_.ucp_mem_map(context_, &mp, &memory); s != UCS_OK)
    fail(fmt::format("exposing {} bytes at {} (ucp_mem_map)", bytes, base), s);
  void* packed = nullptr;
  std::size_t packed_bytes = 0;
  if (ucs_status_t s = ucx_.ucp_rkey_pack(context_, memory, &packed, &packed_bytes); s != UCS_OK) {
    ucx_.ucp_mem_unmap(context_, memory);
    fail(fmt::format("packing the key of {} bytes at {} (ucp_rkey_pack)", bytes, base), s);
  }
  exposure e;
  e.handle = memory;
  const key_head head{reinterpret_cast<std::uintptr_t>(base), bytes};
  e.key.resize(sizeof head + packed_bytes);
  std::memcpy(e.key.data(), &head, sizeof head);
  std::memcpy(e.key.data() + sizeof head, packed, packed_bytes);
  ucx_.ucp_rkey_buffer_release(packed);
  return e;
}

void provider::unexpose(void* handle) noexcept {
  ucx_.ucp_mem_unmap(context_, static_cast<ucp_mem_h>(handle));
}

void* provider::reach(int peer, std::span<const std::byte> key) {
  key_head head{};
  if (key.size() <= sizeof head) {
    base::fail(errc::invalid_argument, "rank {}: a key of {} bytes from {} is not a memory key",
               rank_, key.size(), where_(peer));
  }
  std::memcpy(&head, key.data(), sizeof head);
  ucp_rkey_h rkey = nullptr;
  if (ucs_status_t s = ucx_.ucp_ep_rkey_unpack(endpoint(peer), key.data() + sizeof head, &rkey);
      s != UCS_OK) {
    fail(fmt::format("unpacking the memory key of {} (ucp_ep_rkey_unpack)", where_(peer)), s);
  }
  return new remote_memory{head.base, head.bytes, rkey, peer};
}

void provider::forget(void* remote) noexcept {
  auto* m = static_cast<remote_memory*>(remote);
  ucx_.ucp_rkey_destroy(m->rkey);
  delete m;
}

provider::remote_memory& provider::reached(void* remote, int peer, const char* what) const {
  auto* m = static_cast<remote_memory*>(remote);
  if (m == nullptr || m->peer != peer) {
    base::fail(errc::invalid_argument, "rank {}: {} on {}: the memory handle is not one of its",
               rank_, what, where_(peer));
  }
  return *m;
}

bool provider::put(int peer, void* remote, std::size_t at, const void* from, std::size_t bytes,
                   std::uint64_t cookie) {
  return transfer(peer, remote, at, const_cast<void*>(from), bytes, cookie, false);
}

bool provider::get(int peer, void* remote, std::size_t at, void* to, std::size_t bytes,
                   std::uint64_t cookie) {
  return transfer(peer, remote, at, to, bytes, cookie, true);
}

bool provider::transfer(int peer, void* remote, std::size_t at, void* local, std::size_t bytes,
                        std::uint64_t cookie, bool get) {
  const char* what = get ? "get" : "put";
  remote_memory& m = reached(remote, peer, get ? "a get" : "a put");
  if (at > m.bytes || bytes > m.bytes - at) {
    base::fail(errc::invalid_argument,
               "rank {}: a {} of {} bytes at byte {} of {}'s memory of {} bytes runs past its end",
               rank_, what, bytes, at, where_(peer), m.bytes);
  }
  ucp_ep_h ep = endpoint(peer);
  operation* op = start_operation(cookie, peer, operation::kind::one_sided);
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.send = on_sent;
  rp.user_data = op;
  const std::uint64_t address = m.base + at;
  return started(get ? ucx_.ucp_get_nbx(ep, local, bytes, address, m.rkey, &rp)
                     : ucx_.ucp_put_nbx(ep, local, bytes, address, m.rkey, &rp),
                 op, [&] {
                   return fmt::format("a {} of {} bytes {} {} (ucp_{}_nbx)", what, bytes,
                                      get ? "from" : "to", where_(peer), what);
                 });
}

bool provider::atomic(int peer, void* remote, std::size_t at, atomic_op op_kind, std::size_t width,
                      std::uint64_t operand, std::uint64_t compare, void* result,
                      std::uint64_t cookie) {
  remote_memory& m = reached(remote, peer, "an atomic");
  if ((width != 4 && width != 8) || at % width != 0 || at > m.bytes || width > m.bytes - at) {
    base::fail(errc::invalid_argument,
               "rank {}: an atomic on {} bytes at byte {} of {}'s memory of {} bytes (atomics are "
               "on 4 or 8 bytes, aligned to their size, inside the memory)",
               rank_, width, at, where_(peer), m.bytes);
  }
  const bool swaps = op_kind == atomic_op::swap || op_kind == atomic_op::compare_swap;
  if (swaps && result == nullptr) {
    base::fail(errc::invalid_argument, "rank {}: a swap on {}'s memory needs a result buffer",
               rank_, where_(peer));
  }
  ucp_ep_h ep = endpoint(peer);
  operation* op = start_operation(cookie, peer, operation::kind::one_sided);
  // UCX reads the operand until the operation ends: it stays in the operation. For a
  // compare-and-swap UCX's operand is the value compared with, and the reply buffer holds the
  // value to swap in (and then the old value).
  const bool compares = op_kind == atomic_op::compare_swap;
  const std::uint64_t first = compares ? compare : operand;
  const std::uint64_t swapped = compares ? operand : 0;
  if (width == 4) {
    const auto narrow = static_cast<std::uint32_t>(first);
    std::memcpy(&op->operand, &narrow, sizeof narrow);
    if (compares) {
      const auto narrow_swapped = static_cast<std::uint32_t>(swapped);
      std::memcpy(result, &narrow_swapped, sizeof narrow_swapped);
    }
  } else {
    op->operand = first;
    if (compares) std::memcpy(result, &swapped, sizeof swapped);
  }
  void* buffer = &op->operand;
  ucp_request_param_t rp{};
  rp.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  rp.cb.send = on_sent;
  rp.user_data = op;
  rp.datatype = ucp_dt_make_contig(width);
  if (result != nullptr) {
    rp.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    rp.reply_buffer = result;
  }
  return started(
      ucx_.ucp_atomic_op_nbx(ep, ucx_op(op_kind), buffer, 1, m.base + at, m.rkey, &rp), op, [&] {
        return fmt::format("an atomic on {} bytes of {} (ucp_atomic_op_nbx)", width, where_(peer));
      });
}

}  // namespace rmpl::fabric::ucx
