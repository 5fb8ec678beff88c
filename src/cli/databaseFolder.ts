/**
 * Where a project keeps one database's migrations or seeds. Hasura's CLI config v2 keeps them in
 * the directory itself; config v3 in `<dir>/<database>/`. `--database-name` picks the folder, else
 * `default`, else the only folder there is; several folders and no flag is an error naming them.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './cliError.js';

/** The folder of `dir` holding the items (`isItem` tells one: a migration folder, a seed file). */
export async function databaseFolder(dir: string, databaseName: string | undefined, isItem: (d: Dirent) => boolean): Promise<string> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      if (databaseName !== undefined) throw new CliError(`no directory ${dir}`);
      return dir;
    }
    throw new CliError(`cannot read ${dir}: ${(e as Error).message}`);
  }
  const flat = entries.some(isItem);
  const folders = entries.filter((d) => d.isDirectory() && !isItem(d)).map((d) => d.name).sort();
  if (databaseName !== undefined) {
    if (!folders.includes(databaseName)) {
      const found = flat ? 'the files of one database (config v2 layout): drop --database-name' : `found: ${folders.join(', ') || 'nothing'}`;
      throw new CliError(`no folder for database ${JSON.stringify(databaseName)} in ${dir} (${found})`);
    }
    return join(dir, databaseName);
  }
  if (flat || folders.length === 0) return dir;
  if (folders.includes('default')) return join(dir, 'default');
  if (folders.length === 1) return join(dir, folders[0]!);
  throw new CliError(`${dir} holds several databases (${folders.join(', ')}): choose one with --database-name`);
}
