/**
 * `svc-graphql-engine metadata export|apply|diff|reload|inconsistency list|drop`: metadata as a
 * YAML directory (metadataDir) kept in git, sent to and read from a running engine over HTTP.
 */
import { readFile } from 'node:fs/promises';
import { parseFlags, str } from './args.js';
import type { FlagSpec, Parsed } from './args.js';
import { CliError } from './cliError.js';
import { EngineClient, ServerError } from './client.js';
import { importHasuraMetadata } from './hasuraImport.js';
import { lineDiff } from './lineDiff.js';
import { filesToMetadata, metadataToFiles, readMetadataDir, writeMetadataDir } from './metadataDir.js';
import { isV3Dir, metadataToV3Files, readV3Metadata } from './metadataDirV3.js';
import type { CliIo } from './io.js';
import { projectOf } from './projectConfig.js';

type J = Record<string, any>;

export const METADATA_HELP = `Usage: svc-graphql-engine metadata <command> [flags]

Commands:
  export                    write the engine's metadata to a YAML directory (Hasura CLI layout)
                            (the directory's layout is kept: config v2 files, or v3 with databases/)
  apply                     replace the engine's metadata with the directory's (or --file JSON)
  diff                      show how the directory differs from the engine; exit 1 when it does
  reload                    reload metadata (re-read the database schema)
  inconsistency list        list inconsistent metadata objects; exit 1 when there are some
  inconsistency status      one line: consistent (exit 0) or not (exit 1)
  inconsistency drop        drop inconsistent metadata objects
                            (\`inconsistencies\` and \`ic\` are aliases, as in Hasura's CLI)

Flags:
  --dir DIR                 metadata directory (default: metadata); a Hasura CLI v2 or v3 layout
  --format v2|v3            (export) the layout to write (default: the directory's, else v2; v3 when the metadata has several databases)
  --file FILE               (apply) a JSON export instead of a directory (Hasura v1.3/v2, version 2 or 3)
  --project DIR             a Hasura CLI project folder (default: the current one): its config.yaml
                            gives endpoint, admin_secret and the *_directory folders
  --endpoint URL            engine URL (env SVC_GRAPHQL_ENDPOINT, else config.yaml's, else http://localhost:8080)
  --admin-secret SECRET     admin secret (env SVC_GRAPHQL_ADMIN_SECRET)
  --allow-inconsistent-metadata
                            (apply) apply even when objects are inconsistent (Hasura v2's
                            allow_inconsistent_metadata), listing them; without it nothing changes
  --no-color                (diff) plain text
  -h, --help                this help
`;

/** \`metadata inconsistency\` and the aliases Hasura's CLI gives it. */
const INCONSISTENCY = new Set(['inconsistency', 'inconsistencies', 'ic']);

const FLAGS: FlagSpec = { dir: { type: 'string' }, file: { type: 'string' }, format: { type: 'string' }, 'allow-inconsistent-metadata': { type: 'boolean' } };

/**
 * Metadata without its null-valued keys (`insertion_order: null`, `check: null`, `comment: null`):
 * a null key means its default, so Hasura's CLI exports and the engine's exports compare equal.
 */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

/** One line per inconsistent object: its type, its definition, the reason. */
function inconsistencyLines(objs: J[]): string {
  return objs.map((o) => `${o.type}\t${JSON.stringify(o.definition)}\t${o.reason}\n`).join('');
}

/**
 * When objects are inconsistent because an environment variable they name is unset on the engine: where
 * to set it. The engine resolves `{{VAR}}` and `from_env` from its own environment, read once at start,
 * so setting it in the CLI's shell does nothing.
 */
