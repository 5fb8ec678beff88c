/**
 * The per-request variable check when the plan is (probably) cached: one walk over the given JSON
 * that proves it valid against the declared types and computes, for each variable, the "shape"
 * the plan cache keys plans by (planner/signature.ts builds its key from `variableShape`), without building the annotated value
 * trees, reference paths and path strings that `coerceVariables` builds for the planner.
 *
 * It only vouches for what it can check cheaply; on anything else (an invalid value, a scalar
 * whose check throws, a variable named `__proto__`...) it returns undefined and the caller runs
 * `coerceVariables`, which throws the exact Hasura error at the exact path. So it may refuse valid
 * input (slow path, same answer) but never accepts invalid input: every check it does is one the
 * full coercion does too, and `tests/unit/graphql/quickVariables.test.ts` compares the two.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLScalarType,
  type GraphQLInputType, type VariableDefinitionNode,
} from 'graphql';
import { JsonBigNumber } from '../../lib/index.js';
import { checkScalarInput } from './scalarInput.js';
import { coerceVariables } from './variables.js';
import type { DeclaredVariable } from './types.js';

/** What the quick check gives: the values to bind, and each declared variable's plan shape. */
export interface QuickVariables {
  values: Record<string, unknown>;
  /** Per declared variable (declaration order): its shape, as `variableShape` computes it. */
  shapes: string[];
}

interface Declarations {
  names: Set<string>;
  /** Per declared variable: its default as JSON (what a client would have sent), or undefined. */
  defaults: unknown[];
  hasDefault: boolean[];
  /** A name the quick path does not handle (`__proto__` needs an own-property definition). */
  unusual: boolean;
}

const declarations = new WeakMap<readonly DeclaredVariable[], Declarations>();

function declarationsOf(declared: readonly DeclaredVariable[], defs: readonly VariableDefinitionNode[]): Declarations {
  let d = declarations.get(declared);
  if (d) return d;
  const defaults = declared.map((v, i): unknown => {
    const def = defs[i];
    if (def?.defaultValue === undefined) return undefined;
    // The default, validated and turned into JSON once, by the full coercion itself; an invalid
    // one stays undefined, so every request takes the full path and gets its error.
    try {
      return coerceVariables([v], [def], {}).values[v.name];
    } catch {
      return undefined;
    }
  });
  d = {
    names: new Set(declared.map((v) => v.name)),
    defaults,
    hasDefault: declared.map((_, i) => defs[i]?.defaultValue !== undefined),
    unusual: declared.some((v) => v.name === '__proto__') || defs.length !== declared.length,
  };
  declarations.set(declared, d);
  return d;
}

/**
 * The variables' values and shapes, or undefined when the full coercion must run (it then throws
 * the error, or finds the input valid after all).
 */
export function quickVariables(
  declared: readonly DeclaredVariable[], defs: readonly VariableDefinitionNode[], given: Record<string, unknown> | null | undefined,
): QuickVariables | undefined {
  const d = declarationsOf(declared, defs);
  if (d.unusual) return undefined;
  const input = given ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) return undefined;
  let count = 0;
  for (const k in input) {
    if (!d.names.has(k)) return undefined;
    count++;
  }
  const values: Record<string, unknown> = {};
  const shapes: string[] = new Array(declared.length);
  let seen = 0;
  for (let i = 0; i < declared.length; i++) {
    const v = declared[i]!;
    let value: unknown;
    if (Object.prototype.hasOwnProperty.call(input, v.name)) {
      seen++;
      value = input[v.name] ?? null;
    } else if (d.hasDefault[i]) {
      value = d.defaults[i];
      if (value === undefined) return undefined;
    } else {
      value = null;
    }
    const shape = variableShape(v.type, value);
    if (shape === undefined) return undefined;
    shapes[i] = shape;
    values[v.name] = value;
  }
  if (seen !== count) return undefined;
  return { values, shapes };
}

/**
 * The plan shape of a valid value — what changes a plan's SQL, and what planner/signature.ts keys
 * plans by: nulls, wrapped single values, list lengths of non-scalar items (runs of equal shapes
 * counted), input object keys in order, enum and Boolean values — or undefined when the value is
 * not certainly valid for `type`.
 *
 * Each input type gets its shape function built once (`shaperOf`): the type tests are made then,
 * not per value, and an input object's shape is rebuilt only when its keys or their shapes differ
 * from the previous value's, so the 100 objects of a bulk insert cost one string, not 100.
 */
export function variableShape(type: GraphQLInputType, v: unknown): string | undefined {
  return shaperOf(type)(v);
}

type Shaper = (v: unknown) => string | undefined;

const shapers = new WeakMap<GraphQLInputType, Shaper>();

function shaperOf(type: GraphQLInputType): Shaper {
  let shaper = shapers.get(type);
  if (shaper !== undefined) return shaper;
  // Input types may refer to themselves (`_and: [T!]`): while T is being built, a reference to it
  // goes through this stub.
  let built: Shaper | undefined;
  shapers.set(type, (v) => built!(v));
  built = buildShaper(type);
  shapers.set(type, built);
  return built;
}

function buildShaper(type: GraphQLInputType): Shaper {
  if (type instanceof GraphQLNonNull) {
    const inner = shaperOf(type.ofType as GraphQLInputType);
    return (v) => (v === null || v === undefined ? undefined : inner(v));
  }
  const shape = valueShaper(type);
  return (v) => (v === null || v === undefined ? 'N' : shape(v));
}

