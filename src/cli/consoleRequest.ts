/**
 * What a console request forwarded by `svc-graphql-engine console --project` means for the project
 * (pure; consoleProxy.ts acts on it):
 *
 * - a migration: a `run_sql` (alone or in a `bulk`) of /v1/query or /v2/query that is not read-only and
 *   changes the schema (its statements start with CREATE, ALTER, DROP, COMMENT, GRANT, REVOKE, DO, …),
 *   or any non-read-only `run_sql` sent with `x-svc-migration-name` (the SQL page's "this is a
 *   migration" box). `x-svc-migration: false` (the box left unchecked) writes none. Its up.sql is the
 *   request's non-read-only SQL; its down.sql the base64 `x-svc-migration-down`, else a comment saying
 *   it is not reversible. The request goes to the engine as one `bulk` that also records the version in
 *   `hdb_catalog.schema_migrations`, so the change and its record commit together (or neither does);
 *   the answer is mapped back to the one the console asked for.
 * - a metadata change: any /v1/query, /v2/query or /v1/metadata request other than reads (exports,
 *   `get_*`, `select`, DML, read-only `run_sql`): after it succeeds the metadata folder is exported again.
 */
import { splitSql } from './sqlStatements.js';
import { ENSURE_MIGRATIONS_TABLE, recordMigrationSql } from './schemaMigrations.js';

type J = Record<string, any>;

export interface PlannedMigration {
  version: bigint;
  name: string;
  /** The database whose migrations folder it goes to: the `run_sql`'s `source`, else the project's. */
  database: string;
  up: string;
  down: string;
}

export interface RequestPlan {
  /** The body to send to the engine. */
  body: unknown;
  migration?: PlannedMigration;
  /** A success may have changed the metadata: export it again. */
  metadata: boolean;
  /** The engine's answer (status, parsed JSON) as the console expects it. */
  answer(status: number, body: unknown): unknown;
}

export const API_PATHS = new Set(['/v1/query', '/v2/query', '/v1/metadata']);
export const DEFAULT_MIGRATION_NAME = 'console_run_sql';

/** Statements that change the schema begin with one of these words. */
const DDL = /^(create|alter|drop|comment|grant|revoke|do|security\s+label|import\s+foreign\s+schema|reindex|cluster|refresh\s+materialized\s+view)\b/i;
/** Operations that only read (or write rows): no metadata export after them. */
const READS = /^(export_metadata|get_.+|.+_get_.+|select|count|insert|update|delete|test_webhook_transform|dump|explain)$/;

/** True when one of the statements of `sql` changes the schema. */
export function changesSchema(sql: string): boolean {
  return splitSql(sql).some((s) => DDL.test(s.text.replace(/^(\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/, '')));
}

const isRunSql = (op: J): boolean => op?.type === 'run_sql' && op.args && typeof op.args.sql === 'string';
const readOnly = (op: J): boolean => op.args.read_only === true;

/** The operations of a body: a `bulk`'s items (nested bulks flattened), else the body itself. */
function operations(body: unknown): J[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const b = body as J;
  if (b.type === 'bulk' && Array.isArray(b.args)) return b.args.flatMap(operations);
  return [b];
}

/** A folder-safe snake_case name: letters, digits and `_`, at most 100 characters. */
export function migrationName(header: string | undefined): string {
  const n = (header ?? '').trim().toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 100);
  return n === '' ? DEFAULT_MIGRATION_NAME : n;
}

/** down.sql when the console sent none: Hasura's note that the migration is not reversible, with the up SQL. */
export function irreversibleDown(up: string): string {
  const quoted = up.trimEnd().split('\n').map((l) => `-- ${l}`.trimEnd()).join('\n');
  return `-- Could not auto-generate a down migration.\n-- Please write an appropriate down migration for the SQL below:\n${quoted}\n`;
}

function decodeDown(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = Buffer.from(header, 'base64').toString('utf8');
  return text.trim() === '' ? undefined : text.endsWith('\n') ? text : `${text}\n`;
}

const withSemicolon = (sql: string): string => {
  const t = sql.trim();
  return t.endsWith(';') ? t : `${t};`;
};

/** `$.args[0]…` of the wrapping bulk → `$…` of the single operation the console sent. */
function unwrapErrorPath(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || typeof (body as J).path !== 'string') return body;
  const path = (body as J).path as string;
  return path.startsWith('$.args[0]') ? { ...(body as J), path: `$${path.slice('$.args[0]'.length)}` } : body;
}

export interface PlanOptions {
  /** The project's database (`--database-name`). */
  database: string;
  /** A new migration version (a millisecond timestamp, increasing). */
  nextVersion(): bigint;
}

export function planRequest(path: string, body: unknown, headers: Record<string, string | undefined>, opts: PlanOptions): RequestPlan {
  const same: RequestPlan = { body, metadata: false, answer: (_s, b) => b };
  if (!API_PATHS.has(path)) return same;
  const ops = operations(body);
  const metadata = ops.some((op) => typeof op.type === 'string' && !READS.test(op.type) && !(isRunSql(op) && readOnly(op)));
  const writes = path === '/v1/metadata' ? [] : ops.filter((op) => isRunSql(op) && !readOnly(op));
  const asked = headers['x-svc-migration-name'];
  const refused = headers['x-svc-migration']?.trim().toLowerCase() === 'false';
  if (refused || writes.length === 0 || (asked === undefined && !writes.some((op) => changesSchema(op.args.sql)))) return { ...same, metadata };
  const up = `${writes.map((op) => withSemicolon(op.args.sql)).join('\n')}\n`;
  const source = writes.find((op) => typeof op.args.source === 'string')?.args.source as string | undefined;
  const migration: PlannedMigration = {
    version: opts.nextVersion(),
    name: migrationName(asked),
    database: source ?? opts.database,
    up,
    down: decodeDown(headers['x-svc-migration-down']) ?? irreversibleDown(up),
  };
  // Another database records its versions in its own hdb_catalog.schema_migrations, made there on its first migration.
  const recordSql = source !== undefined && source !== 'default' ? `CREATE SCHEMA IF NOT EXISTS hdb_catalog; ${ENSURE_MIGRATIONS_TABLE}; ${recordMigrationSql(migration.version, 'up')}` : recordMigrationSql(migration.version, 'up');
  const record = { type: 'run_sql', args: { sql: recordSql, ...(source !== undefined ? { source } : {}) } };
  const b = body as J;
  if (b.type === 'bulk') {
    return { body: { ...b, args: [...b.args, record] }, migration, metadata: true, answer: (s, r) => (s < 300 && Array.isArray(r) ? r.slice(0, -1) : r) };
  }
  return {
    body: { type: 'bulk', args: [b, record] },
    migration,
    metadata: true,
    answer: (s, r) => (s < 300 && Array.isArray(r) ? r[0] : unwrapErrorPath(r)),
  };
}
