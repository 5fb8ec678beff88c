/**
 * Input value validation against GraphQL input types, for literals in the query text and for
 * JSON variable values, with Hasura v1.3's messages: a single value where a list is expected
 * becomes a one-item list, enum literals must be enum tokens, unknown input fields are
 * `field "x" not found in type: 'T'`, and null is refused for non-null types. Scalars are
 * coerced by `scalarInput.ts` (GraphQL spec + what Postgres would accept), before any SQL.
 */
import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLScalarType, Kind,
  type GraphQLInputType, type ValueNode, type ConstValueNode,
} from 'graphql';
import { pathKey } from '../../core/index.js';
import { JsonBigNumber } from '../../lib/index.js';
import type { AnnValue, VarRef } from './types.js';
import { duplicates, showGT, showName, showNames, showNamedTy, vf } from './messages.js';
import { checkScalarInput } from './scalarInput.js';
import { canonicalName } from '../schema/fieldMeta.js';

/** A declared variable, once its value has been validated. */
export interface VariableInfo {
  type: GraphQLInputType;
  value: AnnValue;
}

const NUMERIC_CUSTOM = new Set(['smallint', 'bigint', 'float8', 'numeric', 'money']);

/** Options of a literal's validation. */
export interface LiteralOptions {
  /**
   * An `Int` row-count argument (`limit`, `offset`): its literal is checked by the planner, which
   * has Hasura's own messages for it (`expecting Integer value for "limit"`, a string of digits
   * for `offset`...).
   */
  rowCount?: boolean;
}

/** Validates a JSON value (a variable's, or a part of it) against `type`. */
export function coerceJson(type: GraphQLInputType, value: unknown, path: string, ref: VarRef): AnnValue {
  if (value === null || value === undefined) {
    if (type instanceof GraphQLNonNull) throw vf(`null value found for non-nullable type: ${showGT(type)}`, path);
    return { kind: 'null', variable: ref };
  }
  const base = type instanceof GraphQLNonNull ? type.ofType : type;
  if (base instanceof GraphQLList) {
    const items = Array.isArray(value) ? value : [value];
    const isWrapped = !Array.isArray(value);
    return {
      kind: 'list',
      variable: ref,
      items: items.map((v, i) => coerceJson(base.ofType, v, `${path}[${i}]`, isWrapped ? ref : { name: ref.name, path: [...ref.path, i] })),
    };
  }
  if (base instanceof GraphQLInputObjectType) {
    if (typeof value !== 'object' || Array.isArray(value) || value instanceof JsonBigNumber) throw vf('expecting a JSON object', path);
    const entries = Object.entries(value as Record<string, unknown>);
    return objectValue(base, entries, path, ref, (ft, v, p, k) => coerceJson(ft, v, p, { name: ref.name, path: [...ref.path, k] }));
  }
  if (base instanceof GraphQLEnumType) {
    if (typeof value !== 'string') throw vf('expecting a JSON string for Enum', path);
    return enumValue(base, value, path, ref);
  }
  checkScalarInput(base as GraphQLScalarType, { from: 'json', value }, path);
  return { kind: 'scalar', type: base as GraphQLScalarType, value, variable: ref };
}

/** Validates a literal from the query text; variables inside are looked up in `vars`. */
export function coerceLiteral(
  type: GraphQLInputType, node: ValueNode, path: string, vars: ReadonlyMap<string, VariableInfo> | null, opts: LiteralOptions = {},
): AnnValue {
  if (node.kind === Kind.VARIABLE) {
    const name = node.name.value;
    const info = vars?.get(name);
    if (!info) throw vf(`no such variable defined in the operation: ${showName(name)}`, path);
    if (!isTypeAllowed(type, info.type)) {
      throw vf(`variable ${name} of type ${showGT(info.type)} is used in position expecting ${showGT(type)}`, path);
    }
    return info.value;
  }
  if (node.kind === Kind.NULL) {
    if (type instanceof GraphQLNonNull) throw vf(`null value found for non-nullable type: ${showGT(type)}`, path);
    return { kind: 'null' };
  }
  const base = type instanceof GraphQLNonNull ? type.ofType : type;
  if (base instanceof GraphQLList) {
    const items = node.kind === Kind.LIST ? node.values : [node];
    return { kind: 'list', items: items.map((v, i) => coerceLiteral(base.ofType, v, `${path}[${i}]`, vars)) };
  }
  if (base instanceof GraphQLInputObjectType) {
    if (node.kind !== Kind.OBJECT) throw vf('expecting an object', path);
    const entries = node.fields.map((f) => [f.name.value, f.value] as [string, ValueNode]);
    return objectValue(base, entries, path, undefined, (ft, v, p) => coerceLiteral(ft, v, p, vars));
  }
  if (base instanceof GraphQLEnumType) {
    if (node.kind !== Kind.ENUM) throw vf(`expected an enum value for type ${showName(base.name)}, but found ${literalKind(node)}`, path);
    return enumValue(base, node.value, path, undefined);
  }
  const scalar = base as GraphQLScalarType;
  if (node.kind === Kind.ENUM) throw vf('unexpected enum for a scalar', path);
  const json = numericLiteral(scalar, node) ?? literalJson(node, path);
  if (!(opts.rowCount && scalar.name === 'Int')) checkScalarInput(scalar, { from: 'literal', node, value: json }, path);
  return { kind: 'scalar', type: scalar, value: json };
}

