/**
 * `svc-graphql-engine seed create|apply`: seed data as Hasura's CLI keeps it, SQL files in
 * `seeds/` (config v2) or `seeds/<database>/` (config v3). `apply` runs every file (or the
 * `--file` ones), in name order, as one `bulk` of `run_sql` — one transaction, so a failing seed
 * leaves nothing and is reported with its file and line. Seeds are not recorded: applying twice runs twice.
 */
import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseFlags, str } from './args.js';
import type { FlagSpec } from './args.js';
import { CliError } from './cliError.js';
import { EngineClient, ServerError, bulkFailure } from './client.js';
import { databaseFolder } from './databaseFolder.js';
import type { CliIo } from './io.js';
import { projectOf } from './projectConfig.js';
import { splitSql, withoutTransactionControl } from './sqlStatements.js';

export const SEED_HELP = `Usage: svc-graphql-engine seed <command> [flags]

Commands:
  create NAME               create seeds/<database>/<timestamp>_<name>.sql (empty)
  apply                     run every seed file in name order, in one transaction, or:
    --file NAME               only this file (repeat the flag for several)

Flags:
  --dir DIR                 seeds directory (default: seeds); config v3 keeps DIR/<database>/
  --database-name NAME      the database folder (default: default, or the only folder there is)
  --project DIR             a Hasura CLI project folder (default: the current one): its config.yaml
                            gives endpoint, admin_secret and the *_directory folders
  --endpoint URL            engine URL (env SVC_GRAPHQL_ENDPOINT, else config.yaml's, else http://localhost:8080)
  --admin-secret SECRET     admin secret (env SVC_GRAPHQL_ADMIN_SECRET)
  -h, --help                this help
`;

const FLAGS: FlagSpec = { dir: { type: 'string' }, 'database-name': { type: 'string' }, file: { type: 'string', multiple: true } };

const isSeed = (d: Dirent) => d.isFile() && d.name.endsWith('.sql');

export async function seedCommand(argv: string[], io: CliIo): Promise<number> {
  const sub = argv[0];
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.out(SEED_HELP);
    return sub === undefined ? 1 : 0;
  }
  const p = parseFlags(argv.slice(1), FLAGS, sub === 'create' ? 1 : 0);
  if (p.values.help === true) {
    io.out(SEED_HELP);
    return 0;
  }
  const project = await projectOf(p, io);
  const root = project.dir('seeds');
  const dbName = str(p, 'database-name');
  if (sub === 'create') {
    const name = p.positionals[0];
    if (name === undefined || !/^[A-Za-z0-9_-]+$/.test(name)) throw new CliError('seed create needs a NAME of letters, digits, _ or -');
    const folder = join(root, dbName ?? 'default');
    await mkdir(folder, { recursive: true });
    const file = join(folder, `${Date.now()}_${name}.sql`);
    await writeFile(file, '');
    io.out(`${file}\n`);
    return 0;
  }
  if (sub !== 'apply') throw new CliError(`unknown seed command: ${JSON.stringify(sub)} (see svc-graphql-engine seed --help)`);
  const dir = await databaseFolder(root, dbName, isSeed);
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter(isSeed).map((d) => d.name).sort();
  } catch (e) {
    throw new CliError(`cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const wanted = (p.values.file as string[] | undefined) ?? [];
  for (const w of wanted) {
    if (!names.includes(basename(w))) throw new CliError(`no seed file ${w} in ${dir}`);
  }
  const files = wanted.length > 0 ? names.filter((n) => wanted.some((w) => basename(w) === n)) : names;
  if (files.length === 0) {
    io.progress(`no seed files in ${dir}`);
    return 0;
  }
  const stmts: { file: string; line: number; text: string }[] = [];
  for (const n of files) {
    const file = join(dir, n);
    const own = withoutTransactionControl(splitSql(await readFile(file, 'utf8')));
    if (own.rollback !== undefined) throw new CliError(`${file}:${own.rollback}: a seed file cannot ROLLBACK: all seeds run as one transaction (no seed applied)`);
    if (own.skipped.length > 0) io.progress(`${file}: its BEGIN/COMMIT (line ${own.skipped.join(', ')}) left out: all seeds run as one transaction`);
    for (const s of own.stmts) stmts.push({ file, line: s.line, text: s.text });
  }
  const client = new EngineClient(project.conn);
  try {
    await client.query({ type: 'bulk', args: stmts.map((s) => ({ type: 'run_sql', args: { sql: s.text } })) });
  } catch (e) {
    if (!(e instanceof ServerError)) throw e;
    const f = bulkFailure(e);
    const stmt = f.index !== undefined ? stmts[f.index] : undefined;
    throw new CliError(`${stmt ? `${stmt.file}:${stmt.line}` : dir}: ${f.message} (no seed applied)`);
  }
  io.progress(`applied ${files.length} seed file${files.length === 1 ? '' : 's'} (${stmts.length} statements)`);
  return 0;
}
