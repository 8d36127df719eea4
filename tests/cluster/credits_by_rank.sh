#!/bin/sh
# credits_by_rank.sh LIST PROGRAM [ARGS...]: runs PROGRAM (a rank started by rmplrun) with
# RMPL_UCX_CREDITS set to entry RMPL_RANK of the comma-separated LIST (its last entry for the ranks
# beyond it). Senders and receivers across hosts then hold windows of different sizes: a receiver
# must return credits by the sender's window, not its own, or a small-window sender waits forever.
list=$1
shift
i=0
credits=
rest=$list
while :; do
  entry=${rest%%,*}
  credits=$entry
  [ "$i" -eq "${RMPL_RANK:-0}" ] && break
  [ "$rest" = "$entry" ] && break
  rest=${rest#*,}
  i=$((i + 1))
done
export RMPL_UCX_CREDITS="$credits"
exec "$@"
