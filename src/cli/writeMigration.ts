/**
 * Writes a migration the console made into the project: `<dir>/<version>_<name>/up.sql` and
 * `down.sql`, as `migrate create` lays them out (and `migrate apply` reads them).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface MigrationFiles {
  version: bigint;
  name: string;
  up: string;
  down: string;
}

/** Returns the migration's folder. */
export async function writeMigration(dir: string, m: MigrationFiles): Promise<string> {
  const folder = join(dir, `${m.version}_${m.name}`);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'up.sql'), m.up);
  await writeFile(join(folder, 'down.sql'), m.down);
  return folder;
}
