/**
 * The response of an operation whose root fields are all introspection (`__schema`, `__type`,
 * `__typename`), over HTTP: `{"data":{...}}` as one UTF-8 Buffer, kept per role schema
 * (introspectionAnswers.ts) and handed to the socket as it is on every request (no copy: the socket writes it
 * in as many writes as the client takes, the event loop free between them). It is made from the
 * walker's UTF-8 chunks (graphql's `introspectionBytes`, each encoded as it is written), so a 100 MB answer
 * is never a string: at its peak it is held twice, the chunks and the body they are copied into, for the
 * copy's few tens of milliseconds (it was text, joined text, the body's text and its bytes before).
 * graphql-js answers what the walker leaves to it (`introspectionByGraphqlJs`).
 */
import { execute, print, type DocumentNode, type GraphQLSchema } from 'graphql';
import { ApiError } from '../core/index.js';
import { introspectionBytes, responseKeys } from '../graphql/index.js';
import type { CompiledOperation } from '../planner/index.js';
import { introspectionAnswer } from './introspectionAnswers.js';

/** Whether every root field of `compiled` is introspection or `__typename` (then `introspectionBody` answers it). */
export const introspectionOnly = (compiled: CompiledOperation): boolean =>
  compiled.introspection !== undefined && compiled.fields.every((f) => f.kind === 'introspection' || f.kind === 'typename');

/** The answer of each introspection root field of `document` (by alias) through graphql-js's `execute`. */
export async function introspectionByGraphqlJs(
  schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, aliases: readonly string[],
): Promise<Map<string, string>> {
  const result = await execute({ schema, document, variableValues: variables });
  if (result.errors?.length) throw new ApiError('validation-failed', result.errors[0].message);
  const data = (result.data ?? {}) as Record<string, unknown>;
  return new Map(aliases.map((alias) => [alias, JSON.stringify(data[alias] ?? null)]));
}

/** `{"data":{...}}` of an operation of introspection root fields only (`introspectionOnly`), on `schema`. */
export function introspectionBody(schema: GraphQLSchema, compiled: CompiledOperation, variables: Record<string, unknown>): Promise<Buffer> {
  const document = compiled.introspection!;
  const key = `body\u0000${JSON.stringify(variables)}\u0000${print(document)}`;
  return introspectionAnswer(schema, key, async () => {
    const aliases = compiled.fields.filter((f) => f.kind === 'introspection').map((f) => f.alias);
    const values: ReadonlyMap<string, readonly Buffer[]> = await introspectionBytes(schema, document, variables)
      ?? new Map([...await introspectionByGraphqlJs(schema, document, variables, aliases)].map(([alias, text]) => [alias, [Buffer.from(text, 'utf8')]]));
    const { before, after } = responseKeys(compiled.fields.map((f) => f.alias));
    const parts: Buffer[] = [];
    compiled.fields.forEach((f, i) => {
      parts.push(Buffer.from(i === 0 ? `{"data":${before[0]}` : before[i], 'utf8'));
      if (f.kind === 'typename') parts.push(Buffer.from(JSON.stringify(f.value), 'utf8'));
      else parts.push(...(values.get(f.alias) ?? [NULL]));
    });
    parts.push(Buffer.from(`${after}}`, 'utf8'));
    const body = Buffer.concat(parts);
    // The chunks go now, not with the closure's next collection.
    parts.length = 0;
    return body;
  });
}

const NULL = Buffer.from('null');
