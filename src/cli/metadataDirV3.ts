/**
 * Metadata as a Hasura CLI "config v3" directory (Hasura v2's layout): `version.yaml` with
 * `version: 3`, `databases/databases.yaml` listing the sources, each source's tables and functions
 * one file each under `databases/<source>/tables|functions/`, pulled in with `!include` (written by
 * Hasura's CLI as the string `"!include file.yaml"`; the bare `!include` tag is read too), paths
 * relative to the including file. The other sections are top-level files, as in the v2 layout
 * (metadataDir.ts). Reading gives the version-3 document (hasuraImport.ts flattens it); writing is
 * deterministic, like the v2 layout, so an export → apply → export round trip is byte for byte.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import YAML from 'yaml';
import { parseCoreYaml } from './coreYaml.js';
import { CliError } from './cliError.js';
import { toV3 } from './hasuraImport.js';
import { filesToMetadata, metadataToFiles, readMetadataDir, yamlText } from './metadataDir.js';

type J = Record<string, any>;

const DATABASES = 'databases/databases.yaml';
const INCLUDE = /^!include\s+(\S.*?)\s*$/;

/** An `!include` written as the bare YAML tag (`- !include x.yaml`). */
class Include {
  constructor(readonly path: string) {}
}
const includeTag = { tag: '!include', resolve: (s: string) => new Include(s) };

/** True when `dir` holds a v3 directory (a `databases/databases.yaml`, or `version: 3`). */
export async function isV3Dir(dir: string): Promise<boolean> {
  try {
    await stat(join(dir, DATABASES));
    return true;
  } catch {
    try {
      const v = YAML.parse(await readFile(join(dir, 'version.yaml'), 'utf8')) as J | null;
      return v?.version === 3;
    } catch {
      return false;
    }
  }
}

/** Reads `rel` (below `root`) with its includes resolved; `from` names the file and text that included it. */
async function readYaml(root: string, rel: string, from: { file: string; target: string } | undefined, seen: string[]): Promise<unknown> {
  const file = join(root, rel);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new CliError(from ? `${from.file}: !include ${from.target}: cannot read ${file} (${code})` : `cannot read ${file} (${code})`);
  }
  if (seen.includes(rel)) throw new CliError(`${rel}: !include cycle (${[...seen, rel].join(' → ')})`);
  let v: unknown;
  try {
    v = parseCoreYaml(text) ?? YAML.parse(text, { customTags: [includeTag] });
  } catch (e) {
    const pos = (e as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new CliError(`${rel}${pos ? `:${pos.line}:${pos.col}` : ''}: ${(e as Error).message.split('\n')[0]}`);
  }
  return resolveIncludes(v, root, rel, [...seen, rel]);
}

/** Replaces every `!include` (tag or string) below `v` by the included file's content. */
async function resolveIncludes(v: unknown, root: string, rel: string, seen: string[]): Promise<unknown> {
  const target = v instanceof Include ? v.path : typeof v === 'string' ? INCLUDE.exec(v)?.[1] : undefined;
  if (target !== undefined) return readYaml(root, normalize(join(dirname(rel), target)), { file: rel, target }, seen);
  if (Array.isArray(v)) return Promise.all(v.map((x) => resolveIncludes(x, root, rel, seen)));
  if (v !== null && typeof v === 'object') {
    const out: J = {};
    for (const [k, x] of Object.entries(v)) out[k] = await resolveIncludes(x, root, rel, seen);
    return out;
  }
  return v;
}

/** The version-3 metadata document of a v3 directory (sources with their tables and functions resolved). */
export async function readV3Metadata(dir: string): Promise<J> {
  const top = filesToMetadata(await readMetadataDir(dir, true));
  delete top.tables;
  const sources = await readYaml(dir, DATABASES, undefined, []).catch((e) => {
    if (e instanceof CliError && e.message.startsWith('cannot read')) return [];
    throw e;
  });
  if (sources !== null && !Array.isArray(sources)) throw new CliError(`${DATABASES}: expected a list of sources`);
  return { ...top, version: 3, sources: sources ?? [] };
}

