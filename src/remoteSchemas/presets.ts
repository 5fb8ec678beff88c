/**
 * `@preset` values of remote schema permissions, put into what is sent to the remote: each preset
 * argument of a selected field, and each preset field of an input object literal, becomes a
 * reference to a variable `$__svc_preset_<n>` (so the printed document is the same for every
 * session and is memoised); the variables' values are resolved per request from the session.
 * Client variables of input types with preset fields get those fields set too.
 */
import {
  Kind, TypeInfo, getNamedType, isInputObjectType, isListType, isNonNullType, parseType, visit, visitWithTypeInfo,
  type ArgumentNode, type DocumentNode, type FieldNode, type GraphQLInputType, type GraphQLSchema, type ObjectFieldNode,
  type ObjectValueNode, type OperationDefinitionNode, type VariableDefinitionNode,
} from 'graphql';
import { ApiError, type Session } from '../core/index.js';
import type { RemotePreset, RemoteRoleView } from '../metadata/index.js';

/** A preset variable of a prepared document: its name and what it holds. */
export interface PresetVariable {
  name: string;
  preset: RemotePreset;
}

const varRef = (name: string) => ({ kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } }) as const;

/** `doc` with the view's presets added (as variables, see the module comment). */
export function addPresets(doc: DocumentNode, schema: GraphQLSchema, view: RemoteRoleView): { doc: DocumentNode; presets: PresetVariable[] } {
  if (view.argPresets.size === 0 && view.inputPresets.size === 0) return { doc, presets: [] };
  const presets: PresetVariable[] = [];
  const variable = (preset: RemotePreset) => {
    const name = `__svc_preset_${presets.length}`;
    presets.push({ name, preset });
    return varRef(name);
  };
  const typeInfo = new TypeInfo(schema);
  const out = visit(doc, visitWithTypeInfo(typeInfo, {
    Field: {
      leave(node: FieldNode) {
        const parent = typeInfo.getParentType();
        const fixed = parent ? view.argPresets.get(`${parent.name}.${node.name.value}`) : undefined;
        if (!fixed) return undefined;
        const args: ArgumentNode[] = (node.arguments ?? []).filter((a) => !fixed.has(a.name.value));
        for (const [name, p] of fixed) args.push({ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: name }, value: variable(p) });
        return { ...node, arguments: args };
      },
    },
    ObjectValue: {
      leave(node: ObjectValueNode) {
        const t = typeInfo.getInputType();
        const fixed = t ? view.inputPresets.get(getNamedType(t).name) : undefined;
        if (!fixed) return undefined;
        const fields: ObjectFieldNode[] = node.fields.filter((f) => !fixed.has(f.name.value));
        for (const [name, p] of fixed) fields.push({ kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: name }, value: variable(p) });
        return { ...node, fields };
      },
    },
  }));
  if (presets.length === 0) return { doc, presets };
  const defs: VariableDefinitionNode[] = presets.map((p) => ({
    kind: Kind.VARIABLE_DEFINITION, variable: varRef(p.name), type: parseType(p.preset.type),
  }));
  return {
    doc: {
      ...out,
      definitions: out.definitions.map((d) => (d.kind === Kind.OPERATION_DEFINITION
        ? { ...d, variableDefinitions: [...(d.variableDefinitions ?? []), ...defs] } satisfies OperationDefinitionNode
        : d)),
    },
    presets,
  };
}

/** A preset's value for `session`: `x-svc-*` strings (not static) read from it, coerced to the type. */
export function presetValue(preset: RemotePreset, session: Session, schema: GraphQLSchema): unknown {
  if (preset.static) return preset.value;
  const type = typeOf(schema, preset.type);
  return resolve(preset.value, type, session);
}

function typeOf(schema: GraphQLSchema, s: string): GraphQLInputType | undefined {
  const node = parseType(s);
  const named = (n: typeof node): GraphQLInputType | undefined => {
    if (n.kind === Kind.NON_NULL_TYPE) return named(n.type);
    if (n.kind === Kind.LIST_TYPE) return named(n.type);
    return schema.getType(n.name.value) as GraphQLInputType | undefined;
  };
  return named(node);
}

function resolve(v: unknown, type: GraphQLInputType | undefined, session: Session): unknown {
  const t = type && isNonNullType(type) ? type.ofType : type;
  if (typeof v === 'string' && v.toLowerCase().startsWith('x-svc-')) {
    const key = v.toLowerCase();
    const value = session.vars[key];
    if (value === undefined) throw new ApiError('not-found', `missing session variable: ${JSON.stringify(key)}`);
    const name = t ? getNamedType(t).name : 'String';
    if (name === 'Int' || name === 'Float') {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || (name === 'Int' && !Number.isInteger(n))) {
        throw new ApiError('validation-failed', `expected ${name} for session variable ${JSON.stringify(key)}, but found ${JSON.stringify(value)}`);
      }
      return n;
    }
    if (name === 'Boolean') {
      if (value !== 'true' && value !== 'false') throw new ApiError('validation-failed', `expected Boolean for session variable ${JSON.stringify(key)}, but found ${JSON.stringify(value)}`);
      return value === 'true';
    }
    return value;
  }
  if (Array.isArray(v)) return v.map((x) => resolve(x, t && isListType(t) ? t.ofType : t, session));
  if (v !== null && typeof v === 'object') {
    const fields = t && isInputObjectType(t) ? t.getFields() : undefined;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, fields?.[k]?.type, session)]));
  }
  return v;
}

/** `value` (a client variable of `type`) with the preset input fields of the view set, at any depth. */
export function presetInVariable(value: unknown, type: GraphQLInputType, view: RemoteRoleView, session: Session, schema: GraphQLSchema): unknown {
  if (value === null || value === undefined) return value;
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return Array.isArray(value) ? value.map((x) => presetInVariable(x, t.ofType, view, session, schema)) : presetInVariable(value, t.ofType, view, session, schema);
  if (!isInputObjectType(t) || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = t.getFields();
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(value)) out[k] = fields[k] ? presetInVariable(x, fields[k].type, view, session, schema) : x;
  for (const [k, p] of view.inputPresets.get(t.name) ?? []) out[k] = presetValue(p, session, schema);
  return out;
}
