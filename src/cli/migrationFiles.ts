/**
 * The migrations of a directory, in both layouts Hasura's CLI has used:
 *
 * - a folder per migration, `<version>_<name>/{up,down}.{sql,yaml}` (config v2 and v3);
 * - flat files, `<version>_<name>.{up,down}.{sql,yaml}` (config v1, Hasura 1.0's CLI).
 *
 * A `.sql` file is SQL; a `.yaml` file is a list of metadata operations (`run_sql`, `track_table`,
 * `add_existing_table_or_view`, `create_object_relationship`, …) as Hasura's console wrote them. When a
 * version has both, the SQL runs first and the operations after it (the tables exist before they are
 * tracked), as in Hasura's CLI.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import YAML from 'yaml';
import { CliError } from './cliError.js';
import { mapHasuraBrand } from './hasuraImport.js';

export interface Migration {
  version: bigint;
  name: string;
  /** The files of each direction, SQL before YAML; absent files are not listed. */
  files: { up: string[]; down: string[] };
}

const FLAT = /^(\d+)_(.+)\.(up|down)\.(sql|yaml)$/;

/** A directory entry that is a migration: a `<version>_<name>` folder or a config-v1 flat file. */
export const isMigration = (d: Dirent): boolean => (d.isDirectory() && /^\d+_/.test(d.name)) || (d.isFile() && FLAT.test(d.name));

const sqlFirst = (a: string, b: string) => Number(a.endsWith('.yaml')) - Number(b.endsWith('.yaml'));

export async function localMigrations(dir: string): Promise<Migration[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new CliError(`cannot read ${dir}: ${(e as Error).message}`);
  }
  const byVersion = new Map<bigint, Migration>();
  const at = (version: bigint, name: string) => {
    let m = byVersion.get(version);
    if (!m) byVersion.set(version, (m = { version, name, files: { up: [], down: [] } }));
    return m;
  };
  for (const d of entries) {
    const flat = d.isFile() ? FLAT.exec(d.name) : null;
    if (flat) {
      at(BigInt(flat[1]!), flat[2]!).files[flat[3] as 'up' | 'down'].push(join(dir, d.name));
      continue;
    }
    const folder = d.isDirectory() ? /^(\d+)_(.*)$/.exec(d.name) : null;
    if (!folder) continue;
    const m = at(BigInt(folder[1]!), folder[2]!);
    for (const f of await readdir(join(dir, d.name))) {
      const part = /^(up|down)\.(sql|yaml)$/.exec(f);
      if (part) m.files[part[1] as 'up' | 'down'].push(join(dir, d.name, f));
    }
  }
  for (const m of byVersion.values()) (m.files.up.sort(sqlFirst), m.files.down.sort(sqlFirst));
  return [...byVersion.values()].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

export async function readMigrationFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** The metadata operations of a `.yaml` migration file, `X-Hasura-*` mapped to `x-svc-*` (each mapping listed). */
export function yamlOperations(file: string, text: string): { ops: { type: string; args: unknown }[]; mapped: string[] } {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw new CliError(`${file}: not YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return { ops: [], mapped: [] };
  if (!Array.isArray(doc) || doc.some((op) => typeof op?.type !== 'string')) throw new CliError(`${file}: expected a list of operations ({type, args})`);
  const { value, mapped } = mapHasuraBrand(doc, file);
  return { ops: (value as { type: string; args: unknown }[]).map((op) => ({ type: op.type, args: op.args ?? {} })), mapped };
}