const fileOf = (o: J | string | undefined): string => {
  const q = typeof o === 'string' ? { schema: 'public', name: o } : (o ?? {});
  return `${q.schema ?? 'public'}_${q.name ?? ''}.yaml`;
};

/** `- "!include a.yaml"` lines, as Hasura's CLI writes them. */
const includeList = (files: string[]): string => (files.length === 0 ? '[]\n' : files.map((f) => `- "!include ${f}"\n`).join(''));

/** The v3 directory's files (relative path → text) for exported (version 2) metadata. */
export function metadataToV3Files(md: J): Map<string, string> {
  const { tables = [], functions = [], source_customization: customization, logical_models: models, native_queries: nqs, sources: others = [], ...rest } = md;
  const files = metadataToFiles({ ...rest, tables: [] });
  files.delete('tables.yaml');
  files.delete('functions.yaml');
  files.set('version.yaml', yamlText({ version: 3 }));
  const source = (toV3({ version: 2, tables: [], functions: [] }).sources as J[])[0];
  const base = `databases/${source.name}`;
  const tableFiles = (tables as J[]).map((t) => [fileOf(t.table), t] as const).sort(([a], [b]) => (a < b ? -1 : 1));
  const fnFiles = (functions as J[]).map((f) => [fileOf(f.function), f] as const).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [f, t] of tableFiles) files.set(`${base}/tables/${f}`, yamlText(t));
  for (const [f, fn] of fnFiles) files.set(`${base}/functions/${f}`, yamlText(fn));
  files.set(`${base}/tables/tables.yaml`, includeList(tableFiles.map(([f]) => f)));
  files.set(`${base}/functions/functions.yaml`, includeList(fnFiles.map(([f]) => f)));
  const db: J = { name: source.name, kind: source.kind, configuration: source.configuration };
  if (customization) db.customization = customization;
  db.tables = `!include ${source.name}/tables/tables.yaml`;
  db.functions = `!include ${source.name}/functions/functions.yaml`;
  // Logical models and native queries: one file each per source, as Hasura's CLI v2 writes them.
  if (Array.isArray(models) && models.length > 0) {
    files.set(`${base}/logical_models.yaml`, yamlText(models));
    db.logical_models = `!include ${source.name}/logical_models.yaml`;
  }
  if (Array.isArray(nqs) && nqs.length > 0) {
    files.set(`${base}/native_queries.yaml`, yamlText(nqs));
    db.native_queries = `!include ${source.name}/native_queries.yaml`;
  }
  // The other Postgres sources: their own folders, their configuration as given.
  const dbs: J[] = [db];
  for (const o of others as J[]) {
    const ob = `databases/${o.name}`;
    const ot = ((o.tables ?? []) as J[]).map((t) => [fileOf(t.table), t] as const).sort(([a], [b]) => (a < b ? -1 : 1));
    const of = ((o.functions ?? []) as J[]).map((f) => [fileOf(f.function), f] as const).sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [f, t] of ot) files.set(`${ob}/tables/${f}`, yamlText(t));
    for (const [f, fn] of of) files.set(`${ob}/functions/${f}`, yamlText(fn));
    files.set(`${ob}/tables/tables.yaml`, includeList(ot.map(([f]) => f)));
    files.set(`${ob}/functions/functions.yaml`, includeList(of.map(([f]) => f)));
    const entry: J = { name: o.name, kind: o.kind ?? 'postgres', configuration: o.configuration };
    if (o.customization) entry.customization = o.customization;
    entry.tables = `!include ${o.name}/tables/tables.yaml`;
    entry.functions = `!include ${o.name}/functions/functions.yaml`;
    dbs.push(entry);
  }
  files.set(DATABASES, yamlText(dbs).replace(/'(!include [^']+)'/g, '"$1"'));
  return new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}
