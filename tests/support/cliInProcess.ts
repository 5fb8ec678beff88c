/**
 * The CLI (src/cli) run in this process against an engine, as the Hasura-project and metadata-folder
 * tests use it: its output and error lines collected, SVC_GRAPHQL_ENDPOINT pointing at the engine; and
 * a folder read back as { relative path → text } to compare what the CLI wrote.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/index.js';

/** `svc-graphql-engine <command> <argv…>` against `url` (extra variables in `env`): exit code, stdout, stderr lines. */
export async function cliAgainst(url: string, command: string, argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (l) => void err.push(l), progress: (l) => void err.push(l), env: { SVC_GRAPHQL_ENDPOINT: url, ...env }, color: false };
  const code = await runCli(command, argv, io);
  return { code, out: out.join(''), err: err.join('\n') };
}

/** Every file below `dir` as { path relative to dir → its text }, sorted by path. */
export async function dirContents(dir: string): Promise<Record<string, string>> {
  const o: Record<string, string> = {};
  for (const d of (await readdir(dir, { withFileTypes: true, recursive: true })).filter((x) => x.isFile())) {
    const rel = join(d.parentPath ?? (d as any).path, d.name).slice(dir.length + 1);
    o[rel] = await readFile(join(dir, rel), 'utf8');
  }
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}
