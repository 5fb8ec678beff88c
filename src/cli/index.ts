/**
 * The CLI's public surface: `runCli(command, argv, io)` for `metadata …`, `migrate …`, `seed …` and
 * `console`, which talk to a running engine over HTTP. Every failure is one line on stderr and a non-zero exit.
 * Each command's module is loaded when it runs (the console's serves the console's files through the
 * engine's `api/`), so neither a command nor `serve` loads what another command needs.
 */
import { CliError } from './cliError.js';
import type { ConsoleProxy } from './consoleProxy.js';
import type { CliIo } from './io.js';

export { CliError } from './cliError.js';
export { processIo } from './io.js';
export type { CliIo } from './io.js';
export { metadataToFiles, filesToMetadata } from './metadataDir.js';
export { importHasuraMetadata, toV3 } from './hasuraImport.js';
export { splitSql } from './sqlStatements.js';
export type { ConsoleProxy } from './consoleProxy.js';

export const CLI_COMMANDS = new Set(['metadata', 'migrate', 'seed', 'console']);

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  metadata: async (argv, io) => (await import('./metadataCommand.js')).metadataCommand(argv, io),
  migrate: async (argv, io) => (await import('./migrateCommand.js')).migrateCommand(argv, io),
  seed: async (argv, io) => (await import('./seedCommand.js')).seedCommand(argv, io),
  console: async (argv, io) => (await import('./consoleCommand.js')).consoleCommand(argv, io),
};

/** `console --project DIR` started, returning its local server (the command itself runs until Ctrl+C). */
export async function startProjectConsole(argv: string[], io: CliIo): Promise<ConsoleProxy> {
  return (await import('./consoleCommand.js')).startProjectConsole(argv, io);
}

export async function runCli(command: string, argv: string[], io: CliIo): Promise<number> {
  try {
    const run = COMMANDS[command];
    if (!run) throw new CliError(`unknown command: ${JSON.stringify(command)}`);
    return await run(argv, io);
  } catch (e) {
    if (e instanceof CliError) {
      io.err(`svc-graphql-engine ${command}: ${e.message}`);
      return e.exitCode;
    }
    throw e;
  }
}
