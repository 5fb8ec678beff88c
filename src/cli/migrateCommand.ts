/**
 * `svc-graphql-engine migrate create|apply|status`: migrations in `migrations/<version>_<name>/`
 * (up.sql, down.sql; up.yaml/down.yaml metadata operations; config v1's flat files, see
 * migrationFiles.ts), versions recorded as Hasura's CLI does in
 * `hdb_catalog.schema_migrations(version bigint, dirty boolean)`. Each migration goes to the engine
 * as one `bulk` of `run_sql` (one per statement) plus the version row, which the engine runs in one
 * transaction: a failure leaves nothing behind and is reported with the file and the statement's line.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import YAML from 'yaml';
import { join } from 'node:path';
import { intFlag, parseFlags, str } from './args.js';
import type { FlagSpec } from './args.js';
import { CliError } from './cliError.js';
import { databaseFolder } from './databaseFolder.js';
import { EngineClient, ServerError, bulkFailure } from './client.js';
import type { CliIo } from './io.js';
import { projectOf } from './projectConfig.js';
import { ENSURE_MIGRATIONS_TABLE, appliedVersions, onSource, recordMigrationSql } from './schemaMigrations.js';
import { isMigration, localMigrations, readMigrationFile, yamlOperations, type Migration } from './migrationFiles.js';
import { splitSql, withoutTransactionControl } from './sqlStatements.js';

export const MIGRATE_HELP = `Usage: svc-graphql-engine migrate <command> [flags]

Commands:
  create NAME               create migrations/<timestamp>_<name>/ with up.sql and down.sql
  apply                     apply all pending migrations (default), or:
    --up N                    the next N pending migrations
    --down N                  roll back the last N applied migrations
    --version V [--type up|down]  just migration V
  status                    list migrations: present in the directory, applied in the database

Flags:
  --dir DIR                 migrations directory (default: migrations); a Hasura CLI config-v3
                            project keeps them in DIR/<database>/ (found by itself)
  --database-name NAME      the database folder of a config-v3 project (default: default, or the
                            only folder there is); run on the source NAME when the project's
                            databases.yaml lists it as another database than the engine's own
  --project DIR             a Hasura CLI project folder (default: the current one): its config.yaml
                            gives endpoint, admin_secret and the *_directory folders
  --endpoint URL            engine URL (env SVC_GRAPHQL_ENDPOINT, else config.yaml's, else http://localhost:8080)
  --admin-secret SECRET     admin secret (env SVC_GRAPHQL_ADMIN_SECRET)
  -h, --help                this help
`;

const FLAGS: FlagSpec = {
  dir: { type: 'string' },
  'database-name': { type: 'string' },
  up: { type: 'string' },
  down: { type: 'string' },
  version: { type: 'string' },
  type: { type: 'string' },
};

/**
 * The engine source a database folder's migrations run on: the database of that name in the project's
 * `metadata/databases/databases.yaml` when it is another Postgres source there; the engine's own database
 * (`default`) for `default`, for the project's first Postgres database when none is named `default`
 * (the one metadata apply maps onto the engine's database), and for a project without that file.
 */
