/**
 * Answers of introspection root fields (`__schema`, `__type`), kept per built role schema: one
 * introspection of a 5,000-table schema is seconds of work and ~100 MB of JSON, and consoles and clients
 * send the same introspection query again and again. The answer depends only on the schema object and
 * the request (query text, operation name, variables), so it is reused until the schema goes (a role
 * schema lives as long as a cache uses it, and is kept across caches while what it was built from is
 * unchanged: graphql/schema/schemaShape.ts). At most `PER_SCHEMA` requests per schema, and at most
 * `BUDGET_BYTES` of answers in all (the oldest kept answer, of any schema, goes first; an answer larger
 * than the budget is not kept). An answer is an HTTP response body (one UTF-8 Buffer: introspectionBody.ts)
 * or, over WebSockets and beside other root fields, the text of each root field.
 *
 * A response body is kept gzip-compressed (level 1, in libuv's thread pool: off the event loop; a 107 MB
 * answer is kept in a few MB): the request that made it gets the bytes as made, and while they are being
 * compressed other requests get them too (a client that accepts gzip waits for the gzip bytes); once
 * compressed, a request gets the gzip bytes (`isGzipAnswer`),
 * sent as they are to a client that accepts gzip, inflated in the thread pool for one that does not
 * (`introspectionResponse`).
 */
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { disposeWhenReleased, holdBuffer } from '../lib/index.js';
import type { GraphQLSchema } from 'graphql';

const PER_SCHEMA = 4;

/** Bytes of kept answers in all (compressed bodies count at their compressed size): a 5,000-table role's answer is ~107 MB, the admin's ~270 MB, gzip-compressed 5–10 MB. */
const BUDGET_BYTES = 256 * 1024 * 1024;

/** alias → the field's answer as JSON text; or a whole response body. */
export type IntrospectionAnswer = ReadonlyMap<string, string> | Buffer;

const answers = new WeakMap<GraphQLSchema, Map<string, IntrospectionAnswer>>();

/** Every kept answer, oldest first: its schema's map (weakly, through the schema), key and size. */
const kept = new Set<{ schema: WeakRef<GraphQLSchema>; key: string; bytes: number }>();
let keptBytes = 0;

function sizeOf(answer: IntrospectionAnswer): number {
  if (Buffer.isBuffer(answer)) return answer.length;
  let n = 0;
  // A one-byte string's length in bytes; a two-byte one is counted at half its size (a bound, not a measure).
  for (const text of (answer as ReadonlyMap<string, string>).values()) n += text.length;
  return n;
}

function forget(entry: { schema: WeakRef<GraphQLSchema>; key: string; bytes: number }): void {
  kept.delete(entry);
  keptBytes -= entry.bytes;
  const schema = entry.schema.deref();
  if (schema) answers.get(schema)?.delete(entry.key);
}

/** Answers being computed: a second request for one waits for it instead of computing it again beside it. */
const running = new WeakMap<GraphQLSchema, Map<string, Promise<IntrospectionAnswer>>>();

/** The answer for `key` on `schema`, computed by `run` the first time (a Map iterates oldest first: the oldest goes). */
export async function introspectionAnswer<T extends IntrospectionAnswer>(schema: GraphQLSchema, key: string, run: () => Promise<T>): Promise<T> {
  const have = answers.get(schema)?.get(key) ?? running.get(schema)?.get(key);
  if (have) return have as Promise<T> | T;
  let inFlight = running.get(schema);
  if (!inFlight) running.set(schema, (inFlight = new Map()));
  const made = run();
  inFlight.set(key, made);
  let answer: T;
  try {
    answer = await made;
  } catch (e) {
    inFlight.delete(key);
    throw e;
  }
  if (!Buffer.isBuffer(answer)) {
    inFlight.delete(key);
    return keep(schema, key, answer);
  }
  // A body: requests meanwhile get it as made (the in-flight promise) until its compressed bytes are kept.
  const body: Buffer = answer;
  // One compression at a time: answers are kept in the order they were made (the oldest goes first).
  const compressed = compressions.then(() => gzipAsync(body, GZIP));
  compressing.set(body, compressed);
  compressions = compressed.then(
    (bytes) => {
      if (inFlight.get(key) !== made) return;
      inFlight.delete(key);
      gzipped.add(bytes);
      keep(schema, key, bytes);
      // The bytes as made go now (once the responses writing them are done), not at the next major collection.
      disposeWhenReleased(body);
    },
    () => {
      if (inFlight.get(key) === made) inFlight.delete(key);
    },
  );
  return answer;
}

