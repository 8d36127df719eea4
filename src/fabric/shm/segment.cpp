#include "fabric/shm/segment.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "base/config.hpp"
#include "base/error.hpp"
#include "runtime/local/memory.hpp"
#include "runtime/local/segment.hpp"

namespace rmpl::fabric::shm {
namespace {

// The provider's part is laid out in the runtime's units (runtime/local/layout.hpp).
using runtime::local::round_up;
constexpr std::uint64_t page = runtime::local::page_bytes;

bool is_power_of_two(std::uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

layout::layout(const params& prm) : p(prm) {
  const std::uint64_t n = p.nranks;
  rank_info_offset = round_up(sizeof(header), page);
  ring_offset = round_up(rank_info_offset + n * sizeof(rank_info), page);
  ring_bytes = sizeof(ring_control) + std::uint64_t{p.ring_cells} * sizeof(cell);
  pool_offset = round_up(ring_offset + n * n * ring_bytes, page);
  pool_bytes =
      round_up(pool_words(p.eager_slots) * sizeof(pool_word) + p.eager_slots * sizeof(chunk_state) +
                   std::uint64_t{p.eager_slots} * p.eager_slot_bytes,
               page);
  bounce_offset = round_up(pool_offset + n * pool_bytes, page);
  bounce_bytes = round_up(
      p.bounce_chunks * sizeof(chunk_state) + std::uint64_t{p.bounce_chunks} * p.bounce_chunk_bytes,
      page);
  coll_offset = round_up(bounce_offset + n * n * bounce_bytes, page);
  coll_bytes = round_up(sizeof(area_flags) + std::uint64_t{p.coll_area_bytes}, page);
  total_bytes = coll_offset + n * p.coll_slots * coll_bytes;
}

params params_from_env(int nranks) {
  if (nranks < 1 || nranks > 4096) {
    base::fail(errc::invalid_argument, "a job needs 1 to 4096 ranks, not {}", nranks);
  }
  params p;
  p.nranks = static_cast<std::uint32_t>(nranks);
  p.ring_cells = static_cast<std::uint32_t>(base::env_size("RMPL_RING_CELLS", 128, 4, 1u << 16));
  if (!is_power_of_two(p.ring_cells)) {
    base::fail(errc::invalid_argument, "RMPL_RING_CELLS={} must be a power of two", p.ring_cells);
  }
  // Messages up to 256 bytes travel in the ring's cells (layout.hpp, continuation_bytes). Measured
  // with bench/protocol_ab.cpp (2 ranks, blocks of 2000 ping-pongs alternating both forms in one
  // job; docs/benchmarks.md): one-way time in cells over eager 0.58-0.79 at 64 B, 0.67-1.00 at
  // 256 B (the eager form's pool claim, slot state and free each cross between the cores), but
  // 0.93-1.11 at 512 B and 1.10-1.27 at 1 KiB, where one contiguous slot copies faster: larger
  // messages stay eager.
  const std::uint32_t most = long_inline_limit(p.ring_cells);
  p.inline_max = static_cast<std::uint32_t>(
      base::env_size("RMPL_INLINE_MAX", std::min<std::uint32_t>(256, most), 0, 1u << 20));
  if (p.inline_max > most) {
    base::fail(errc::invalid_argument,
               "RMPL_INLINE_MAX={} is more than a ring of {} cells carries ({} bytes: a message "
               "takes at most a quarter of the ring; raise RMPL_RING_CELLS)",
               p.inline_max, p.ring_cells, most);
  }
  // A deep pool lets senders run ahead of a busy receiver (8 ranks sending to one on 2 cores:
  // 64 slots shared by 7 senders held all-to-one to half the rate of 512). The lowest-free-slot
  // claim keeps the slots in use, and so the pages touched, to what the traffic needs; the depth
  // shrinks with the job so that all pools together stay within 64 MiB of address space.
  const std::uint64_t deep = std::clamp<std::uint64_t>(4096 / p.nranks, 64, 512);
  p.eager_slots = static_cast<std::uint32_t>(base::env_size("RMPL_EAGER_SLOTS", deep, 1, 1u << 16));
  p.eager_slot_bytes = static_cast<std::uint32_t>(
      round_up(base::env_size("RMPL_EAGER_MAX", 16384, 64, 1u << 24), 64));
  p.bounce_chunks = static_cast<std::uint32_t>(base::env_size("RMPL_BOUNCE_CHUNKS", 4, 2, 64));
  p.bounce_chunk_bytes = static_cast<std::uint32_t>(
      round_up(base::env_size("RMPL_BOUNCE_CHUNK", 65536, 4096, 1u << 24), 64));
  p.coll_slots = static_cast<std::uint32_t>(base::env_size("RMPL_COLL_SLOTS", 8, 1, 64));
  p.coll_area_bytes = static_cast<std::uint32_t>(
      round_up(base::env_size("RMPL_COLL_AREA", 1u << 20, 1024, 1u << 28), 256));
  return p;
}

namespace {

/// Refuses a segment larger than the memory its pages could come from, naming each area's share so
/// that the message says which setting to lower. Checked before the memfd is sized, so before any
/// rank starts: past this point a page that cannot be had is an OOM kill, not an error.
void check_room(const layout& l, std::uint64_t runtime_bytes) {
  using runtime::local::human_bytes;
  const auto room = runtime::local::available_memory();
  const std::uint64_t total = runtime_bytes + l.total_bytes;
  if (!room || total <= room->bytes) return;
  const std::uint64_t n = l.p.nranks;
  base::fail(
      errc::exhausted,
      "the job segment for {} ranks needs {} ({} bytes) but only {} ({} bytes) is free ({}): "
      "rings {} (RMPL_RING_CELLS={}), eager pools {} (RMPL_EAGER_SLOTS={} x "
      "RMPL_EAGER_MAX={}), bounce buffers {} (RMPL_BOUNCE_CHUNKS={} x RMPL_BOUNCE_CHUNK={}), "
      "collective areas {} (RMPL_COLL_SLOTS={} x RMPL_COLL_AREA={}); lower these or the "
      "rank count",
      n, human_bytes(total), total, human_bytes(room->bytes), room->bytes, room->source,
      human_bytes(n * n * l.ring_bytes), l.p.ring_cells, human_bytes(n * l.pool_bytes),
      l.p.eager_slots, l.p.eager_slot_bytes, human_bytes(n * n * l.bounce_bytes), l.p.bounce_chunks,
      l.p.bounce_chunk_bytes, human_bytes(n * l.p.coll_slots * l.coll_bytes), l.p.coll_slots,
      l.p.coll_area_bytes);
}

}  // namespace

int create_job_segment(int nranks) {
  const layout l(params_from_env(nranks));
  const std::uint64_t at =
      runtime::local::job_layout(static_cast<std::uint32_t>(nranks)).transport_offset;
  check_room(l, at);
  const int fd = runtime::local::create_segment(nranks, l.total_bytes);
  void* mem = runtime::local::map_for_header(fd, at, sizeof(header));
  auto* h = new (mem) header{};
  h->magic = segment_magic;
  h->version = segment_version;
  h->p = l.p;
  h->total_bytes = l.total_bytes;
  h->rank_info_offset = l.rank_info_offset;
  h->ring_offset = l.ring_offset;
  h->ring_bytes = l.ring_bytes;
  h->pool_offset = l.pool_offset;
  h->pool_bytes = l.pool_bytes;
  h->bounce_offset = l.bounce_offset;
  h->bounce_bytes = l.bounce_bytes;
  h->coll_offset = l.coll_offset;
  h->coll_bytes = l.coll_bytes;
  ::munmap(mem, sizeof(header));
  return fd;
}

const header& check_part(const std::byte* part, std::size_t bytes) {
  if (bytes < sizeof(header)) {
    base::fail(errc::internal, "the job segment has no room for the shm provider ({} bytes)",
               bytes);
  }
  const header& h = *reinterpret_cast<const header*>(part);
  if (h.magic != segment_magic || h.version != segment_version) {
    base::fail(errc::invalid_argument, "the job segment has no shm part of version {}",
               segment_version);
  }
  // The parameters shape every index the ranks compute (ring masks, slot and chunk counts): the
  // ranges params_from_env allows, or this is no segment of ours.
  const params& p = h.p;
  if (p.nranks < 1 || p.nranks > 4096 || p.ring_cells < 4 || (p.ring_cells & (p.ring_cells - 1)) ||
      p.inline_max > long_inline_limit(p.ring_cells) || p.eager_slots < 1 ||
      p.eager_slot_bytes < 64 || p.bounce_chunks < 2 || p.bounce_chunk_bytes < 4096 ||
      p.coll_slots < 1 || p.coll_area_bytes < 1024) {
    base::fail(
        errc::internal,
        "the job segment's parameters are out of range (ranks {}, ring cells {}, inline max {}, "
        "eager slots {} of {} bytes, bounce chunks {} of {} bytes, collective areas {} of {} "
        "bytes)",
        p.nranks, p.ring_cells, p.inline_max, p.eager_slots, p.eager_slot_bytes, p.bounce_chunks,
        p.bounce_chunk_bytes, p.coll_slots, p.coll_area_bytes);
  }
  const layout l(h.p);  // recomputed, never trusted from the header
  if (l.total_bytes != h.total_bytes || l.total_bytes > bytes || l.ring_offset != h.ring_offset ||
      l.pool_offset != h.pool_offset || l.bounce_offset != h.bounce_offset ||
      l.coll_offset != h.coll_offset || l.rank_info_offset != h.rank_info_offset) {
    base::fail(errc::internal, "the job segment's shm header disagrees with its size ({} bytes)",
               bytes);
  }
  return h;
}

}  // namespace rmpl::fabric::shm
