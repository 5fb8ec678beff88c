#!/usr/bin/env node
/**
 * The CLI: `svc-graphql-engine [serve|version|help|metadata …|migrate …|seed …|console] [flags]` (serve is the default;
 * metadata/migrate/seed/console are the cli/ folder's commands against a running engine).
 * serve: load config (flags + SVC_GRAPHQL_*), start the engine (with --workers N > 1: a primary that
 * runs N engine processes on one port, server/cluster.ts), and on SIGINT/SIGTERM shut down
 * gracefully and exit 0 (a second signal exits at once). A bad flag prints one line, exit 1.
 */
import { ConfigError, helpText, loadConfig } from './config/index.js';
import { packageInfo } from './lib/index.js';
import { CLI_COMMANDS, processIo, runCli } from './cli/index.js';

const COMMANDS = new Set(['serve', 'version', 'help']);
/** The cli/ folder's commands as `--help` lists them (tests/integration/operatorMessages.test.ts checks each of CLI_COMMANDS is). */
const CLI_HELP_LINES = '  metadata export|apply|diff|reload|inconsistency list|drop\n  migrate create|apply|status\n  seed create|apply\n  console in migrations mode: --project DIR [--port P]\n';

async function main(argv: string[]): Promise<number> {
  if (argv[0] !== undefined && CLI_COMMANDS.has(argv[0])) return runCli(argv[0], argv.slice(1), processIo());
  const command = argv[0] !== undefined && COMMANDS.has(argv[0]) ? argv[0] : 'serve';
  const flags = command === argv[0] ? argv.slice(1) : argv;
  if (command === 'help' || flags.includes('--help') || flags.includes('-h')) {
    process.stdout.write(helpText());
    process.stdout.write(`\nOther commands (against a running engine; each has --help):\n${CLI_HELP_LINES}`);
    return 0;
  }
  if (command === 'version' || flags.includes('--version')) {
    process.stdout.write(`${packageInfo().version}\n`);
    return 0;
  }

  let config;
  try {
    config = loadConfig(flags, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc-graphql-engine: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  // The engine is loaded for `serve` only: the CLI's commands, `help` and `version` do without it.
  const { clusterWorkerLink, createLogger, isClusterWorker, logFormatFor, runClusterPrimary, startEngine } = await import('./server/index.js');

  if (config.workers > 1 && !isClusterWorker()) {
    try {
      return await runClusterPrimary(config, createLogger(config.logLevel, 1, logFormatFor(config.logFormat)));
    } catch (err) {
      process.stderr.write(`svc-graphql-engine: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  }

  // Stopping: the first SIGINT/SIGTERM (or, in a cluster worker, the primary's word) drains and stops;
  // a second signal exits at once.
  let requestStop = (): void => {
    stopRequested = true;
  };
  let stopRequested = false;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      process.stderr.write(`svc-graphql-engine: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    requestStop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const link = isClusterWorker() ? clusterWorkerLink(() => requestStop()) : undefined;

  let engine;
  try {
    engine = await startEngine(config, { onLocalSchemaChange: link?.onLocalSchemaChange, embeddedPostgresOfPrimary: link?.embeddedPostgres });
  } catch (err) {
    process.stderr.write(`svc-graphql-engine: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  link?.ready(engine);

  const running = engine;
  await new Promise<void>((resolve) => {
    let stopping = false;
    requestStop = () => {
      if (stopping) return;
      stopping = true;
      running.stop().then(resolve, (err: unknown) => {
        process.stderr.write(`svc-graphql-engine: shutdown failed: ${String(err)}\n`);
        resolve();
      });
    };
    if (stopRequested) requestStop();
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`svc-graphql-engine: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
