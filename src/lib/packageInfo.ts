/**
 * The engine's own package.json (name, version), found by walking up from this module's file,
 * so it works both from `src/` (tsx) and from `dist/src/` (compiled).
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  name: string;
  version: string;
  root: string;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name && pkg.version) return (cached = { name: pkg.name, version: pkg.version, root: dir });
    }
    const parent = dirname(dir);
    if (parent === dir) return (cached = { name: 'svc-graphql-engine', version: '0.0.0-unknown', root: process.cwd() });
    dir = parent;
  }
}
