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

export interface ActionInfo {
  name: string;
  meta: ActionMetadata;
  arguments: Array<{ name: string; type: TypeRef; description: string | null }>;
  output: TypeRef;
  /** The output's object type (an output is an object type or a list of them). */
  outputObject: CustomObjectInfo;
  url: string;
  headers: ResolvedHeader[];
  roles: Set<string>;
}
