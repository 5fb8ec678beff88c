/**
 * actions.graphql, as Hasura's CLI writes it: the signatures of actions (`type Query` /
 * `type Mutation` fields) and the custom types (scalar, enum, input, type) as GraphQL SDL, while
 * actions.yaml keeps the rest (handler, kind, headers, permissions, object relationships).
 * `splitActions` produces both halves from exported metadata; `joinActions` puts them back.
 */
import { parse, print, Kind } from 'graphql';
import type { DefinitionNode, FieldDefinitionNode, InputValueDefinitionNode, TypeNode, StringValueNode } from 'graphql';
import { CliError } from './cliError.js';

type J = Record<string, any>;

function desc(d: unknown): string {
  return typeof d === 'string' && d !== '' ? `${JSON.stringify(d)} ` : '';
}

function argList(args: J[] | undefined): string {
  if (!args || args.length === 0) return '';
  return `(${args.map((a) => `${desc(a.description)}${a.name}: ${a.type}`).join(', ')})`;
}

function fieldsBlock(fields: J[] | undefined): string {
  return `{ ${(fields ?? []).map((f) => `${desc(f.description)}${f.name}${argList(f.arguments)}: ${f.type}`).join(' ')} }`;
}

/** SDL for the actions and custom types (empty string when there is none). */
export function actionsToSdl(actions: J[], customTypes: J | undefined): string {
  const parts: string[] = [];
  const root = (kind: 'query' | 'mutation', name: string) => {
    const mine = actions.filter((a) => (a.definition?.type ?? 'mutation') === kind);
    if (mine.length > 0) {
      parts.push(`type ${name} { ${mine.map((a) => `${a.name}${argList(a.definition?.arguments)}: ${a.definition?.output_type}`).join(' ')} }`);
    }
  };
  root('query', 'Query');
  root('mutation', 'Mutation');
  const ct = customTypes ?? {};
  for (const s of ct.scalars ?? []) parts.push(`${desc(s.description)}scalar ${s.name}`);
  for (const e of ct.enums ?? []) {
    const vals = (e.values ?? []).map((v: J) => `${desc(v.description)}${v.value}${v.is_deprecated ? ' @deprecated' : ''}`);
    parts.push(`${desc(e.description)}enum ${e.name} { ${vals.join(' ')} }`);
  }
  for (const i of ct.input_objects ?? []) parts.push(`${desc(i.description)}input ${i.name} ${fieldsBlock(i.fields)}`);
  for (const o of ct.objects ?? []) parts.push(`${desc(o.description)}type ${o.name} ${fieldsBlock(o.fields)}`);
  if (parts.length === 0) return '';
  return print(parse(parts.join('\n\n'))) + '\n';
}

function typeText(t: TypeNode): string {
  return print(t);
}

function description(n: { description?: StringValueNode | undefined }): J {
  return n.description ? { description: n.description.value } : {};
}

function inputValue(a: InputValueDefinitionNode): J {
  return { name: a.name.value, type: typeText(a.type), ...description(a) };
}

function field(f: FieldDefinitionNode): J {
  const o: J = { name: f.name.value, type: typeText(f.type), ...description(f) };
  if (f.arguments && f.arguments.length > 0) o.arguments = f.arguments.map(inputValue);
  return o;
}

export interface ParsedSdl {
  /** action name → {type, arguments, output_type} */
  signatures: Map<string, J>;
  customTypes: { scalars: J[]; enums: J[]; input_objects: J[]; objects: J[] };
}

/** Parses actions.graphql; a syntax error names the file, line and column. */
export function parseActionsSdl(text: string, file = 'actions.graphql'): ParsedSdl {
  const out: ParsedSdl = { signatures: new Map(), customTypes: { scalars: [], enums: [], input_objects: [], objects: [] } };
  if (text.trim() === '') return out;
  let doc;
  try {
    doc = parse(text);
  } catch (e) {
    const loc = (e as { locations?: { line: number; column: number }[] }).locations?.[0];
    throw new CliError(`${file}${loc ? `:${loc.line}:${loc.column}` : ''}: ${(e as Error).message}`);
  }
  for (const d of doc.definitions as readonly DefinitionNode[]) {
    if ((d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) && (d.name.value === 'Query' || d.name.value === 'Mutation')) {
      for (const f of d.fields ?? []) {
        const def: J = { type: d.name.value === 'Query' ? 'query' : 'mutation', output_type: typeText(f.type) };
        def.arguments = (f.arguments ?? []).map(inputValue);
        out.signatures.set(f.name.value, def);
      }
    } else if (d.kind === Kind.OBJECT_TYPE_DEFINITION) {
      out.customTypes.objects.push({ name: d.name.value, ...description(d), fields: (d.fields ?? []).map(field) });
    } else if (d.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      out.customTypes.input_objects.push({ name: d.name.value, ...description(d), fields: (d.fields ?? []).map(inputValue) });
    } else if (d.kind === Kind.SCALAR_TYPE_DEFINITION) {
      out.customTypes.scalars.push({ name: d.name.value, ...description(d) });
    } else if (d.kind === Kind.ENUM_TYPE_DEFINITION) {
      const values = (d.values ?? []).map((v) => {
        const o: J = { value: v.name.value, ...description(v) };
        if (v.directives?.some((x) => x.name.value === 'deprecated')) o.is_deprecated = true;
        return o;
      });
      out.customTypes.enums.push({ name: d.name.value, ...description(d), values });
    } else {
      throw new CliError(`${file}: unsupported definition ${d.kind}`);
    }
  }
  return out;
}

const SIGNATURE_KEYS = new Set(['type', 'arguments', 'output_type']);

/** actions.yaml's content: actions without their signatures, custom types by name (+ relationships). */
export function actionsYaml(actions: J[], customTypes: J | undefined): J {
  const ct = customTypes ?? {};
  const names = (xs: J[] | undefined) => (xs ?? []).map((x) => ({ name: x.name }));
  return {
    actions: actions.map((a) => {
      const def = Object.fromEntries(Object.entries(a.definition ?? {}).filter(([k]) => !SIGNATURE_KEYS.has(k)));
      return { ...a, definition: def };
    }),
    custom_types: {
      enums: names(ct.enums),
      input_objects: names(ct.input_objects),
      objects: (ct.objects ?? []).map((o: J) => (o.relationships ? { name: o.name, relationships: o.relationships } : { name: o.name })),
      scalars: names(ct.scalars),
    },
  };
}

/** Puts actions.yaml and actions.graphql back together into metadata's `actions` and `custom_types`. */
export function joinActions(yaml: J | undefined, sdl: ParsedSdl): { actions: J[]; custom_types: J } {
  const actions = ((yaml?.actions ?? []) as J[]).map((a) => {
    const sig = sdl.signatures.get(a.name);
    // An actions.yaml with full definitions (not the CLI split) is taken as it is.
    if (!sig) return a;
    return { ...a, definition: { ...(a.definition ?? {}), ...sig } };
  });
  for (const name of sdl.signatures.keys()) {
    if (!actions.some((a) => a.name === name)) throw new CliError(`actions.graphql declares action "${name}" that actions.yaml does not list`);
  }
  const relOf = new Map<string, unknown>();
  for (const o of (yaml?.custom_types?.objects ?? []) as J[]) if (o.relationships) relOf.set(o.name, o.relationships);
  const ct = sdl.customTypes;
  const objects = ct.objects.map((o) => (relOf.has(o.name) ? { ...o, relationships: relOf.get(o.name) } : o));
  return { actions, custom_types: { ...ct, objects } };
}
