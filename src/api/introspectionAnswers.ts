/**
 * Answers of introspection root fields (`__schema`, `__type`), kept per built role schema: one
 * introspection of a 5,000-table schema is seconds of graphql-js execution and ~100 MB of JSON, and
 * consoles and clients send the same introspection query again and again. The answer depends only on
 * the schema object and the request (query text, operation name, variables), so it is reused until the
 * schema goes (a role schema lives as long as a cache uses it, and is kept across caches while what it
 * was built from is unchanged: graphql/schema/schemaShape.ts). At most `PER_SCHEMA` requests per schema.
 */
import type { GraphQLSchema } from 'graphql';

const PER_SCHEMA = 4;

/** alias → the field's answer as JSON text. */
export type IntrospectionAnswer = ReadonlyMap<string, string>;

const answers = new WeakMap<GraphQLSchema, Map<string, IntrospectionAnswer>>();

/** The answer for `key` on `schema`, computed by `run` the first time (a Map iterates oldest first: the oldest goes). */
export async function introspectionAnswer(schema: GraphQLSchema, key: string, run: () => Promise<IntrospectionAnswer>): Promise<IntrospectionAnswer> {
  let bySchema = answers.get(schema);
  if (!bySchema) answers.set(schema, (bySchema = new Map()));
  const have = bySchema.get(key);
  if (have) return have;
  const made = await run();
  if (bySchema.size >= PER_SCHEMA) bySchema.delete(bySchema.keys().next().value!);
  bySchema.set(key, made);
  return made;
}
