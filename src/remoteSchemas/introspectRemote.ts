/**
 * Fetching remote schemas' introspections: the input of the schema-cache build. `appState`
 * fetches every remote of the stored metadata before a rebuild (in parallel, each bounded by its
 * timeout); `/v1/query` fetches the ones an operation adds or reloads. A failure is a value (the
 * build reports the remote as inconsistent), never an exception.
 */
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { ApiError } from '../core/index.js';
import {
  remoteSchemasOf, remoteSchemaUrl, DEFAULT_REMOTE_TIMEOUT_SECONDS,
  type Metadata, type RemoteIntrospection, type RemoteSchemaMetadata,
} from '../metadata/index.js';
import { resolveHeaders } from '../webhooks/index.js';
import { callRemote } from './remoteRequest.js';
import { introspectionError } from './validateIntrospection.js';

const INTROSPECTION_QUERY = getIntrospectionQuery();

/** The key that tells whether a fetched introspection still belongs to a definition. */
export const definitionKey = (rs: RemoteSchemaMetadata): string => JSON.stringify(rs.definition);

/** Fetches and checks one remote's introspection. */
export async function fetchRemoteIntrospection(rs: RemoteSchemaMetadata, env: NodeJS.ProcessEnv = process.env): Promise<RemoteIntrospection> {
  const key = definitionKey(rs);
  try {
    const url = remoteSchemaUrl(rs, env);
    const { headers, missing } = resolveHeaders(rs.definition.headers ?? [], env);
    if (missing.length > 0) return { definitionKey: key, result: { ok: false, message: `environment variable "${missing[0]}" not set` } };
    const h: Record<string, string> = { 'content-type': 'application/json' };
    for (const x of headers) h[x.name.toLowerCase()] = x.value;
    const answer = await callRemote({
      url, headers: h, timeoutSeconds: rs.definition.timeout_seconds ?? DEFAULT_REMOTE_TIMEOUT_SECONDS,
      body: { query: INTROSPECTION_QUERY },
    });
    if (answer.errors || !answer.data) {
      return { definitionKey: key, result: { ok: false, message: `introspection query to ${url} has errors: ${JSON.stringify(answer.errors)}` } };
    }
    const intro = answer.data as unknown as IntrospectionQuery;
    const err = introspectionError(intro);
    if (err) return { definitionKey: key, result: { ok: false, message: err } };
    return { definitionKey: key, result: { ok: true, introspection: intro } };
  } catch (e) {
    const message = e instanceof ApiError ? e.message : (e as Error).message;
    return { definitionKey: key, result: { ok: false, message } };
  }
}

/**
 * The introspections for every remote of `md`: reused from `known` when the definition is the
 * same (and `refetch` does not name it), fetched otherwise.
 */
export async function fetchRemoteInputs(
  md: Metadata, known?: ReadonlyMap<string, RemoteIntrospection>, refetch: ReadonlySet<string> | 'all' = new Set(),
): Promise<Map<string, RemoteIntrospection>> {
  const list = remoteSchemasOf(md);
  const results = await Promise.all(list.map(async (rs): Promise<[string, RemoteIntrospection]> => {
    const have = known?.get(rs.name);
    const again = refetch === 'all' || refetch.has(rs.name);
    if (have && !again && have.definitionKey === definitionKey(rs)) return [rs.name, have];
    return [rs.name, await fetchRemoteIntrospection(rs)];
  }));
  return new Map(results);
}
