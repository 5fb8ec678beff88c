/**
 * Remote schema customization (Hasura v2's `definition.customization`): the name maps built from the
 * remote's introspection (`remoteCustomizer`, checked as Hasura's `validateSchemaCustomizations`), and
 * the remote as the engine's schema shows it (`customizedRemote`: types, fields and type references
 * renamed). Rules, as Hasura's `getCustomizer`:
 * - type names: `mapping` first, then the namespace prefix of the root types (`<namespace><Query>`),
 *   then `prefix` / `suffix`; built-in scalars and `__` types never change, nor the root types when
 *   there is no namespace (their fields are the engine's root fields);
 * - field names: per `parent_type` (the remote's name of an object or interface type), `mapping`
 *   first, then `prefix` / `suffix`; arguments, input fields and enum values keep their names.
 * Permissions are written against the remote's own names: a role's view is customized after it is cut.
 */
import type {
  IntrospectionField, IntrospectionInputValue, IntrospectionQuery, IntrospectionType, IntrospectionTypeRef,
} from 'graphql';
import type { RemoteSchemaCustomization } from '../model/decodeRemoteSchema.js';
import { BuildError, quoted } from './buildState.js';
import type { RemoteCustomizer, RemoteSchemaInfo } from './types.js';

const BUILT_IN_SCALARS = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

function prefixSuffix(out: Map<string, string>, names: readonly string[], prefix?: string, suffix?: string): void {
  if (!prefix && !suffix) return;
  for (const n of names) if (!out.has(n)) out.set(n, `${prefix ?? ''}${n}${suffix ?? ''}`);
}

/** The root type names of an introspection (Mutation / Subscription by their default names when not declared). */
function rootTypeNames(intro: IntrospectionQuery, types: ReadonlyMap<string, IntrospectionType>): string[] {
  const s = intro.__schema;
  const orDefault = (ref: { name: string } | null | undefined, dflt: string) => ref?.name ?? (types.get(dflt)?.kind === 'OBJECT' ? dflt : undefined);
  return [s.queryType?.name, orDefault(s.mutationType, 'Mutation'), orDefault(s.subscriptionType, 'Subscription')].filter((n): n is string => !!n);
}

const duplicates = (names: Iterable<string>): string[] => {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const n of names) (seen.has(n) ? dups : seen).add(n);
  return [...dups];
};

/**
 * The name maps of `customization` over the remote's introspection (undefined: nothing to rename);
 * throws BuildError when two types or two fields of a type would get one name, or an interface's
 * field would be renamed unlike the same field of a type implementing it (Hasura's messages).
 */
export function remoteCustomizer(
  customization: RemoteSchemaCustomization | undefined, intro: IntrospectionQuery, types: ReadonlyMap<string, IntrospectionType>,
): RemoteCustomizer | undefined {
  if (!customization) return undefined;
  const namespace = customization.root_fields_namespace ?? null;
  const roots = rootTypeNames(intro, types);
  const typeNames = new Map<string, string>();
  const tc = customization.type_names;
  for (const [from, to] of Object.entries(tc?.mapping ?? {})) if (from !== to) typeNames.set(from, to);
  if (namespace) prefixSuffix(typeNames, roots, namespace);
  const renamable = [...types.keys()].filter((n) => !n.startsWith('__') && !BUILT_IN_SCALARS.has(n) && (namespace !== null || !roots.includes(n)));
  prefixSuffix(typeNames, renamable, tc?.prefix, tc?.suffix);
  for (const [k, v] of [...typeNames]) if (k === v) typeNames.delete(k);

  const fieldNames = new Map<string, Map<string, string>>();
  for (const fc of customization.field_names ?? []) {
    const t = types.get(fc.parent_type);
    if (!t || (t.kind !== 'OBJECT' && t.kind !== 'INTERFACE')) continue;
    const m = new Map<string, string>();
    for (const [from, to] of Object.entries(fc.mapping ?? {})) if (from !== to) m.set(from, to);
    prefixSuffix(m, t.fields.map((f) => f.name), fc.prefix, fc.suffix);
    for (const [k, v] of [...m]) if (k === v) m.delete(k);
    if (m.size > 0) fieldNames.set(fc.parent_type, m);
  }

  const typeName = (n: string) => typeNames.get(n) ?? n;
  const fieldName = (t: string, f: string) => fieldNames.get(t)?.get(f) ?? f;
  const typeDups = duplicates([...types.keys()].map(typeName));
  if (typeDups.length > 0) {
    throw new BuildError(`Type name mappings are not distinct; the following types appear more than once: ${typeDups.map(quoted).join(', ')}`);
  }
  for (const t of types.values()) {
    if (t.kind !== 'OBJECT' && t.kind !== 'INTERFACE') continue;
    const dups = duplicates(t.fields.map((f) => fieldName(t.name, f.name)));
    if (dups.length > 0) {
      const kind = t.kind === 'OBJECT' ? 'object' : 'interface';
      throw new BuildError(`Field name mappings for ${kind} type ${quoted(t.name)} are not distinct; the following fields appear more than once: ${dups.map(quoted).join(', ')}`);
    }
    if (t.kind !== 'INTERFACE') continue;
    for (const impl of t.possibleTypes ?? []) {
      for (const f of t.fields) {
        const mine = fieldName(t.name, f.name);
        const theirs = fieldName(impl.name, f.name);
        if (mine !== theirs) {
          throw new BuildError(
            `Remote schema customization inconsistency: field name mapping for field ${quoted(f.name)} of interface ${quoted(t.name)} is inconsistent with mapping for type ${quoted(impl.name)}. Interface field name maps to ${quoted(mine)}. Type field name maps to ${quoted(theirs)}.`,
          );
        }
      }
    }
  }
  if (namespace === null && typeNames.size === 0 && fieldNames.size === 0) return undefined;
  const remoteTypeNames = new Map([...typeNames].map(([k, v]) => [v, k]));
  const remoteFieldNames = new Map([...fieldNames].map(([t, m]) => [typeName(t), new Map([...m].map(([k, v]) => [v, k]))]));
  return { namespace, typeNames, remoteTypeNames, fieldNames, remoteFieldNames };
}

