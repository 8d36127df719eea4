#!/usr/bin/env bash
# A launch agent for the hosts scripts/hosts makes, in the form launchers call ssh: AGENT [-x]
# HOST COMMAND... runs COMMAND (one shell command line, as ssh would give it to the remote shell)
# on HOST, named or by its address (looked up in the harness's hosts file). Open MPI's mpirun takes
# it as --mca plm_rsh_agent, MPICH's mpiexec as -launcher rsh -launcher-exec. RMPL_HOSTS_PREFIX must
# name the hosts' prefix.
set -euo pipefail
[[ ${1-} == -x ]] && shift  # ssh's "no X11 forwarding", which some launchers pass
host=$1
shift
hosts_file="/run/rmpl-hosts/${RMPL_HOSTS_PREFIX:-rmplh}.hosts"
if [[ $host =~ ^[0-9.]+$ && -f $hosts_file ]]; then
  host=$(awk -v a="$host" '$1 == a { print $2; exit }' "$hosts_file")
fi
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/hosts" run "$host" bash -c "$*"
