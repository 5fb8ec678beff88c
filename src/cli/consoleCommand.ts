/**
 * `svc-graphql-engine console --project DIR`: what `hasura console` is to a Hasura project. It serves
 * the console on a local port against the project's engine (consoleProxy.ts) and writes every schema
 * change the console makes as a migration of the project, and every metadata change into its
 * metadata folder, until Ctrl+C.
 */
import { readdir, stat } from 'node:fs/promises';
import { intFlag, parseFlags, str, type FlagSpec } from './args.js';
import { CliError } from './cliError.js';
import type { CliIo } from './io.js';
import { isMigration } from './migrationFiles.js';
import { projectOf } from './projectConfig.js';
import { startConsoleProxy, type ConsoleProxy } from './consoleProxy.js';

export const CONSOLE_HELP = `Usage: svc-graphql-engine console [flags]

Serves the console on a local port against the project's engine; every schema change made in it is
also written to the project as a migration (migrations/<database>/<version>_<name>/up.sql, down.sql,
recorded as applied on that engine) and every metadata change rewrites the metadata folder, as
\`metadata export\` writes it. Runs until Ctrl+C.

Flags:
  --project DIR             the Hasura CLI project folder (default: the current one): its config.yaml
                            gives endpoint, admin_secret and the *_directory folders
  --endpoint URL            engine URL (env SVC_GRAPHQL_ENDPOINT, else config.yaml's, else http://localhost:8080)
  --admin-secret SECRET     admin secret (env SVC_GRAPHQL_ADMIN_SECRET, else config.yaml's)
  --port PORT               the console's port (default: 9695)
  --address HOST            the address it listens on (default: 127.0.0.1)
  --database-name NAME      the database folder of the migrations (default: default)
  -h, --help                this help
`;

const FLAGS: FlagSpec = { port: { type: 'string' }, address: { type: 'string' }, 'database-name': { type: 'string' } };

/** Flat migrations (config v2: `migrations/<version>_<name>/`) or one folder per database (config v3). */
async function flatLayout(dir: string, configVersion: number | undefined): Promise<boolean> {
  if (configVersion !== undefined) return configVersion < 3;
  try {
    return (await readdir(dir, { withFileTypes: true })).some(isMigration);
  } catch {
    return false;
  }
}

/** The console's parts for a project: the flags checked, the engine reached, the port listening. */
export async function startProjectConsole(argv: string[], io: CliIo): Promise<ConsoleProxy> {
  const p = parseFlags(argv, FLAGS);
  const root = str(p, 'project') ?? '.';
  const isDir = await stat(root).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new CliError(`--project: no folder ${JSON.stringify(root)}`);
  const port = intFlag(p, 'port') ?? 9695;
  if (port > 65535) throw new CliError(`--port expects a port number, got ${port}`);
  const database = str(p, 'database-name') ?? 'default';
  if (!/^[A-Za-z0-9_-]+$/.test(database)) throw new CliError(`--database-name: expected letters, digits, _ or -, got ${JSON.stringify(database)}`);
  const project = await projectOf(p, io);
  const migrationsDir = project.dir('migrations');
  return startConsoleProxy({
    conn: project.conn,
    migrationsDir,
    flatMigrations: await flatLayout(migrationsDir, project.configVersion),
    metadataDir: project.dir('metadata'),
    database,
    port,
    address: str(p, 'address') ?? '127.0.0.1',
    io,
  });
}

export async function consoleCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    io.out(CONSOLE_HELP);
    return 0;
  }
  const proxy = await startProjectConsole(argv, io);
  io.progress(`console: ${proxy.url}/console (Ctrl+C stops)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await proxy.stop();
  return 0;
}
