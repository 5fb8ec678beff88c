/**
 * The resolved shapes of custom types and actions in the schema cache (built by buildActions.ts,
 * read by the GraphQL schema, the planner and the action runner).
 */
import type { QualifiedTable } from '../../core/index.js';
import type { ResolvedHeader } from '../../webhooks/index.js';
import type { ActionMetadata, CustomTypes } from '../model/decodeActions.js';

/** A GraphQL type reference parsed from `[UserInput!]!`. */
export type TypeRef = { kind: 'named'; name: string; nonNull: boolean } | { kind: 'list'; of: TypeRef; nonNull: boolean };

export interface CustomRelInfo {
  name: string;
  type: 'object' | 'array';
  remoteTable: QualifiedTable;
  /** Output field → remote column (with the column's Postgres type, for the join). */
  mapping: Array<{ field: string; column: string; pgType: string }>;
  /**
   * The source of `remoteTable` when it is not `default` (Hasura v2's `source`): resolved once every
   * source is built (metadata/sourceRelationships.ts), joined after the output's statement.
   */
  source?: string;
}

export interface CustomObjectInfo {
  name: string;
  description: string | null;
  fields: Array<{ name: string; type: TypeRef; description: string | null }>;
  relationships: CustomRelInfo[];
}

export interface CustomTypesInfo {
  /** The validated definitions (empty when the set is inconsistent). */
  defs: CustomTypes;
  objects: Map<string, CustomObjectInfo>;
  /** Names of every scalar, enum and input object usable as argument types (plus Postgres scalars used). */
  inputNames: Set<string>;
  /** Postgres base types used by name (`uuid`, `timestamptz`...). */
  pgScalars: Set<string>;
}

export type ActionOutputScalar =
  | { kind: 'builtin'; name: 'Int' | 'Float' | 'String' | 'Boolean' | 'ID' }
  | { kind: 'custom'; name: string }
  | { kind: 'enum'; name: string; values: string[] };

export interface ActionInfo {
  name: string;
  meta: ActionMetadata;
  arguments: Array<{ name: string; type: TypeRef; description: string | null }>;
  output: TypeRef;
  /** The output's object type, when the output is an object type (or lists of one). */
  outputObject?: CustomObjectInfo;
  /**
   * The output's scalar or enum (Hasura v2), when the output is one (or lists of one): a built-in
   * GraphQL scalar, a custom scalar, a Postgres scalar used by name, or a custom enum (its values).
   */
  outputScalar?: ActionOutputScalar;
  url: string;
  headers: ResolvedHeader[];
  roles: Set<string>;
}
