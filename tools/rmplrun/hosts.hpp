// A job across hosts: rmplrun -H host1:4,host2:4 (or --hostfile). rmplrun starts itself on each
// host through the launch agent (ssh by default; none for this host) as that host's agent
// (--serve-host), which runs the host's ranks as rmplrun runs a one-host job: its own segment,
// signals, reaping, output. Each agent's standard input and output are its link to this rmplrun
// (tools/rmplrun/link.hpp), which
// - completes the job's barriers across hosts, carrying the ranks' cards (their UCX worker
//   addresses) between the hosts' segments: this is how the ranks find each other, with no PMIx
//   server and nothing installed or running on the hosts but rmpl itself;
// - relays the ranks' output and the agents' reports;
// - reports a rank's failure to every host (the ranks there report it, naming the rank and its
//   host) and ends the job as on one host; a host whose link closes before its ranks ended (its
//   agent, launch agent or host lost) ends the job, named with its ranks;
// - forwards Ctrl-C and other signals, and --timeout: every host's agent ends its ranks, and an
//   agent whose link closes ends its ranks too, so nothing is left running anywhere.
#pragma once

#include <string>

#include "options.hpp"

namespace rmplrun {

/// Runs opt.nranks ranks of `program` on opt.hosts (ranks fill the hosts in order, each up to its
/// slots) and waits until the job is over on every host. Returns rmplrun's exit status, as
/// run_job() does. Throws usage_error when the hosts have too few slots.
int run_hosts_job(const options& opt, const std::string& program);

}  // namespace rmplrun