const gzipAsync = promisify(gzip);
/** The last compression started and its answer kept (each starts once the one before it has ended). */
let compressions: Promise<void> = Promise.resolve();

/** Resolves once the answers made so far are compressed and kept (tests). */
export const introspectionAnswersSettled = (): Promise<void> => compressions;
const gunzipAsync = promisify(gunzip);
/** Level 1, as responses are compressed (server/compressResponse.ts): the ratio is within ~10 % of higher levels on JSON. */
const GZIP = { level: 1 };
/** Kept bodies that are gzip bytes. */
const gzipped = new WeakSet<Buffer>();
/** Bodies just made → their gzip bytes being made (a gzip client of the first request waits for them instead of compressing it again). */
const compressing = new WeakMap<Buffer, Promise<Buffer>>();

/** Bytes of the answers kept now (tests, diagnostics). */
export const keptIntrospectionBytes = (): number => keptBytes;

/** Whether `body` (from `introspectionAnswer`) is a kept answer's gzip bytes. */
export const isGzipAnswer = (body: Buffer): boolean => gzipped.has(body);

/**
 * A body from `introspectionAnswer` as it goes to a client: the gzip bytes of a kept answer as they are,
 * with `content-encoding: gzip`, when the client accepts gzip; else the JSON bytes (inflated in the thread pool).
 */
export async function introspectionResponse(body: Buffer, acceptsGzip: boolean): Promise<{ body: Buffer; headers?: Record<string, string> }> {
  if (!gzipped.has(body)) {
    const compressed = acceptsGzip ? await compressing.get(body)?.catch(() => undefined) : undefined;
    if (compressed) return { body: compressed, headers: GZIP_ENCODED };
    // Written as it is: its bytes stay until the socket has taken them (the server's releaseBuffer).
    holdBuffer(body);
    return { body };
  }
  if (acceptsGzip) return { body, headers: GZIP_ENCODED };
  // Inflated for this response only: its bytes go once the socket has taken them.
  const inflated = await gunzipAsync(body);
  holdBuffer(inflated);
  disposeWhenReleased(inflated);
  return { body: inflated };
}

const GZIP_ENCODED: Record<string, string> = { 'content-encoding': 'gzip', vary: 'Accept-Encoding' };

function keep<T extends IntrospectionAnswer>(schema: GraphQLSchema, key: string, made: T): T {
  const bytes = sizeOf(made);
  if (bytes > BUDGET_BYTES) return made;
  let bySchema = answers.get(schema);
  if (!bySchema) answers.set(schema, (bySchema = new Map()));
  if (bySchema.size >= PER_SCHEMA) {
    const oldest = bySchema.keys().next().value!;
    for (const e of kept) if (e.key === oldest && e.schema.deref() === schema) forget(e);
    bySchema.delete(oldest);
  }
  // Entries of schemas gone (collected) and the oldest answers until this one fits.
  for (const e of kept) {
    if (keptBytes + bytes <= BUDGET_BYTES && e.schema.deref() !== undefined) break;
    forget(e);
  }
  bySchema.set(key, made);
  kept.add({ schema: new WeakRef(schema), key, bytes });
  keptBytes += bytes;
  return made;
}
