/**
 * Qualified names of database objects. Metadata accepts a table either as a bare string
 * (`"author"`, schema `public`) or as `{schema, name}`; everything inside the engine uses the object.
 */
import { ApiError } from './apiError.js';

export interface QualifiedName {
  schema: string;
  name: string;
}
export type QualifiedTable = QualifiedName;
export type QualifiedFunction = QualifiedName;

/** Decodes a TableName (string or `{schema?, name}`) at `path`, or throws a parse-failed ApiError. */
export function parseQualifiedName(value: unknown, path: string): QualifiedName {
  if (typeof value === 'string') return { schema: 'public', name: value };
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o.name !== 'string') {
      throw new ApiError('parse-failed', 'expecting a string for name', { path: `${path}.name` });
    }
    if (o.schema !== undefined && typeof o.schema !== 'string') {
      throw new ApiError('parse-failed', 'expecting a string for schema', { path: `${path}.schema` });
    }
    return { schema: (o.schema as string | undefined) ?? 'public', name: o.name };
  }
  throw new ApiError('parse-failed', 'expecting a string or an object with name and schema', { path });
}

/** Stable map key: `schema.name`. */
export const qualifiedKey = (q: QualifiedName): string => `${q.schema}.${q.name}`;

/** How Hasura prints a table in messages: `author` for public, `schema.name` otherwise. */
export const displayName = (q: QualifiedName): string => (q.schema === 'public' ? q.name : `${q.schema}.${q.name}`);

/** GraphQL name of a table/function: `name` in public, `schema_name` elsewhere (Hasura's rule). */
export const graphqlName = (q: QualifiedName): string => (q.schema === 'public' ? q.name : `${q.schema}_${q.name}`);

export const sameName = (a: QualifiedName, b: QualifiedName): boolean => a.schema === b.schema && a.name === b.name;
