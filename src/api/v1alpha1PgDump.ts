/**
 * POST /v1alpha1/pg_dump (enabled with `--enabled-apis …,pgdump`): admin only; runs `pg_dump`
 * against the engine's database with the given `opts` and returns its output as
 * `application/sql`. Body: `{opts: string[], clean_output?: boolean}`; `clean_output` drops
 * comments, empty lines and pg_dump's preamble `SET`s (as Hasura's PGDump.hs).
 *
 * The connection goes through PG* environment variables, never argv, so the password does not
 * show in the process list; options that would redirect the dump (`-f`, `-d`, `-h`, `-p`, `-U`)
 * are refused. The binary: `SVC_GRAPHQL_PG_DUMP_PATH` when set (a path, or `built-in`; it must be as
 * new as the server);
 * else the newest of /usr/lib/postgresql/<v>/bin/pg_dump and `pg_dump` on PATH when it is at least
 * the server's major version; else the built-in pg_dump 18 (WebAssembly, `pgDumpWasm.ts`), which
 * writes table data as INSERT statements and plain SQL only; a server newer than that → a clear 500.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ApiError } from '../core/index.js';
import { resolveSession } from '../auth/index.js';
import type { Handler } from './handlerTypes.js';
import { apiErrorResponse } from './v1alpha1Config.js';
import { runWasmPgDump, WASM_PG_DUMP_MAJOR } from './pgDumpWasm.js';

const PREAMBLE = new Set([
  'SET statement_timeout = 0;', 'SET lock_timeout = 0;', 'SET idle_in_transaction_session_timeout = 0;',
  "SET client_encoding = 'UTF8';", 'SET standard_conforming_strings = on;',
  "SELECT pg_catalog.set_config('search_path', '', false);", 'SET check_function_bodies = false;',
  'SET xmloption = content;', 'SET client_min_messages = warning;', 'SET row_security = off;',
  "SET default_tablespace = '';", 'SET default_with_oids = false;', 'SET default_table_access_method = heap;',
  'SET transaction_timeout = 0;', 'CREATE SCHEMA public;', "COMMENT ON SCHEMA public IS 'standard public schema';",
]);
const NOTIFY_TRIGGER = /^CREATE TRIGGER "?notify_(hasura|svc)_.+"? AFTER [A-Za-z0-9]+ ON .+ FOR EACH ROW EXECUTE (FUNCTION|PROCEDURE) "?hdb_(views|catalog)"?\."?notify_(hasura|svc)_.+"?\(\);$/;
/** psql's `\\restrict` / `\\unrestrict` lines (pg_dump since 17.6, 16.10, 15.14): not SQL, so not in a migration. */
const RESTRICT = /^\\(un)?restrict\b/;
const REFUSED_OPTS = /^(-f|--file|-d|--dbname|-h|--host|-p|--port|-U|--username)(=|$)|^-[fdhpU]./;
const TIMEOUT_MS = 10 * 60_000;

export const v1alpha1PgDump: Handler = async (req, ctx) => {
  try {
    const session = await resolveSession(req.headers, ctx.config, req.body);
    if (!session.isAdmin) throw new ApiError('access-denied', 'you have to be admin to access this endpoint');
    const { opts, clean } = parseBody(req.body);
    const url = ctx.databaseUrl;
    const server = await ctx.db.query('SHOW server_version_num');
    const serverMajor = Math.floor(Number((server.rows[0] as { server_version_num: string }).server_version_num) / 10000);
    const binary = choosePgDump(serverMajor);
    const out = binary.path === BUILT_IN ? await runBuiltIn(url, opts, serverMajor) : await runPgDump(binary.path, url, opts);
    const body = clean ? cleanOutput(out.toString('utf8')) : out;
    return { status: 200, headers: { 'content-type': 'application/sql; charset=utf-8' }, body, log: { role: session.role } };
  } catch (e) {
    return apiErrorResponse(e, ctx.config.devMode);
  }
};

