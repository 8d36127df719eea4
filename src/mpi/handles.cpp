// The address ranges of the layer's objects (handles.hpp): the arena every made object comes
// from, and where the predefined objects ended up once the program was loaded.
#include "mpi/handles.hpp"

#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

namespace rmpl::mpi {

handle_ranges object_ranges;

namespace {

struct placed {
  std::uintptr_t at;
  std::size_t bytes;
};
template <class T>
placed at(T& object) {
  return {reinterpret_cast<std::uintptr_t>(&object), sizeof(T)};
}

/// Every predefined object of include/mpi.h, where the program sees it: a program built without
/// -fPIC (or as a PIE, where the compiler assumes copy relocations) holds its own copy of each
/// one it names, and the library's references are bound to that copy.
std::vector<placed> predefined_objects() {
  return {at(rmpl_mpi_comm_world),
          at(rmpl_mpi_comm_self),
          at(rmpl_mpi_group_empty),
          at(rmpl_mpi_message_no_proc),
          at(rmpl_mpi_info_env),
          at(rmpl_mpi_errors_are_fatal),
          at(rmpl_mpi_errors_return),
          at(rmpl_mpi_errors_abort),
          at(rmpl_mpi_char),
          at(rmpl_mpi_signed_char),
          at(rmpl_mpi_unsigned_char),
          at(rmpl_mpi_byte),
          at(rmpl_mpi_wchar),
          at(rmpl_mpi_short),
          at(rmpl_mpi_unsigned_short),
          at(rmpl_mpi_int),
          at(rmpl_mpi_unsigned),
          at(rmpl_mpi_long),
          at(rmpl_mpi_unsigned_long),
          at(rmpl_mpi_long_long),
          at(rmpl_mpi_unsigned_long_long),
          at(rmpl_mpi_float),
          at(rmpl_mpi_double),
          at(rmpl_mpi_long_double),
          at(rmpl_mpi_int8_t),
          at(rmpl_mpi_int16_t),
          at(rmpl_mpi_int32_t),
          at(rmpl_mpi_int64_t),
          at(rmpl_mpi_uint8_t),
          at(rmpl_mpi_uint16_t),
          at(rmpl_mpi_uint32_t),
          at(rmpl_mpi_uint64_t),
          at(rmpl_mpi_c_bool),
          at(rmpl_mpi_aint),
          at(rmpl_mpi_offset),
          at(rmpl_mpi_count),
          at(rmpl_mpi_packed),
          at(rmpl_mpi_float_int),
          at(rmpl_mpi_double_int),
          at(rmpl_mpi_long_int),
          at(rmpl_mpi_2int),
          at(rmpl_mpi_short_int),
          at(rmpl_mpi_long_double_int),
          at(rmpl_mpi_c_float_complex),
          at(rmpl_mpi_c_double_complex),
          at(rmpl_mpi_c_long_double_complex),
          at(rmpl_mpi_cxx_bool),
          at(rmpl_mpi_integer),
          at(rmpl_mpi_real),
          at(rmpl_mpi_double_precision),
          at(rmpl_mpi_complex),
          at(rmpl_mpi_double_complex),
          at(rmpl_mpi_logical),
          at(rmpl_mpi_character),
          at(rmpl_mpi_integer1),
          at(rmpl_mpi_integer2),
          at(rmpl_mpi_integer4),
          at(rmpl_mpi_integer8),
          at(rmpl_mpi_real4),
          at(rmpl_mpi_real8),
          at(rmpl_mpi_complex8),
          at(rmpl_mpi_complex16),
          at(rmpl_mpi_cxx_float_complex),
          at(rmpl_mpi_cxx_double_complex),
          at(rmpl_mpi_cxx_long_double_complex),
          at(rmpl_mpi_2integer),
          at(rmpl_mpi_2real),
          at(rmpl_mpi_2double_precision),
          at(rmpl_mpi_lb),
          at(rmpl_mpi_ub),
          at(rmpl_mpi_max),
          at(rmpl_mpi_min),
          at(rmpl_mpi_sum),
          at(rmpl_mpi_prod),
          at(rmpl_mpi_land),
          at(rmpl_mpi_band),
          at(rmpl_mpi_lor),
          at(rmpl_mpi_bor),
          at(rmpl_mpi_lxor),
          at(rmpl_mpi_bxor),
          at(rmpl_mpi_minloc),
          at(rmpl_mpi_maxloc),
          at(rmpl_mpi_replace),
          at(rmpl_mpi_no_op)};
}

/// Their addresses, sorted: the exact test for those outside the inline range.
const std::vector<std::uintptr_t>& predefined_addresses() {
  static const std::vector<std::uintptr_t> sorted = [] {
    std::vector<std::uintptr_t> a;
    for (const placed& p : predefined_objects()) a.push_back(p.at);
    std::sort(a.begin(), a.end());
    return a;
  }();
  return sorted;
}

/// The loaded segment (PT_LOAD, of the program or of a shared object) that holds `address`, as
/// [begin, end); {0, 0} if none does. All of it is mapped while the program runs.
struct segment {
  std::uintptr_t begin = 0, end = 0;
};
segment segment_of(std::uintptr_t address) {
  struct search {
    std::uintptr_t address;
    segment found;
  } s{address, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto& s = *static_cast<search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (s.address >= begin && s.address < begin + ph.p_memsz) {
            s.found = {begin, begin + ph.p_memsz};
            return 1;
          }
        }
        return 0;
      },
      &s);
  return s.found;
}

