#!/usr/bin/env bash
# What idle subscriptions cost: for each KIND (live, stream) and each count in SUBS, a fresh engine
# holds that many idle subscriptions (PER_CONN per socket) and scripts/subscriptionLoad.mjs measures
# IDLE seconds of nothing happening: Postgres statements per second (pg_stat_statements), engine CPU
# % of a core and RSS. One JSON line per run, with the load average.
#
#   npm run build && bash scripts/benchSubscriptionIdle.sh
#   SUBS="10000 200000" KINDS="live stream" PER_CONN=500 IDLE=30 bash scripts/benchSubscriptionIdle.sh
#
# Uses its own Postgres 15 cluster (bench/pg-up.sh on PGPORT, default 55440, in PGBASE,
# default /tmp/svc-subs-pg, with pg_stat_statements preloaded) and the bench dataset, tracked with
# bench/track.sh; the engine listens on ENGINE_PORT (default 18640), defaults otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH="${BENCH:-bench}"
export PGPORT="${PGPORT:-55440}" PGBASE="${PGBASE:-/tmp/svc-subs-pg}"
SUBS="${SUBS:-10000 200000}"
KINDS="${KINDS:-live stream}"
PER_CONN="${PER_CONN:-500}"
IDLE="${IDLE:-30}"
ENGINE_PORT="${ENGINE_PORT:-18640}"
DB="postgres://postgres@127.0.0.1:$PGPORT/bench"

bash "$BENCH/pg-up.sh" >/dev/null
CONF="$PGBASE/data/postgresql.conf"
if ! grep -q "^shared_preload_libraries = 'pg_stat_statements'" "$CONF"; then
  echo "shared_preload_libraries = 'pg_stat_statements'" >>"$CONF"
  if [ "$(id -u)" = "0" ]; then su -s /bin/bash postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D '$PGBASE/data' -w restart" >/dev/null
  else /usr/lib/postgresql/15/bin/pg_ctl -D "$PGBASE/data" -w restart >/dev/null; fi
fi
if [ "$(psql "$DB" -Atc "select to_regclass('public.track') is not null")" != "t" ]; then
  psql "$DB" -q -v ON_ERROR_STOP=1 -f "$BENCH/dataset.sql" >/dev/null
fi

ENGINE_PID=""
stop_engine() { if [ -n "$ENGINE_PID" ]; then kill "$ENGINE_PID" 2>/dev/null || true; wait "$ENGINE_PID" 2>/dev/null || true; ENGINE_PID=""; fi; }
trap stop_engine EXIT
start_engine() {
  SVC_GRAPHQL_DATABASE_URL="$DB" SVC_GRAPHQL_SERVER_PORT="$ENGINE_PORT" SVC_GRAPHQL_LOG_LEVEL=warn \
    node --max-old-space-size=8192 dist/bin/svc-graphql-engine.js serve >>"$PGBASE/engine.log" 2>&1 &
  ENGINE_PID=$!
  for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$ENGINE_PORT/healthz" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "engine did not start (see $PGBASE/engine.log)" >&2; exit 1
}

start_engine
if [ "$(psql "$DB" -Atc "select count(*) from hdb_catalog.hdb_metadata" 2>/dev/null || echo 0)" = "0" ] || ! curl -fs "http://127.0.0.1:$ENGINE_PORT/v1/graphql" -H 'content-type: application/json' -d '{"query":"{ track_by_pk(id: 1) { id } }"}' | grep -q '"data"'; then
  bash "$BENCH/track.sh" "http://127.0.0.1:$ENGINE_PORT" >/dev/null
fi
stop_engine

for kind in $KINDS; do
  for n in $SUBS; do
    start_engine
    node scripts/subscriptionLoad.mjs --url "http://127.0.0.1:$ENGINE_PORT" --engine-pid "$ENGINE_PID" --pg "$DB" \
      --kind "$kind" --subs "$n" --per-conn "$PER_CONN" --idle "$IDLE" --duration 0
    stop_engine
  done
done