/** The shape of a non-null value of a nullable type. */
function valueShaper(base: GraphQLInputType): Shaper {
  if (base instanceof GraphQLList) return listShaper(base);
  if (base instanceof GraphQLInputObjectType) return objectShaper(base);
  if (base instanceof GraphQLEnumType) {
    // Enum value names are GraphQL names: JSON.stringify would add nothing but the quotes.
    return (v) => (typeof v === 'string' && base.getValue(v) !== undefined ? `E"${v}"` : undefined);
  }
  if (base === GraphQLBoolean) return (v) => (v === true ? 'T' : v === false ? 'F' : undefined);
  const scalar = base as GraphQLScalarType;
  // The common scalars' checks chosen once (scalarOk's), not by name per value.
  switch (scalar.name) {
    case 'String':
      return (v) => (typeof v === 'string' ? 'S' : undefined);
    case 'json':
    case 'jsonb':
      return () => 'S';
    case 'Int':
      return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) || scalarOk(scalar, v) ? 'S' : undefined;
    default:
      return (v) => (scalarOk(scalar, v) ? 'S' : undefined);
  }
}

function listShaper(base: GraphQLList<GraphQLInputType>): Shaper {
  const itemType = base.ofType;
  const item = shaperOf(itemType);
  const inner = itemType instanceof GraphQLNonNull ? itemType.ofType : itemType;
  if (!(inner instanceof GraphQLList) && !(inner instanceof GraphQLInputObjectType) && !(inner instanceof GraphQLEnumType) && inner !== GraphQLBoolean) {
    return (v) => {
      if (!Array.isArray(v)) {
        const one = item(v);
        return one === undefined ? undefined : `W${one}`;
      }
      for (let i = 0; i < v.length; i++) if (item(v[i]) === undefined) return undefined;
      return 'L';
    };
  }
  return (v) => {
    if (!Array.isArray(v)) {
      const one = item(v);
      return one === undefined ? undefined : `W${one}`;
    }
    // Runs of equal item shapes are written once with their count (`[{…}*100]`): the key of a
    // 100-row insert stays short to build and to hash.
    const runs: string[] = [];
    let prev: string | undefined;
    let count = 0;
    for (let i = 0; i < v.length; i++) {
      const s = item(v[i]);
      if (s === undefined) return undefined;
      if (s === prev) {
        count++;
        continue;
      }
      if (prev !== undefined) runs.push(count > 1 ? `${prev}*${count}` : prev);
      prev = s;
      count = 1;
    }
    if (prev !== undefined) runs.push(count > 1 ? `${prev}*${count}` : prev);
    return `[${runs.join(',')}]`;
  };
}

const hasOwn = Object.prototype.hasOwnProperty;

function objectShaper(type: GraphQLInputObjectType): Shaper {
  const fields = new Map<string, Shaper>();
  /** The fields a value must give (non-null, no default); insert inputs have none. */
  const required: string[] = [];
  for (const f of Object.values(type.getFields())) {
    fields.set(f.name, shaperOf(f.type));
    if (f.type instanceof GraphQLNonNull && f.defaultValue === undefined) required.push(f.name);
  }
  // The previous value's keys, their shapes and its shape string: an equal value returns the same
  // string (so a list's run comparison is one pointer test).
  let lastKeys: string[] = [];
  let lastShapes: string[] = [];
  let lastText = '{}';
  // The shapers of the previous value's keys: a key where the previous value had it needs no lookup.
  let lastFields: Shaper[] = [];
  return (v) => {
    if (typeof v !== 'object' || Array.isArray(v) || v instanceof JsonBigNumber) return undefined;
    const obj = v as Record<string, unknown>;
    const keys0 = lastKeys;
    const shapes0 = lastShapes;
    const fields0 = lastFields;
    const text0 = lastText;
    let keys: string[] | undefined;
    let shapes: string[] | undefined;
    let shapers: Shaper[] | undefined;
    let n = 0;
    for (const k in obj) {
      if (!hasOwn.call(obj, k)) continue;
      const same = keys === undefined && n < keys0.length && keys0[n] === k;
      const field = same ? fields0[n]! : fields.get(k);
      if (field === undefined) return undefined;
      const s = field(obj[k]);
      if (s === undefined) return undefined;
      if (keys === undefined) {
        if (same && shapes0[n] === s) {
          n++;
          continue;
        }
        keys = keys0.slice(0, n);
        shapes = shapes0.slice(0, n);
        shapers = fields0.slice(0, n);
      }
      keys.push(k);
      shapes!.push(s);
      shapers!.push(field);
      n++;
    }
    for (let i = 0; i < required.length; i++) if (!hasOwn.call(obj, required[i]!)) return undefined;
    if (keys === undefined) {
      if (n === keys0.length) return text0;
      keys = keys0.slice(0, n);
      shapes = shapes0.slice(0, n);
      shapers = fields0.slice(0, n);
    }
    // Field names are GraphQL names: `"k"` is what JSON.stringify(k) gives.
    let text = '{';
    for (let i = 0; i < keys.length; i++) text += i === 0 ? `"${keys[i]}":${shapes![i]}` : `,"${keys[i]}":${shapes![i]}`;
    text += '}';
    lastKeys = keys;
    lastShapes = shapes!;
    lastFields = shapers!;
    lastText = text;
    return text;
  };
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** The common scalars inline; every other one through the full check (a throw means "not sure"). */
function scalarOk(type: GraphQLScalarType, v: unknown): boolean {
  switch (type.name) {
    case 'String':
      return typeof v === 'string';
    case 'Int':
      if (Number.isInteger(v) && (v as number) >= INT32_MIN && (v as number) <= INT32_MAX) return true;
      break;
    case 'json':
    case 'jsonb':
      return true;
    default:
      break;
  }
  try {
    checkScalarInput(type, { from: 'json', value: v }, '');
    return true;
  } catch {
    return false;
  }
}
