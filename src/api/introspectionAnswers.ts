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
 */
import type { GraphQLSchema } from 'graphql';

const PER_SCHEMA = 4;

/** Bytes of kept answers in all: a 5,000-table role's answer is ~107 MB, the admin's ~270 MB. */
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
  try {
    return keep(schema, key, await made);
  } finally {
    inFlight.delete(key);
  }
}

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
