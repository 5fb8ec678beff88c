/**
 * A `/v1/query` or `/v1/metadata` body, decoded into operations. A body under
 * `OFF_THREAD_MIN_BYTES` is decoded here, inline: microseconds to a few milliseconds. A larger
 * one (only an admin may send one: the limits of auth/bodyLimits come first) is decoded in a
 * worker thread, so that parsing it — the JSON, every operation's arguments, and for a query
 * collection of 25,000 queries 25,000 GraphQL documents, 100–300 ms of one event-loop turn — does
 * not stall the other clients; the main thread pays only for receiving the decoded operations
 * (V8's structured clone, ~13 ms for a 2.7 MB replace_metadata). Any failure of the worker path
 * (a value that does not clone, a thread that dies) decodes inline instead (lib/offThread.ts), so the answer is
 * always the inline one; tests/unit/metadataApi/decodeBody.test.ts compares the two. A large
 * `replace_metadata` is the exception: receiving a decoded document of thousands of tables from the thread
 * costs more than decoding it, so it is decoded on this thread in slices (`decodeDocumentSliced`;
 * tests/unit/metadataApi/decodeBodySliced.test.ts compares it with the inline decoding).
 */
import { ApiError, errors, isApiError, isStackOverflow } from '../core/index.js';
import { OFF_THREAD_MIN_BYTES, offThreadRunner, parseJsonSliced, TurnBudget } from '../lib/index.js';
import { decodeTablesAhead, isObject } from '../metadata/index.js';

/** Bodies from this size on are decoded off the main thread (lib/offThread.ts). */
export { OFF_THREAD_MIN_BYTES };
import { decodeQuery, type DecodeOptions } from './envelope.js';
import type { Query } from './envelope.js';
import { translateV2Metadata } from './v2Metadata.js';
import { translateV2Query } from './v2Query.js';

/** Which endpoint's body: `/v1/metadata` and `/v2/query` bodies are rewritten into /v1/query operations first. */
export type BodyEndpoint = 'query' | 'metadata' | 'v2query';

/**
 * The decoded body. `shape` is the `/v1/metadata` request reduced to what its answer depends on
 * (`type`, and a bulk's items): see v2MetadataResult.
 */
export interface DecodedBody {
  query: Query;
  shape: unknown;
}


/** The decoding itself, the same on either thread. */
export function decodeBodyInline(body: Buffer | Uint8Array, endpoint: BodyEndpoint, opts: DecodeOptions = {}): DecodedBody {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw errors.invalidJson();
  }
  return decodeParsed(json, endpoint, opts);
}

function decodeParsed(json: unknown, endpoint: BodyEndpoint, opts: DecodeOptions): DecodedBody {
  if (endpoint === 'query') return { query: decodeQuery(json, '$', opts), shape: undefined };
  if (endpoint === 'v2query') return { query: decodeQuery(translateV2Query(json), '$', opts), shape: undefined };
  const translated = translateV2Metadata(json);
  return { query: decodeQuery(translated, '$', opts), shape: resultShape(translated) };
}

/** The part of a translated `/v1/metadata` request its answer depends on. */
function resultShape(translated: unknown): unknown {
  if (typeof translated !== 'object' || translated === null) return translated;
  const t = translated as { type?: unknown; args?: unknown };
  if (t.type === 'bulk' && Array.isArray(t.args)) return { type: 'bulk', args: t.args.map(resultShape) };
  return { type: t.type };
}

/** A decoded body, or what went wrong, as the worker answers. */
export type DecodeAnswer =
  | { ok: true; decoded: DecodedBody }
  | { ok: false; error: { code: string; message: string; status: number; path: string; internal?: unknown } }
  | { ok: false; stackOverflow: true };

/** The worker side's job: decode, and turn a failure into data. Other errors: the caller decodes inline. */
export function decodeAnswer(job: { body: Uint8Array; endpoint: BodyEndpoint; opts?: DecodeOptions }): DecodeAnswer {
  try {
    return { ok: true, decoded: decodeBodyInline(job.body, job.endpoint, job.opts) };
  } catch (e) {
    if (isApiError(e)) return { ok: false, error: { code: e.code, message: e.message, status: e.status, path: e.path, internal: e.internal } };
    if (isStackOverflow(e)) return { ok: false, stackOverflow: true };
    throw e;
  }
}

const decoder = offThreadRunner<{ body: Uint8Array; endpoint: BodyEndpoint; opts?: DecodeOptions }, DecodeAnswer>(new URL('./decodeBodyWorker.js', import.meta.url));

