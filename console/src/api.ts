/**
 * The console's only way to the engine: same-origin POSTs to /v1/query and /v1/graphql (and a GET of
 * /v1alpha1/config for the engine's warnings, of /api/swagger/json, and calls of /api/rest) with the
 * admin secret the user typed (kept in sessionStorage, never in a URL). Engine errors come back as
 * `EngineError` values carrying the spec's `{code, error, path}`, so pages can show each next to the
 * field that caused it.
 */
const KEY = 'svc-admin-secret';

export class EngineError extends Error {
  constructor(readonly code: string, message: string, readonly path: string | undefined, readonly status: number, readonly internal?: unknown) {
    super(message);
  }
}

export const adminSecret = {
  get: (): string => sessionStorage.getItem(KEY) ?? '',
  set: (s: string): void => (s ? sessionStorage.setItem(KEY, s) : sessionStorage.removeItem(KEY)),
};

export function adminHeaders(): Record<string, string> {
  const s = adminSecret.get();
  return s ? { 'x-svc-admin-secret': s } : {};
}

/** Requests to the engine in flight, for the shell's spinner (spinner.tsx). */
let inFlight = 0;
const activity = new Set<(n: number) => void>();
export function onActivity(fn: (inFlight: number) => void): () => void {
  activity.add(fn);
  return () => void activity.delete(fn);
}
export const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<any> => {
  inFlight++;
  activity.forEach((f) => f(inFlight));
  return postOnce(url, body, headers).finally(() => {
    inFlight--;
    activity.forEach((f) => f(inFlight));
  });
};

async function postOnce(url: string, body: unknown, headers: Record<string, string>): Promise<any> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...adminHeaders(), ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  let v: any;
  try {
    v = JSON.parse(text);
  } catch {
    throw new EngineError('unexpected', `${r.status}: ${text.slice(0, 200)}`, undefined, r.status);
  }
  if (!r.ok) {
    // Admin answers carry Postgres' own message (run_sql): shown with the engine's.
    const pgMessage = v?.internal?.error?.message;
    const message = v?.error ?? v?.message ?? `HTTP ${r.status}`;
    throw new EngineError(v?.code ?? 'unexpected', typeof pgMessage === 'string' ? `${message}: ${pgMessage}` : message, v?.path, r.status, v?.internal);
  }
  return v;
}

/** One /v1/query operation (or `bulk`); `headers` e.g. project.ts's migrationHeaders. */
export const query = (type: string, args: unknown, headers?: Record<string, string>): Promise<any> => post('/v1/query', { type, args }, headers);

/** One operation on the objects of `source` (a table, a function, an event trigger…): `source` beside `type` and `args`. */
export const sourceQuery = (source: string, type: string, args: unknown, headers?: Record<string, string>): Promise<any> => post('/v1/query', { type, args, source }, headers);

export const bulk = (ops: Array<{ type: string; args: unknown }>, headers?: Record<string, string>): Promise<any> => post('/v1/query', { type: 'bulk', args: ops }, headers);

/** A GraphQL request; GraphQL errors are thrown as EngineError with the first error's code. */
export async function graphql(q: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> {
  const r = await post('/v1/graphql', { query: q, variables }, headers);
  if (r.errors?.length) {
    const e = r.errors[0];
    throw new EngineError(e.extensions?.code ?? 'unexpected', e.message, e.extensions?.path, 200);
  }
  return r.data;
}

export interface SqlResult {
  columns: string[];
  rows: Array<Array<string | null>>;
}

/** run_sql (on `source` when given); a statement that returns rows gives them (header row split off). */
export async function runSql(sql: string, opts: { readOnly?: boolean; source?: string } = {}): Promise<SqlResult> {
  const r = await query('run_sql', { sql, read_only: opts.readOnly ?? false, ...(opts.source !== undefined ? { source: opts.source } : {}) });
  if (r.result_type !== 'TuplesOk') return { columns: [], rows: [] };
  const [head, ...rows] = r.result as Array<Array<string | null>>;
  return { columns: head as string[], rows };
}

/** An SQL string literal (for the console's own catalog queries; user values never go through here unescaped). */
export const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export const exportMetadata = (): Promise<any> => query('export_metadata', {});

/** A warning of the engine about its own setup (`/v1alpha1/config` `warnings`), shown as a banner. */
export interface EngineWarning {
  code: string;
  message: string;
}

/** The engine's config API (`/v1alpha1/config`, admin only): which features it enforces. */
export async function engineConfig(): Promise<{ is_allow_list_enabled?: boolean; [k: string]: unknown }> {
  const r = await fetch('/v1alpha1/config', { headers: adminHeaders() });
  if (!r.ok) throw new EngineError('unexpected', `config API: HTTP ${r.status}`, undefined, r.status);
  return r.json();
}

export interface TableRef {
  schema: string;
  name: string;
}
export const tableKey = (t: TableRef): string => `${t.schema}.${t.name}`;
export const refOf = (t: unknown): TableRef => (typeof t === 'string' ? { schema: 'public', name: t } : { schema: (t as TableRef).schema ?? 'public', name: (t as TableRef).name });

/** A call of a REST endpoint (`/api/rest/<path>`) with the admin secret: the status and the answer's text. */
export async function restCall(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method, headers: { ...adminHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const r = await fetch(`/api/rest/${path.replace(/^\/+/, '')}`, init);
  return { status: r.status, text: await r.text() };
}

/** The engine's OpenAPI document of its REST endpoints (`GET /api/swagger/json`, admin only). */
export async function openApiDocument(): Promise<unknown> {
  const r = await fetch('/api/swagger/json', { headers: adminHeaders() });
  const v = await r.json().catch(() => undefined);
  if (!r.ok) throw new EngineError(v?.code ?? 'unexpected', v?.error ?? `HTTP ${r.status}`, v?.path, r.status);
  return v;
}

/** One root field's statement and Postgres plan, as /v1/graphql/explain gives them. */
export interface FieldPlan {
  field: string;
  sql: string | null;
  plan: string[] | null;
}

/** /v1/graphql/explain (admin): the SQL and plan of each root field of `query` as the session in `user`. */
export async function explainGraphql(request: { query: string; variables?: Record<string, unknown>; operationName?: string }, user: Record<string, string>, analyze: boolean): Promise<FieldPlan[]> {
  const r = await post('/v1/graphql/explain', { query: request, user, analyze });
  // A subscription gives the one multiplexed statement its poller runs.
  return Array.isArray(r) ? r : [{ field: 'subscription (multiplexed)', sql: r.sql ?? null, plan: r.plan ?? null }];
}

/**
 * The console's admin check, with the engine's warnings: one small GET of the config API (admin only);
 * where that API is not enabled (404), export_metadata decides. Throws the engine's error when refused.
 */
export async function adminCheck(): Promise<EngineWarning[]> {
  const r = await fetch('/v1alpha1/config', { headers: adminHeaders() });
  if (r.status === 404) {
    await exportMetadata();
    return [];
  }
  const v = (await r.json().catch(() => ({}))) as { code?: string; error?: string; path?: string; warnings?: unknown };
  if (!r.ok) throw new EngineError(v.code ?? 'unexpected', v.error ?? `HTTP ${r.status}`, v.path, r.status);
  return Array.isArray(v.warnings) ? (v.warnings as EngineWarning[]).filter((w) => typeof w?.message === 'string') : [];
}
