#!/usr/bin/env bash
# `npm run bench:workers`: req/s and engine CPU per request of a few shapes with --workers 1 and 2,
# on the shared bench database (bench/: pg-up.sh, dataset, track.sh, queries/).
#
#   for each W in $WORKERS: start `node dist/bin/svc-graphql-engine.js serve --workers W` on the bench database,
#   clear_metadata + track.sh, then per shape: a warm-up, then a measured wrk run
#   (1 thread, $CONNS connections, $DURATION s, bench/load/post.lua); the engine's CPU is the
#   user+system time of the primary and all its workers (from /proc, before and after the run).
#   Postgres' CPU is not in it. Results: one line per run on stdout and in .tmp/bench/workers-<ts>.txt.
#
# Environment (defaults): WORKERS="1 2" SHAPES="a_by_pk c_nested_3" CONNS=32 WARMUP=3 DURATION=8
#   BENCH_POOL=8 (pool per worker)   BENCH_DIR=bench   BENCH_ADMIN_SECRET=bench-admin-secret
# The load generator (wrk) runs on the same cores as the engine: with 2 cores and 2 workers the
# workers and wrk compete, so the req/s is what this machine can do, not what 2 cores of engine can.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-$ROOT/bench}"
WORKERS="${WORKERS:-1 2}" SHAPES="${SHAPES:-a_by_pk c_nested_3}"
CONNS="${CONNS:-32}" WARMUP="${WARMUP:-3}" DURATION="${DURATION:-8}" POOL="${BENCH_POOL:-8}"
export BENCH_ADMIN_SECRET="${BENCH_ADMIN_SECRET:-bench-admin-secret}" PGPORT="${PGPORT:-55432}"
DB_URL="postgres://postgres@127.0.0.1:$PGPORT/bench"
command -v wrk >/dev/null || { echo "bench:workers: wrk is required (apt-get install -y wrk)" >&2; exit 2; }
mkdir -p "$ROOT/.tmp/bench"
OUT="$ROOT/.tmp/bench/workers-$(date -u +%Y%m%dT%H%M%SZ).txt"
TICKS=$(getconf CLK_TCK)

"$BENCH_DIR/pg-up.sh" >/dev/null
if [ "$(psql "$DB_URL" -Atqc "select count(*) from pg_tables where schemaname='public' and tablename='track'")" != "1" ]; then
  psql "$DB_URL" -v ON_ERROR_STOP=1 -q -f "$BENCH_DIR/dataset.sql" >/dev/null
fi
(cd "$ROOT" && node scripts/buildServer.mjs)

cpu_ticks() { # user+system ticks of $1 and its children
  local total=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    [ -r "/proc/$p/stat" ] || continue
    total=$(( total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat") ))
  done
  echo "$total"
}

# shellcheck source=lib/benchEngine.sh
. "$ROOT/scripts/lib/benchEngine.sh"

for W in $WORKERS; do
  PORT=$(free_port)
  (cd "$ROOT" && NODE_ENV=production SVC_GRAPHQL_DATABASE_URL="$DB_URL" SVC_GRAPHQL_SERVER_PORT="$PORT" SVC_GRAPHQL_SERVER_HOST=127.0.0.1 \
     SVC_GRAPHQL_ADMIN_SECRET="$BENCH_ADMIN_SECRET" SVC_GRAPHQL_PG_CONNECTIONS="$POOL" SVC_GRAPHQL_WORKERS="$W" SVC_GRAPHQL_LOG_LEVEL=warn \
     exec node --max-semi-space-size=4 dist/bin/svc-graphql-engine.js serve >"$ROOT/.tmp/bench/workers-engine.log" 2>&1) &
  ENGINE_PID=$!
  BASE="http://127.0.0.1:$PORT"
  for _ in $(seq 1 200); do curl -fs -o /dev/null "$BASE/healthz" && break; sleep 0.2; done
  curl -fsS -o /dev/null -H 'content-type: application/json' -H "x-svc-admin-secret: $BENCH_ADMIN_SECRET" -X POST "$BASE/v1/query" --data '{"type":"clear_metadata","args":{}}'
  "$BENCH_DIR/track.sh" "$BASE" >/dev/null
  # every worker must have the tracked schema before measuring (fresh connections reach each in turn)
  for _ in $(seq 1 50); do
    ok=0
    for _ in $(seq 1 $(( W * 2 ))); do
      curl -fsS -H 'content-type: application/json' -H "x-svc-admin-secret: $BENCH_ADMIN_SECRET" -X POST "$BASE/v1/graphql" --data '{"query":"{ track_by_pk(id: 1) { id } }"}' | grep -q '"track_by_pk"' && ok=$((ok + 1))
    done
    [ "$ok" = $(( W * 2 )) ] && break; sleep 0.2
  done
  for S in $SHAPES; do
    BODY="$ROOT/.tmp/bench/body.$S.json"
    node -e 'const fs=require("fs"),[d,s,o]=process.argv.slice(1);fs.writeFileSync(o,JSON.stringify({query:fs.readFileSync(`${d}/queries/${s}.hasura.graphql`,"utf8"),variables:JSON.parse(fs.readFileSync(`${d}/queries/${s}.variables.json`,"utf8"))}))' "$BENCH_DIR" "$S" "$BODY"
    BENCH_BODY_FILE="$BODY" wrk -t1 -c"$CONNS" -d"${WARMUP}s" -s "$BENCH_DIR/load/post.lua" "$BASE/v1/graphql" >/dev/null
    before=$(cpu_ticks "$ENGINE_PID")
    res=$(BENCH_BODY_FILE="$BODY" wrk -t1 -c"$CONNS" -d"${DURATION}s" -s "$BENCH_DIR/load/post.lua" "$BASE/v1/graphql")
    after=$(cpu_ticks "$ENGINE_PID")
    total=$(echo "$res" | awk '/requests in/ { print $1 }')
    rps=$(echo "$res" | awk '/Requests\/sec/ { print $2 }')
    bad=$(echo "$res" | awk '/Non-2xx|Socket errors/ { print }')
    cpu_ms=$(awk -v t="$(( after - before ))" -v hz="$TICKS" -v n="$total" 'BEGIN { printf "%.3f", t * 1000 / hz / n }')
    cores=$(awk -v t="$(( after - before ))" -v hz="$TICKS" -v d="$DURATION" 'BEGIN { printf "%.2f", t / hz / d }')
    line="workers=$W shape=$S req/s=$rps engine_cpu_ms/req=$cpu_ms engine_cores_busy=$cores requests=$total${bad:+ ERRORS: $bad}"
    echo "$line" | tee -a "$OUT"
  done
  stop_engine
done
echo "bench:workers: $OUT"