function missingEnvHint(objs: J[]): string | undefined {
  const names = new Set<string>();
  for (const o of objs) {
    // `environment variable 'X' not set` (headers, remote schemas, event triggers) and
    // `the env variable(s) "X", "Y" for the handler of action "a" are not set` (action handlers).
    const m = /env(?:ironment)? variables?(?:\(s\))? (.+?) (?:for |are not set|is not set|not set)/.exec(String(o.reason ?? ''));
    for (const n of m?.[1].matchAll(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) names.add(n[0]);
  }
  if (names.size === 0) return undefined;
  const list = [...names].join(', ');
  return `${names.size === 1 ? 'environment variable' : 'environment variables'} ${list} must be set for the engine (in the environment of \`svc-graphql-engine serve\`, not of this command) and the engine restarted, since it reads its environment at start; then run metadata apply again`;
}

/** The layout to write: --format, else the one the directory already has, else v2. */
async function layoutOf(p: Parsed, dir: string): Promise<(md: J) => Map<string, string>> {
  return layoutFor(str(p, 'format'), dir);
}

async function layoutFor(f: string | undefined, dir: string): Promise<(md: J) => Map<string, string>> {
  if (f !== undefined && f !== 'v2' && f !== 'v3') throw new CliError(`--format: expected v2 or v3, got ${JSON.stringify(f)}`);
  const v3 = f === undefined ? await isV3Dir(dir) : f === 'v3';
  if (v3) return metadataToV3Files;
  // The v2 layout holds one database: metadata with further sources is written in the v3 layout
  // (as Hasura's CLI needs config v3 for several databases), or refused when v2 was asked for.
  return (md: J) => {
    const others = Array.isArray(md.sources) ? (md.sources as J[]).filter((s) => s?.name !== 'default') : [];
    if (others.length === 0) return metadataToFiles(md);
    if (f === 'v2') throw new CliError(`--format v2 holds the "default" database only, and the metadata has ${others.length === 1 ? 'the source' : 'the sources'} ${others.map((s) => JSON.stringify(s.name)).join(', ')}: use --format v3 (metadata/databases/<name>/…)`);
    return metadataToV3Files(md);
  };
}

async function exportMetadata(client: EngineClient): Promise<J> {
  return (await client.query({ type: 'export_metadata', args: {} })) as J;
}

/**
 * The engine's metadata written to `dir` as `metadata export` writes it (layout: `format`, else the
 * directory's, else v2; files the export no longer has removed); returns how many files it holds.
 */
export async function exportMetadataDir(client: EngineClient, dir: string, format?: string): Promise<number> {
  const files = (await layoutFor(format, dir))(await exportMetadata(client));
  await writeMetadataDir(dir, files);
  return files.size;
}

/** Metadata from --file (JSON) or --dir (YAML directory), normalised and brand-mapped. */
async function loadLocal(p: Parsed, io: CliIo, dir: string): Promise<J> {
  const file = str(p, 'file');
  let raw: J;
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      raw = JSON.parse(text) as J;
    } catch (e) {
      throw new CliError(`${file}: not valid JSON: ${(e as Error).message}`);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new CliError(`${file}: expected a metadata object`);
  } else {
    raw = (await isV3Dir(dir)) ? await readV3Metadata(dir) : filesToMetadata(await readMetadataDir(dir));
  }
  const r = importHasuraMetadata(raw);
  for (const m of r.mapped) io.err(`mapped: ${m}`);
  for (const u of r.unsupported) io.err(`unsupported: ${u}`);
  return r.metadata;
}

