#!/usr/bin/env bash
# `npm run bench:live`: live queries under writes, end to end and reproducible from this one command.
#
#   1. a Postgres 15 cluster of its own (bench/pg-up.sh with PGBASE=/tmp/live-bench-pg,
#      port $PGPORT), with pg_stat_statements preloaded, and the bench dataset loaded once;
#   2. with TABLE=live_row: a table `live_row (id int primary key, name text)` holding rows 1..SUBS
#      (for more live queries than the dataset's 50,000 tracks);
#   3. the engine built and started (`serve --workers $WORKERS`, defaults otherwise), metadata
#      cleared, the dataset tracked (bench/track.sh), live_row tracked when used;
#   4. scripts/subscriptionLoad.mjs: SUBS live queries `<TABLE>_by_pk(id: $id)`, each its own
#      cohort, PER_CONN per socket; an idle window, then UPS updates a second for DURATION s. It
#      prints one JSON line: update → message p50/p90/p99/max, missed, messages without a change,
#      engine CPU % of a core and RSS (primary and workers summed), Postgres statements/s, load average.
#
#   5. with SOURCES=2: a second database `bench_two` on the same cluster added as source `two`
#      (root fields prefixed `two_`) with a `live_row` table of rows 1..SUBS; every other live query
#      is `two_live_row_by_pk(id: $id)` on it (each database has its own change counters), and
#      pg_stat_statements counts the statements of both databases.
#
# Environment (defaults): SUBS=10000 PER_CONN=50 TABLE=track WORKERS=1 IDLE=10 DURATION=30 UPS=20
#   SOURCES=1 PGPORT=55433 BENCH_DIR=bench
# The 10,000-cohorts-on-one-table case:  npm run bench:live
# The 200,000 case:                      SUBS=200000 TABLE=live_row WORKERS=2 npm run bench:live
# Idle over two sources:                 SOURCES=2 DURATION=0 IDLE=30 npm run bench:live
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-$ROOT/bench}"
SUBS="${SUBS:-10000}" PER_CONN="${PER_CONN:-50}" TABLE="${TABLE:-track}" WORKERS="${WORKERS:-1}"
IDLE="${IDLE:-10}" DURATION="${DURATION:-30}" UPS="${UPS:-20}" SOURCES="${SOURCES:-1}"
export PGPORT="${PGPORT:-55433}" PGBASE="${PGBASE:-/tmp/live-bench-pg}"
export PGDATA="$PGBASE/data" PGBIN="${PGBIN:-/usr/lib/postgresql/15/bin}" PGRUNAS="${PGRUNAS:-postgres}"
ADMIN=bench-admin-secret
DB_URL="postgres://postgres@127.0.0.1:$PGPORT/bench"
mkdir -p "$ROOT/.tmp/bench"

"$BENCH_DIR/pg-up.sh" >/dev/null
if ! grep -q "^shared_preload_libraries = 'pg_stat_statements'" "$PGDATA/postgresql.conf"; then
  echo "shared_preload_libraries = 'pg_stat_statements'" >>"$PGDATA/postgresql.conf"
  if [ "$(id -u)" = "0" ]; then su -s /bin/bash "$PGRUNAS" -c "'$PGBIN/pg_ctl' -D '$PGDATA' -w restart -l '$PGBASE/server.log'" >/dev/null
  else "$PGBIN/pg_ctl" -D "$PGDATA" -w restart -l "$PGBASE/server.log" >/dev/null; fi
fi
if [ "$(psql "$DB_URL" -Atqc "select count(*) from pg_tables where schemaname='public' and tablename='track'")" != "1" ]; then
  psql "$DB_URL" -v ON_ERROR_STOP=1 -q -f "$BENCH_DIR/dataset.sql" >/dev/null
fi
if [ "$TABLE" = live_row ]; then
  psql "$DB_URL" -v ON_ERROR_STOP=1 -q -c "CREATE TABLE IF NOT EXISTS live_row (id int PRIMARY KEY, name text NOT NULL)" \
    -c "INSERT INTO live_row SELECT g, 'row ' || g FROM generate_series(1, $SUBS) g ON CONFLICT (id) DO NOTHING" -c "VACUUM ANALYZE live_row" >/dev/null
