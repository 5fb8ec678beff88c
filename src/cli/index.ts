/**
 * The CLI's public surface: `runCli(command, argv, io)` for `metadata …`, `migrate …`, `seed …` and
 * `console`, which talk to a running engine over HTTP. Every failure is one line on stderr and a non-zero exit.
 */
import { CliError } from './cliError.js';
import { consoleCommand } from './consoleCommand.js';
import type { CliIo } from './io.js';
import { metadataCommand } from './metadataCommand.js';
import { migrateCommand } from './migrateCommand.js';
import { seedCommand } from './seedCommand.js';

export { CliError } from './cliError.js';
export { processIo } from './io.js';
export type { CliIo } from './io.js';
export { metadataToFiles, filesToMetadata } from './metadataDir.js';
export { importHasuraMetadata, toV3 } from './hasuraImport.js';
export { splitSql } from './sqlStatements.js';
export { startProjectConsole } from './consoleCommand.js';
export type { ConsoleProxy } from './consoleProxy.js';

export const CLI_COMMANDS = new Set(['metadata', 'migrate', 'seed', 'console']);

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = { metadata: metadataCommand, migrate: migrateCommand, seed: seedCommand, console: consoleCommand };

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
