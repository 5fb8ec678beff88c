/**
 * The CLI's HTTP client for a running engine: POST /v1/query and /v1/metadata with the admin
 * secret. Network failures and error answers become one-line CliErrors; `ServerError` keeps
 * the answer's body so callers (migrations) can point at the failing statement.
 */
import type { Connection } from './args.js';
import { CliError } from './cliError.js';

export class ServerError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** One line describing an engine's error answer, with the Postgres message when there is one. */
export function describeError(status: number, body: any): string {
  if (body && typeof body === 'object') {
    const pgMsg = body.internal?.error?.message;
    const parts = [`${body.error ?? 'error'}`];
    if (typeof pgMsg === 'string') parts.push(`postgres: ${pgMsg}`);
    if (body.path && body.path !== '$') parts.push(`at ${body.path}`);
    if (body.code) parts.push(`(${body.code}, HTTP ${status})`);
    return parts.join(' ');
  }
  return `HTTP ${status}: ${String(body).slice(0, 200)}`;
}

/** Which item of a failed `bulk` failed (from the error's path), and the Postgres message or the one-line error. */
export function bulkFailure(e: ServerError): { index: number | undefined; message: string } {
  const body = e.body as { path?: string; internal?: { error?: { message?: string } } } | undefined;
  const idx = /^\$(?:\.args)?\[(\d+)\]/.exec(body?.path ?? '');
  const pgMessage = body?.internal?.error?.message;
  return { index: idx ? Number(idx[1]) : undefined, message: pgMessage !== undefined ? `postgres error: ${pgMessage}` : describeError(e.status, e.body) };
}

export class EngineClient {
  constructor(readonly conn: Connection) {}

  /** POST a JSON body; returns the parsed answer or throws ServerError / CliError. */
  async post(path: string, body: unknown): Promise<any> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.conn.adminSecret !== undefined) headers['x-svc-admin-secret'] = this.conn.adminSecret;
    let res: Response;
    try {
      res = await fetch(this.conn.endpoint + path, { method: 'POST', headers, body: JSON.stringify(body) });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.conn.endpoint}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    if (!res.ok) throw new ServerError(describeError(res.status, parsed), res.status, parsed);
    return parsed;
  }

  query(body: unknown): Promise<any> {
    return this.post('/v1/query', body);
  }
}
