/**
 * Metadata JSON ⇄ a YAML directory in the Hasura CLI (config v2) layout. Known keys go to their
 * CLI files; any other top-level key goes to `<key>.yaml`, so a section added to the engine later
 * is never dropped. Output is deterministic: objects' keys in a fixed order (a few identifying
 * keys first, then alphabetical), tables/functions/named lists sorted, so git diffs show real changes.
 */
import { mkdir, readdir, readFile, writeFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { actionsToSdl, actionsYaml, joinActions, parseActionsSdl } from './actionsSdl.js';
import { parseCoreYaml } from './coreYaml.js';
import { blockYamlText } from './blockYamlText.js';
import { CliError } from './cliError.js';

type J = Record<string, any>;

/** metadata key → file, for the keys that are a plain YAML file each. */
export const KNOWN_FILES: ReadonlyArray<readonly [string, string]> = [
  ['tables', 'tables.yaml'],
  ['functions', 'functions.yaml'],
  ['query_collections', 'query_collections.yaml'],
  ['allowlist', 'allow_list.yaml'],
  ['remote_schemas', 'remote_schemas.yaml'],
  ['cron_triggers', 'cron_triggers.yaml'],
];
const ACTION_KEYS = new Set(['actions', 'custom_types']);
const FIRST_KEYS = ['version', 'name', 'schema', 'table', 'function', 'role', 'collection', 'value', 'type'];

function keyRank(k: string): number {
  const i = FIRST_KEYS.indexOf(k);
  return i < 0 ? FIRST_KEYS.length : i;
}

const INDEX_KEY = /^(?:0|[1-9][0-9]{0,8})$/;

/**
 * Keys in the canonical order: a few identifying keys first, then alphabetical; keys that are array
 * indices first, in numeric order, as an object built in that order holds them.
 */
function canonicalOrder(keys: string[]): string[] {
  keys.sort((a, b) => keyRank(a) - keyRank(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (!keys.some((k) => INDEX_KEY.test(k))) return keys;
  return [...keys.filter((k) => INDEX_KEY.test(k)).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !INDEX_KEY.test(k))];
}

/** A copy with every object's keys in the canonical order. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(canonicalOrder(Object.keys(v)).map((k) => [k, canonical((v as J)[k])]));
}

function qualified(x: unknown): string {
  if (typeof x === 'string') return `public.${x}`;
  const o = (x ?? {}) as J;
  return `${o.schema ?? 'public'}.${o.name ?? ''}`;
}

function sortBy<T>(xs: T[], key: (x: T) => string): T[] {
  return [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Lists whose order carries no meaning, sorted so the output does not depend on creation order. */
function sortLists(key: string, v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  if (key === 'tables') return sortBy(v as J[], (t) => qualified(t.table));
  if (key === 'functions') return sortBy(v as J[], (f) => qualified(f.function));
  if (key === 'allowlist') return sortBy(v as J[], (a) => String(a.collection));
  if (v.every((x) => x && typeof x === 'object' && typeof (x as J).name === 'string')) return sortBy(v as J[], (x) => x.name);
  return v;
}

/** `YAML.stringify(canonical(v), …)`: written by blockYamlText, or by the `yaml` package when it must. */
export function yamlText(v: unknown): string {
  return blockYamlText(v, canonicalOrder) ?? YAML.stringify(canonical(v), { lineWidth: 0, aliasDuplicateObjects: false });
}

/** The directory's files (name → text) for exported metadata. */
export function metadataToFiles(md: J): Map<string, string> {
  const files = new Map<string, string>();
  files.set('version.yaml', yamlText({ version: md.version ?? 2 }));
  for (const [key, file] of KNOWN_FILES) files.set(file, yamlText(sortLists(key, md[key] ?? [])));
  const actions = sortLists('actions', md.actions ?? []) as J[];
  const ct = (md.custom_types ?? {}) as J;
  const ctSorted = Object.fromEntries(Object.entries(ct).map(([k, v]) => [k, sortLists(k, v)]));
  files.set('actions.yaml', yamlText(actionsYaml(actions, ctSorted)));
  files.set('actions.graphql', actionsToSdl(actions, ctSorted));
  const known = new Set(['version', ...KNOWN_FILES.map(([k]) => k), ...ACTION_KEYS]);
  for (const key of Object.keys(md).sort()) {
    if (!known.has(key)) files.set(`${key}.yaml`, yamlText(sortLists(key, md[key])));
  }
  return new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `YAML.parse(text)`'s value: read by js-yaml (coreYaml.ts), what it refuses (and any error) by the `yaml` package. */
function parseYaml(text: string, file: string): unknown {
  const fast = parseCoreYaml(text);
  if (fast !== undefined) return fast;
  try {
    return YAML.parse(text);
  } catch (e) {
    const pos = (e as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new CliError(`${file}${pos ? `:${pos.line}:${pos.col}` : ''}: ${(e as Error).message.split('\n')[0]}`);
  }
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isEmpty));
}

/** Metadata JSON from the directory's files (name → text); empty sections are left out, as the engine exports them. */
export function filesToMetadata(files: ReadonlyMap<string, string>): J {
  const md: J = {};
  const version = files.has('version.yaml') ? (parseYaml(files.get('version.yaml')!, 'version.yaml') as J | null) : null;
  md.version = version?.version ?? 2;
  const byFile = new Map(KNOWN_FILES.map(([k, f]) => [f, k]));
  for (const [file, text] of files) {
    if (!file.endsWith('.yaml') || file === 'version.yaml' || file === 'actions.yaml') continue;
    const key = byFile.get(file) ?? file.slice(0, -'.yaml'.length);
    const v = parseYaml(text, file);
    if (!isEmpty(v)) md[key] = v;
  }
  if (md.tables === undefined) md.tables = [];
  if (files.has('actions.yaml') || files.has('actions.graphql')) {
    const y = files.has('actions.yaml') ? (parseYaml(files.get('actions.yaml')!, 'actions.yaml') as J | null) : null;
    const sdl = parseActionsSdl(files.get('actions.graphql') ?? '');
    const { actions, custom_types } = joinActions(y ?? undefined, sdl);
    if (!isEmpty(custom_types)) md.custom_types = custom_types;
    if (actions.length > 0) md.actions = actions;
  }
  return md;
}

/**
 * Reads every .yaml/.graphql file of a metadata directory. `topOfV3`: the top of a config-v3
 * directory, whose files are all optional (a project may have only `databases/`).
 */
export async function readMetadataDir(dir: string, topOfV3 = false): Promise<Map<string, string>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    throw new CliError(`cannot read metadata directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const files = new Map<string, string>();
  for (const n of names.sort()) {
    if (n.endsWith('.yaml') || n.endsWith('.yml') || n.endsWith('.graphql')) files.set(n.replace(/\.yml$/, '.yaml'), await readFile(join(dir, n), 'utf8'));
  }
  if (files.size === 0 && !topOfV3) throw new CliError(`${dir} holds no metadata files (.yaml)`);
  return files;
}

/** Every .yaml/.graphql file below `dir` (relative paths with `/`). */
async function metadataFilesBelow(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...(await metadataFilesBelow(dir, rel)));
    else if (d.name.endsWith('.yaml') || d.name.endsWith('.graphql')) out.push(rel);
  }
  return out;
}

/**
 * Writes the files (names may hold `/`: the v3 layout's `databases/…`), removing the .yaml/.graphql
 * files below the directory that the export no longer has (a dropped table's file, the other layout's).
 */
export async function writeMetadataDir(dir: string, files: ReadonlyMap<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const n of await metadataFilesBelow(dir)) {
    if (!files.has(n)) await rm(join(dir, n));
  }
  for (const [name, text] of files) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}
