#!/usr/bin/env bash
# The conformance corpus's main run through the cluster (scripts/cluster.mjs: Postgres, PgBouncer in
# transaction mode, three engines with --strict-schema-sync, HAProxy round-robin), with the same engine
# settings as the main run against one engine in .ci/run. BASELINE_FILE holds the main run's ids (the
# baseline without the gated groups, which start their own engines and are not run here).
#   bash scripts/clusterConformance.sh BASELINE_FILE [RUNNER]
set -euo pipefail
cd "$(dirname "$0")/.."
BASELINE="${1:?usage: clusterConformance.sh BASELINE_FILE [RUNNER]}"
RUNNER="${2:-tests/conformance/run.mjs}"
export SVC_CLUSTER_DIR="${SVC_CLUSTER_DIR:-$(mktemp -d)}"
trap 'node scripts/cluster.mjs stop' EXIT
SVC_GRAPHQL_ADMIN_SECRET=ci-secret \
SVC_GRAPHQL_STRINGIFY_NUMERIC_TYPES=true \
ACTION_WEBHOOK_HANDLER=http://127.0.0.1:5593 \
EVENT_WEBHOOK_HANDLER=http://127.0.0.1:5592 \
SCHEDULED_TRIGGERS_WEBHOOK_DOMAIN=http://127.0.0.1:5594 \
SVC_CLUSTER_PORT="${SVC_CLUSTER_PORT:-0}" \
  node scripts/cluster.mjs start > "$SVC_CLUSTER_DIR.status.json"
URL=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).url)' "$SVC_CLUSTER_DIR.status.json")
rm -f "$SVC_CLUSTER_DIR.status.json"
echo "::: conformance (main run) through HAProxy at $URL"
node "$RUNNER" --url "$URL" --admin-secret ci-secret --baseline "$BASELINE"
