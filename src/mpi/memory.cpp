// MPI_Alloc_mem and MPI_Free_mem (MPI-3.1 8.2): memory that the job's peers can reach directly.
// Each allocation is its own memfd mapping (whole pages), whose descriptor stays open: a peer
// can map the same pages (through a pidfd, as the one-sided windows of issue 25 will) instead
// of copying through the kernel. When no descriptor can be had (the process's limit reached) the
// allocation comes from the heap, which peers still reach by single copy (process_vm_readv).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "mpi/call.hpp"
#include "mpi/info.hpp"

namespace rmpl::mpi {
namespace {

/// One allocation: its mapping's length and descriptor (-1: from the heap).
struct allocation {
  std::size_t length;
  int fd;
};

/// The allocations not yet freed, by address. Never destroyed: memory a program never frees may
/// outlive the static destructors.
std::map<const void*, allocation>& allocations() {
  static auto* all = new std::map<const void*, allocation>;
  return *all;
}

void* allocate(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t length = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
  const int fd = memfd_create("rmpl-alloc-mem", MFD_CLOEXEC);
  if (fd >= 0) {
    if (ftruncate(fd, static_cast<off_t>(length)) == 0) {
      void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p != MAP_FAILED) {
        allocations()[p] = {length, fd};
        return p;
      }
    }
    const int cause = errno;
    close(fd);
    if (cause == ENOMEM || cause == ENOSPC) return nullptr;
  }
  void* p = std::malloc(std::max<std::size_t>(bytes, 1));
  if (p != nullptr) allocations()[p] = {bytes, -1};
  return p;
}

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  if (size < 0) fail(MPI_ERR_SIZE, "the size {} is negative", size);
  optional_info(info);
  if (baseptr == nullptr) fail(MPI_ERR_ARG, "the base pointer's address is null");
  void* p = allocate(static_cast<std::size_t>(size));
  if (p == nullptr) fail(MPI_ERR_NO_MEM, "no memory for {} bytes", size);
  std::memcpy(baseptr, &p, sizeof p);
  return MPI_SUCCESS;
}

int Free_mem(void* base) {
  auto it = allocations().find(base);
  if (it == allocations().end()) {
    fail(MPI_ERR_ARG, "{} is no address that MPI_Alloc_mem returned (or it was freed)", base);
  }
  const allocation a = it->second;
  allocations().erase(it);
  if (a.fd < 0) {
    std::free(base);
  } else {
    munmap(base, a.length);
    close(a.fd);
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/memory.inc"  // the MPI_ and PMPI_ functions (generated)
