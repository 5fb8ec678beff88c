/**
 * GraphiQL's request headers as a team uses them: a table of headers, each on or off (a role, a
 * session variable, `Authorization: Bearer <JWT>` with its claims decoded below), and whether the
 * admin secret (kept in sessionStorage, never shown) is sent. Kept in localStorage (without the
 * admin secret) and mirrored both ways with GraphiQL's own JSON headers tab.
 */
import { useEffect, useId, useState } from 'react';

export interface HeaderRow {
  enabled: boolean;
  name: string;
  value: string;
}

export interface RequestHeadersState {
  sendAdminSecret: boolean;
  rows: HeaderRow[];
}

const STORE = 'svc-graphiql-headers';
const DEFAULT: RequestHeadersState = {
  sendAdminSecret: true,
  rows: [
    { enabled: true, name: 'x-svc-role', value: 'admin' },
    { enabled: true, name: 'x-svc-user-id', value: '1' },
  ],
};
export const CLAIMS_NAMESPACE = 'https://svc.io/jwt/claims';

function load(): RequestHeadersState {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '') as RequestHeadersState;
    if (typeof v.sendAdminSecret === 'boolean' && Array.isArray(v.rows)) return v;
  } catch {
    // nothing stored yet
  }
  return DEFAULT;
}

/** The headers state, persisted in localStorage on every change. */
export function useRequestHeaders(): [RequestHeadersState, (s: RequestHeadersState) => void] {
  const [state, setState] = useState<RequestHeadersState>(load);
  useEffect(() => {
    localStorage.setItem(STORE, JSON.stringify(state));
  }, [state]);
  return [state, setState];
}

/** The enabled headers as an object (what GraphiQL's JSON headers tab shows). */
export const headersObject = (rows: HeaderRow[]): Record<string, string> => Object.fromEntries(rows.filter((r) => r.enabled && r.name.trim()).map((r) => [r.name.trim(), r.value]));

/** The rows after GraphiQL's JSON tab was edited: its keys on, the other rows kept but off; undefined while it is not a JSON object. */
export function rowsFromJson(text: string, prev: HeaderRow[]): HeaderRow[] | undefined {
  let v: unknown;
  try {
    v = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const obj = v as Record<string, unknown>;
  const out: HeaderRow[] = [];
  for (const r of prev) {
    if (r.name.trim() in obj) out.push({ enabled: true, name: r.name.trim(), value: String(obj[r.name.trim()]) });
    else if (!r.enabled || !r.name.trim()) out.push(r);
  }
  for (const [k, x] of Object.entries(obj)) if (!out.some((r) => r.name.trim() === k)) out.push({ enabled: true, name: k, value: typeof x === 'string' ? x : JSON.stringify(x) });
  return out;
}

/** The payload of a JWT (not verified: for showing its claims and the session they give). */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const part = token.replace(/^Bearer\s+/i, '').split('.')[1];
  if (!part) return undefined;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const v = JSON.parse(decodeURIComponent(escape(json)));
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The session the engine would see for these headers, for the explain API: the `x-svc-*` headers,
 * else what a JWT's claims give (`x-svc-default-role` as the role, string claims as variables).
 */
export function sessionOf(rows: HeaderRow[]): Record<string, string> {
  const h = Object.fromEntries(Object.entries(headersObject(rows)).map(([k, v]) => [k.toLowerCase(), v]));
  const out: Record<string, string> = {};
  const auth = h.authorization;
  const claims = auth ? jwtClaims(auth) : undefined;
  const ns = claims?.[CLAIMS_NAMESPACE] as Record<string, unknown> | undefined;
  if (ns && typeof ns === 'object') {
    for (const [k, v] of Object.entries(ns)) if (typeof v === 'string' && k.toLowerCase().startsWith('x-svc-')) out[k.toLowerCase()] = v;
    if (typeof ns['x-svc-default-role'] === 'string') out['x-svc-role'] = ns['x-svc-default-role'] as string;
    delete out['x-svc-default-role'];
  }
  for (const [k, v] of Object.entries(h)) if (k.startsWith('x-svc-') && k !== 'x-svc-admin-secret') out[k] = v;
  return out;
}

export function RequestHeadersEditor({ state, onChange, roles, sessionVariables }: { state: RequestHeadersState; onChange: (s: RequestHeadersState) => void; roles: string[]; sessionVariables: string[] }) {
  const names = useId();
  const roleList = useId();
  const put = (i: number, r: Partial<HeaderRow>) => onChange({ ...state, rows: state.rows.map((x, j) => (j === i ? { ...x, ...r } : x)) });
  const auth = state.rows.find((r) => r.enabled && r.name.trim().toLowerCase() === 'authorization');
  const claims = auth ? jwtClaims(auth.value) : undefined;
  return (
    <section className="card req-headers" aria-label="Request headers">
      <header className="card-head">
        <h2>Request headers</h2>
        <label><input type="checkbox" checked={state.sendAdminSecret} onChange={(e) => onChange({ ...state, sendAdminSecret: e.target.checked })} /> send the admin secret (x-svc-admin-secret)</label>
      </header>
      <datalist id={names}>{['x-svc-role', ...sessionVariables.map((s) => s.toLowerCase()).filter((s) => s !== 'x-svc-role'), 'Authorization', 'x-svc-use-backend-only-permissions'].map((n) => <option key={n} value={n} />)}</datalist>
      <datalist id={roleList}>{['admin', ...roles].map((n) => <option key={n} value={n} />)}</datalist>
      <table className="headers">
        <thead><tr><th scope="col">on</th><th scope="col">header</th><th scope="col">value</th><th scope="col"><span className="sr-only">remove</span></th></tr></thead>
        <tbody>
          {state.rows.map((r, i) => (
            <tr key={i}>
              <td><input type="checkbox" aria-label={`Header ${i + 1} on`} checked={r.enabled} onChange={(e) => put(i, { enabled: e.target.checked })} /></td>
              <td><input aria-label={`Header ${i + 1} name`} list={names} value={r.name} onChange={(e) => put(i, { name: e.target.value })} /></td>
              <td><input aria-label={`Header ${i + 1} value`} list={r.name.toLowerCase() === 'x-svc-role' ? roleList : undefined} value={r.value} onChange={(e) => put(i, { value: e.target.value })} /></td>
              <td><button type="button" className="link" aria-label={`Remove header ${i + 1}`} onClick={() => onChange({ ...state, rows: state.rows.filter((_, j) => j !== i) })}>✕</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => onChange({ ...state, rows: [...state.rows, { enabled: true, name: '', value: '' }] })}>Add header</button>
        <button type="button" onClick={() => onChange({ ...state, rows: [...state.rows, { enabled: true, name: 'Authorization', value: 'Bearer ' }] })}>Add JWT (Authorization: Bearer)</button>
      </div>
      {auth ? (
        claims ? <details><summary>JWT claims (not verified here)</summary><pre className="code preview">{JSON.stringify(claims, null, 2)}</pre></details> : <p className="hint">The Authorization value is not a readable JWT.</p>
      ) : null}
    </section>
  );
}