/** A type reference with the named type renamed. */
export function customizeTypeRef<T extends IntrospectionTypeRef>(ref: T, c: RemoteCustomizer): T {
  if (ref.kind === 'NON_NULL' || ref.kind === 'LIST') return { ...ref, ofType: customizeTypeRef(ref.ofType, c) } as T;
  const to = c.typeNames.get(ref.name);
  return to ? ({ ...ref, name: to } as T) : ref;
}

const inputValue = (v: IntrospectionInputValue, c: RemoteCustomizer): IntrospectionInputValue => ({ ...v, type: customizeTypeRef(v.type, c) });

/** A field of the remote's type `parent` as the engine's schema shows it (name, arguments' and result types). */
export function customizeField(parent: string, f: IntrospectionField, c: RemoteCustomizer): IntrospectionField {
  return { ...f, name: c.fieldNames.get(parent)?.get(f.name) ?? f.name, type: customizeTypeRef(f.type, c), args: f.args.map((a) => inputValue(a, c)) };
}

function customizeType(t: IntrospectionType, c: RemoteCustomizer): IntrospectionType {
  const name = c.typeNames.get(t.name) ?? t.name;
  const named = <R extends { name: string }>(r: R): R => ({ ...r, name: c.typeNames.get(r.name) ?? r.name });
  switch (t.kind) {
    case 'SCALAR':
    case 'ENUM':
      return { ...t, name };
    case 'INPUT_OBJECT':
      return { ...t, name, inputFields: t.inputFields.map((v) => inputValue(v, c)) };
    case 'OBJECT':
      return { ...t, name, fields: t.fields.map((f) => customizeField(t.name, f, c)), interfaces: t.interfaces.map(named) };
    case 'INTERFACE':
      return { ...t, name, fields: t.fields.map((f) => customizeField(t.name, f, c)), interfaces: (t.interfaces ?? []).map(named), possibleTypes: t.possibleTypes.map(named) };
    case 'UNION':
      return { ...t, name, possibleTypes: t.possibleTypes.map(named) };
  }
}

const customized = new WeakMap<RemoteSchemaInfo, RemoteSchemaInfo>();

/**
 * `remote` (whole, or a role's view of it) under the engine's names; the same object when it has no
 * customization. The result keeps `customizer`, so delegation can translate back.
 */
export function customizedRemote(remote: RemoteSchemaInfo): RemoteSchemaInfo {
  const c = remote.customizer;
  if (!c) return remote;
  let out = customized.get(remote);
  if (out) return out;
  const s = remote.introspection.__schema;
  const ref = (r: { name: string } | null | undefined) => (r ? { ...r, name: c.typeNames.get(r.name) ?? r.name } : r);
  const list = s.types.map((t) => customizeType(t, c));
  const introspection = {
    ...remote.introspection,
    __schema: { ...s, types: list, queryType: ref(s.queryType)!, mutationType: ref(s.mutationType), subscriptionType: ref(s.subscriptionType) },
  } as unknown as IntrospectionQuery;
  const types = new Map(list.map((t) => [t.name, t]));
  const root = (r: RemoteSchemaInfo['queryRoot']) => {
    const t = r ? types.get(c.typeNames.get(r.name) ?? r.name) : undefined;
    return t && t.kind === 'OBJECT' ? t : null;
  };
  out = { ...remote, introspection, types, queryRoot: root(remote.queryRoot), mutationRoot: root(remote.mutationRoot) };
  customized.set(remote, out);
  return out;
}

/** The root field names `remote` adds to the engine's schema: the namespace, or its (renamed) root fields. */
export function customizedRootFieldNames(remote: RemoteSchemaInfo): { query: string[]; mutation: string[] } {
  const r = customizedRemote(remote);
  const names = (root: RemoteSchemaInfo['queryRoot']) => {
    const fields = (root?.fields ?? []).map((f) => f.name);
    const ns = remote.customizer?.namespace;
    return ns ? (fields.length > 0 ? [ns] : []) : fields;
  };
  return { query: names(r.queryRoot), mutation: names(r.mutationRoot) };
}