async function sourceOfDatabase(metadataDir: string, dbName: string | undefined): Promise<string | undefined> {
  if (dbName === undefined || dbName === 'default') return undefined;
  let list: unknown;
  try {
    list = YAML.parse(await readFile(join(metadataDir, 'databases', 'databases.yaml'), 'utf8'), { customTags: [{ tag: '!include', resolve: (x: string) => x }] });
  } catch {
    return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  const pgs = list.filter((d): d is { name: string; kind?: string } => typeof d?.name === 'string' && ['postgres', 'pg', undefined].includes(d.kind));
  const own = pgs.find((d) => d.name === 'default') ?? pgs[0];
  return own?.name !== dbName && pgs.some((d) => d.name === dbName) ? dbName : undefined;
}

/** SQL written for Hasura reads the session from `hasura.user`, or `x-hasura-*` keys of a session argument. */
const READS_HASURA_SESSION = /hasura\.user|x-hasura-/i;

/** True when the engine sets `hasura.user` (Hasura-compatible session variables): probed in a read-only run_sql. */
async function engineSetsHasuraUser(client: EngineClient): Promise<boolean> {
  const r = (await client.query({
    type: 'run_sql',
    args: { sql: "SELECT coalesce(current_setting('hasura.user', true), '') <> '' AS set", read_only: true },
  })) as { result?: string[][] };
  return r.result?.[1]?.[0] === 't';
}

/**
 * Runs one migration's up or down files (SQL statements, then YAML operations) and records it, in one
 * transaction on the engine; returns the files whose SQL reads Hasura's session.
 */
async function runOne(client: EngineClient, m: Migration, dir: 'up' | 'down', io: CliIo, source?: string): Promise<string[]> {
  const args: { type: string; args: unknown }[] = [{ type: 'run_sql', args: onSource(source, { sql: ENSURE_MIGRATIONS_TABLE }) }];
  /** Where each bulk item after the first came from, for the error line. */
  const origin: string[] = [];
  const readers: string[] = [];
  for (const file of m.files[dir]) {
    const text = await readMigrationFile(file);
    if (READS_HASURA_SESSION.test(text)) readers.push(file);
    if (file.endsWith('.yaml')) {
      const { ops, mapped } = yamlOperations(file, text);
      for (const line of mapped) io.progress(`mapped: ${line}`);
      ops.forEach((op, i) => (args.push(op), origin.push(`${file} (operation ${i + 1}, ${op.type})`)));
      continue;
    }
    const own = withoutTransactionControl(splitSql(text));
    if (own.rollback !== undefined) throw new CliError(`${file}:${own.rollback}: a migration cannot ROLLBACK: each migration runs as one transaction (migration ${m.version} ${dir} not applied)`);
    if (own.skipped.length > 0) io.progress(`${file}: its BEGIN/COMMIT (line ${own.skipped.join(', ')}) left out: each migration runs as one transaction`);
    for (const s of own.stmts) (args.push({ type: 'run_sql', args: onSource(source, { sql: s.text }) }), origin.push(`${file}:${s.line}`));
  }
  args.push({ type: 'run_sql', args: onSource(source, { sql: recordMigrationSql(m.version, dir) }) });
  try {
    await client.query({ type: 'bulk', args });
  } catch (e) {
    if (!(e instanceof ServerError)) throw e;
    const f = bulkFailure(e);
    const where = (f.index !== undefined ? origin[f.index - 1] : undefined) ?? `${m.version}_${m.name}`;
    throw new CliError(`${where}: ${f.message} (migration ${m.version} ${dir} not applied)`);
  }
  return readers;
}

export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  const sub = argv[0];
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.out(MIGRATE_HELP);
    return sub === undefined ? 1 : 0;
  }
  const p = parseFlags(argv.slice(1), FLAGS, sub === 'create' ? 1 : 0);
  if (p.values.help === true) {
    io.out(MIGRATE_HELP);
    return 0;
  }
  const project = await projectOf(p, io);
  const root = project.dir('migrations');
  const dbName = str(p, 'database-name');
  const source = await sourceOfDatabase(project.dir('metadata'), dbName);
  if (sub === 'create') {
    const dir = dbName !== undefined ? join(root, dbName) : await databaseFolder(root, undefined, isMigration);
    const name = p.positionals[0];
    if (name === undefined || !/^[A-Za-z0-9_-]+$/.test(name)) throw new CliError('migrate create needs a NAME of letters, digits, _ or -');
    const folder = join(dir, `${Date.now()}_${name}`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'up.sql'), '');
    await writeFile(join(folder, 'down.sql'), '');
    io.out(`${folder}\n`);
    return 0;
  }
  const dir = await databaseFolder(root, dbName, isMigration);
  const client = new EngineClient(project.conn);
  if (sub === 'status') {
    const local = await localMigrations(dir);
    const applied = await appliedVersions(client, source);
    const versions = [...new Set([...local.map((m) => m.version), ...applied])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    io.out('VERSION\tNAME\tSOURCE STATUS\tDATABASE STATUS\n');
    for (const v of versions) {
      const m = local.find((x) => x.version === v);
      io.out(`${v}\t${m?.name ?? '-'}\t${m ? 'Present' : 'Not Present'}\t${applied.has(v) ? 'Applied' : 'Not Applied'}\n`);
    }
    return 0;
  }
  if (sub !== 'apply') throw new CliError(`unknown migrate command: ${JSON.stringify(sub)} (see svc-graphql-engine migrate --help)`);
  const up = intFlag(p, 'up');
  const down = intFlag(p, 'down');
  const version = str(p, 'version');
  const type = str(p, 'type') ?? 'up';
  if ([up, down, version].filter((x) => x !== undefined).length > 1) throw new CliError('use only one of --up, --down, --version');
  if (type !== 'up' && type !== 'down') throw new CliError(`--type expects up or down, got ${JSON.stringify(type)}`);
  if (version !== undefined && !/^\d+$/.test(version)) throw new CliError(`--version expects a number, got ${JSON.stringify(version)}`);
  const local = await localMigrations(dir);
  const applied = await appliedVersions(client, source);
  let plan: { m: Migration; dir: 'up' | 'down' }[];
  if (version !== undefined) {
    const m = local.find((x) => x.version === BigInt(version));
    if (!m) throw new CliError(`no migration ${version} in ${dir}`);
    if (type === 'up' && applied.has(m.version)) throw new CliError(`migration ${version} is already applied`);
    if (type === 'down' && !applied.has(m.version)) throw new CliError(`migration ${version} is not applied`);
    plan = [{ m, dir: type }];
  } else if (down !== undefined) {
    plan = local.filter((m) => applied.has(m.version)).reverse().slice(0, down).map((m) => ({ m, dir: 'down' as const }));
  } else {
    const pending = local.filter((m) => !applied.has(m.version));
    plan = pending.slice(0, up ?? pending.length).map((m) => ({ m, dir: 'up' as const }));
  }
  if (plan.length === 0) {
    io.progress('nothing to apply');
    return 0;
  }
  let k = 0;
  const readers: string[] = [];
  for (const step of plan) {
    k++;
    io.progress(`[${k}/${plan.length}] ${step.dir} ${step.m.version}_${step.m.name} …`);
    readers.push(...(await runOne(client, step.m, step.dir, io, source)));
  }
  io.progress(`applied ${plan.length} migration${plan.length === 1 ? '' : 's'}`);
  if (readers.length > 0 && !(await engineSetsHasuraUser(client))) {
    io.err(
      `note: ${readers.join(', ')} read${readers.length === 1 ? 's' : ''} Hasura's session (current_setting('hasura.user'), x-hasura-* keys), which this engine does not give SQL now: ` +
        "that SQL reads NULL. Start the engine with --hasura-session-variables=true (SVC_GRAPHQL_HASURA_SESSION_VARIABLES=true), or read svc.user and x-svc-* keys instead",
    );
  }
  return 0;
}