/// The inline range of predefined objects: those in MPI_COMM_WORLD's segment, from the first
/// byte of the lowest to the last of the highest. Between them lies only memory of that
/// segment, which may be read (a handle there that is no object fails the magic test).
void find_predefined() {
  const segment home = segment_of(reinterpret_cast<std::uintptr_t>(&rmpl_mpi_comm_world));
  if (home.begin == home.end) return;  // not found: every predefined handle takes the exact test
  std::uintptr_t low = UINTPTR_MAX, high = 0;
  for (const placed& p : predefined_objects()) {
    if (p.at < home.begin || p.at + p.bytes > home.end) continue;
    low = std::min(low, p.at);
    high = std::max(high, p.at + p.bytes);
  }
  object_ranges.predefined = low;
  object_ranges.predefined_bytes = high - low;
}

// The arena: address space reserved once, readable and writable but not counted as memory
// (MAP_NORESERVE): a page holds memory only once an object is written there, and reading any of
// it is safe (an untouched page reads as zeros), so the inline test needs no committed size that
// changes as the arena fills, and no thread ever sees it change.
std::mutex arena_lock;
std::byte* arena_base = nullptr;
std::size_t reserved = 0, used = 0;

void reserve_arena() {
  // Room for tens of millions of requests; less where the address space or the commit limit is
  // smaller (ulimit -v, vm.overcommit_memory=2, valgrind).
  for (std::size_t bytes = std::size_t{16} << 30; bytes >= std::size_t{16} << 20; bytes /= 2) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      arena_base = static_cast<std::byte*>(p);
      reserved = bytes;
      object_ranges.arena = reinterpret_cast<std::uintptr_t>(p);
      object_ranges.arena_bytes = bytes;
      return;
    }
  }
  // None: arena_allocate fails (MPI_ERR_NO_MEM), predefined handles still work.
}

/// Both ranges, when the library is loaded: before main and before any other thread can test a
/// handle, so that object_ranges never changes while it is read.
[[gnu::constructor]] void find_ranges() {
  find_predefined();
  reserve_arena();
}

}  // namespace

bool predefined_elsewhere(const void* p) noexcept {
  const auto& a = predefined_addresses();
  return std::binary_search(a.begin(), a.end(), reinterpret_cast<std::uintptr_t>(p));
}

void* arena_allocate(std::size_t bytes, std::size_t alignment) {
  std::lock_guard hold(arena_lock);
  const std::size_t start = (used + alignment - 1) / alignment * alignment;
  if (arena_base == nullptr || start + bytes > reserved) throw std::bad_alloc();
  used = start + bytes;
  return arena_base + start;
}

}  // namespace rmpl::mpi
