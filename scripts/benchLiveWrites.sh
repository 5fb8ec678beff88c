#!/usr/bin/env bash
# `npm run bench:live-writes`: what the live-query triggers cost a writer. pgbench runs single-row
# UPDATEs by primary key, then single-row INSERTs, on a table `live_write (id int primary key, v int,
# name text)` of 100,000 rows in three states, ROUNDS times in turn (so drift on a shared machine
# hits all three alike):
#   none     no trigger (a table no live query reads);
#   counter  the change counter only (`svc_live_change`, as a table whose capture triggers Postgres refused);
#   capture  the row-capture triggers, which bump the counter and log the changed rows (what a live
#            query's table carries), and the counter of TRUNCATE.
# The triggers are the engine's own: the catalog is created by starting the engine once on the
# database (scripts/benchLive.sh's cluster), and installed here with the same statements.
# Prints transactions/s per state and round, and the median ratio to `none`.
#
# Environment (defaults): CLIENTS=4 SECONDS_PER_RUN=10 ROUNDS=3 PGPORT=55433 (the cluster of bench:live)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLIENTS="${CLIENTS:-4}" SECONDS_PER_RUN="${SECONDS_PER_RUN:-10}" ROUNDS="${ROUNDS:-3}"
export PGPORT="${PGPORT:-55433}" PGBASE="${PGBASE:-/tmp/live-bench-pg}"
export PGDATA="$PGBASE/data" PGBIN="${PGBIN:-/usr/lib/postgresql/15/bin}"
BENCH_DIR="${BENCH_DIR:-$ROOT/bench}"
DB_URL="postgres://postgres@127.0.0.1:$PGPORT/bench"
export PGOPTIONS="-c client_min_messages=warning"
mkdir -p "$ROOT/.tmp/bench"
"$BENCH_DIR/pg-up.sh" >/dev/null
(cd "$ROOT" && node scripts/buildServer.mjs)
# the catalog (svc_live_change, svc_live_log and their functions), as the engine creates it
(cd "$ROOT" && node --input-type=module -e "
  import { createDb } from './dist/src/execution/index.js';
  import { migrateCatalog } from './dist/src/metadata/index.js';
  const db = createDb(process.argv[1], 1);
  await migrateCatalog(db);
  await db.close();
" "$DB_URL")
psql "$DB_URL" -v ON_ERROR_STOP=1 -q -c "DROP TABLE IF EXISTS live_write" \
  -c "CREATE TABLE live_write (id int PRIMARY KEY, v int NOT NULL, name text NOT NULL)" \
  -c "INSERT INTO live_write SELECT g, 0, 'row ' || g FROM generate_series(1, 100000) g" -c "VACUUM ANALYZE live_write" >/dev/null
UPD="$ROOT/.tmp/bench/live-write-update.sql" INS="$ROOT/.tmp/bench/live-write-insert.sql"
printf '\\set id random(1, 100000)\nUPDATE live_write SET v = v + 1 WHERE id = :id;\n' >"$UPD"
printf 'INSERT INTO live_write (id, v, name) VALUES (nextval(%s), 0, %s);\n' "'live_write_ids'" "'new'" >"$INS"

state() {
  local s="DROP TRIGGER IF EXISTS svc_live_change ON live_write; DROP TRIGGER IF EXISTS svc_live_rows_insert ON live_write;
    DROP TRIGGER IF EXISTS svc_live_rows_update ON live_write; DROP TRIGGER IF EXISTS svc_live_rows_delete ON live_write;"
  if [ "$1" = counter ]; then
    s="$s CREATE TRIGGER svc_live_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON live_write FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_change();"
  fi
  if [ "$1" = capture ]; then
    s="$s CREATE TRIGGER svc_live_change AFTER TRUNCATE ON live_write FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_change();
      CREATE TRIGGER svc_live_rows_insert AFTER INSERT ON live_write REFERENCING NEW TABLE AS svc_new FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_rows();
      CREATE TRIGGER svc_live_rows_update AFTER UPDATE ON live_write REFERENCING OLD TABLE AS svc_old NEW TABLE AS svc_new FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_rows();
      CREATE TRIGGER svc_live_rows_delete AFTER DELETE ON live_write REFERENCING OLD TABLE AS svc_old FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_rows();"
  fi
  psql "$DB_URL" -v ON_ERROR_STOP=1 -q -c "$s" -c "TRUNCATE hdb_catalog.svc_live_log" -c "CREATE SEQUENCE IF NOT EXISTS live_write_ids" \
    -c "SELECT setval('live_write_ids', (SELECT max(id) FROM live_write))" >/dev/null
}
tps() { "$PGBIN/pgbench" -n -c "$CLIENTS" -j 1 -T "$SECONDS_PER_RUN" -f "$1" "$DB_URL" 2>/dev/null | awk '/^tps/ { printf "%d", $3 }'; }

declare -A R
for round in $(seq 1 "$ROUNDS"); do
  for st in none counter capture; do
    state "$st"
    R[$st,update,$round]=$(tps "$UPD")
    R[$st,insert,$round]=$(tps "$INS")
    echo "round=$round state=$st update_tps=${R[$st,update,$round]} insert_tps=${R[$st,insert,$round]}"
  done
done
state none
for w in update insert; do
  for st in counter capture; do
    ratios=$(for round in $(seq 1 "$ROUNDS"); do awk -v a="${R[$st,$w,$round]}" -v b="${R[none,$w,$round]}" 'BEGIN { printf "%.3f\n", a / b }'; done | sort -n)
    echo "$w $st/none median=$(echo "$ratios" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') all=$(echo $ratios)"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