fi
(cd "$ROOT" && node scripts/buildServer.mjs)

# shellcheck source=lib/benchEngine.sh
. "$ROOT/scripts/lib/benchEngine.sh"

PORT=$(free_port)
(cd "$ROOT" && NODE_ENV=production SVC_GRAPHQL_DATABASE_URL="$DB_URL" SVC_GRAPHQL_SERVER_PORT="$PORT" SVC_GRAPHQL_SERVER_HOST=127.0.0.1 \
   SVC_GRAPHQL_ADMIN_SECRET="$ADMIN" SVC_GRAPHQL_WORKERS="$WORKERS" SVC_GRAPHQL_LOG_LEVEL=warn \
   exec node dist/bin/svc-graphql-engine.js serve >"$ROOT/.tmp/bench/live-engine.log" 2>&1) &
ENGINE_PID=$!
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 200); do curl -fs -o /dev/null "$BASE/healthz" && break; sleep 0.2; done
q() { curl -fsS -o /dev/null -H 'content-type: application/json' -H "x-svc-admin-secret: $ADMIN" -X POST "$BASE/v1/query" --data "$1"; }
q '{"type":"clear_metadata","args":{}}'
BENCH_ADMIN_SECRET=$ADMIN "$BENCH_DIR/track.sh" "$BASE" >/dev/null
[ "$TABLE" = live_row ] && q '{"type":"track_table","args":{"schema":"public","name":"live_row"}}'
SECOND=()
if [ "$SOURCES" = 2 ]; then
  [ "$(psql "$DB_URL" -Atqc "select count(*) from pg_database where datname = 'bench_two'")" = 1 ] || psql "$DB_URL" -qc "CREATE DATABASE bench_two" >/dev/null
  TWO_URL="postgres://postgres@127.0.0.1:$PGPORT/bench_two"
  psql "$TWO_URL" -v ON_ERROR_STOP=1 -q -c "CREATE TABLE IF NOT EXISTS live_row (id int PRIMARY KEY, name text NOT NULL)" \
    -c "INSERT INTO live_row SELECT g, 'row ' || g FROM generate_series(1, $SUBS) g ON CONFLICT (id) DO NOTHING" -c "VACUUM ANALYZE live_row" >/dev/null
  m() { curl -fsS -o /dev/null -H 'content-type: application/json' -H "x-svc-admin-secret: $ADMIN" -X POST "$BASE/v1/metadata" --data "$1"; }
  m "{\"type\":\"pg_add_source\",\"args\":{\"name\":\"two\",\"configuration\":{\"connection_info\":{\"database_url\":\"$TWO_URL\"}},\"customization\":{\"root_fields\":{\"prefix\":\"two_\"}}}}"
  m '{"type":"pg_track_table","args":{"source":"two","table":{"schema":"public","name":"live_row"}}}'
  SECOND=(--second-table two_live_row)
fi
# every worker must have the tracked schema before subscribing
for _ in $(seq 1 100); do
  ok=0
  for _ in $(seq 1 $(( WORKERS * 2 ))); do
    curl -fsS -H 'content-type: application/json' -H "x-svc-admin-secret: $ADMIN" -X POST "$BASE/v1/graphql" \
      --data "{\"query\":\"{ ${TABLE}_by_pk(id: 1) { id } }\"}" | grep -q "\"${TABLE}_by_pk\"" && ok=$((ok + 1))
  done
  [ "$ok" = $(( WORKERS * 2 )) ] && break; sleep 0.2
done
node "$ROOT/scripts/subscriptionLoad.mjs" --url "$BASE" --engine-pid "$ENGINE_PID" --pg "$DB_URL" --admin-secret "$ADMIN" \
  --subs "$SUBS" --per-conn "$PER_CONN" --table "$TABLE" --idle "$IDLE" --duration "$DURATION" --updates-per-sec "$UPS" ${SECOND[@]+"${SECOND[@]}"}
