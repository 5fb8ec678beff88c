/**
 * A Hasura CLI project's `config.yaml` (`--project DIR`, default the current folder), read as Hasura's
 * CLI reads it: `endpoint`, `admin_secret` (config v1: `access_key`), and where the project keeps its
 * `migrations_directory`, `metadata_directory` and `seeds_directory` (relative to the project). A flag
 * wins over the environment (SVC_GRAPHQL_ENDPOINT / SVC_GRAPHQL_ADMIN_SECRET), which wins over the file,
 * as in Hasura's CLI. Without a config.yaml the folders are `migrations`, `metadata` and `seeds` of
 * the project folder.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import YAML from 'yaml';
import { connectionOf, str, type Connection, type Parsed } from './args.js';
import { CliError } from './cliError.js';
import type { CliIo } from './io.js';

export type ProjectFolder = 'migrations' | 'metadata' | 'seeds';

export interface Project {
  conn: Connection;
  /** The folder of `kind`: `--dir`, else config.yaml's `<kind>_directory`, else `<kind>`, below the project. */
  dir(kind: ProjectFolder): string;
  /** config.yaml's `version` (2 or 3; 1 for Hasura 1.0's), undefined without one. */
  configVersion: number | undefined;
}

export async function projectOf(p: Parsed, io: CliIo): Promise<Project> {
  const root = str(p, 'project');
  const file = join(root ?? '.', 'config.yaml');
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let config: Record<string, unknown> = {};
  if (text !== undefined) {
    let doc: unknown;
    try {
      doc = YAML.parse(text);
    } catch (e) {
      throw new CliError(`${file}: not YAML: ${(e as Error).message}`);
    }
    if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc))) throw new CliError(`${file}: expected a Hasura CLI config (endpoint, admin_secret, …)`);
    config = (doc ?? {}) as Record<string, unknown>;
  }
  const text_ = (k: string): string | undefined => (typeof config[k] === 'string' && config[k] !== '' ? (config[k] as string) : undefined);
  const conn = connectionOf(p, io.env, { endpoint: text_('endpoint'), adminSecret: text_('admin_secret') ?? text_('access_key') });
  if (text !== undefined && str(p, 'endpoint') === undefined && io.env.SVC_GRAPHQL_ENDPOINT === undefined && text_('endpoint') !== undefined) {
    io.progress(`${file}: endpoint ${conn.endpoint}`);
  }
  return {
    conn,
    dir: (kind) => str(p, 'dir') ?? join(root ?? '.', text_(`${kind}_directory`) ?? kind),
    configVersion: typeof config.version === 'number' ? config.version : undefined,
  };
}