function parseBody(raw: Buffer): { opts: string[]; clean: boolean } {
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid-json', 'invalid json');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new ApiError('parse-failed', 'expecting an object with "opts" (a list of pg_dump options) and "clean_output"');
  const { opts, clean_output } = doc as Record<string, unknown>;
  if (!Array.isArray(opts) || !opts.every((o) => typeof o === 'string')) throw new ApiError('parse-failed', 'opts must be a list of strings (pg_dump options)', { path: '$.opts' });
  if (clean_output !== undefined && clean_output !== null && typeof clean_output !== 'boolean') throw new ApiError('parse-failed', 'clean_output must be a boolean', { path: '$.clean_output' });
  const refused = (opts as string[]).find((o) => REFUSED_OPTS.test(o));
  if (refused) throw new ApiError('invalid-params', `pg_dump option ${refused} is not allowed: the dump always reads the engine's database and is returned in the response`, { path: '$.opts' });
  return { opts: opts as string[], clean: clean_output === true };
}

/** A pg_dump binary and its major version (`path` is `BUILT_IN` for the WebAssembly one). */
export interface PgDumpBinary {
  path: string;
  major: number;
}

/** The `path` of the built-in pg_dump. */
export const BUILT_IN = 'built-in';

const majors = new Map<string, number | undefined>();

/** The major version `path --version` reports (cached), or undefined when it does not run. */
function majorOf(path: string): number | undefined {
  if (!majors.has(path)) {
    const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const m = r.status === 0 ? /\b(\d+)(?:\.\d+)?/.exec(r.stdout) : null;
    majors.set(path, m ? Number(m[1]) : undefined);
  }
  return majors.get(path);
}

/**
 * The pg_dump binaries this engine may run, newest first: `SVC_GRAPHQL_PG_DUMP_PATH` alone when set,
 * else /usr/lib/postgresql/<v>/bin/pg_dump and `pg_dump` on PATH.
 */
export function pgDumpCandidates(): PgDumpBinary[] {
  const explicit = process.env.SVC_GRAPHQL_PG_DUMP_PATH;
  const paths: string[] = [];
  if (explicit) {
    if (existsSync(explicit)) paths.push(explicit);
  } else {
    const root = '/usr/lib/postgresql';
    if (existsSync(root)) {
      for (const v of readdirSync(root)) {
        const p = join(root, v, 'bin', 'pg_dump');
        if (existsSync(p)) paths.push(p);
      }
    }
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      const p = join(dir, 'pg_dump');
      if (dir && existsSync(p)) paths.push(p);
    }
  }
  const found: PgDumpBinary[] = [];
  for (const path of new Set(paths)) {
    const major = majorOf(path);
    if (major !== undefined) found.push({ path, major });
  }
  return found.sort((a, b) => b.major - a.major);
}

/**
 * The pg_dump to run against a server of major version `serverMajor`: `SVC_GRAPHQL_PG_DUMP_PATH`
 * when set (`built-in` names the built-in one), which must be at least that version (pg_dump refuses newer servers); else the newest
 * installed one when it is that new; else the built-in one when it can dump that server. Otherwise a
 * clear 500 saying what was found and how to fix it.
 */
