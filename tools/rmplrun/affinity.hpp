// Binding ranks to cores, as Open MPI does by default: rank i runs on the i-th CPU that rmplrun
// itself may use (so a job started under taskset or a cpuset stays inside it), and only when every
// rank can have a CPU of its own; oversubscribed jobs are left to the scheduler.
#pragma once

#include <vector>

namespace rmplrun {

/// The CPUs this process may run on, in increasing order (empty if they cannot be read).
std::vector<int> allowed_cpus();

/// Restricts the calling process to `cpu`; returns 0 or an errno value. Called in a rank before
/// exec.
int bind_to_cpu(int cpu);

}  // namespace rmplrun
