/**
 * Errors are values with a stable code. An ApiError carries everything a response needs:
 * the Hasura-compatible `code`, the HTTP `status` (for /v1/query), a human `message`, and the
 * JSON `path` of the offending input (`$.args.table`, `$.selectionSet.author`...). `internal`
 * holds details (SQL, driver error) that only an admin may see.
 *
 * It extends Error so deep code can `throw` it; handlers turn it into the endpoint's shape.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  path: string;
  readonly internal?: unknown;
  /** Show `internal` even outside dev mode: set only for admin callers (e.g. action handler errors, as Hasura shows them to admin). */
  exposeInternal = false;

  constructor(code: string, message: string, opts: { status?: number; path?: string; internal?: unknown } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = opts.status ?? 400;
    this.path = opts.path ?? '$';
    this.internal = opts.internal;
  }

  /** A copy of this error whose path is `prefix` followed by the current path's tail (`$.x` + `$.y` → `$.x.y`). */
  withPathPrefix(prefix: string): ApiError {
    const tail = this.path === '$' ? '' : this.path.slice(1);
    return new ApiError(this.code, this.message, { status: this.status, path: prefix + tail, internal: this.internal });
  }

  /** The /v1/query body: `{path, error, code}` (plus `internal` for admins when present). */
  toQueryBody(showInternal: boolean): Record<string, unknown> {
    const body: Record<string, unknown> = { path: this.path, error: this.message, code: this.code };
    if (showInternal && this.internal !== undefined) body.internal = this.internal;
    return body;
  }

  /** One entry of a GraphQL `errors` array: `{extensions: {path, code}, message}`. */
  toGraphqlError(showInternal: boolean): Record<string, unknown> {
    const extensions: Record<string, unknown> = { path: this.path, code: this.code };
    if ((showInternal || this.exposeInternal) && this.internal !== undefined) extensions.internal = this.internal;
    return { extensions, message: this.message };
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/** Appends a key to a JSON path the way Hasura prints it: `$.a.b`, `$.a[0]`, `$.a['odd key']`. */
export function pathKey(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  let plain = PLAIN_KEYS.get(key);
  if (plain === undefined) {
    plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key);
    if (PLAIN_KEYS.size >= 10_000) PLAIN_KEYS.clear();
    PLAIN_KEYS.set(key, plain);
  }
  return plain ? `${path}.${key}` : `${path}['${key}']`;
}

/** Whether a key prints plainly (`.key`), per key: decoders build a path for every value they read. */
const PLAIN_KEYS = new Map<string, boolean>();

// Small constructors for the codes used across the engine (see SPEC.md "Errors").
export const errors = {
  invalidJson: (message = 'invalid json', path = '$') => new ApiError('invalid-json', message, { path }),
  parseFailed: (message: string, path = '$') => new ApiError('parse-failed', message, { path }),
  invalidParams: (message: string, path = '$') => new ApiError('invalid-params', message, { path }),
  notExists: (message: string, path = '$') => new ApiError('not-exists', message, { path }),
  alreadyExists: (message: string, path = '$') => new ApiError('already-exists', message, { path }),
  alreadyTracked: (message: string, path = '$') => new ApiError('already-tracked', message, { path }),
  accessDenied: (message: string, path = '$', status = 400) => new ApiError('access-denied', message, { path, status }),
  permissionDenied: (message: string, path = '$') => new ApiError('permission-denied', message, { path }),
  permissionError: (message: string, path = '$') => new ApiError('permission-error', message, { path }),
  unexpectedPayload: (message: string, path = '$') => new ApiError('unexpected-payload', message, { path }),
  validationFailed: (message: string, path = '$') => new ApiError('validation-failed', message, { path }),
  constraintError: (message: string, path = '$') => new ApiError('constraint-error', message, { path }),
  dependencyError: (message: string, path = '$') => new ApiError('dependency-error', message, { path }),
  notSupported: (message: string, path = '$') => new ApiError('not-supported', message, { path }),
  notFound: (message = 'resource does not exist', path = '$') => new ApiError('not-found', message, { path, status: 404 }),
  unexpected: (message: string, internal?: unknown) => new ApiError('unexpected', message, { status: 500, internal }),
  /** A request nested deeper than the parsers/planner can recurse (see `isStackOverflow`): a 400, never a 500. */
  nestedTooDeeply: (code = 'validation-failed', path = '$') => new ApiError(code, 'the request is nested too deeply', { path }),
};

/** True for the RangeError a JS stack overflow throws (a pathologically deep query, JSON or bool_exp). */
export const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message);
