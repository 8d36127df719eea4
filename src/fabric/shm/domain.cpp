#include "fabric/shm/domain.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/config.hpp"
#include "base/error.hpp"
#include "fabric/shm/single_copy.hpp"

namespace rmpl::fabric::shm {
namespace {

constexpr std::uint64_t probe_magic = 0x70726f62652d726dull;

}  // namespace

domain::domain(runtime::local::job& job) : job_(job), rank_(job.rank()), size_(job.size()) {
  std::byte* const part = job.transport();
  const header& h = check_part(part, job.transport_bytes());
  p_ = h.p;
  if (static_cast<int>(p_.nranks) != size_) {
    base::fail(errc::invalid_argument, "the job segment's shm part is for {} ranks, the job has {}",
               p_.nranks, size_);
  }
  const layout l(p_);
  infos_ = reinterpret_cast<rank_info*>(part + l.rank_info_offset);
  rings_ = part + l.ring_offset;
  pools_ = part + l.pool_offset;
  bounces_ = part + l.bounce_offset;
  node_ = node_segment({.areas = part + l.coll_offset,
                        .area_stride = l.coll_bytes,
                        .slots = p_.coll_slots,
                        .area_bytes = p_.coll_area_bytes,
                        .ranks = reinterpret_cast<std::byte*>(infos_),
                        .rank_stride = sizeof(rank_info),
                        .stall_at = offsetof(rank_info, stall),
                        .bells = reinterpret_cast<std::byte*>(&job.bell(0)),
                        .bell_stride = sizeof(runtime::local::rank_record)});
  ring_bytes_ = l.ring_bytes;
  pool_bytes_ = l.pool_bytes;
  bounce_bytes_ = l.bounce_bytes;

  allow_peer_reads();
  rank_info& me = infos_[rank_];
  me.probe_value = probe_magic ^ static_cast<std::uint64_t>(rank_);
  me.probe_address.store(reinterpret_cast<std::uint64_t>(&probe_value_), std::memory_order_relaxed);
  probe_value_ = me.probe_value;
  job_.barrier("start");
  job_.learn_pids();
  probe_single_copy();
}

void domain::probe_single_copy() {
  const int wanted = base::env_tristate("RMPL_SINGLE_COPY");
  int mine = -1;
  // Probed on the next rank of this host (the segment's ranks), and agreed among them.
  const std::vector<int>& here = job_.segment_ranks();
  if (wanted != 0) {
    const auto me = std::find(here.begin(), here.end(), rank_);
    const int peer = me + 1 == here.end() ? here.front() : *(me + 1);
    std::uint64_t value = 0;
    const void* where =
        reinterpret_cast<const void*>(infos_[peer].probe_address.load(std::memory_order_relaxed));
    mine = read_from_process(job_.pid(peer), where, &value, sizeof(value));
    if (mine == 0 && value != (probe_magic ^ static_cast<std::uint64_t>(peer))) mine = EFAULT;
  }
  infos_[rank_].single_copy.store(mine == 0 ? 1 : 0, std::memory_order_release);
  job_.barrier("start");
  single_copy_error_ = mine;
  for (int r : here) {
    if (single_copy_error_ != 0) break;
    if (infos_[r].single_copy.load(std::memory_order_acquire) != 1) single_copy_error_ = -2;
  }
  if (wanted == 1 && single_copy_error_ != 0) {
    base::fail(errc::system, "RMPL_SINGLE_COPY=1 but single copy is unavailable on rank {}: {}",
               rank_, single_copy_reason());
  }
}

std::string domain::single_copy_reason() const {
  return shm::single_copy_reason(single_copy_error_);
}

int domain::read_peer(int peer, const void* remote, void* local, std::size_t bytes) const noexcept {
  return read_from_process(job_.pid(peer), remote, local, bytes);
}

int domain::read_peer(int peer, iovec* local, std::size_t nlocal, iovec* remote,
                      std::size_t nremote) const noexcept {
  return read_from_process(job_.pid(peer), local, nlocal, remote, nremote);
}

int domain::write_peer(int peer, void* remote, const void* local,
                       std::size_t bytes) const noexcept {
  return write_to_process(job_.pid(peer), remote, local, bytes);
}

}  // namespace rmpl::fabric::shm
