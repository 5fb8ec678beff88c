#!/usr/bin/env bash
# Interleaved campaign: ROUNDS rounds over TARGETS (order reversed on even rounds), then a summary.
#   TARGETS="postgraphile rawsql" ROUNDS=3 ./run-all.sh
#   TARGETS="postgraphile rawsql engine" ENGINE_URL=http://127.0.0.1:8080/v1/graphql ./run-all.sh
#   INTERLEAVE=shape: inside a round, loop shapes outermost (targets alternate per shape, so each
#   shape's targets run within ~1 minute of each other); default INTERLEAVE=target (each target runs
#   all shapes in turn).
# Results: $RESULTS_DIR/$CAMPAIGN.jsonl, .log and .md (CAMPAIGN defaults to a timestamp; RESULTS_DIR to
# results/ here, where only the campaigns RESULTS.md cites are committed: .gitignore).
# Servers that run.sh starts are kept up between rounds and stopped (by PID) at the end.
set -euo pipefail
BENCH="$(cd "$(dirname "$0")" && pwd)"
cd "$BENCH"
ROUNDS="${ROUNDS:-3}"
TARGETS="${TARGETS:-postgraphile rawsql}"
CAMPAIGN="${CAMPAIGN:-$(date -u +%Y%m%dT%H%M%SZ)}"
RESULTS_DIR="$(mkdir -p "${RESULTS_DIR:-$BENCH/results}" && cd "${RESULTS_DIR:-$BENCH/results}" && pwd)"
export RESULTS="$RESULTS_DIR/$CAMPAIGN.jsonl" KEEP_SERVERS=1
PORTS="${PGL_PORT:-5678} ${PGL20_PORT:-5679} ${RAW_PORT:-5680}"
port_pid() { ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1; }
declare -A BEFORE
for p in $PORTS; do BEFORE[$p]="$(port_pid "$p")"; done
stop_ours() {
  for p in $PORTS; do
    local now; now="$(port_pid "$p")"
    if [ -n "$now" ] && [ "$now" != "${BEFORE[$p]}" ]; then kill "$now" 2>/dev/null || true; fi
  done
}
trap stop_ours EXIT

{
  echo "# campaign $CAMPAIGN: targets [$TARGETS] rounds $ROUNDS conns ${CONNS:-32} warmup ${WARMUP:-3}s duration ${DURATION:-10}s"
  echo "# $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r), node $(node -v), load avg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$RESULTS_DIR/$CAMPAIGN.log"

for r in $(seq 1 "$ROUNDS"); do
  order=($TARGETS)
  if [ $((r % 2)) -eq 0 ]; then
    rev=(); for ((i=${#order[@]}-1; i>=0; i--)); do rev+=("${order[i]}"); done; order=("${rev[@]}")
  fi
  one() { # one TARGET [SHAPES]
    if [ "$1" = "engine" ]; then
      SHAPES="${2:-${SHAPES:-}}" ROUND=$r ./run.sh engine "${ENGINE_URL:?set ENGINE_URL}" 2>&1 | tee -a "$RESULTS_DIR/$CAMPAIGN.log"
    else
      SHAPES="${2:-${SHAPES:-}}" ROUND=$r ./run.sh "$1" 2>&1 | tee -a "$RESULTS_DIR/$CAMPAIGN.log"
    fi
  }
  if [ "${INTERLEAVE:-target}" = "shape" ]; then
    mapfile -t shape_list < <(node -e 'import("./lib/common.mjs").then(m=>console.log(m.shapes().join("\n")))')
    for s in "${shape_list[@]}"; do for t in "${order[@]}"; do one "$t" "$s"; done; done
  else
    for t in "${order[@]}"; do one "$t"; done
  fi
done
node lib/summarize.mjs "$RESULTS" > "$RESULTS_DIR/$CAMPAIGN.md"
echo "summary: $RESULTS_DIR/$CAMPAIGN.md"
