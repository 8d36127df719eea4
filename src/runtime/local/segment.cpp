#include "runtime/local/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "base/error.hpp"
#include "runtime/local/liveness.hpp"

namespace rmpl::runtime::local {

int create_segment(int nranks, std::uint64_t transport_bytes) {
  if (nranks < 1 || nranks > 4096) {
    base::fail(errc::invalid_argument, "a job needs 1 to 4096 ranks, not {}", nranks);
  }
  const job_layout l(static_cast<std::uint32_t>(nranks));
  const std::uint64_t total = l.transport_offset + transport_bytes;
  // Close-on-exec: nothing the creator starts may hold the job's memory (a child that outlived the
  // job would keep the whole segment alive); rmplrun clears the flag in each rank's process only,
  // just before exec. Sealable, so that its size can be fixed below.
  int fd =
      static_cast<int>(::syscall(SYS_memfd_create, "rmpl-job", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd < 0) base::fail_errno("memfd_create", errno);
  // The job's user only (memfd starts at 0777). Others cannot reach the descriptor anyway: it has
  // no name, and /proc/<pid>/fd/ of a rank needs ptrace rights over it; this is the second lock.
  if (::fchmod(fd, 0600) != 0) {
    const int err = errno;
    ::close(fd);
    base::fail_errno("fchmod of the job segment", err);
  }
  if (::ftruncate(fd, static_cast<off_t>(total)) != 0) {
    int err = errno;
    ::close(fd);
    base::fail(errc::system, "cannot size the job segment to {} bytes for {} ranks: {}", total,
               nranks, std::strerror(err));
  }
  // Sealed at its size: a rank that truncated it (by mistake or not) would kill every other rank
  // with SIGBUS; the kernel now refuses that (EPERM) and further seals.
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const int err = errno;
    ::close(fd);
    base::fail_errno("sealing the job segment (F_ADD_SEALS)", err);
  }
  void* mem = map_for_header(fd, 0, sizeof(job_header));
  auto* h = new (mem) job_header{};
  h->magic = job_magic;
  h->version = job_version;
  h->nranks = static_cast<std::uint32_t>(nranks);
  h->total_bytes = total;
  h->transport_offset = l.transport_offset;
  ::munmap(mem, sizeof(job_header));
  return fd;
}

void* map_for_header(int fd, std::uint64_t at, std::size_t bytes) {
  void* mem =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(at));
  if (mem == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    base::fail_errno("mmap of the job segment", err);
  }
  return mem;
}

mapping::mapping(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) base::fail_errno("fstat of the job segment (RMPL_SHM_FD)", errno);
  bytes_ = static_cast<std::size_t>(st.st_size);
  if (bytes_ < sizeof(job_header)) {
    base::fail(errc::invalid_argument, "descriptor {} is not an rmpl job segment ({} bytes)", fd,
               bytes_);
  }
  void* mem = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mem == MAP_FAILED) base::fail_errno("mmap of the job segment", errno);
  base_ = static_cast<std::byte*>(mem);
  const job_header& h = head();
  if (h.magic != job_magic || h.version != job_version) {
    ::munmap(mem, bytes_);
    base::fail(errc::invalid_argument, "descriptor {} is not an rmpl job segment of version {}", fd,
               job_version);
  }
  // Recomputed from the rank count, never trusted from the header.
  const job_layout l(h.nranks);
  if (h.nranks < 1 || h.nranks > 4096 || h.total_bytes != bytes_ ||
      h.transport_offset != l.transport_offset || l.transport_offset > bytes_) {
    ::munmap(mem, bytes_);
    base::fail(errc::internal,
               "the job segment's header disagrees with its size ({} bytes, {} ranks)", bytes_,
               h.nranks);
  }
  transport_offset_ = static_cast<std::size_t>(l.transport_offset);
}

mapping::~mapping() {
  if (base_) ::munmap(base_, bytes_);
}

job_view::job_view(int fd, int nranks) : nranks_(nranks) {
  const job_layout l(static_cast<std::uint32_t>(nranks));
  bytes_ = static_cast<std::size_t>(l.cards_offset + std::uint64_t(nranks) * sizeof(card));
  base_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    base::fail_errno("mmap of the job segment's rank states", errno);
  }
  head_ = static_cast<job_header*>(base_);
  records_ = reinterpret_cast<rank_record*>(static_cast<std::byte*>(base_) + l.records_offset);
  cards_ = reinterpret_cast<card*>(static_cast<std::byte*>(base_) + l.cards_offset);
}

job_view::~job_view() {
  if (base_) ::munmap(base_, bytes_);
}

rank_state job_view::state(int rank) const noexcept {
  return records_[rank].state.load(std::memory_order_acquire);
}

pid_t job_view::pid(int rank) const noexcept {
  return records_[rank].pid.load(std::memory_order_relaxed);
}

void job_view::launched(int rank, pid_t pid) noexcept {
  records_[rank].launched_pid.store(static_cast<std::int32_t>(pid), std::memory_order_release);
}

void job_view::mark_dead(int rank, int wait_status) noexcept {
  // The ranks' watchers mark the same way (a rank found gone while this launcher was stopped):
  // whichever comes second changes nothing that matters (same status, failed_rank set once).
  local::mark_dead(*head_, records_, nranks_, rank, wait_status);
}

std::span<const std::byte> job_view::card_of(int rank) const noexcept {
  const card& c = cards_[rank];
  const std::uint32_t n = c.length;
  return {c.data, n <= sizeof c.data ? n : 0};
}

bool job_view::set_card(int rank, std::span<const std::byte> bytes) noexcept {
  card& c = cards_[rank];
  if (bytes.size() > sizeof c.data) return false;
  std::memcpy(c.data, bytes.data(), bytes.size());
  c.length = static_cast<std::uint32_t>(bytes.size());
  return true;
}

void job_view::release_barrier(int first, int count) noexcept {
  // The cards written before it are visible to every rank that sees the new generation.
  head_->barrier_generation.fetch_add(1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // publish before reading `sleeping`
  for (int r = first; r < first + count; ++r) wake_if_sleeping(records_[r].bell);
}

}  // namespace rmpl::runtime::local
