/**
 * Flag parsing for the CLI commands (node:util parseArgs, strict): unknown flags and missing
 * values become a CliError, so every command fails the same way on wrong input. The connection
 * flags (--endpoint, --admin-secret) fall back to SVC_GRAPHQL_ENDPOINT / SVC_GRAPHQL_ADMIN_SECRET.
 */
import { parseArgs } from 'node:util';
import { CliError } from './cliError.js';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export const CONNECTION_FLAGS: FlagSpec = {
  endpoint: { type: 'string' },
  project: { type: 'string' },
  'admin-secret': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'no-color': { type: 'boolean' },
};

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses `argv` against the command's flags plus the connection flags. */
export function parseFlags(argv: string[], spec: FlagSpec, maxPositionals = 0): Parsed {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...CONNECTION_FLAGS, ...spec }, strict: true, allowPositionals: true });
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '') : String(e));
  }
  if (parsed.positionals.length > maxPositionals && parsed.values.help !== true) {
    throw new CliError(`unexpected argument: ${parsed.positionals[maxPositionals]}`);
  }
  return { values: parsed.values as Parsed['values'], positionals: parsed.positionals };
}

/** A string flag's value, or undefined. */
export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A flag that must be a non-negative integer. */
export function intFlag(p: Parsed, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new CliError(`--${name} expects a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

export interface Connection {
  endpoint: string;
  adminSecret: string | undefined;
}

/**
 * --endpoint / --admin-secret, else SVC_GRAPHQL_ENDPOINT / SVC_GRAPHQL_ADMIN_SECRET, else the project's
 * config.yaml (`project`, see projectConfig.ts), else localhost:8080.
 */
export function connectionOf(p: Parsed, env: NodeJS.ProcessEnv, project: { endpoint?: string; adminSecret?: string } = {}): Connection {
  const endpoint = str(p, 'endpoint') ?? env.SVC_GRAPHQL_ENDPOINT ?? project.endpoint ?? 'http://localhost:8080';
  try {
    const u = new URL(endpoint);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new CliError(`--endpoint is not an http(s) URL: ${JSON.stringify(endpoint)}`);
  }
  return { endpoint: endpoint.replace(/\/+$/, ''), adminSecret: str(p, 'admin-secret') ?? env.SVC_GRAPHQL_ADMIN_SECRET ?? project.adminSecret };
}
