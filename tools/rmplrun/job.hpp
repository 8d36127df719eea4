// Running a job: the ranks' processes, from fork to the last wait.
#pragma once

#include <string>

#include "options.hpp"

namespace rmplrun {

/// Creates the job's shared segment, starts opt.nranks ranks of `program` (a path from
/// find_program()), relays signals and output, and waits until the job is over; no process of the
/// job outlives the call. Returns rmplrun's exit status: 0 when every rank exited 0, the first
/// failed rank's status (128+signal if it was killed), 124 on timeout, 128+signal when rmplrun was
/// signalled, 1 when rmplrun itself could not do its job.
int run_job(const options& opt, const std::string& program);

}  // namespace rmplrun