/**
 * Decodes `body`, off the main thread when it is large; a large `replace_metadata` on this thread in
 * slices instead (`decodeDocumentSliced`). Throws what the inline decoding throws.
 */
export async function decodeBody(body: Buffer, endpoint: BodyEndpoint, opts: DecodeOptions = {}): Promise<DecodedBody> {
  if (body.length < OFF_THREAD_MIN_BYTES) return decodeBodyInline(body, endpoint, opts);
  if (isSlicedDocument(body, endpoint, opts)) {
    const decoded = await decodeDocumentSliced(body, endpoint, opts);
    if (decoded !== undefined) return decoded;
  }
  return decodeBodyOffThread(body, endpoint, opts);
}

/** A body that starts as `{"type":"replace_metadata",` (as clients write it: the type first). */
const REPLACE_METADATA = /^\s*\{\s*"type"\s*:\s*"replace_metadata"\s*,/;

/**
 * Whether `body` is a `replace_metadata` to decode on this thread (decodeDocumentSliced). Names mapped
 * from Hasura's (`hasuraNames`) copy the document before it is decoded, so the tables decoded ahead
 * would not be found: those go to the thread.
 */
function isSlicedDocument(body: Buffer, endpoint: BodyEndpoint, opts: DecodeOptions): boolean {
  return endpoint !== 'v2query' && opts.hasuraNames !== true && REPLACE_METADATA.test(body.toString('latin1', 0, 200));
}

/** Documents with more queries than this in their collections are decoded in the thread (a GraphQL parse each). */
const SLICED_MAX_QUERIES = 1000;

/**
 * A large `replace_metadata` decoded on this thread a slice per event-loop turn: its text parsed in
 * pieces (lib/parseJsonSliced.ts), its tables decoded ahead (decodeTablesAhead), then the operation's
 * own synchronous decoding, which takes those tables. The thread would give the same answer but hands the
 * decoded document back by structured clone, which for 5,000 tables costs this thread more than
 * decoding it here, in one turn (0.3–1.4 s). `undefined`: leave it to the thread (a document with many
 * collection queries, each parsed as GraphQL by the decoding).
 */
async function decodeDocumentSliced(body: Buffer, endpoint: BodyEndpoint, opts: DecodeOptions): Promise<DecodedBody | undefined> {
  const budget = new TurnBudget();
  let json: unknown;
  try {
    json = await parseJsonSliced(body.toString('utf8'), budget);
  } catch {
    throw errors.invalidJson();
  }
  const translated = endpoint === 'metadata' ? translateV2Metadata(json) : json;
  const args = isObject(translated) && translated.type === 'replace_metadata' ? translated.args : undefined;
  const doc = isObject(args) && 'metadata' in args ? args.metadata : args;
  if (isObject(doc)) {
    if (collectionQueries(doc) > SLICED_MAX_QUERIES) return undefined;
    await decodeTablesAhead(doc.tables, budget);
  }
  return endpoint === 'metadata' ? { query: decodeQuery(translated, '$', opts), shape: resultShape(translated) } : decodeParsed(json, endpoint, opts);
}

function collectionQueries(doc: Record<string, unknown>): number {
  const collections = doc.query_collections;
  if (!Array.isArray(collections)) return 0;
  let n = 0;
  for (const c of collections) {
    const queries = isObject(c) && isObject(c.definition) ? c.definition.queries : undefined;
    if (Array.isArray(queries)) n += queries.length;
  }
  return n;
}

/** Decodes `body` in the worker thread; the same answer (or error) as `decodeBodyInline`. */
export async function decodeBodyOffThread(body: Buffer, endpoint: BodyEndpoint, opts: DecodeOptions = {}): Promise<DecodedBody> {
  // A copy of the body goes to the thread (the request's buffer may be pooled).
  const answer = await decoder.run({ body: new Uint8Array(body), endpoint, opts }, body.length);
  if (answer === undefined) return decodeBodyInline(body, endpoint, opts);
  if (answer.ok) return answer.decoded;
  if ('stackOverflow' in answer) throw new RangeError('Maximum call stack size exceeded');
  const { code, message, status, path, internal } = answer.error;
  throw new ApiError(code, message, { status, path, internal });
}

/** How many bodies the worker thread decoded, and how many it could not (decoded inline instead). */
export function offThreadDecodeCounts(): { answered: number; failed: number } {
  return decoder.counts();
}
