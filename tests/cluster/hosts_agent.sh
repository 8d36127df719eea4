#!/usr/bin/env bash
# A launch agent for the hosts scripts/hosts makes, in the form launchers call ssh: AGENT HOST
# COMMAND... runs COMMAND (one shell command line, as ssh would give it to the remote shell) on HOST.
# Open MPI's mpirun takes it as --mca plm_rsh_agent. RMPL_HOSTS_PREFIX must name the hosts' prefix.
set -euo pipefail
host=$1
shift
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/hosts" run "$host" bash -c "$*"