export async function metadataCommand(argv: string[], io: CliIo): Promise<number> {
  const sub = argv[0];
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.out(METADATA_HELP);
    return sub === undefined ? 1 : 0;
  }
  const isInc = sub !== undefined && INCONSISTENCY.has(sub);
  const p = parseFlags(argv.slice(isInc ? 2 : 1), FLAGS);
  if (p.values.help === true) {
    io.out(METADATA_HELP);
    return 0;
  }
  const project = await projectOf(p, io);
  const client = new EngineClient(project.conn);
  const dir = project.dir('metadata');
  const t0 = performance.now();
  const took = () => `${Math.round(performance.now() - t0)} ms`;
  switch (isInc ? 'inconsistency' : sub) {
    case 'export': {
      io.progress(`exporting metadata from ${client.conn.endpoint} …`);
      const n = await exportMetadataDir(client, dir, str(p, 'format'));
      io.progress(`metadata exported to ${dir}/ (${n} files, ${took()})`);
      return 0;
    }
    case 'apply': {
      const md = await loadLocal(p, io, dir);
      io.progress(`applying metadata (${(md.tables ?? []).length} tables) to ${client.conn.endpoint} …`);
      const allow = p.values['allow-inconsistent-metadata'] === true;
      let r: J;
      try {
        r = (await client.query({ type: 'replace_metadata', args: { allow_inconsistent_metadata: allow, metadata: md } })) as J;
      } catch (e) {
        const internal = e instanceof ServerError ? (e.body as J | undefined)?.internal : undefined;
        if (!Array.isArray(internal) || internal.length === 0) throw e;
        io.out(inconsistencyLines(internal as J[]));
        const hint = missingEnvHint(internal as J[]);
        throw new CliError(`${(e as Error).message}: ${internal.length} inconsistent object${internal.length === 1 ? '' : 's'} (listed on stdout); nothing was applied${hint === undefined ? '' : `. ${hint}`}`);
      }
      const objs = (r.inconsistent_objects ?? []) as J[];
      if (objs.length > 0) {
        io.out(inconsistencyLines(objs));
        io.err(`metadata applied with ${objs.length} inconsistent object${objs.length === 1 ? '' : 's'} (listed on stdout; see metadata inconsistency list)`);
        const hint = missingEnvHint(objs);
        if (hint !== undefined) io.err(hint);
      }
      io.progress(`metadata applied (${took()})`);
      return 0;
    }
    case 'diff': {
      const layout = await layoutOf(p, dir);
      const local = layout(withoutNulls(await loadLocal(p, io, dir)) as J);
      const server = layout(withoutNulls(await exportMetadata(client)) as J);
      const color = p.values['no-color'] !== true && io.color;
      let differs = false;
      for (const name of [...new Set([...server.keys(), ...local.keys()])].sort()) {
        const lines = lineDiff(server.get(name) ?? '', local.get(name) ?? '', { color });
        if (lines.length === 0) continue;
        differs = true;
        io.out(`${color ? '\x1b[1m' : ''}--- server/${name}\n+++ ${dir}/${name}${color ? '\x1b[0m' : ''}\n${lines.join('\n')}\n`);
      }
      if (!differs) io.progress(`no differences between ${dir}/ and the server (${took()})`);
      return differs ? 1 : 0;
    }
    case 'reload':
      await client.query({ type: 'reload_metadata', args: {} });
      io.progress('metadata reloaded');
      return 0;
    case 'inconsistency': {
      const action = argv[1];
      if (action === 'list' || action === 'status') {
        const r = (await client.query({ type: 'get_inconsistent_metadata', args: {} })) as J;
        const objs = (r.inconsistent_objects ?? []) as J[];
        if (objs.length === 0) {
          io.progress('metadata is consistent');
          return 0;
        }
        if (action === 'list') io.out(inconsistencyLines(objs));
        else io.progress(`metadata is inconsistent (${objs.length} object${objs.length === 1 ? '' : 's'}): see metadata inconsistency list`);
        return 1;
      }
      if (action === 'drop') {
        await client.query({ type: 'drop_inconsistent_metadata', args: {} });
        io.progress('inconsistent objects dropped');
        return 0;
      }
      throw new CliError(`metadata inconsistency: expected list, status or drop, got ${action === undefined ? 'nothing' : JSON.stringify(action)}`);
    }
    default:
      throw new CliError(`unknown metadata command: ${JSON.stringify(sub)} (see svc-graphql-engine metadata --help)`);
  }
}
