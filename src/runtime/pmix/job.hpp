// The runtime of a job started by a PMIx server: Slurm (srun --mpi=pmix), PRRTE (prterun) or
// Open MPI's mpirun hand each process its rank, the job's size, where every rank runs, and a
// key-value store through which the ranks exchange what they need to reach each other (a UCX
// worker's address, say). This is rmpl's client of that service; a job started by rmplrun on one
// host needs none of it (runtime/local/job.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rmpl::runtime::pmix {

/// Whether this process was started by a PMIx server (its environment names one).
bool started_by_server() noexcept;

class job {
 public:
  /// Connects to the PMIx server that started this process and reads what it says of the job.
  /// Throws rmpl::error (errc::system) naming the PMIx call and its status.
  job();
  /// Disconnects (PMIx_Finalize).
  ~job();
  job(const job&) = delete;
  job& operator=(const job&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// The job's namespace, as the server names it.
  const std::string& name() const noexcept { return nspace_; }
  /// The hosts of the job, each once, in the order of their first rank.
  const std::vector<std::string>& hosts() const noexcept { return hosts_; }
  /// The host of rank r: an index into hosts().
  int host_of(int r) const noexcept { return host_of_[static_cast<std::size_t>(r)]; }
  /// The ranks on this process's host, this one included, in increasing order.
  const std::vector<int>& local_ranks() const noexcept { return local_; }

  // ---- key-value exchange: put, then fence, then get any rank's value ----
  /// Publishes `value` under `key` for every rank of the job (seen by others after fence()).
  void put(std::string_view key, std::span<const std::byte> value);
  /// Commits what this rank put and waits until every rank of the job has done the same; the
  /// values are collected, so a get() after it is local.
  void fence();
  /// The value rank r put under `key`. Throws rmpl::error naming the rank and key if it has none.
  std::vector<std::byte> get(int r, std::string_view key) const;
  /// Waits until every rank of the job has called barrier() (a fence without data).
  void barrier();
  /// A barrier that does not block: returns at once; `done` is set (from PMIx's own thread) once
  /// every rank has started it, and then `ring()` is called there. The caller waits for `done`
  /// while it keeps its own work moving. One at a time. Throws rmpl::error if it cannot start.
  void start_barrier(std::atomic<bool>& done, void (*ring)(void*), void* arg);

 private:
  std::string nspace_;
  int rank_ = 0;
  int size_ = 0;
  std::vector<std::string> hosts_;
  std::vector<int> host_of_;
  std::vector<int> local_;
};

}  // namespace rmpl::runtime::pmix
