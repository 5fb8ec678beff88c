/**
 * Checks a remote's introspection answer before it is stitched, with Hasura v1.3's messages (its
 * `Remote.hs` / graphql-parser checks): interfaces and objects with fields, objects implementing known
 * interfaces with every interface field (same or sub type, each argument provided with the interface's
 * exact type, no extra required argument), unions with members, all of them known object types. Returns the first problem's message, or null.
 */
import type { IntrospectionField, IntrospectionQuery, IntrospectionType, IntrospectionTypeRef } from 'graphql';

const q = (s: string) => JSON.stringify(s);
const show = (t: IntrospectionTypeRef): string =>
  t.kind === 'NON_NULL' ? `${show(t.ofType)}!` : t.kind === 'LIST' ? `[${show(t.ofType)}]` : t.name;

/** Structural problems a JSON decoder would report (a `null` name inside a list of type references). */
function shapeError(types: readonly unknown[]): string | null {
  for (let i = 0; i < types.length; i++) {
    const t = types[i] as Record<string, unknown> | null;
    if (!t || typeof t.name !== 'string') return `Error in $.types[${i}].name: parsing Text failed, expected String, but encountered Null`;
    for (const key of ['possibleTypes', 'interfaces'] as const) {
      const list = t[key];
      if (!Array.isArray(list)) continue;
      for (let j = 0; j < list.length; j++) {
        const r = list[j] as Record<string, unknown> | null;
        if (!r || typeof r.name !== 'string') return `Error in $.types[${i}].${key}[${j}].name: parsing Text failed, expected String, but encountered Null`;
      }
    }
  }
  return null;
}

/** Whether `sub` is the same type as `sup` or a sub type (non-null of it, an implementing object...). */
function isSubType(sub: IntrospectionTypeRef, sup: IntrospectionTypeRef, types: Map<string, IntrospectionType>): boolean {
  if (sup.kind === 'NON_NULL') return sub.kind === 'NON_NULL' && isSubType(sub.ofType, sup.ofType, types);
  if (sub.kind === 'NON_NULL') return isSubType(sub.ofType, sup, types);
  if (sup.kind === 'LIST') return sub.kind === 'LIST' && isSubType(sub.ofType, sup.ofType, types);
  if (sub.kind === 'LIST') return false;
  if (sub.name === sup.name) return true;
  const st = types.get(sup.name);
  if (st && (st.kind === 'INTERFACE' || st.kind === 'UNION')) return (st.possibleTypes ?? []).some((p) => p.name === sub.name);
  return false;
}

function checkImplementation(obj: string, f: IntrospectionField | undefined, iface: string, ifield: IntrospectionField, types: Map<string, IntrospectionType>): string | null {
  if (!f) return `Interface field ${q(iface)}.${q(ifield.name)} expected, but ${obj} does not provide it`;
  if (!isSubType(f.type, ifield.type, types)) {
    return `The type of Object field '${obj}'.${q(f.name)} (${show(f.type)}) is not the same type/sub type of Interface field '${iface}'.${q(ifield.name)} (${show(ifield.type)})`;
  }
  for (const ia of ifield.args) {
    const oa = f.args.find((a) => a.name === ia.name);
    if (!oa) {
      return `Interface field argument '${iface}'.${q(ifield.name)}(${q(ia.name)}:) required, but Object field '${obj}'.${q(f.name)} does not provide it`;
    }
    // The spec (and Hasura's `hasAllArgs`): an implementation's argument has exactly the interface's type.
    if (show(oa.type) !== show(ia.type)) {
      return `Interface field argument '${iface}'.${q(ifield.name)}(${q(ia.name)}:) expects type ${show(ia.type)}, but '${obj}'.${q(f.name)}(${q(oa.name)}:) has type ${show(oa.type)}`;
    }
  }
  for (const a of f.args) {
    if (a.type.kind === 'NON_NULL' && !ifield.args.some((ia) => ia.name === a.name)) {
      return `Object field argument '${obj}'.${q(f.name)}(${q(a.name)}:) is of required type ${show(a.type)}, but is not provided by Interface field '${iface}'.${q(ifield.name)}`;
    }
  }
  return null;
}

/** The first problem of `intro` (see the module comment), or null. */
export function introspectionError(intro: IntrospectionQuery): string | null {
  const raw = (intro as { __schema?: { types?: unknown } }).__schema;
  if (!raw || !Array.isArray(raw.types)) return 'Error in $: key "__schema" not found';
  const shape = shapeError(raw.types);
  if (shape) return shape;
  const types = new Map(intro.__schema.types.map((t) => [t.name, t]));
  for (const t of intro.__schema.types) {
    if (t.kind === 'INTERFACE' && (t.fields ?? []).length === 0) return `List of fields cannot be empty for interface '${t.name}'`;
  }
  // Object types are checked in name order (Hasura walks its type map sorted by name).
  const sorted = [...intro.__schema.types].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const t of sorted) {
    if (t.kind === 'OBJECT') {
      if (t.fields.filter((f) => f.name !== '__typename').length === 0) return `List of fields cannot be empty for Object type '${t.name}'`;
      for (const ref of t.interfaces ?? []) {
        const iface = types.get(ref.name);
        if (!iface || iface.kind !== 'INTERFACE') return `Could not find interface '${ref.name}' implemented by Object type '${t.name}'`;
        for (const ifield of iface.fields) {
          const err = checkImplementation(t.name, t.fields.find((f) => f.name === ifield.name), iface.name, ifield, types);
          if (err) return err;
        }
      }
    } else if (t.kind === 'UNION') {
      if ((t.possibleTypes ?? []).length === 0) return `List of member types cannot be empty for union type '${t.name}'`;
      for (const ref of t.possibleTypes ?? []) {
        const member = types.get(ref.name);
        if (!member) return `Could not find type '${ref.name}', which is defined as a member type of Union '${t.name}'`;
        if (member.kind !== 'OBJECT') return `Union type '${t.name}' can only include object types. It cannot include '${ref.name}'`;
      }
    }
  }
  if (!intro.__schema.queryType || !types.has(intro.__schema.queryType.name)) return 'query root type not found in the remote schema';
  return null;
}