function objectValue<V>(
  type: GraphQLInputObjectType, entries: Array<[string, V]>, path: string, ref: VarRef | undefined,
  coerce: (t: GraphQLInputType, v: V, p: string, key: string) => AnnValue,
): AnnValue {
  const dups = duplicates(entries.map(([k]) => k));
  if (dups.length > 0) {
    throw vf(`when parsing a value of type: ${showNamedTy(type.name)}, the following fields are duplicated: ${showNames(dups)}`, path);
  }
  const defs = type.getFields();
  const given = new Set(entries.map(([k]) => k));
  for (const def of Object.values(defs)) {
    if (given.has(def.name)) continue;
    if (def.type instanceof GraphQLNonNull && def.defaultValue === undefined) {
      throw vf(`field ${def.name} of type ${showGT(def.type)} is required, but not found`, path);
    }
  }
  const fields: Array<[string, AnnValue]> = entries.map(([k, v]) => {
    const p = pathKey(path, k);
    const def = defs[k];
    if (!def) throw vf(`field ${showName(k)} not found in type: ${showNamedTy(type.name)}`, p);
    return [canonicalName(def), coerce(def.type, v, p, k)];
  });
  return { kind: 'object', type, fields, variable: ref };
}

function enumValue(type: GraphQLEnumType, name: string, path: string, ref: VarRef | undefined): AnnValue {
  const v = type.getValue(name);
  if (!v) throw vf(`unexpected value ${showName(name)} for enum: ${showNamedTy(type.name)}`, path);
  return { kind: 'enum', type, name, value: v.value, variable: ref };
}

const literalKind = (node: ValueNode): string => {
  switch (node.kind) {
    case Kind.STRING: return 'a string';
    case Kind.INT: return 'an integer';
    case Kind.FLOAT: return 'a float';
    case Kind.BOOLEAN: return 'a boolean';
    case Kind.LIST: return 'a list';
    case Kind.OBJECT: return 'an object';
    default: return 'a value';
  }
};

/**
 * Number literals keep their exact text where a JS number would lose digits: always for
 * non-GraphQL scalars (`bigint`, `numeric`... Postgres parses the text), and for `Int`/`Float`
 * only beyond the safe range.
 */
function numericLiteral(scalar: GraphQLScalarType, node: ValueNode): unknown {
  if (node.kind !== Kind.INT && node.kind !== Kind.FLOAT) return undefined;
  if (scalar.name === 'json' || scalar.name === 'jsonb') return undefined;
  const n = Number(node.value);
  if (scalar.name === 'Int' || scalar.name === 'Float') {
    return node.kind === Kind.INT && !Number.isSafeInteger(n) ? node.value : n;
  }
  return NUMERIC_CUSTOM.has(scalar.name) ? node.value : n;
}

/** A literal as JSON (object and list literals are allowed for json scalars; variables are not). */
export function literalJson(node: ValueNode, path: string): unknown {
  switch (node.kind) {
    case Kind.INT: return Number(node.value);
    case Kind.FLOAT: return Number(node.value);
    case Kind.STRING: return node.value;
    case Kind.BOOLEAN: return node.value;
    case Kind.NULL: return null;
    case Kind.ENUM: return node.value;
    case Kind.LIST: return node.values.map((v) => literalJson(v, path));
    case Kind.OBJECT: return Object.fromEntries(node.fields.map((f) => [f.name.value, literalJson(f.value, path)]));
    case Kind.VARIABLE: throw vf('variables are not allowed in scalars', path);
  }
}

/** A const literal (default values) validated against `type`. */
export const coerceConst = (type: GraphQLInputType, node: ConstValueNode, path: string): AnnValue =>
  coerceLiteral(type, node, path, null);

/**
 * Hasura's `isTypeAllowed`: may a variable of type `varType` be used where `positionType` is
 * expected? Same shape and base type; a nullable variable never fills a non-null position.
 */
export function isTypeAllowed(positionType: GraphQLInputType, varType: GraphQLInputType): boolean {
  const posNonNull = positionType instanceof GraphQLNonNull;
  const varNonNull = varType instanceof GraphQLNonNull;
  if (posNonNull && !varNonNull) return false;
  const pos = posNonNull ? (positionType as GraphQLNonNull<GraphQLInputType>).ofType : positionType;
  const v = varNonNull ? (varType as GraphQLNonNull<GraphQLInputType>).ofType : varType;
  if (pos instanceof GraphQLList && v instanceof GraphQLList) return isTypeAllowed(pos.ofType, v.ofType);
  if (pos instanceof GraphQLList || v instanceof GraphQLList) return false;
  return (pos as { name: string }).name === (v as { name: string }).name;
}
