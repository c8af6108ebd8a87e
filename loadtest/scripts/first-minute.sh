#!/usr/bin/env bash
# The first minute of a fresh cluster, as a newcomer meets it: start
# './p2psip cluster' (or one './p2psip node'), wait for the line that says it
# is ready, then offer SIPp 5,000 new REGISTERs at 300/s and 5,000 more at
# 1,000/s. Prints per run the time to ready and what SIPp counted (failed
# calls are REGISTERs that timed out after SIPp's retransmissions or got a
# non-200). Traffic stays on 127.0.0.1.
#
#   loadtest/scripts/first-minute.sh BACKEND RUNS [extra flags for cluster/node]
#
# BACKEND is local (one node), hazelcast, chord, kademlia, or node (one
# './p2psip node --dht local', as in the README's quick start).
set -euo pipefail
backend=${1:?backend}; runs=${2:-10}; shift 2 || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
command -v sipp >/dev/null || { echo "first-minute: SIPp is needed (Debian: sip-tester)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo SEQUENTIAL; for i in $(seq 1 10000); do echo "fm$i;127.0.0.1:9"; done; } > "$work/users.csv"
"$root/p2psip" --version >/dev/null

for run in $(seq 1 "$runs"); do
  port=$((20000 + (RANDOM % 2000) * 10))
  log="$work/run$run.log"
  start=$(date +%s.%N)
  if [ "$backend" = node ]; then
    "$root/p2psip" node --sip "127.0.0.1:$port" --auth none --source-rate 0 "$@" > "$log" 2>&1 &
    ready="listening on sip:"
  else
    nodes=3; [ "$backend" = local ] && nodes=1
    "$root/p2psip" cluster --dht "$backend" --nodes "$nodes" --sip "127.0.0.1:$port" --auth none \
      --overlay-base $((port + 5)) --admin-base 0 "$@" > "$log" 2>&1 &
    ready="p2psip cluster ready"
  fi
  pid=$!
  for _ in $(seq 1 1800); do grep -q "$ready" "$log" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if ! grep -q "$ready" "$log"; then
    echo "run $run: never ready"; tail -5 "$log"; kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; continue
  fi
  t=$(echo "$(date +%s.%N) - $start" | bc)
  line="run $run: ready after $(printf '%.1f' "$t") s"
  for rate in 300 1000; do
    screen="$work/screen-$run-$rate.log"
    set +e
    sipp -sf "$root/loadtest/sipp/register.xml" -inf "$work/users.csv" -key regcseq 1 \
      -cid_str "fm$run-$rate-%u" -r "$rate" -m 5000 -i 127.0.0.1 -p $((port + 1000)) -timeout 120s \
      -nostdin -trace_screen -screen_file "$screen" "127.0.0.1:$port" > /dev/null 2>&1
    set -e
    ok=$(grep -E "^ +Successful call" "$screen" | tail -1 | awk -F'|' '{gsub(/ /,"",$3); print $3}')
    failed=$(grep -E "^ +Failed call" "$screen" | tail -1 | awk -F'|' '{gsub(/ /,"",$3); print $3}')
    retrans=$(grep -E "REGISTER -+>" "$screen" | tail -1 | awk '{print $4}')
    line="$line; $rate/s: $ok ok $failed failed $retrans retransmitted"
  done
  echo "$line"
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
done
