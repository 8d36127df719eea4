#include "runtime/pmix/job.hpp"

#include "runtime/pmix/library.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "base/error.hpp"

namespace rmpl::runtime::pmix {
namespace {

[[noreturn]] void fail(const char* call, pmix_status_t status, std::string_view what = {}) {
  base::fail(errc::system, "PMIx: {}{}{} failed: {}", call, what.empty() ? "" : " of ", what,
             PMIx_Error_string(status));
}

pmix_proc_t proc_of(const std::string& nspace, pmix_rank_t rank) noexcept {
  pmix_proc_t p;
  PMIX_PROC_CONSTRUCT(&p);
  PMIX_LOAD_PROCID(&p, nspace.c_str(), rank);
  return p;
}

/// The value the server holds under `key` for `proc` (released when it goes out of scope).
struct fetched {
  pmix_value_t* value = nullptr;
  fetched(const pmix_proc_t& proc, const char* key, const char* what) {
    const pmix_status_t st = PMIx_Get(&proc, key, nullptr, 0, &value);
    if (st != PMIX_SUCCESS) fail("PMIx_Get", st, what);
  }
  ~fetched() {
    if (value != nullptr) PMIX_VALUE_RELEASE(value);
  }
  fetched(const fetched&) = delete;
  fetched& operator=(const fetched&) = delete;
};

/// "0,2,5-7" (PMIx's list of ranks; ranges appear in some servers' answers) as ranks.
std::vector<int> parse_ranks(std::string_view text) {
  std::vector<int> ranks;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t dash = item.find('-');
    int first = 0, last = 0;
    const auto a = std::from_chars(item.data(), item.data() + std::min(dash, item.size()), first);
    last = first;
    if (dash != std::string_view::npos) {
      std::from_chars(item.data() + dash + 1, item.data() + item.size(), last);
    }
    if (a.ec != std::errc{} || last < first) {
      base::fail(errc::system, "PMIx: the local peers '{}' are not a list of ranks", text);
    }
    for (int r = first; r <= last; ++r) ranks.push_back(r);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

}  // namespace

bool started_by_server() noexcept {
  const char* ns = std::getenv("PMIX_NAMESPACE");
  return ns != nullptr && *ns != '\0';
}

job::job() {
  pmix_proc_t me;
  PMIX_PROC_CONSTRUCT(&me);
  if (const pmix_status_t st = PMIx_Init(&me, nullptr, 0); st != PMIX_SUCCESS) {
    fail("PMIx_Init", st);
  }
  nspace_ = me.nspace;
  rank_ = static_cast<int>(me.rank);
  const pmix_proc_t everyone = proc_of(nspace_, PMIX_RANK_WILDCARD);
  {
    fetched size(everyone, PMIX_JOB_SIZE, "the job's size");
    size_ = static_cast<int>(size.value->data.uint32);
  }
  if (size_ < 1 || rank_ < 0 || rank_ >= size_) {
    base::fail(errc::system, "PMIx: rank {} of a job of {} ranks", rank_, size_);
  }
  host_of_.resize(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    fetched host(proc_of(nspace_, static_cast<pmix_rank_t>(r)), PMIX_HOSTNAME, "a rank's host");
    const std::string name = host.value->data.string != nullptr ? host.value->data.string : "";
    auto at = std::find(hosts_.begin(), hosts_.end(), name);
    if (at == hosts_.end()) at = hosts_.insert(hosts_.end(), name);
    host_of_[static_cast<std::size_t>(r)] = static_cast<int>(at - hosts_.begin());
  }
  {
    fetched peers(everyone, PMIX_LOCAL_PEERS, "this host's ranks");
    local_ = parse_ranks(peers.value->data.string != nullptr ? peers.value->data.string : "");
  }
}

job::~job() {
  PMIx_Finalize(nullptr, 0);
}

void job::put(std::string_view key, std::span<const std::byte> value) {
  if (key.empty() || key.size() > PMIX_MAX_KEYLEN) {
    base::fail(errc::invalid_argument, "PMIx: key '{}' is empty or longer than {} characters", key,
               PMIX_MAX_KEYLEN);
  }
  const std::string name(key);
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  // PMIx_Put copies the bytes; it takes them through a non-const pointer all the same.
  v.data.bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(value.data()));
  v.data.bo.size = value.size();
  if (const pmix_status_t st = PMIx_Put(PMIX_GLOBAL, name.c_str(), &v); st != PMIX_SUCCESS) {
    fail("PMIx_Put", st, name);
  }
}

void job::fence() {
  if (const pmix_status_t st = PMIx_Commit(); st != PMIX_SUCCESS) fail("PMIx_Commit", st);
  const pmix_proc_t everyone = proc_of(nspace_, PMIX_RANK_WILDCARD);
  bool collect = true;
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  const pmix_status_t st = PMIx_Fence(&everyone, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (st != PMIX_SUCCESS) fail("PMIx_Fence", st, "the key-value exchange");
}

std::vector<std::byte> job::get(int r, std::string_view key) const {
  const std::string name(key);
  const pmix_proc_t proc = proc_of(nspace_, static_cast<pmix_rank_t>(r));
  pmix_value_t* value = nullptr;
  const pmix_status_t st = PMIx_Get(&proc, name.c_str(), nullptr, 0, &value);
  if (st != PMIX_SUCCESS) {
    base::fail(errc::system, "PMIx: rank {} has no value under '{}' (PMIx_Get: {})", r, name,
               PMIx_Error_string(st));
  }
  std::vector<std::byte> out;
  if (value->type == PMIX_BYTE_OBJECT) {
    const auto* bytes = reinterpret_cast<const std::byte*>(value->data.bo.bytes);
    out.assign(bytes, bytes + value->data.bo.size);
  }
  const bool bytes = value->type == PMIX_BYTE_OBJECT;
  PMIX_VALUE_RELEASE(value);
  if (!bytes) {
    base::fail(errc::system, "PMIx: rank {}'s value under '{}' is not bytes", r, name);
  }
  return out;
}

void job::barrier() {
  const pmix_proc_t everyone = proc_of(nspace_, PMIX_RANK_WILDCARD);
  if (const pmix_status_t st = PMIx_Fence(&everyone, 1, nullptr, 0); st != PMIX_SUCCESS) {
    fail("PMIx_Fence", st, "a barrier");
  }
}

namespace {

struct barrier_wait {
  std::atomic<bool>* done;
  void (*ring)(void*);
  void* arg;
};

void barrier_ended(pmix_status_t /*status*/, void* data) {
  // A failed fence (a rank gone) ends the wait too: the engine learns of the death its own way.
  auto* w = static_cast<barrier_wait*>(data);
  w->done->store(true, std::memory_order_release);
  w->ring(w->arg);
  delete w;
}

}  // namespace

void job::start_barrier(std::atomic<bool>& done, void (*ring)(void*), void* arg) {
  done.store(false, std::memory_order_relaxed);
  const pmix_proc_t everyone = proc_of(nspace_, PMIX_RANK_WILDCARD);
  auto* w = new barrier_wait{&done, ring, arg};
  const pmix_status_t st = PMIx_Fence_nb(&everyone, 1, nullptr, 0, barrier_ended, w);
  if (st != PMIX_SUCCESS) {
    delete w;
    fail("PMIx_Fence_nb", st, "a barrier");
  }
}

}  // namespace rmpl::runtime::pmix
