#!/usr/bin/env bash
# Starts N ranks of a program on this machine with Gloo's environment (RANK, WORLD_SIZE,
# MASTER_ADDR=127.0.0.1, MASTER_PORT); on several machines set those by hand
# (docs/distributed.md). Exits with the first failing rank's status.
#   bash examples/distributed/launch_gloo.sh 2 build/examples/distributed/distributed --threads 1
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 N PROGRAM [ARGS...]" >&2; exit 2; }
n=$1; shift
port=${MASTER_PORT:-$((20000 + RANDOM % 20000))}
pids=()
for ((r = 0; r < n; r++)); do
  RANK=$r WORLD_SIZE=$n MASTER_ADDR=${MASTER_ADDR:-127.0.0.1} MASTER_PORT=$port "$@" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || { s=$?; [ $status -eq 0 ] && status=$s; }; done
exit $status