export function choosePgDump(serverMajor: number): PgDumpBinary {
  const explicit = process.env.SVC_GRAPHQL_PG_DUMP_PATH;
  if (explicit === BUILT_IN) {
    if (serverMajor <= WASM_PG_DUMP_MAJOR) return { path: BUILT_IN, major: WASM_PG_DUMP_MAJOR };
    throw new ApiError('unexpected', `pg_dump is not available: the database runs PostgreSQL ${serverMajor} and the built-in pg_dump dumps servers up to PostgreSQL ${WASM_PG_DUMP_MAJOR} (install the PostgreSQL ${serverMajor} client tools and set SVC_GRAPHQL_PG_DUMP_PATH to their pg_dump)`, { status: 500 });
  }
  const [best] = pgDumpCandidates();
  if (best && best.major >= serverMajor) return best;
  if (!explicit && serverMajor <= WASM_PG_DUMP_MAJOR) return { path: BUILT_IN, major: WASM_PG_DUMP_MAJOR };
  const fix = `install the PostgreSQL ${serverMajor} (or newer) client tools and set SVC_GRAPHQL_PG_DUMP_PATH to their pg_dump`;
  const builtIn = explicit ? '' : `, the built-in pg_dump dumps servers up to PostgreSQL ${WASM_PG_DUMP_MAJOR}`;
  if (!best) throw new ApiError('unexpected', `pg_dump is not available: no pg_dump binary was found${builtIn} (${fix})`, { status: 500 });
  throw new ApiError('unexpected', `pg_dump is not available: the database runs PostgreSQL ${serverMajor} but the newest pg_dump found (${best.path}) is version ${best.major}, and pg_dump cannot dump a newer server${builtIn} (${fix})`, { status: 500 });
}

function pgEnv(url: string): NodeJS.ProcessEnv {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (u.hostname) env.PGHOST = decodeURIComponent(u.hostname.replace(/^\[|\]$/g, ''));
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  const db = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (db) env.PGDATABASE = db;
  const ssl = u.searchParams.get('sslmode');
  if (ssl) env.PGSSLMODE = ssl;
  const host = u.searchParams.get('host');
  if (host) env.PGHOST = host;
  return env;
}

function runPgDump(binary: string, url: string, opts: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['--encoding=utf8', ...opts], { env: pgEnv(url), stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new ApiError('unexpected', `internal exception while executing pg_dump: ${e.message}`, { status: 500 })));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new ApiError('unexpected', `error while executing pg_dump: ${Buffer.concat(err).toString('utf8').trim()}`, { status: 500 }));
    });
  });
}

const FORMAT_OPT = /^(?:-F(.*)|--format(?:=(.*))?)$/;

/**
 * The built-in pg_dump: it writes plain SQL only (an archive format needs an installed pg_dump),
 * and its errors are worded as the installed pg_dump words them (`pg_dump: error: …`). Being
 * version 18, it writes `SET transaction_timeout = 0;`, a setting servers before 17 do not have:
 * for those that line is dropped, so that the dump restores on the server it came from.
 */
async function runBuiltIn(url: string, opts: string[], serverMajor: number): Promise<string> {
  opts.forEach((o, i) => {
    const m = FORMAT_OPT.exec(o);
    if (!m) return;
    const format = m[1] || m[2] || opts[i + 1] || '';
    if (!/^p(lain)?$/i.test(format)) {
      throw new ApiError('invalid-params', `pg_dump option ${o}${m[1] || m[2] ? '' : ` ${format}`} needs an installed pg_dump (SVC_GRAPHQL_PG_DUMP_PATH): the built-in one writes plain SQL only`, { path: '$.opts' });
    }
  });
  const u = new URL(url);
  const host = u.searchParams.get('host') ?? (decodeURIComponent(u.hostname.replace(/^\[|\]$/g, '')) || 'localhost');
  try {
    const out = await runWasmPgDump(url, [...opts, `--host=${host}`, `--port=${u.port || '5432'}`], TIMEOUT_MS);
    return serverMajor < 17 ? out.replace(/^SET transaction_timeout = 0;\n/m, '') : out;
  } catch (e) {
    const text = (e instanceof Error ? e.message : String(e))
      .replace(/^pg_dump failed with exit code \d+\. \nError message: /, '')
      .replace(/^could not find a "[^"]*" to execute/, '')
      .trim()
      .replace(/(?<!^)pg_dump: /g, '\npg_dump: ');
    throw new ApiError('unexpected', `error while executing pg_dump: ${text}`, { status: 500 });
  }
}

export function cleanOutput(text: string): string {
  const keep = text.split('\n').filter((line) => !(line.trim() === '' || line.startsWith('--') || PREAMBLE.has(line) || NOTIFY_TRIGGER.test(line) || RESTRICT.test(line)));
  return keep.map((l) => `${l}\n`).join('');
}
